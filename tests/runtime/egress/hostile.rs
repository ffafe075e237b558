//! The hostile suite's `fetch` cases: a program that attacks the host
//! through egress gets a clear error or hits its budgets, nothing it should
//! not send reaches the server, and the runtime runs programs afterwards.

use std::time::Duration;

use coderun_runtime::{CodeRunRequest, CodeRuntime, FailureKind, WasmCodeRuntime};
use serde_json::json;

use super::server::Server;
use super::{assert_type_error, program, reach, run_against, value_of};
use crate::{assert_failure, runtime_with, shared};

/// Asserts that `runtime` still runs a program.
async fn assert_alive(runtime: &WasmCodeRuntime) {
    let result = runtime
        .run(CodeRunRequest::new("return 1 + 1"))
        .await
        .expect("no misuse");
    assert_eq!(
        result.value,
        Some(json!(2)),
        "the runtime no longer runs programs: {:?}",
        result.error
    );
}

/// A URL of a megabyte is refused with an error about the URL, unsent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_megabyte_url_is_refused() {
    let server = Server::start().await;
    let result = run_against(
        &server,
        reach(&server),
        "return await attempt(() => fetch(origin + '/' + 'a'.repeat(1 << 20)));",
    )
    .await;
    assert_type_error(&value_of(&result), &["URL"]);
    assert!(server.requests().is_empty(), "the URL was sent");
    assert_alive(shared()).await;
}

/// A thousand headers are refused with an error about the headers, unsent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_headers_are_refused() {
    let server = Server::start().await;
    let result = run_against(
        &server,
        reach(&server),
        "
        const headers = {};
        for (let i = 0; i < 1000; i++) headers['x-header-' + i] = 'value ' + i;
        return await attempt(() => fetch(origin + '/echo', { headers }));
        ",
    )
    .await;
    assert_type_error(&value_of(&result), &["headers"]);
    assert!(server.requests().is_empty(), "{:?}", server.paths());
    assert_alive(shared()).await;
}

/// A request body of 100 MB never leaves: either building it ends the run
/// at the memory cap, or the fetch is refused at `maxRequestBodyBytes`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hundred_megabyte_body_is_never_sent() {
    let server = Server::start().await;
    let result = run_against(
        &server,
        reach(&server),
        "
        const body = new Uint8Array(100 * 1024 * 1024);
        return await attempt(() => fetch(origin + '/echo', { method: 'POST', body }));
        ",
    )
    .await;
    match &result.error {
        Some(error) => assert_eq!(
            error.kind,
            FailureKind::WorkerExit,
            "unexpected failure: {error}"
        ),
        None => assert_type_error(&value_of(&result), &["maxRequestBodyBytes"]),
    }
    assert!(server.requests().is_empty(), "{:?}", server.paths());
    assert_alive(shared()).await;
}

/// A response that never ends is cut at `maxResponseBytes`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_endless_response_stops_at_max_response_bytes() {
    let server = Server::start().await;
    let result = run_against(
        &server,
        reach(&server).max_response_bytes(1024 * 1024),
        "return await attempt(() => fetch(origin + '/endless'));",
    )
    .await;
    assert_type_error(&value_of(&result), &["maxResponseBytes"]);
    assert_alive(shared()).await;
}

/// A fetch in an endless loop sends no more than `maxRequests`, and the
/// run's own budget ends it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fetch_in_a_loop_ends_at_the_run_budget() {
    let server = Server::start().await;
    let runtime = runtime_with(|c| {
        c.wall_clock(Duration::from_secs(2));
    });
    let source = program(
        &[("origin", &server.origin)],
        "for (;;) { try { await fetch(origin + '/json'); } catch {} }",
    );
    let result = runtime
        .run(CodeRunRequest::new(source).network(reach(&server).max_requests(50)))
        .await
        .expect("no misuse");
    assert_failure(&result, FailureKind::Timeout, "budget");
    let sent = server.requests().len();
    assert!(
        (1..=50).contains(&sent),
        "the server saw {sent} requests with maxRequests 50"
    );
    assert_alive(&runtime).await;
}
