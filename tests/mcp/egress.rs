//! `fetch` through `coderun mcp` and `coderun run`: the configuration's
//! `network` section and the CLI's `--allow-net`, `--secret` and
//! `--allow-loopback` reach programs, against a real REST server on
//! loopback and a real MCP client.

use rmcp::ServiceExt as _;
use rmcp::transport::TokioChildProcess;
use serde_json::json;

use super::{Workspace, coderun_command, coderun_std, fixture, run_code, text};

#[path = "../runtime/egress/server.rs"]
#[allow(dead_code, reason = "the MCP tests use part of the server")]
mod server;

use server::Server;

/// The secret the tests give `coderun` through its environment.
const TOKEN: &str = "tok-3f9a1c7e5b2d";

/// A configuration's `network` section lets `run_code` call a loopback
/// REST API, with a secret the program sends by placeholder and never
/// reads back; what the section does not allow is refused by name. Each
/// request is a `fetch` span of the run's trace, which never holds the
/// secret.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_code_calls_a_rest_api_the_configuration_allows() {
    let api = Server::start().await;
    let other = Server::start().await;
    let workspace = Workspace::new();
    let config = workspace.write_config(&json!({
        "mcpServers": {"fixture": {"command": "node", "args": [fixture()]}},
        "network": {
            "allow": [{"origin": api.origin, "methods": ["GET", "POST"], "paths": ["/json", "/echo"]}],
            "secrets": [{"name": "api", "env": "CODERUN_TEST_API_TOKEN", "origins": [api.origin]}],
            "allowLoopback": true,
            "timeoutSeconds": 5
        }
    }));
    let (collector, received) = super::traces::collector().await;
    let mut command = coderun_command();
    command
        .arg("mcp")
        .arg("--config")
        .arg(&config)
        .env("CODERUN_TEST_API_TOKEN", TOKEN)
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", format!("http://{collector}"))
        .kill_on_drop(true);
    let client =
        ().serve(TokioChildProcess::new(command).expect("spawn coderun mcp"))
            .await
            .expect("connects");
    let program = format!(
        "const data = await (await fetch('{api}/json')).json();
         const echo = await (await fetch('{api}/echo', {{ method: 'POST', body: 'hi',
           headers: {{ authorization: 'Bearer {{{{secret:api}}}}' }} }})).json();
         let refused;
         try {{ await fetch('{other}/json') }} catch (e) {{ refused = e.message }}
         return {{ data, seen: echo.headers.authorization, refused }};",
        api = api.origin,
        other = other.origin,
    );
    let result = run_code(&client, &program).await;
    let output = text(&result);
    assert_ne!(result.is_error, Some(true), "{output}");
    assert!(output.contains("world"), "the API's JSON: {output}");
    assert!(output.contains("Bearer {{secret:api}}"), "{output}");
    assert!(output.contains("no rule allows the origin"), "{output}");
    assert!(!output.contains(TOKEN), "the secret leaked: {output}");
    let sent = api.requests();
    let echo = sent
        .iter()
        .find(|request| request.path == "/echo")
        .expect("the echo request");
    assert_eq!(
        echo.header("authorization"),
        Some(format!("Bearer {TOKEN}").as_str())
    );
    assert!(other.requests().is_empty(), "{:?}", other.paths());
    // Closing stdin stops the process, which exports what it buffered.
    client.cancel().await.expect("closes");
    let mut spans = Vec::new();
    for _ in 0..100 {
        spans = super::traces::spans(&received.lock().expect("not poisoned"));
        if spans.iter().filter(|span| span.0 == "fetch").count() >= 3
            && spans.iter().any(|span| span.0 == "run_code")
        {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let run = spans
        .iter()
        .find(|span| span.0 == "run_code")
        .unwrap_or_else(|| panic!("no run_code span in {spans:?}"));
    let fetches: Vec<_> = spans.iter().filter(|span| span.0 == "fetch").collect();
    assert_eq!(fetches.len(), 3, "{spans:?}");
    for fetch in fetches {
        assert_eq!((&fetch.1, &fetch.3), (&run.1, &run.2), "{spans:?}");
    }
    let exported = serde_json::to_string(&*received.lock().expect("not poisoned")).expect("JSON");
    assert!(
        exported.contains(&format!("{}/echo", api.origin)),
        "{exported}"
    );
    assert!(!exported.contains(TOKEN), "the secret reached the trace");
}

/// `coderun run --allow-net ORIGIN --allow-loopback --secret
/// NAME=ENV_VAR@ORIGIN` lets the program fetch that origin with the
/// secret; without the flags the same program is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn coderun_run_takes_the_network_flags() {
    let api = Server::start().await;
    let workspace = Workspace::new();
    let program = workspace.dir.path().join("program.ts");
    std::fs::write(
        &program,
        format!(
            "const r = await fetch('{}/echo', {{ headers: {{ 'x-key': '{{{{secret:api}}}}' }} }});
             return (await r.json()).headers['x-key'];",
            api.origin
        ),
    )
    .expect("write the program");
    let run = |flags: Vec<String>| {
        let mut command = coderun_std();
        command
            .arg("run")
            .arg(&program)
            .args(flags)
            .env("CODERUN_TEST_API_TOKEN", TOKEN);
        command.output().expect("coderun run")
    };
    let allowed = run(vec![
        "--allow-net".into(),
        api.origin.clone(),
        "--allow-loopback".into(),
        "--secret".into(),
        format!("api=CODERUN_TEST_API_TOKEN@{}", api.origin),
    ]);
    let stdout = String::from_utf8_lossy(&allowed.stdout);
    assert!(
        allowed.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&allowed.stderr)
    );
    assert!(stdout.contains("{{secret:api}}"), "{stdout}");
    assert!(!stdout.contains(TOKEN), "the secret leaked: {stdout}");
    assert_eq!(
        api.requests()
            .first()
            .and_then(|request| request.header("x-key").map(str::to_owned)),
        Some(TOKEN.to_owned())
    );
    let refused = run(Vec::new());
    let output = String::from_utf8_lossy(&refused.stdout);
    assert!(output.contains("allows no network access"), "{output}");
    assert_eq!(api.requests().len(), 1, "the refused run sent nothing");
}
