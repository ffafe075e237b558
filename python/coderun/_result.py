"""What a run produces, as frozen dataclasses built from the native dict."""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Optional, Tuple

#: The failure kinds, as the contract spells them.
FAILURE_KINDS = ("exception", "timeout", "abort", "worker-exit", "diverged")


@dataclasses.dataclass(frozen=True)
class LogLine:
    """One console line: the method that printed it and what it printed."""

    #: ``"log"``, ``"info"``, ``"warn"``, ``"error"`` or ``"debug"``.
    level: str
    #: The arguments rendered like Node's ``util.inspect``, joined by spaces.
    text: str

    def __str__(self) -> str:
        return self.text


@dataclasses.dataclass(frozen=True)
class RunFailure:
    """Why a run failed: its kind and a message written for a model to act on."""

    #: ``"exception"``, ``"timeout"``, ``"abort"``, ``"worker-exit"``, or for
    #: replays and resumes ``"diverged"``.
    kind: str
    #: What happened: the thrown error and its stack, the budget that ran out...
    message: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.message}"


@dataclasses.dataclass(frozen=True)
class Interrupted:
    """A run a binding interrupted (``raise coderun.Interrupt(payload)``)."""

    #: What the binding raised ``Interrupt`` with.
    payload: Any
    #: The interrupted call, e.g. ``"tools.delete_file"``.
    call: str
    #: Its step in the record (the first binding call is step 1).
    step: int
    #: The continuation, JSON text (``coderun.continuation`` version 1): store
    #: it anywhere and pass it to ``Runtime.resume`` in any process.
    continuation: str


@dataclasses.dataclass(frozen=True)
class RunResult:
    """The outcome of one run. A program's failure is data here, never an exception.

    Exactly one of these holds: the run returned (``error`` and
    ``interrupted`` are ``None``), it failed (``error`` is set), or a binding
    interrupted it (``interrupted`` is set).
    """

    #: The returned value as JSON data (``dict``, ``list``, ``str``, ``int``,
    #: ``float``, ``bool``, ``None``). ``None`` also when the program returned
    #: nothing; ``value_display`` tells the two apart.
    value: Any
    #: Console output, one line per call, in order (capped by ``max_log_bytes``).
    logs: Tuple[LogLine, ...]
    #: Present iff the run failed.
    error: Optional[RunFailure] = None
    #: The returned value as ``console.log`` prints it; ``None`` iff the
    #: program returned nothing (or did not return).
    value_display: Optional[str] = None
    #: Fuel the guest consumed (deterministic: the same program and budget
    #: consume the same fuel on any machine).
    fuel_consumed: int = 0
    #: Present iff a binding interrupted the run.
    interrupted: Optional[Interrupted] = None
    #: The run's record as JSON text (``coderun.run-record`` version 1), when
    #: the run was recorded, replayed or resumed.
    record: Optional[str] = None

    @property
    def ok(self) -> bool:
        """Whether the run returned: it neither failed nor was interrupted."""
        return self.error is None and self.interrupted is None

    def record_json(self) -> Optional[dict]:
        """The record, parsed (``None`` when the run was not recorded)."""
        return None if self.record is None else json.loads(self.record)

    @classmethod
    def _from_native(cls, raw: dict) -> "RunResult":
        # Every run makes one: fill the fields directly rather than through
        # the frozen dataclass's __init__ (object.__setattr__ per field).
        error = raw["error"]
        interrupted = raw["interrupted"]
        logs = raw["logs"]
        result = object.__new__(cls)
        result.__dict__.update(
            value=raw["value"],
            logs=tuple(LogLine(level, text) for level, text in logs) if logs else (),
            error=None if error is None else RunFailure(*error),
            value_display=raw["value_display"],
            fuel_consumed=raw["fuel_consumed"],
            interrupted=None if interrupted is None else Interrupted(**interrupted),
            record=raw["record"],
        )
        return result


@dataclasses.dataclass(frozen=True)
class DispatchEvent:
    """One tool call a ``run_code`` program made, once it settled."""

    #: The id of the ``run_code`` call whose program made this call.
    parent_call_id: str
    #: ``<parent_call_id>:code:<n>``, ``n`` counting dispatched calls from 1.
    sub_call_id: str
    #: The tool called.
    name: str
    #: The arguments as dispatched.
    arguments: Any
    #: Whether the call failed or was denied.
    is_error: bool
    #: The start of what the program got (at most 400 bytes).
    result_summary: str


@dataclasses.dataclass(frozen=True)
class CodeResult:
    """What ``ToolRegistry.run_code`` returns: the ``run_code`` tool's result."""

    #: What the model is shown: the printed lines, then the returned value
    #: rendered like ``console.log``; on failure ``code run failed (<kind>):
    #: <message>`` and the output printed before it.
    text: str
    #: Whether the run failed.
    is_error: bool
    #: ``{"logs": [...], "value": ...}``, or on failure ``{"kind", "message", "logs"}``.
    structured: Any
    #: The tool calls the program made, in the order they settled.
    events: Tuple[DispatchEvent, ...]

    @classmethod
    def _from_native(cls, raw: dict) -> "CodeResult":
        return cls(
            text=raw["text"],
            is_error=raw["is_error"],
            structured=raw["structured"],
            events=tuple(DispatchEvent(**event) for event in raw["events"]),
        )
