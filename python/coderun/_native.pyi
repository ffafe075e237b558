"""Type stubs of the native module (PyO3). Use the ``coderun`` package's
wrappers (``coderun.Runtime``, ``coderun.ToolRegistry``) rather than these."""

from typing import Any, Awaitable, Callable, Dict, Mapping, Optional

class ConfigError(ValueError):
    """A runtime option is out of range: the message names the key and the value."""

class MisuseError(RuntimeError):
    """The API was misused: a closed runtime, an invalid binding global, or a
    record or continuation that cannot be replayed or resumed here."""

class Interrupt(Exception):
    """Raised by a binding to interrupt a recorded run: ``raise Interrupt(payload)``."""

_RawResult = Dict[str, Any]
_RawBindings = Optional[Mapping[str, Mapping[str, Callable[[Any], Any]]]]

class Runtime:
    def __init__(
        self,
        *,
        fuel: Optional[int] = ...,
        fuel_metering: Optional[bool] = ...,
        wall_clock: Optional[float] = ...,
        max_memory_mib: Optional[int] = ...,
        max_log_bytes: Optional[int] = ...,
        max_value_bytes: Optional[int] = ...,
        max_error_bytes: Optional[int] = ...,
        max_program_bytes: Optional[int] = ...,
        max_nesting_depth: Optional[int] = ...,
        max_total_memory_mib: Optional[int] = ...,
        max_concurrent_runs: Optional[int] = ...,
        instance_pools: Optional[int] = ...,
        max_pending_calls: Optional[int] = ...,
        max_record_bytes: Optional[int] = ...,
        continuation_ttl: Optional[float] = ...,
        continuation_key: Optional[bytes] = ...,
        compile_cache_dir: Optional[str] = ...,
        network: Optional[Mapping[str, Any]] = ...,
    ) -> None: ...
    @property
    def config(self) -> Dict[str, Any]: ...
    @property
    def language(self) -> str: ...
    @property
    def isolation(self) -> str: ...
    def run(
        self,
        code: str,
        bindings: _RawBindings = ...,
        *,
        seed: Optional[int] = ...,
        deterministic: bool = ...,
        epoch_ms: int = ...,
        record: bool = ...,
        time_zone: Optional[str] = ...,
        network: Optional[Mapping[str, Any]] = ...,
    ) -> Awaitable[_RawResult]: ...
    def run_sync(
        self,
        code: str,
        bindings: _RawBindings = ...,
        *,
        seed: Optional[int] = ...,
        deterministic: bool = ...,
        epoch_ms: int = ...,
        record: bool = ...,
        time_zone: Optional[str] = ...,
        network: Optional[Mapping[str, Any]] = ...,
        event_loop: Any = ...,
    ) -> _RawResult: ...
    def replay(self, record_json: str) -> Awaitable[_RawResult]: ...
    def replay_sync(self, record_json: str) -> _RawResult: ...
    def resume(
        self,
        continuation_json: str,
        bindings: _RawBindings = ...,
        *,
        answer: Any = ...,
        reject: Optional[str] = ...,
    ) -> Awaitable[_RawResult]: ...
    def resume_sync(
        self,
        continuation_json: str,
        bindings: _RawBindings = ...,
        *,
        answer: Any = ...,
        reject: Optional[str] = ...,
        event_loop: Any = ...,
    ) -> _RawResult: ...
    def close(self) -> None: ...
    def aclose(self) -> Awaitable[None]: ...

class ToolRegistry:
    def __init__(self, runtime: Runtime, *, mode: str = ...) -> None: ...
    def register(
        self,
        name: str,
        description: str,
        input_schema: Any,
        handler: Callable[[Any], Any],
        *,
        output_schema: Any = ...,
        concurrency_safe: bool = ...,
    ) -> None: ...
    def on_pre_execute(self, hook: Callable[[str, Any], Optional[str]]) -> None: ...
    def sdk(self) -> str: ...
    def assemble(self) -> Dict[str, Any]: ...
    def run_code(self, code: str) -> Awaitable[Dict[str, Any]]: ...
    def run_code_sync(self, code: str, event_loop: Any = ...) -> Dict[str, Any]: ...

def defaults() -> Dict[str, Any]: ...
def rust_loop(runtime: Runtime, code: str, runs: int, echo: bool = ...) -> float: ...
