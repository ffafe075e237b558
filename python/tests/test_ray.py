"""coderun.ray on a local multi-process cluster: 1,000 programs across two
worker processes, every result checked against a run in this process, and
a continuation made on one worker resumed on the other."""

import os
import sys
import time

import pytest

ray = pytest.importorskip("ray")

import coderun  # noqa: E402
import coderun.ray  # noqa: E402

# The workers cannot import this test module: send its functions by value.
ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])

PROGRAMS = 1_000
FUEL = 20_000_000


def host_bindings():
    """Per-worker bindings: made in each worker process, never pickled."""
    pid = os.getpid()

    def ask(question):
        raise coderun.Interrupt({"question": question, "asked_by": pid})

    return {
        "host": {"pid": lambda _: pid, "ask": ask, "now": lambda _: time.time()},
        "tools": {"double": lambda x: x * 2, "fail": _fail},
    }


def _fail(message):
    raise ValueError(message)


def program(i):
    """A mix of outcomes: values, logs, caught and uncaught binding errors,
    thrown errors, syntax errors, fuel timeouts and deterministic runs."""
    kind = i % 8
    if kind == 0:
        return f"return {i} * 3"
    if kind == 1:
        return f"console.log('item', {i}, {{ n: {i} }});\nreturn [{i}, 'x'.repeat({i % 50})];"
    if kind == 2:
        return f"return await tools.double({i})"
    if kind == 3:
        return f"try {{ await tools.fail('bad {i}'); }} catch (e) {{ return e.message; }}"
    if kind == 4:
        return f"throw new RangeError('out of range: {i}')"
    if kind == 5:
        return f"let s = 0; for (let k = 0; k < {i % 37} * 1000; k++) s += k; return s;"
    if kind == 6:
        return {"code": "while (true) {}" if i % 16 == 6 else "return (", "seed": i}
    return {"code": "return [Math.random(), Date.now()]", "deterministic": True, "seed": i, "epoch_ms": i}


def comparable(result):
    return (result.value, result.logs, result.error, result.value_display, result.fuel_consumed)


@pytest.fixture(scope="module")
def cluster():
    # Logical CPUs: room for the module's two-worker pool and the pool map() starts.
    ray.init(num_cpus=4, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def pool(cluster, compile_cache):
    options = {"fuel": FUEL, "compile_cache_dir": compile_cache}
    with coderun.ray.Pool(2, bindings=host_bindings, runtime_options=options) as pool:
        yield pool


def test_thousand_programs_match_a_run_in_this_process(pool, compile_cache):
    programs = [program(i) for i in range(PROGRAMS)]
    results = pool.map(programs, max_in_flight=3, batch_size=25, progress=False)
    assert len(results) == PROGRAMS

    local_bindings = host_bindings()
    kinds = set()
    with coderun.Runtime(fuel=FUEL, compile_cache_dir=compile_cache) as local:
        for i, (item, result) in enumerate(zip(programs, results)):
            options = {"code": item} if isinstance(item, str) else dict(item)
            expected = local.run_sync(options.pop("code"), local_bindings, **options)
            assert comparable(result) == comparable(expected), f"program {i}"
            kinds.add(result.error.kind if result.error else "ok")
    assert kinds == {"ok", "exception", "timeout"}


def test_programs_run_in_every_worker_process(pool):
    results = pool.map(["return await host.pid()"] * 40, batch_size=1, max_in_flight=2, progress=False)
    pids = {result.value for result in results}
    assert pids == set(pool.worker_pids())
    assert len(pids) == 2 and os.getpid() not in pids


@pytest.mark.parametrize("max_in_flight, overlapping", [(1, False), (2, True)])
def test_max_in_flight_bounds_the_batches_outstanding(pool, max_in_flight, overlapping):
    code = "const start = await host.now();\nawait new Promise((done) => setTimeout(done, 100));\nreturn [start, await host.now()];"
    results = pool.map([code] * 6, batch_size=1, max_in_flight=max_in_flight, progress=False)
    assert all(result.ok for result in results), [result.error for result in results]
    spans = sorted(result.value for result in results)
    overlaps = any(later[0] < earlier[1] for earlier, later in zip(spans, spans[1:]))
    # One batch outstanding: the two workers never run at once; two: they do.
    assert overlaps == overlapping


def test_continuation_made_on_one_worker_resumes_on_another(pool):
    first, second = pool.worker_pids()
    code = (
        "const before = await host.pid();\n"
        "const answer = await host.ask('proceed?');\n"
        "const after = await host.pid();\n"
        "return { before, answer, after };"
    )
    paused = pool.run({"code": code, "record": True}, worker=0)
    assert paused.interrupted.payload == {"question": "proceed?", "asked_by": first}
    resumed = pool.resume(paused.interrupted.continuation, answer="yes", worker=1)
    # `before` comes from the ledger (worker 0's pid); `after` is a live call
    # on worker 1.
    assert resumed.value == {"before": first, "answer": "yes", "after": second}


def test_a_worker_has_one_instance_pool_unless_told_otherwise(pool, cluster, compile_cache):
    # A worker runs one program at a time: more pools would only hold more
    # copies of the compiled guest.
    assert ray.get(pool._workers[0].config.remote())["instance_pools"] == 1
    options = {"compile_cache_dir": compile_cache, "instance_pools": 2}
    with coderun.ray.Pool(1, runtime_options=options) as two:
        assert ray.get(two._workers[0].config.remote())["instance_pools"] == 2


def test_map_starts_and_stops_its_own_pool(cluster, compile_cache):
    results = coderun.ray.map(
        ["return 1 + 1", "return 'a'.repeat(3)"],
        num_workers=1,
        runtime_options={"compile_cache_dir": compile_cache},
        progress=False,
    )
    assert [result.value for result in results] == [2, "aaa"]
