"""coderun: run model-written TypeScript in a QuickJS-in-wasm sandbox, from Python.

A program is the body of an async function, in TypeScript; it runs in a
fresh wasm instance per run, under deterministic fuel, a wall clock, a
memory cap and output caps, and reaches the host only through the
bindings you give it::

    import asyncio
    import coderun

    async def search(args):
        return [{"name": "q3.pdf", "size": 2_000_000}]

    async def main():
        with coderun.Runtime(wall_clock=5) as runtime:
            result = await runtime.run(
                "const files = await tools.search({ q: 'report' });\\n"
                "console.log(files.length, 'found');\\n"
                "return files.map((f) => f.name);",
                bindings={"tools": {"search": search}},
            )
            assert result.value == ["q3.pdf"]
            assert [line.text for line in result.logs] == ["1 found"]

    asyncio.run(main())

Core concepts:

- ``Runtime``: the budgets and the compiled guest; ``run`` (awaited) and
  ``run_sync`` (blocking, the GIL released) return a ``RunResult`` for every
  program outcome. Exceptions are only for misuse (``MisuseError``) and
  invalid options (``ConfigError``).
- ``RunResult(value, logs, error, ...)``: ``error.kind`` is ``exception``,
  ``timeout``, ``abort`` or ``worker-exit`` (and ``diverged`` for replays).
- Bindings: ``{"tools": {"search": fn}}``; ``fn`` may be ``async def``. A
  Python exception rejects that call inside the program with its message;
  ``raise Interrupt(payload)`` interrupts a recorded run.
- Durable runs: ``deterministic=True``, ``seed=``, ``record=True``;
  ``replay(record)``, ``resume(continuation, answer=...)``.
- ``ToolRegistry``: Code Mode, tools with JSON Schemas, ``sdk()``,
  ``run_code(code)``.
- ``coderun.ray``: many programs across a Ray cluster.
"""

from ._native import ConfigError, Interrupt, MisuseError
from ._native import defaults as _defaults
from ._registry import ToolRegistry
from ._result import (
    FAILURE_KINDS,
    CodeResult,
    DispatchEvent,
    Interrupted,
    LogLine,
    RunFailure,
    RunResult,
)
from ._runtime import Bindings, Runtime

#: The Rust library's defaults, in the units ``Runtime`` takes.
DEFAULTS = _defaults()

__all__ = [
    "DEFAULTS",
    "FAILURE_KINDS",
    "Bindings",
    "CodeResult",
    "ConfigError",
    "DispatchEvent",
    "Interrupt",
    "Interrupted",
    "LogLine",
    "MisuseError",
    "RunFailure",
    "RunResult",
    "Runtime",
    "ToolRegistry",
]
