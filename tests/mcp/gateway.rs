//! Serving the upstreams: the SDK, programs across upstreams, modes, and
//! what an upstream's failures look like to a program.

use std::process::Stdio;

use rmcp::model::{CallToolRequest, CallToolRequestParams, ClientRequest, JsonObject};
use rmcp::service::PeerRequestOptions;
use serde_json::{Value, json};

use super::{
    Session, Workspace, check_round_trip, check_sdk_listing, eventually, round_trip_program, text,
};

#[tokio::test(flavor = "multi_thread")]
async fn stdio_serves_the_sdk_and_runs_a_program_across_two_upstreams() {
    let workspace = Workspace::new();
    let config = workspace.write_config(&workspace.npm_config());
    let session = Session::stdio(&["--config", &config.display().to_string()]).await;
    check_sdk_listing(&session.tools().await);
    let result = session
        .run_code(&round_trip_program(&workspace.files()))
        .await;
    check_round_trip(&workspace, &result);
    session.client.cancel().await.expect("close");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_upstream_that_exits_at_start_is_named_and_the_others_are_served() {
    let workspace = Workspace::new();
    let config = workspace.write_config(&workspace.fixture_config());
    let session = Session::stdio(&["--config", &config.display().to_string()]).await;

    let tools = session.tools().await;
    let description = tools[0].description.as_deref().unwrap_or_default();
    assert!(
        description.contains("  fixture_echo(args: {"),
        "{description}"
    );
    assert!(!description.contains("broken_echo"), "{description}");
    let unavailable = &description[description.find("## Unavailable").expect("a note")..];
    assert!(unavailable.contains("upstream \"broken\""), "{unavailable}");
    assert!(unavailable.contains("refusing to start"), "{unavailable}");
    // stderr is read on a task of its own: give it time to catch up.
    for _ in 0..100 {
        if session.stderr().contains("upstream \"broken\"") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(
        session.stderr().contains("upstream \"broken\""),
        "{}",
        session.stderr()
    );

    let result = session
        .run_code("return await tools.fixture_echo({ text: 'still serving' })")
        .await;
    assert_eq!(text(&result), "still serving");
}

#[tokio::test(flavor = "multi_thread")]
async fn mode_both_offers_the_upstream_tools_natively_too() {
    let workspace = Workspace::new();
    let config = workspace.write_config(&workspace.fixture_config());
    let session =
        Session::stdio(&["--config", &config.display().to_string(), "--mode", "both"]).await;
    let tools = session.tools().await;
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    assert_eq!(
        names,
        // Registration order: the upstream's own order, then run_code.
        [
            "fixture_echo",
            "fixture_steps",
            "fixture_count",
            "fixture_fail",
            "fixture_crash",
            "fixture_wait",
            "run_code"
        ]
    );
    let mut arguments = JsonObject::new();
    arguments.insert("text".to_owned(), Value::from("direct"));
    let result = session
        .client
        .peer()
        .call_tool(CallToolRequestParams::new("fixture_echo").with_arguments(arguments))
        .await
        .expect("a native call");
    assert_eq!(text(&result), "direct");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_upstream_that_dies_mid_call_rejects_that_call_naming_it() {
    let workspace = Workspace::new();
    let config = workspace.write_config(&workspace.fixture_config());
    let session = Session::stdio(&["--config", &config.display().to_string()]).await;
    let result = session
        .run_code(
            "try {\n  await tools.fixture_crash({});\n  return 'no error';\n} catch (error) {\n  \
             return error.message;\n}",
        )
        .await;
    let message = text(&result);
    assert_ne!(result.is_error, Some(true), "{message}");
    assert!(
        message.starts_with("upstream \"fixture\" lost the connection"),
        "{message}"
    );
    assert!(
        message.contains("during a call of its tool \"crash\""),
        "{message}"
    );
    assert!(message.contains("crashing on purpose"), "{message}");

    // The other calls of the dead upstream fail fast, naming it too.
    let again = session
        .run_code("return await tools.fixture_echo({ text: 'x' })")
        .await;
    assert_eq!(again.is_error, Some(true));
    assert!(
        text(&again).contains("upstream \"fixture\""),
        "{}",
        text(&again)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn upstream_errors_and_hangs_reject_the_call_with_the_upstreams_message() {
    let workspace = Workspace::new();
    let config = workspace.write_config(&workspace.fixture_config());
    let session = Session::stdio(&[
        "--config",
        &config.display().to_string(),
        "--call-timeout",
        "0.5",
    ])
    .await;
    let result = session
        .run_code(
            "const messages = [];\n\
             for (const call of [() => tools.fixture_fail({}), () => tools.fixture_wait({})]) {\n\
               try { await call(); } catch (error) { messages.push(error.message); }\n\
             }\n\
             return messages.join('\\n');",
        )
        .await;
    let text = text(&result);
    assert_eq!(
        text,
        "the fixture failed on purpose\nupstream \"fixture\" did not answer a call of its tool \
         \"wait\" within 0.5s; the call was cancelled"
    );
    let events = workspace.events_file();
    eventually("the hung call to be cancelled upstream", || {
        std::fs::read_to_string(&events)
            .unwrap_or_default()
            .contains("cancelled")
    })
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn client_cancellation_aborts_the_run_and_cancels_the_upstream_call() {
    let workspace = Workspace::new();
    let config = workspace.write_config(&workspace.fixture_config());
    let session = Session::stdio(&["--config", &config.display().to_string()]).await;

    let mut arguments = JsonObject::new();
    arguments.insert(
        "code".to_owned(),
        Value::from("await tools.fixture_wait({});\nreturn 'not cancelled';"),
    );
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(
        CallToolRequestParams::new("run_code").with_arguments(arguments),
    ));
    let handle = session
        .client
        .peer()
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .expect("send run_code");
    let events = workspace.events_file();
    let read_events = || std::fs::read_to_string(&events).unwrap_or_default();
    eventually("the upstream call to start", || {
        read_events().contains("started")
    })
    .await;

    handle
        .cancel(Some("the user gave up".to_owned()))
        .await
        .expect("send the cancellation");
    eventually("the upstream to see the cancellation", || {
        read_events().contains("cancelled")
    })
    .await;
    eventually("the run to end as abort", || {
        session
            .stderr()
            .contains("failed: code run failed (abort): ")
    })
    .await;
    // The server is still usable.
    let result = session.run_code("return 1 + 1").await;
    assert_eq!(text(&result), "2");
}

#[test]
fn sdk_prints_the_declarations_and_names_a_failed_upstream() {
    let workspace = Workspace::new();
    let config = workspace.write_config(&workspace.fixture_config());
    let output = super::coderun_std()
        .args(["sdk", "--config", &config.display().to_string()])
        .output()
        .expect("run coderun sdk");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stdout.contains("\ndeclare const tools: {\n"), "{stdout}");
    assert!(stdout.contains("  $search(query: string"), "{stdout}");
    assert!(stdout.contains("  fixture_wait(args?: {"), "{stdout}");
    assert!(
        stderr.contains("coderun sdk: upstream \"broken\""),
        "{stderr}"
    );
    assert_eq!(output.status.code(), Some(1), "{stderr}");
}

#[test]
fn a_bad_configuration_is_a_usage_error_naming_the_key() {
    let workspace = Workspace::new();
    let config = workspace.write_config(&json!({"mcpServers": {"a": {"url": "ftp://x"}}}));
    let output = super::coderun_std()
        .args(["mcp", "--config", &config.display().to_string()])
        .stdin(Stdio::null())
        .output()
        .expect("run coderun mcp");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("mcpServers.a: \"url\" must start with http"),
        "{stderr}"
    );
}

/// In mode both, an upstream's resource and prompt lists changing reaches
/// the client as the same notifications, and the capabilities say so; its
/// tools changing is logged (coderun serves the tools it listed at start).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstreams_list_changes_reach_the_client_in_mode_both() {
    let workspace = Workspace::new();
    let mut config = workspace.fixture_config();
    config["mcpServers"]["fixture"]["env"]["FIXTURE_LISTS"] = json!("1");
    config["mcpServers"]
        .as_object_mut()
        .expect("servers")
        .remove("broken");
    let config = workspace.write_config(&config);
    let mut session = super::RawSession::initialized(&[
        "--config",
        &config.display().to_string(),
        "--mode",
        "both",
    ])
    .await;
    session
        .send(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                      "params": {"name": "fixture_change_lists", "arguments": {}}}))
        .await;
    let mut heard = Vec::new();
    let mut answered = false;
    while !(answered && heard.len() >= 2) {
        let message = session.reply().await;
        if message["id"] == 2 {
            assert_eq!(
                message["result"]["content"][0]["text"], "changed",
                "{message}"
            );
            answered = true;
        } else if let Some(method) = message["method"].as_str() {
            heard.push(method.to_owned());
        }
    }
    heard.sort();
    assert_eq!(
        heard,
        [
            "notifications/prompts/list_changed",
            "notifications/resources/list_changed"
        ]
    );
    for _ in 0..100 {
        if session.stderr().contains("the upstream's tools changed") {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    panic!("the tools' change was not logged:\n{}", session.stderr());
}

/// The configuration the Kubernetes manifests ship (deploy/kubernetes/
/// configmap.yaml) is one coderun accepts, with the key files the
/// Deployment mounts.
#[test]
fn the_shipped_kubernetes_configuration_is_valid() {
    let manifest = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/kubernetes/configmap.yaml"),
    )
    .expect("read the ConfigMap");
    let json: String = manifest
        .split_once("servers.json: |\n")
        .expect("a servers.json entry")
        .1
        .lines()
        .map_while(|line| line.strip_prefix("    "))
        .collect::<Vec<_>>()
        .join("\n");
    let keys = tempfile::tempdir().expect("temp dir");
    for key in ["current", "previous"] {
        std::fs::write(keys.path().join(key), format!("{key}-{}", "k".repeat(40)))
            .expect("write a key");
    }
    let json = json.replace("/etc/coderun/keys", &keys.path().display().to_string());
    let config = coderun::mcp::McpConfig::parse(std::path::Path::new("configmap.yaml"), &json)
        .unwrap_or_else(|error| panic!("{error}\n{json}"));
    assert_eq!(config.request_state.keys.len(), 2);
    assert!(config.servers.contains_key("search"));
}
