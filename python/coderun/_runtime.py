"""``Runtime``: the sandbox, its budgets, and runs awaited or blocking."""

from __future__ import annotations

import asyncio
import os
import threading
from typing import Any, Awaitable, Callable, Dict, Mapping, Optional, Union

from . import _native
from ._result import RunResult

#: ``{global: {function name: callable}}``: each global is one object of async
#: functions in the program. A callable gets the call's argument (JSON data,
#: ``None`` when the program passed none) and returns JSON data, or an
#: awaitable of it (``async def``).
Bindings = Mapping[str, Mapping[str, Callable[[Any], Union[Any, Awaitable[Any]]]]]
#: A network policy (see ``Runtime``): ``{"allow": [...], "secrets": {...}, ...}``.
Network = Mapping[str, Any]

_loop_lock = threading.Lock()
_loop: Optional[asyncio.AbstractEventLoop] = None
_loop_pid: Optional[int] = None


def _background_loop() -> asyncio.AbstractEventLoop:
    """The event loop the ``async def`` bindings of blocking runs run on: one
    per process, on a daemon thread, started on first use."""
    global _loop, _loop_pid
    with _loop_lock:
        if _loop is None or _loop_pid != os.getpid():
            loop = asyncio.new_event_loop()
            thread = threading.Thread(
                target=loop.run_forever, name="coderun-bindings", daemon=True
            )
            thread.start()
            _loop, _loop_pid = loop, os.getpid()
        return _loop


def _namespaces(bindings: Optional[Bindings]) -> Optional[Dict[str, Dict[str, Any]]]:
    if bindings is None:
        return None
    if not isinstance(bindings, Mapping):
        raise TypeError(
            f"bindings must be a mapping of globals to functions by name (got {type(bindings).__name__})"
        )
    out: Dict[str, Dict[str, Any]] = {}
    for name, functions in bindings.items():
        if not isinstance(functions, Mapping):
            raise TypeError(
                f"bindings[{name!r}] must be a mapping of functions by name (got {type(functions).__name__})"
            )
        out[name] = dict(functions)
    return out


class Runtime:
    """A coderun sandbox: runs TypeScript programs, each in a fresh
    QuickJS-in-wasm instance, under the budgets given here.

    Every option left out takes the Rust library's default
    (``coderun.DEFAULTS``); an invalid value raises ``ConfigError`` with the
    Rust library's message, naming the key and the value
    (``config.fuel must be positive (got 0)``).

    Args:
        fuel: wasm instructions per run; deterministic. Default ``5_000_000_000``.
        fuel_metering: enforce the fuel budget. Default ``True``.
        wall_clock: seconds per run, waiting on bindings included. Default ``30``.
        max_memory_mib: the guest's memory cap, MiB (8 – 4096). Default ``128``.
        max_log_bytes: console output kept per run. Default 1 MiB.
        max_value_bytes: the returned value's JSON size, and each binding
            argument's. Default 1 MiB.
        max_error_bytes: the failure message. Default 64 KiB.
        max_program_bytes: the longest program accepted. Default 1 MiB.
        max_nesting_depth: the deepest syntax nesting accepted. Default ``1000``.
        max_total_memory_mib: memory all concurrent runs hold together, MiB.
            Default: half the machine's memory.
        max_concurrent_runs: runs executing at once; more wait. Default ``1000``.
        instance_pools: how many instance pools (each an engine with its own
            copy of the compiled guest, about 11 MiB) the runs are spread
            over, 1 – 64; a thread takes its runs from one pool, which keeps
            short runs on several cores from slowing each other. Default
            ``None``: one per usable core, at most 8.
        max_pending_calls: binding calls one run may have in flight. Default ``1024``.
        max_record_bytes: a recorded run's ledger. Default 64 MiB.
        continuation_ttl: seconds a signed continuation stays resumable. Default 7 days.
        continuation_key: an HMAC-SHA256 key (at least 32 bytes) to sign
            continuations with. Default ``None``.
        network: what programs' ``fetch`` may reach; default nothing. A dict:
            ``allow`` (origins such as ``"https://api.github.com"``,
            ``"https://*.example.com"``, ``"http://127.0.0.1:*"``, or rules
            ``{"origin", "methods", "paths", "headers"}``), ``secrets``
            (``{name: {"value": …, "origins": […]}}``; a program sends one
            by writing ``{{secret:name}}`` in a header and never sees its
            value), ``allow_loopback`` and ``allow_private`` (default
            False), ``max_requests`` (50 per run), ``max_in_flight`` (6),
            ``max_response_bytes`` (10 MiB), ``max_request_body_bytes`` (1
            MiB), ``timeout`` (30.0 seconds per request), ``max_redirects``
            (20).
        compile_cache_dir: a directory to keep the compiled guest in between
            processes (trusted writers only). Default ``None``: the guest is
            compiled once per runtime, which takes about a second.

    Use it as a context manager (``with`` or ``async with``), or call
    ``close()``: closing aborts runs in flight and waits until every guest
    has stopped; later runs raise ``MisuseError``.
    """

    __slots__ = ("_native",)

    def __init__(
        self,
        *,
        fuel: Optional[int] = None,
        fuel_metering: Optional[bool] = None,
        wall_clock: Optional[float] = None,
        max_memory_mib: Optional[int] = None,
        max_log_bytes: Optional[int] = None,
        max_value_bytes: Optional[int] = None,
        max_error_bytes: Optional[int] = None,
        max_program_bytes: Optional[int] = None,
        max_nesting_depth: Optional[int] = None,
        max_total_memory_mib: Optional[int] = None,
        max_concurrent_runs: Optional[int] = None,
        instance_pools: Optional[int] = None,
        max_pending_calls: Optional[int] = None,
        max_record_bytes: Optional[int] = None,
        continuation_ttl: Optional[float] = None,
        continuation_key: Optional[bytes] = None,
        compile_cache_dir: Optional[Union[str, "os.PathLike[str]"]] = None,
        network: Optional[Network] = None,
    ) -> None:
        self._native = _native.Runtime(
            fuel=fuel,
            fuel_metering=fuel_metering,
            wall_clock=wall_clock,
            max_memory_mib=max_memory_mib,
            max_log_bytes=max_log_bytes,
            max_value_bytes=max_value_bytes,
            max_error_bytes=max_error_bytes,
            max_program_bytes=max_program_bytes,
            max_nesting_depth=max_nesting_depth,
            max_total_memory_mib=max_total_memory_mib,
            max_concurrent_runs=max_concurrent_runs,
            instance_pools=instance_pools,
            max_pending_calls=max_pending_calls,
            max_record_bytes=max_record_bytes,
            continuation_ttl=continuation_ttl,
            continuation_key=continuation_key,
            compile_cache_dir=None if compile_cache_dir is None else os.fspath(compile_cache_dir),
            network=network,
        )

    @property
    def config(self) -> Dict[str, Any]:
        """The configuration in effect (seconds, MiB)."""
        return self._native.config

    @property
    def language(self) -> str:
        """``"typescript"``."""
        return self._native.language

    @property
    def isolation(self) -> str:
        """``"wasm"``: a label, not a security claim."""
        return self._native.isolation

    async def run(
        self,
        code: str,
        bindings: Optional[Bindings] = None,
        *,
        seed: Optional[int] = None,
        deterministic: bool = False,
        epoch_ms: int = 0,
        record: bool = False,
        time_zone: Optional[str] = None,
        network: Optional[Network] = None,
    ) -> RunResult:
        """Runs ``code``, the body of an async function (top-level ``await``
        and ``return`` work), and returns its result; a program's failure is
        ``result.error``, never an exception.

        ``async def`` bindings run on this event loop; plain functions are
        called on one of coderun's threads. Cancelling the awaiting task
        stops the program at once (its guest is dropped); binding calls
        already started are left to finish and their results dropped.

        Args:
            bindings: ``{"tools": {"search": fn}}``.
            seed: the seed of ``Math.random`` and ``crypto``; default fresh.
            deterministic: a virtual clock from ``epoch_ms`` (timers fire at
                once, in order; calls settle in start order), the seed
                ``seed`` (default 0): the same program and binding results
                give the same value, logs and fuel.
            record: carry the run's record in ``result.record``, and let
                bindings interrupt the run (``coderun.Interrupt``).
            time_zone: the zone of local time (``Date``'s local fields and
                text, ``Intl``'s default): an IANA name
                (``"America/New_York"``), ``"UTC"`` or an offset
                (``"+05:30"``); default UTC, whatever the machine's zone. A
                name the sandbox lacks ends the run as an ``exception``.
            network: what the program's ``fetch`` may reach in this run,
                replacing the runtime's ``network`` (see ``Runtime``).

        Raises:
            MisuseError: the runtime is closed, or a binding global is not a
                valid, unreserved identifier.
        """
        raw = await self._native.run(
            code,
            _namespaces(bindings),
            seed=seed,
            deterministic=deterministic,
            epoch_ms=epoch_ms,
            record=record,
            time_zone=time_zone,
            network=network,
        )
        return RunResult._from_native(raw)

    def run_sync(
        self,
        code: str,
        bindings: Optional[Bindings] = None,
        *,
        seed: Optional[int] = None,
        deterministic: bool = False,
        epoch_ms: int = 0,
        record: bool = False,
        time_zone: Optional[str] = None,
        network: Optional[Network] = None,
    ) -> RunResult:
        """``run`` on this thread, blocking, the GIL released while the
        program runs (threads running programs at once run in parallel).
        ``async def`` bindings run on a background event loop. Do not call
        it from a binding (it raises ``MisuseError``): await ``run`` there."""
        namespaces = _namespaces(bindings)
        raw = self._native.run_sync(
            code,
            namespaces,
            seed=seed,
            deterministic=deterministic,
            epoch_ms=epoch_ms,
            record=record,
            time_zone=time_zone,
            network=network,
            event_loop=_background_loop() if namespaces else None,
        )
        return RunResult._from_native(raw)

    async def replay(self, record: str) -> RunResult:
        """Re-runs a recorded run (``result.record``) with its seed and clock,
        every binding call answered from the record's ledger and checked
        against it: a different call ends the run as ``diverged``, naming
        the step. No binding is called."""
        return RunResult._from_native(await self._native.replay(_text(record)))

    def replay_sync(self, record: str) -> RunResult:
        """``replay``, blocking."""
        return RunResult._from_native(self._native.replay_sync(_text(record)))

    async def resume(
        self,
        continuation: str,
        bindings: Optional[Bindings] = None,
        *,
        answer: Any = None,
        reject: Optional[str] = None,
    ) -> RunResult:
        """Resumes an interrupted run (``result.interrupted.continuation``),
        in this process or another: replays its ledger without calling any
        binding, gives the interrupted call ``answer`` (or rejects it with
        ``reject``), and goes on live with ``bindings``, which must be the
        recorded ones. It may be interrupted again."""
        raw = await self._native.resume(
            _text(continuation), _namespaces(bindings), answer=answer, reject=reject
        )
        return RunResult._from_native(raw)

    def resume_sync(
        self,
        continuation: str,
        bindings: Optional[Bindings] = None,
        *,
        answer: Any = None,
        reject: Optional[str] = None,
    ) -> RunResult:
        """``resume``, blocking."""
        namespaces = _namespaces(bindings)
        raw = self._native.resume_sync(
            _text(continuation),
            namespaces,
            answer=answer,
            reject=reject,
            event_loop=_background_loop() if namespaces else None,
        )
        return RunResult._from_native(raw)

    def close(self) -> None:
        """Aborts runs in flight (they end as ``abort``, saying the runtime
        was disposed), waits until every guest has stopped, and makes later
        runs raise ``MisuseError``. Idempotent."""
        self._native.close()

    async def aclose(self) -> None:
        """``close``, awaited."""
        await self._native.aclose()

    def __enter__(self) -> "Runtime":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    async def __aenter__(self) -> "Runtime":
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.aclose()


def _text(document: Union[str, bytes, Mapping[str, Any]]) -> str:
    """A record or continuation as JSON text (it may be given parsed)."""
    if isinstance(document, str):
        return document
    if isinstance(document, bytes):
        return document.decode("utf-8")
    import json

    return json.dumps(document)
