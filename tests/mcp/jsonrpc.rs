//! JSON-RPC 2.0 over stdio, line by line: every malformed message gets the
//! error reply the spec gives it, and the server goes on serving.

use serde_json::{Value, json};

use super::{RawSession, assert_error, fixture};

/// `coderun mcp -- node fixture-server.mjs`, initialized.
async fn session(extra: &[&str]) -> RawSession {
    let fixture = fixture();
    let mut args: Vec<&str> = extra.to_vec();
    args.extend(["--", "node", &fixture]);
    RawSession::initialized(&args).await
}

/// The server still answers a request after whatever came before.
async fn assert_still_serving(session: &mut RawSession) {
    let reply = session
        .call(&json!({"jsonrpc": "2.0", "id": "after", "method": "ping"}))
        .await;
    assert_eq!(
        reply,
        json!({"jsonrpc": "2.0", "id": "after", "result": {}})
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_line_that_is_not_json_gets_a_parse_error_with_a_null_id() {
    let mut session = session(&[]).await;
    session
        .send_line(br#"{"jsonrpc": "2.0", "id": 1, "method": "ping""#)
        .await;
    let reply = session.reply().await;
    assert_error(&reply, &Value::Null, -32700, "Parse error: ");
    assert_still_serving(&mut session).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_invalid_request_gets_an_error_with_its_id_or_a_null_one() {
    let mut session = session(&[]).await;
    let reply = session
        .call(&json!({"jsonrpc": "1.0", "id": 7, "method": "ping"}))
        .await;
    assert_error(&reply, &json!(7), -32600, "\"jsonrpc\" must be \"2.0\"");
    let reply = session
        .call(&json!({"jsonrpc": "2.0", "id": null, "method": "ping"}))
        .await;
    assert_error(&reply, &Value::Null, -32600, "Invalid Request: ");
    let reply = session.call(&json!("ping")).await;
    assert_error(&reply, &Value::Null, -32600, "must be a JSON object");
    assert_still_serving(&mut session).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn tools_call_without_params_is_invalid_params_with_the_id() {
    let mut session = session(&[]).await;
    let reply = session
        .call(&json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call"}))
        .await;
    assert_error(&reply, &json!(3), -32602, "tools/call needs params");
    let reply = session
        .call(&json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"arguments": {}}}))
        .await;
    assert_error(&reply, &json!(4), -32602, "params.name is missing");
    assert_still_serving(&mut session).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn tools_call_with_arguments_that_are_not_an_object_is_invalid_params() {
    let mut session = session(&[]).await;
    let reply = session
        .call(&json!({"jsonrpc": "2.0", "id": "a", "method": "tools/call",
            "params": {"name": "run_code", "arguments": "return 1"}}))
        .await;
    assert_error(
        &reply,
        &json!("a"),
        -32602,
        "params.arguments must be an object (got a string)",
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn tools_call_of_an_unknown_tool_is_invalid_params() {
    let mut session = session(&[]).await;
    let reply = session
        .call(&json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
            "params": {"name": "nope", "arguments": {}}}))
        .await;
    assert_error(&reply, &json!(5), -32602, "unknown tool \"nope\"");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_line_over_the_cap_gets_an_error_and_the_next_request_is_served() {
    let mut session = session(&["--max-message-bytes", "1024"]).await;
    let long = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
        "params": {"name": "run_code", "arguments": {"code": "x".repeat(4096)}}});
    session.send(&long).await;
    let reply = session.reply().await;
    assert_error(&reply, &Value::Null, -32600, "limit of 1024 bytes");
    assert_still_serving(&mut session).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_batch_is_an_invalid_request() {
    let mut session = session(&[]).await;
    let reply = session
        .call(&json!([{"jsonrpc": "2.0", "id": 1, "method": "ping"}]))
        .await;
    assert_error(&reply, &Value::Null, -32600, "batches");
    assert_still_serving(&mut session).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_notification_before_initialize_does_not_stop_the_server() {
    let fixture = fixture();
    let mut session = RawSession::start(&["--", "node", &fixture]).await;
    session
        .send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    let reply = session
        .call(
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"}
            }}),
        )
        .await;
    assert_eq!(reply["result"]["serverInfo"]["name"], "coderun", "{reply}");
}

/// `tools/list` says how long its answer may be cached, and by whom
/// (SEP-2549): the tools do not change while the process runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tool_list_carries_cache_hints() {
    let fixture = fixture();
    let mut session = RawSession::initialized(&["--", "node", &fixture]).await;
    session
        .send(&json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list"}))
        .await;
    let listed = session.reply().await;
    assert_eq!(listed["result"]["ttlMs"], 300_000, "{listed}");
    assert_eq!(listed["result"]["cacheScope"], "private", "{listed}");
    assert_eq!(listed["result"]["tools"][0]["name"], "run_code", "{listed}");
}
