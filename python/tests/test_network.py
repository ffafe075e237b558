"""``network=``: what a program's ``fetch`` may reach, set for the runtime
or for one run, against a real HTTP server on loopback; a secret reaches
the server and never the program."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

import coderun

TOKEN = "py-secret-7c1d9e2f"


class _Handler(BaseHTTPRequestHandler):
    seen = []

    def do_GET(self):
        _Handler.seen.append(dict(self.headers))
        if self.path == "/json":
            body = json.dumps({"items": [1, 2, 3]}).encode()
        else:
            body = json.dumps({"authorization": self.headers.get("authorization")}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    _Handler.seen = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def _catching(url):
    return f"try {{ await fetch('{url}'); return 'reached' }} catch (e) {{ return e.message }}"


def test_the_default_policy_refuses_fetch(runtime, server):
    result = runtime.run_sync(_catching(server + "/json"))
    assert "allows no network access" in result.value
    assert _Handler.seen == []


def test_a_runtime_policy_allows_its_origins_and_sends_secrets_unseen(make_runtime, server):
    rt = make_runtime(
        network={
            "allow": [server],
            "allow_loopback": True,
            "secrets": {"api": {"value": TOKEN, "origins": [server]}},
            "timeout": 5.0,
        }
    )
    result = rt.run_sync(
        f"""
        const data = await (await fetch('{server}/json')).json();
        const echo = await (await fetch('{server}/echo',
          {{ headers: {{ authorization: 'Bearer {{{{secret:api}}}}' }} }})).json();
        return {{ data, echo }};
        """,
        record=True,
    )
    assert result.error is None, result.error
    assert result.value["data"] == {"items": [1, 2, 3]}
    assert result.value["echo"]["authorization"] == "Bearer {{secret:api}}"
    assert TOKEN not in json.dumps(result.value) and TOKEN not in result.record
    assert _Handler.seen[-1]["authorization"] == f"Bearer {TOKEN}"


async def test_a_run_policy_replaces_the_runtimes(runtime, server):
    allowed = await runtime.run(
        f"return (await (await fetch('{server}/json')).json()).items.length",
        network={"allow": [{"origin": server, "methods": ["GET"]}], "allow_loopback": True},
    )
    assert allowed.value == 3
    # Loopback is refused after resolution unless the policy allows it.
    refused = await runtime.run(_catching(server + "/json"), network={"allow": [server]})
    assert "loopback" in refused.value


def test_an_invalid_policy_names_its_key(make_runtime):
    with pytest.raises(coderun.ConfigError, match="allow\\[0\\].origin"):
        make_runtime(network={"allow": ["ftp://example.com"]})
    with pytest.raises(coderun.ConfigError, match="unknown key"):
        make_runtime(network={"allowed": []})
