"""Durable runs through Python: deterministic mode, records, replay,
interrupt and resume."""

import json

import pytest

import coderun


def test_deterministic_runs_repeat_value_and_fuel(runtime):
    program = "const r = [Math.random(), Date.now()];\nawait new Promise((ok) => setTimeout(ok, 5000));\nreturn [...r, Date.now()];"
    first = runtime.run_sync(program, deterministic=True, seed=7, epoch_ms=1_000)
    second = runtime.run_sync(program, deterministic=True, seed=7, epoch_ms=1_000)
    other_seed = runtime.run_sync(program, deterministic=True, seed=8, epoch_ms=1_000)
    assert first.value == second.value
    assert first.fuel_consumed == second.fuel_consumed
    assert first.value[1:] == [1_000, 6_000]  # the virtual clock
    assert other_seed.value[0] != first.value[0]


def test_seed_alone_fixes_randomness(runtime):
    values = {runtime.run_sync("return Math.random()", seed=3).value for _ in range(3)}
    assert len(values) == 1


def test_record_replays_without_calling_bindings(runtime):
    calls = []

    def read(args):
        calls.append(args)
        return f"content of {args['path']}"

    program = "const a = await tools.read({ path: 'a' });\nconsole.log(a);\nreturn a.length;"
    recorded = runtime.run_sync(program, {"tools": {"read": read}}, record=True, deterministic=True)
    assert recorded.value == len("content of a")
    record = recorded.record_json()
    assert record["format"] == "coderun.run-record"
    assert record["calls"][0]["arguments"] == {"path": "a"}
    replayed = runtime.replay_sync(recorded.record)
    assert (replayed.value, replayed.logs, replayed.fuel_consumed) == (
        recorded.value,
        recorded.logs,
        recorded.fuel_consumed,
    )
    assert calls == [{"path": "a"}]


def test_replay_of_an_altered_record_diverges(runtime):
    program = "return await tools.read({ path: 'a' })"
    recorded = runtime.run_sync(program, {"tools": {"read": lambda a: "x"}}, record=True)
    record = recorded.record_json()
    record["calls"][0]["arguments"] = {"path": "b"}
    result = runtime.replay_sync(json.dumps(record))
    assert result.error.kind == "diverged"
    assert "call 1" in result.error.message


def test_interrupt_and_resume(runtime):
    calls = []

    def listing(_):
        calls.append("list")
        return ["a", "b"]

    def ask(question):
        calls.append("ask")
        raise coderun.Interrupt({"approve": question})

    bindings = {"tools": {"list": listing, "ask": ask}}
    program = (
        "const files = await tools.list();\n"
        "const answer = await tools.ask(`delete ${files.length} files?`);\n"
        "console.log('answer', answer);\n"
        "return { files, answer };"
    )
    paused = runtime.run_sync(program, bindings, record=True)
    assert paused.error is None and paused.value is None and not paused.ok
    assert paused.interrupted.payload == {"approve": "delete 2 files?"}
    assert paused.interrupted.call == "tools.ask"
    assert paused.interrupted.step == 2
    resumed = runtime.resume_sync(paused.interrupted.continuation, bindings, answer="yes")
    assert resumed.value == {"files": ["a", "b"], "answer": "yes"}
    assert [line.text for line in resumed.logs] == ["answer yes"]
    # Nothing before the interrupt was called again.
    assert calls == ["list", "ask"]
    rejected = runtime.resume_sync(paused.interrupted.continuation, bindings, reject="not now")
    assert rejected.error.kind == "exception"
    assert "not now" in rejected.error.message


async def test_resume_awaited(runtime):
    def ask(_):
        raise coderun.Interrupt("ok?")

    paused = await runtime.run("return await tools.ask()", {"tools": {"ask": ask}}, record=True)
    resumed = await runtime.resume(paused.interrupted.continuation, {"tools": {"ask": ask}}, answer=42)
    assert resumed.value == 42


def test_interrupt_without_record_rejects_the_call(runtime):
    def ask(_):
        raise coderun.Interrupt("ok?")

    result = runtime.run_sync("try { await tools.ask(); } catch (e) { return e.message; }", {"tools": {"ask": ask}})
    assert "interrupt" in result.value


def test_unreadable_continuation_is_misuse(runtime):
    with pytest.raises(coderun.MisuseError, match="the continuation cannot be read"):
        runtime.resume_sync("{}")
