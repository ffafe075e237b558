"""Many programs across a Ray cluster: one ``Runtime`` per worker process.

::

    import ray
    import coderun.ray

    ray.init()  # or ray.init(address="auto") on a cluster
    results = coderun.ray.map(
        ["return 1 + 1", "return 'a'.repeat(3)"],
        num_workers=2,
    )
    assert [r.value for r in results] == [2, "aaa"]

Each worker is a Ray actor holding one ``coderun.Runtime``, built once and
reused for every run it is given (the guest compiles once per process, or
is loaded from ``compile_cache_dir``). Results come back in the order of the
programs. At most ``max_in_flight`` batches are outstanding at once, so a
long list of programs is fed to the cluster as it drains, not all at once.

Fuel is deterministic: a program gives the same result and consumes the same
fuel on every worker and every node (with the same coderun build and
budgets), so results can be checked against a run anywhere else.

**Bindings** are given as ``{"tools": {"name": fn}}`` (pickled and sent to
every worker) or as a function of no arguments returning that dict, called
once in each worker process. Use the function form for bindings that need
host resources (a database connection, a client with a connection pool, a
GPU): they are created where they are used, once per worker, never pickled.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Union

from ._result import RunResult
from ._runtime import Bindings, Runtime

try:
    import ray
except ImportError as error:  # pragma: no cover - exercised only without ray
    raise ImportError(
        "coderun.ray needs Ray: pip install 'coderun[ray]' (or pip install ray)"
    ) from error

#: A program: its source, or ``{"code": source, **options}`` with the options
#: of ``Runtime.run`` (``seed``, ``deterministic``, ``epoch_ms``, ``record``,
#: ``time_zone``).
Program = Union[str, Mapping[str, Any]]
#: Bindings, or a function called once per worker process that returns them.
WorkerBindings = Union[Bindings, Callable[[], Bindings], None]

_RUN_OPTIONS = ("seed", "deterministic", "epoch_ms", "record", "time_zone")


def _options(program: Program) -> Dict[str, Any]:
    if isinstance(program, str):
        return {"code": program}
    if not isinstance(program, Mapping) or not isinstance(program.get("code"), str):
        raise TypeError(
            f"a program is a str or a mapping with a str 'code' (got {type(program).__name__})"
        )
    unknown = set(program) - {"code", *_RUN_OPTIONS}
    if unknown:
        raise TypeError(f"unknown program options: {sorted(unknown)} (known: {list(_RUN_OPTIONS)})")
    return dict(program)


class _Worker:
    """One worker process's runtime and bindings (a Ray actor)."""

    def __init__(self, bindings: WorkerBindings, runtime_options: Dict[str, Any]) -> None:
        self._runtime = Runtime(**runtime_options)
        self._bindings = bindings() if callable(bindings) else bindings

    def run_batch(self, programs: List[Dict[str, Any]]) -> List[RunResult]:
        results = []
        for program in programs:
            options = dict(program)
            code = options.pop("code")
            results.append(self._runtime.run_sync(code, self._bindings, **options))
        return results

    def resume(self, continuation: str, answer: Any, reject: Optional[str]) -> RunResult:
        return self._runtime.resume_sync(
            continuation, self._bindings, answer=answer, reject=reject
        )

    def pid(self) -> int:
        return os.getpid()

    def config(self) -> Dict[str, Any]:
        return self._runtime.config

    def close(self) -> None:
        self._runtime.close()


class _Progress:
    """A progress bar on stderr: tqdm's when it is installed, else one line."""

    def __init__(self, total: int, enabled: bool) -> None:
        self._total = total
        self._done = 0
        self._bar = None
        self._enabled = enabled
        if not enabled:
            return
        try:
            from tqdm import tqdm
        except ImportError:
            self._draw()
        else:
            self._bar = tqdm(total=total, unit="program", desc="coderun")

    def advance(self, count: int) -> None:
        self._done += count
        if not self._enabled:
            return
        if self._bar is not None:
            self._bar.update(count)
        else:
            self._draw()

    def _draw(self) -> None:
        width = 30
        filled = width * self._done // max(self._total, 1)
        sys.stderr.write(
            f"\rcoderun [{'#' * filled}{'.' * (width - filled)}] {self._done}/{self._total}"
        )
        sys.stderr.flush()

    def close(self) -> None:
        if not self._enabled:
            return
        if self._bar is not None:
            self._bar.close()
        else:
            sys.stderr.write("\n")
            sys.stderr.flush()


class Pool:
    """``num_workers`` Ray actors, each holding one ``coderun.Runtime``.

    Args:
        num_workers: how many worker processes. Default: the cluster's CPUs.
        bindings: the bindings every program sees, or a function of no
            arguments returning them, called once in each worker.
        runtime_options: keyword arguments of ``coderun.Runtime`` for every
            worker's runtime (``fuel``, ``wall_clock``, ``compile_cache_dir``...).
            ``instance_pools`` defaults to ``1`` here: a worker runs its
            programs one at a time, so more pools would only hold more
            copies of the compiled guest.
        num_cpus: CPUs Ray reserves for each worker. Default ``1``.

    Ray must be initialised (``ray.init(...)``); if it is not, ``Pool``
    calls ``ray.init()``, which starts a local cluster.
    """

    def __init__(
        self,
        num_workers: Optional[int] = None,
        *,
        bindings: WorkerBindings = None,
        runtime_options: Optional[Dict[str, Any]] = None,
        num_cpus: float = 1,
    ) -> None:
        if not ray.is_initialized():
            ray.init()
        if num_workers is None:
            num_workers = max(1, int(ray.cluster_resources().get("CPU", 1) // num_cpus))
        if num_workers < 1:
            raise ValueError(f"num_workers must be at least 1 (got {num_workers})")
        actor = ray.remote(num_cpus=num_cpus)(_Worker)
        options = {"instance_pools": 1, **(runtime_options or {})}
        self._workers = [actor.remote(bindings, options) for _ in range(num_workers)]

    @property
    def num_workers(self) -> int:
        """How many workers the pool has."""
        return len(self._workers)

    def map(
        self,
        programs: Iterable[Program],
        *,
        batch_size: Optional[int] = None,
        max_in_flight: Optional[int] = None,
        progress: Optional[bool] = None,
    ) -> List[RunResult]:
        """Runs every program and returns the results in the programs' order.

        Args:
            batch_size: programs sent to a worker at once. Default: enough for
                about 8 batches per worker, at most 64.
            max_in_flight: batches outstanding at once (back-pressure).
                Default: two per worker.
            progress: show a progress bar on stderr. Default: when stderr
                is a terminal.
        """
        items = [_options(program) for program in programs]
        if batch_size is None:
            batch_size = max(1, min(64, len(items) // (8 * self.num_workers) or 1))
        if max_in_flight is None:
            max_in_flight = 2 * self.num_workers
        if batch_size < 1 or max_in_flight < 1:
            raise ValueError(
                f"batch_size and max_in_flight must be at least 1 (got {batch_size}, {max_in_flight})"
            )
        if progress is None:
            progress = sys.stderr.isatty()
        batches = [
            (start, items[start : start + batch_size]) for start in range(0, len(items), batch_size)
        ]
        results: List[Optional[RunResult]] = [None] * len(items)
        load = [0] * self.num_workers
        pending: Dict[Any, Any] = {}
        bar = _Progress(len(items), progress)
        try:
            next_batch = 0
            while next_batch < len(batches) or pending:
                while next_batch < len(batches) and len(pending) < max_in_flight:
                    worker = min(range(self.num_workers), key=load.__getitem__)
                    start, batch = batches[next_batch]
                    ref = self._workers[worker].run_batch.remote(batch)
                    pending[ref] = (start, worker)
                    load[worker] += 1
                    next_batch += 1
                ready, _ = ray.wait(list(pending), num_returns=1)
                for ref in ready:
                    start, worker = pending.pop(ref)
                    load[worker] -= 1
                    batch_results = ray.get(ref)
                    results[start : start + len(batch_results)] = batch_results
                    bar.advance(len(batch_results))
        finally:
            bar.close()
        return results  # type: ignore[return-value]

    def run(self, program: Program, *, worker: int = 0) -> RunResult:
        """Runs one program on worker number ``worker``."""
        return ray.get(self._workers[worker].run_batch.remote([_options(program)]))[0]

    def resume(
        self,
        continuation: str,
        *,
        answer: Any = None,
        reject: Optional[str] = None,
        worker: int = 0,
    ) -> RunResult:
        """Resumes an interrupted run (its continuation, from any worker or
        process) on worker number ``worker``."""
        return ray.get(self._workers[worker].resume.remote(continuation, answer, reject))

    def worker_pids(self) -> List[int]:
        """Each worker's process id."""
        return ray.get([worker.pid.remote() for worker in self._workers])

    def close(self) -> None:
        """Closes every worker's runtime and stops the workers."""
        try:
            ray.get([worker.close.remote() for worker in self._workers])
        finally:
            for worker in self._workers:
                ray.kill(worker)
            self._workers = []

    def __enter__(self) -> "Pool":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()


def map(
    programs: Iterable[Program],
    *,
    bindings: WorkerBindings = None,
    num_workers: Optional[int] = None,
    runtime_options: Optional[Dict[str, Any]] = None,
    batch_size: Optional[int] = None,
    max_in_flight: Optional[int] = None,
    progress: Optional[bool] = None,
) -> List[RunResult]:
    """Runs ``programs`` on a ``Pool`` of ``num_workers`` workers and returns
    their results in order; see ``Pool`` and ``Pool.map`` for the options.
    The pool is stopped afterwards: keep a ``Pool`` to reuse its workers
    across calls."""
    with Pool(num_workers, bindings=bindings, runtime_options=runtime_options) as pool:
        return pool.map(
            programs, batch_size=batch_size, max_in_flight=max_in_flight, progress=progress
        )


__all__ = ["Pool", "Program", "WorkerBindings", "map"]
