"""Code Mode through Python: tools, the SDK, run_code through the Rust
bridge (hooks, the call queue, dispatch events)."""

import asyncio

import pytest

import coderun

GREET_SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string", "description": "Who to greet."}},
    "required": ["name"],
}


@pytest.fixture
def registry(runtime):
    registry = coderun.ToolRegistry(runtime)
    registry.register("greet", "Greet someone by name.", GREET_SCHEMA, lambda args: f"hello, {args['name']}")
    return registry


def test_sdk_declares_each_tool_in_typescript(registry):
    sdk = registry.sdk()
    assert "declare const tools: {" in sdk
    assert "Greet someone by name." in sdk
    assert "greet(args: {" in sdk and "name: string;" in sdk


def test_code_mode_offers_only_run_code(registry):
    assembly = registry.assemble()
    assert [tool["name"] for tool in assembly["tools"]] == ["run_code"]
    assert "greet(args" in assembly["sdk_section"]


def test_native_mode_offers_the_tools(runtime):
    registry = coderun.ToolRegistry(runtime, mode="native")
    registry.register("greet", "Greet.", GREET_SCHEMA, lambda args: "hi")
    assembly = registry.assemble()
    assert [tool["name"] for tool in assembly["tools"]] == ["greet"]
    assert assembly["sdk_section"] is None


def test_unknown_mode_is_refused(runtime):
    with pytest.raises(ValueError, match='mode must be "native", "code" or "both" \\(got "nope"\\)'):
        coderun.ToolRegistry(runtime, mode="nope")


def test_run_code_calls_the_handler_and_records_events(registry):
    result = registry.run_code_sync(
        "const g = await tools.greet({ name: 'Ada' });\nconsole.log(g);\nreturn g.length;"
    )
    assert not result.is_error
    assert result.text == "hello, Ada\n10"
    assert result.structured["value"] == 10
    assert [(e.name, e.arguments, e.is_error, e.result_summary) for e in result.events] == [
        ("greet", {"name": "Ada"}, False, "hello, Ada")
    ]
    assert result.events[0].sub_call_id == result.events[0].parent_call_id + ":code:1"


async def test_async_handler_with_output_schema_gives_the_program_json(runtime):
    registry = coderun.ToolRegistry(runtime)

    @registry.tool(
        "lookup",
        "Look a user up.",
        {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]},
        output_schema={"type": "object", "properties": {"name": {"type": "string"}}},
    )
    async def lookup(args):
        await asyncio.sleep(0.01)
        return {"name": f"user{args['id']}"}

    result = await registry.run_code("const u = await tools.lookup({ id: 7 });\nreturn u.name;")
    assert result.structured["value"] == "user7"
    assert "Promise<{" in registry.sdk()


def test_handler_exception_rejects_the_call(registry, runtime):
    def boom(_):
        raise RuntimeError("the disk is full")

    registry.register("write", "Write.", {"type": "object"}, boom)
    result = registry.run_code_sync("try { await tools.write({}); } catch (e) { return e.message; }")
    assert result.structured["value"] == "the disk is full"
    assert result.events[0].is_error


def test_pre_execute_hook_denies_with_its_reason(registry):
    seen = []

    def hook(name, arguments):
        seen.append((name, arguments))
        return "greeting is disabled" if name == "greet" else None

    registry.on_pre_execute(hook)
    result = registry.run_code_sync("try { await tools.greet({ name: 'x' }); } catch (e) { return e.message; }")
    assert "greeting is disabled" in result.structured["value"]
    # The run_code call itself goes through the hooks too, then each call
    # its program makes.
    assert [name for name, _ in seen] == ["run_code", "greet"]
    assert seen[1] == ("greet", {"name": "x"})


def test_failed_program_is_a_structured_tool_error(registry):
    result = registry.run_code_sync("console.log('partial');\nthrow new Error('nope');")
    assert result.is_error
    assert result.text.startswith("code run failed (exception):")
    assert result.structured["kind"] == "exception"
    assert result.structured["logs"][0]["text"] == "partial"


@pytest.mark.parametrize("safe, peak", [(False, 1), (True, 3)])
async def test_call_queue_serialises_unless_concurrency_safe(runtime, safe, peak):
    registry = coderun.ToolRegistry(runtime)
    in_flight = {"now": 0, "peak": 0}

    async def slow(args):
        in_flight["now"] += 1
        in_flight["peak"] = max(in_flight["peak"], in_flight["now"])
        await asyncio.sleep(0.05)
        in_flight["now"] -= 1
        return str(args["i"])

    registry.register(
        "slow",
        "Slow.",
        {"type": "object", "properties": {"i": {"type": "integer"}}},
        slow,
        concurrency_safe=safe,
    )
    result = await registry.run_code("return await Promise.all([1, 2, 3].map((i) => tools.slow({ i })))")
    assert result.structured["value"] == ["1", "2", "3"]
    assert in_flight["peak"] == peak


def test_duplicate_tool_is_refused(registry):
    with pytest.raises(ValueError, match='tool name "greet" is already registered'):
        registry.register("greet", "Again.", GREET_SCHEMA, lambda args: "")
