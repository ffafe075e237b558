"""The runtime contract through Python: values, logs, failure kinds,
bindings, configuration, closing and concurrency."""

import asyncio
import dataclasses
import threading

import pytest

import coderun


def texts(result):
    return [line.text for line in result.logs]


# --- values and logs -------------------------------------------------------


def test_returned_value_crosses_as_json(runtime):
    result = runtime.run_sync("return { sum: 1 + 1, items: [1, 'two', null, true], nested: { x: 1.5 } }")
    assert result.ok
    assert result.value == {"sum": 2, "items": [1, "two", None, True], "nested": {"x": 1.5}}
    assert result.error is None
    assert result.fuel_consumed > 0


def test_program_is_typescript_with_top_level_await(runtime):
    result = runtime.run_sync(
        "const x: number = await Promise.resolve(20);\nreturn x + 1;"
    )
    assert result.value == 21


def test_no_return_has_no_value_display_and_null_has_one(runtime):
    nothing = runtime.run_sync("const x = 1;")
    null = runtime.run_sync("return null")
    assert nothing.value is None and nothing.value_display is None
    assert null.value is None and null.value_display == "null"


def test_value_json_cannot_carry_comes_back_as_its_rendering(runtime):
    assert runtime.run_sync("return 10n").value == "10n"
    assert runtime.run_sync("return new Map([['a', 1]])").value == "Map(1) { 'a' => 1 }"


def test_logs_keep_order_levels_and_inspect_rendering(runtime):
    result = runtime.run_sync(
        "console.log('a', 1, { b: [2] });\nconsole.warn('careful');\nconsole.error('bad');\n"
        "console.info('i');\nconsole.debug('d');"
    )
    assert [(line.level, line.text) for line in result.logs] == [
        ("log", "a 1 { b: [ 2 ] }"),
        ("warn", "careful"),
        ("error", "bad"),
        ("info", "i"),
        ("debug", "d"),
    ]
    assert str(result.logs[0]) == "a 1 { b: [ 2 ] }"


def test_logs_printed_before_a_failure_are_kept(runtime):
    result = runtime.run_sync("console.log('before');\nthrow new Error('boom');")
    assert texts(result) == ["before"]
    assert result.error.kind == "exception"


def test_results_are_frozen(runtime):
    result = runtime.run_sync("return 1")
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.value = 2
    assert result == runtime.run_sync("return 1").__class__(
        value=1, logs=(), value_display="1", fuel_consumed=result.fuel_consumed
    )


# --- failure kinds -----------------------------------------------------------


def test_thrown_error_is_an_exception_with_its_message(runtime):
    result = runtime.run_sync("throw new TypeError('bad input')")
    assert result.error.kind == "exception"
    assert "TypeError: bad input" in result.error.message
    assert result.value is None and not result.ok


def test_syntax_error_is_an_exception_naming_the_position(runtime):
    result = runtime.run_sync("const x = ;")
    assert result.error.kind == "exception"
    assert "program.ts:1:" in result.error.message


def test_cpu_loop_exhausts_the_fuel_budget(make_runtime):
    runtime = make_runtime(fuel=5_000_000)
    result = runtime.run_sync("while (true) {}")
    assert result.error.kind == "timeout"
    assert "fuel" in result.error.message and "5000000" in result.error.message


def test_binding_that_never_settles_hits_the_wall_clock(make_runtime):
    runtime = make_runtime(wall_clock=0.3)

    async def forever(_):
        await asyncio.sleep(60)

    result = runtime.run_sync("await tools.forever()", {"tools": {"forever": forever}})
    assert result.error.kind == "timeout"
    assert "wall-clock" in result.error.message


def test_memory_cap_is_a_worker_exit(make_runtime):
    runtime = make_runtime(max_memory_mib=16)
    result = runtime.run_sync(
        "const chunks = [];\nwhile (true) { chunks.push(new Array(1 << 20).fill(1)); }"
    )
    assert result.error.kind == "worker-exit"
    assert "max_memory_bytes" in result.error.message


def test_close_aborts_a_run_in_flight(make_runtime):
    runtime = make_runtime()
    started = threading.Event()
    outcome = {}

    def run():
        outcome["result"] = runtime.run_sync(
            "await tools.started();\nwhile (true) {}", {"tools": {"started": lambda _: started.set()}}
        )

    thread = threading.Thread(target=run)
    thread.start()
    assert started.wait(30)
    runtime.close()
    thread.join()
    assert outcome["result"].error.kind == "abort"
    assert "disposed" in outcome["result"].error.message


def test_every_failure_kind_is_a_known_kind():
    assert set(coderun.FAILURE_KINDS) == {"exception", "timeout", "abort", "worker-exit", "diverged"}


# --- configuration -------------------------------------------------------------


def test_defaults_are_the_rust_librarys(runtime):
    assert coderun.DEFAULTS["fuel"] == 5_000_000_000
    assert coderun.DEFAULTS["wall_clock"] == 30.0
    assert coderun.DEFAULTS["max_memory_mib"] == 128
    config = runtime.config
    assert {k: v for k, v in config.items() if k != "compile_cache_dir"} == {
        k: v for k, v in coderun.DEFAULTS.items() if k != "compile_cache_dir"
    }


def test_options_reach_the_config(make_runtime):
    runtime = make_runtime(fuel=1234567, wall_clock=2.5, max_memory_mib=32, max_log_bytes=4096, instance_pools=2)
    config = runtime.config
    assert (
        config["fuel"],
        config["wall_clock"],
        config["max_memory_mib"],
        config["max_log_bytes"],
        config["instance_pools"],
    ) == (1234567, 2.5, 32, 4096, 2)
    assert coderun.DEFAULTS["instance_pools"] is None


@pytest.mark.parametrize(
    "options, message",
    [
        ({"fuel": 0}, "config.fuel must be positive (got 0)"),
        ({"fuel": -1}, "config.fuel must not be negative (got -1)"),
        ({"wall_clock": 0}, "config.wall_clock must be between 1ns and 24h (got 0ns)"),
        ({"wall_clock": float("nan")}, "config.wall_clock must be a finite, non-negative number of seconds (got NaN)"),
        (
            {"max_memory_mib": 1},
            "config.max_memory_bytes must be between 9437184 (9 MiB) and 4294967296 (4 GiB) (got 1048576), from max_memory_mib=1",
        ),
        ({"max_log_bytes": 10}, "config.max_log_bytes must be at least 128 (room for the truncation marker) (got 10)"),
        ({"max_nesting_depth": 100_000}, "config.max_nesting_depth must be between 1 and 10000 (got 100000)"),
        ({"continuation_key": b"short"}, "config.continuation_key must be at least 32 bytes (got 5 bytes)"),
        ({"instance_pools": 0}, "config.instance_pools must be between 1 and 64 (got 0)"),
    ],
)
def test_invalid_options_raise_the_rust_message(options, message):
    with pytest.raises(coderun.ConfigError) as raised:
        coderun.Runtime(**options)
    assert str(raised.value) == message
    assert isinstance(raised.value, ValueError)


def test_unknown_option_is_a_type_error():
    with pytest.raises(TypeError):
        coderun.Runtime(fuell=1)


def test_descriptors(runtime):
    assert runtime.language == "typescript"
    assert runtime.isolation == "wasm"


# --- bindings ------------------------------------------------------------------


def test_sync_binding_gets_json_and_returns_json(runtime):
    seen = []

    def add(args):
        seen.append(args)
        return args["a"] + args["b"]

    result = runtime.run_sync("return await tools.add({ a: 2, b: 3 })", {"tools": {"add": add}})
    assert result.value == 5
    assert seen == [{"a": 2, "b": 3}]


def test_call_without_argument_passes_none(runtime):
    result = runtime.run_sync("return await tools.probe()", {"tools": {"probe": lambda arg: arg is None}})
    assert result.value is True


def test_async_binding_in_a_blocking_run(runtime):
    async def slow_double(x):
        await asyncio.sleep(0.01)
        return x * 2

    result = runtime.run_sync("return await tools.double(21)", {"tools": {"double": slow_double}})
    assert result.value == 42


async def test_async_binding_runs_on_the_awaiting_loop(runtime):
    loop = asyncio.get_running_loop()
    seen = []

    async def where(_):
        seen.append(asyncio.get_running_loop() is loop)
        return "here"

    result = await runtime.run("return await host.where()", {"host": {"where": where}})
    assert result.value == "here"
    assert seen == [True]


async def test_sync_binding_in_an_awaited_run(runtime):
    result = await runtime.run("return await tools.up('abc')", {"tools": {"up": str.upper}})
    assert result.value == "ABC"


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_binding_exception_rejects_the_call_with_its_message(runtime, kind):
    def fail(_):
        raise ValueError("no such file: a.txt")

    async def fail_async(_):
        raise ValueError("no such file: a.txt")

    function = fail if kind == "sync" else fail_async
    caught = runtime.run_sync(
        "try { await tools.read('a.txt'); return 'no'; } catch (e) { return [e instanceof Error, e.message]; }",
        {"tools": {"read": function}},
    )
    assert caught.value == [True, "no such file: a.txt"]
    uncaught = runtime.run_sync("await tools.read('a.txt')", {"tools": {"read": function}})
    assert uncaught.error.kind == "exception"
    assert "no such file: a.txt" in uncaught.error.message


def test_binding_result_json_cannot_carry_rejects_the_call(runtime):
    result = runtime.run_sync(
        "try { await tools.bad(); } catch (e) { return e.message; }", {"tools": {"bad": lambda _: object()}}
    )
    assert result.value == (
        "the binding's result cannot be sent: a value of type object cannot be sent as JSON: "
        "unsupported type object"
    )


def test_argument_json_cannot_carry_is_rejected_before_dispatch(runtime):
    called = []
    result = runtime.run_sync(
        "try { await tools.f(10n); } catch (e) { return e.message; }",
        {"tools": {"f": lambda arg: called.append(arg)}},
    )
    assert "BigInt" in result.value or "bigint" in result.value.lower()
    assert called == []


def test_calls_overlap_with_promise_all(runtime):
    in_flight = {"now": 0, "peak": 0}

    async def work(x):
        in_flight["now"] += 1
        in_flight["peak"] = max(in_flight["peak"], in_flight["now"])
        await asyncio.sleep(0.05)
        in_flight["now"] -= 1
        return x

    result = runtime.run_sync(
        "return await Promise.all([1, 2, 3, 4].map((x) => tools.work(x)))", {"tools": {"work": work}}
    )
    assert result.value == [1, 2, 3, 4]
    assert in_flight["peak"] == 4


def test_invalid_binding_global_is_misuse(runtime):
    with pytest.raises(coderun.MisuseError, match="binding global \"console\" is invalid"):
        runtime.run_sync("return 1", {"console": {"log": print}})
    with pytest.raises(coderun.MisuseError, match="is invalid"):
        runtime.run_sync("return 1", {"1abc": {"f": print}})


def test_non_callable_binding_is_a_type_error(runtime):
    with pytest.raises(TypeError, match=r'bindings\["tools"\]\["x"\] must be callable \(got int\)'):
        runtime.run_sync("return 1", {"tools": {"x": 3}})


def test_run_sync_from_a_binding_is_refused(runtime):
    def nested(_):
        runtime.run_sync("return 1")

    result = runtime.run_sync(
        "try { await tools.nested(); } catch (e) { return e.message; }", {"tools": {"nested": nested}}
    )
    assert "run_sync was called from a binding" in result.value


# --- cancellation, closing -----------------------------------------------------------


async def test_cancelling_the_task_stops_the_program(runtime):
    marks = []
    program = "const t = Date.now();\nwhile (Date.now() - t < 700) {}\nawait tools.mark();\nreturn 1;"
    task = asyncio.create_task(runtime.run(program, {"tools": {"mark": lambda _: marks.append(1)}}))
    await asyncio.sleep(0.2)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    # Had the guest kept running, it would have called tools.mark by now.
    await asyncio.sleep(1.2)
    assert marks == []


def test_closed_runtime_refuses_runs(make_runtime):
    with make_runtime() as runtime:
        assert runtime.run_sync("return 1").value == 1
    with pytest.raises(coderun.MisuseError, match="disposed"):
        runtime.run_sync("return 1")
    runtime.close()  # idempotent


async def test_async_context_manager_closes(make_runtime):
    runtime = make_runtime()
    async with runtime:
        assert (await runtime.run("return 2")).value == 2
    with pytest.raises(coderun.MisuseError, match="disposed"):
        await runtime.run("return 1")


# --- concurrency ---------------------------------------------------------------------


def test_threads_run_programs_at_once(runtime):
    errors = []
    results = {}

    def worker(n):
        try:
            for i in range(10):
                result = runtime.run_sync(
                    f"return await tools.tag({n * 100 + i})", {"tools": {"tag": lambda x: f"t{x}"}}
                )
                results[(n, i)] = result.value
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert results == {(n, i): f"t{n * 100 + i}" for n in range(8) for i in range(10)}


def test_the_gil_is_released_while_a_program_runs(runtime):
    state = {"running": False, "done": False}

    def run():
        state["running"] = True
        runtime.run_sync("const t = Date.now(); while (Date.now() - t < 600) {}")
        state["running"] = False
        state["done"] = True

    thread = threading.Thread(target=run)
    thread.start()
    # Count this thread's iterations while the other is inside run_sync: with
    # the GIL held for the whole run, this loop could not advance meanwhile.
    iterations = 0
    while not state["done"]:
        if state["running"]:
            iterations += 1
    thread.join()
    assert iterations > 10_000


async def test_asyncio_runs_overlap(runtime):
    gate = asyncio.Event()
    waiting = {"n": 0}

    async def wait(_):
        waiting["n"] += 1
        if waiting["n"] == 10:
            gate.set()
        await gate.wait()
        return waiting["n"]

    # Each program waits until all ten are waiting: only runs in flight at
    # once can finish.
    results = await asyncio.wait_for(
        asyncio.gather(*(runtime.run("return await tools.wait()", {"tools": {"wait": wait}}) for _ in range(10))),
        timeout=20,
    )
    assert [result.value for result in results] == [10] * 10


def test_a_time_zone_is_the_zone_of_local_time(runtime):
    program = "const d = new Date(Date.UTC(2026, 0, 15, 12, 30)); return [d.getHours(), String(d)]"
    assert runtime.run_sync(program).value == [
        12,
        "Thu Jan 15 2026 12:30:00 GMT+0000 (Coordinated Universal Time)",
    ]
    result = runtime.run_sync(program, time_zone="America/New_York")
    assert result.value == [7, "Thu Jan 15 2026 07:30:00 GMT-0500 (Eastern Standard Time)"]
    refused = runtime.run_sync(program, time_zone="Mars/Olympus")
    assert refused.error.kind == "exception"
    assert "Mars/Olympus" in refused.error.message


async def test_an_awaited_run_takes_a_time_zone_too(runtime):
    result = await runtime.run("return new Date(0).getHours()", time_zone="Asia/Tokyo")
    assert result.value == 9
