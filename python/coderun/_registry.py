"""Code Mode: a registry of Python tools that programs call through ``run_code``."""

from __future__ import annotations

from typing import Any, Awaitable, Callable, Dict, Optional, Union

from . import _native
from ._result import CodeResult
from ._runtime import Runtime, _background_loop

#: A tool's handler: the call's arguments (JSON data) in, the result out (or
#: an awaitable of it). A ``str`` is the result's text; anything else is
#: JSON. An exception makes the call fail with its message.
Handler = Callable[[Any], Union[Any, Awaitable[Any]]]


class ToolRegistry:
    """Tools a model can use, offered natively or as one ``run_code`` tool
    with a TypeScript SDK (Code Mode).

    ``run_code`` goes through the Rust bridge exactly as the Rust crate's
    registry does: each call a program makes passes the pre-execute hooks,
    the per-run call queue (one call at a time, except consecutive calls of
    concurrency-safe tools), the handler, and is recorded as a
    ``DispatchEvent``.

    Args:
        runtime: the runtime programs run on.
        mode: what ``assemble()`` offers a model: ``"native"`` (every tool as
            itself), ``"code"`` (only ``run_code`` and the SDK) or ``"both"``.
            Default ``"code"``.
    """

    __slots__ = ("_native", "_runtime")

    def __init__(self, runtime: Runtime, *, mode: str = "code") -> None:
        self._runtime = runtime
        self._native = _native.ToolRegistry(runtime._native, mode=mode)

    def register(
        self,
        name: str,
        description: str,
        input_schema: Dict[str, Any],
        handler: Handler,
        *,
        output_schema: Optional[Dict[str, Any]] = None,
        concurrency_safe: bool = False,
    ) -> None:
        """Adds a tool. Its name must be non-empty and unique. With an
        ``output_schema``, a program's call resolves with the handler's
        JSON value (typed in the SDK); without one, with the result's text
        (a ``str`` as itself, anything else as compact JSON)."""
        self._native.register(
            name,
            description,
            input_schema,
            handler,
            output_schema=output_schema,
            concurrency_safe=concurrency_safe,
        )

    def tool(
        self,
        name: str,
        description: str,
        input_schema: Dict[str, Any],
        *,
        output_schema: Optional[Dict[str, Any]] = None,
        concurrency_safe: bool = False,
    ) -> Callable[[Handler], Handler]:
        """``register`` as a decorator: ``@registry.tool("add", "Add.", schema)``."""

        def decorate(handler: Handler) -> Handler:
            self.register(
                name,
                description,
                input_schema,
                handler,
                output_schema=output_schema,
                concurrency_safe=concurrency_safe,
            )
            return handler

        return decorate

    def on_pre_execute(self, hook: Callable[[str, Any], Optional[str]]) -> None:
        """Adds a hook called before every tool call with ``(name,
        arguments)``: ``None`` allows the call, a ``str`` denies it with that
        reason (the program's call rejects with it). Hooks run in the order
        added; the first denial wins."""
        self._native.on_pre_execute(hook)

    def sdk(self) -> str:
        """The TypeScript declarations of every tool (``declare const tools:
        {...};``, sorted by name): what a model writes programs against."""
        return self._native.sdk()

    def assemble(self) -> Dict[str, Any]:
        """What a model is offered under the mode: ``{"tools": [{"name",
        "description", "input_schema"}], "sdk_section": str | None}``."""
        return self._native.assemble()

    async def run_code(self, code: str) -> CodeResult:
        """Runs a ``run_code`` call of ``code``. ``async def`` handlers run
        on this event loop. Cancelling it stops the program and aborts its
        in-flight tool calls."""
        return CodeResult._from_native(await self._native.run_code(code))

    def run_code_sync(self, code: str) -> CodeResult:
        """``run_code``, blocking, the GIL released while the program runs."""
        return CodeResult._from_native(
            self._native.run_code_sync(code, event_loop=_background_loop())
        )
