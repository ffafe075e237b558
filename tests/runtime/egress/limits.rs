//! The policy's caps on a run's egress: response and request body bytes,
//! the time per request, the requests per run and those in flight at once;
//! and the program's own AbortSignal. Each cap ends in a clear error the
//! program can catch, and the run goes on.

use std::time::Duration;

use serde_json::json;

use super::server::Server;
use super::{assert_type_error, reach, run_against, value_of};

/// A response past `maxResponseBytes` rejects naming the cap; one within
/// it reads whole; a HEAD of the larger resource answers (its length is
/// not a body's).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_response_past_max_response_bytes_rejects_and_one_within_reads_whole() {
    let server = Server::start().await;
    let result = run_against(
        &server,
        reach(&server).max_response_bytes(1024 * 1024),
        "
        const within = await (await fetch(origin + '/large?bytes=524288')).arrayBuffer();
        const head = await fetch(origin + '/large?bytes=2097152', { method: 'HEAD' });
        return [within.byteLength, await attempt(() => fetch(origin + '/large?bytes=2097152')),
          head.status, head.headers.get('content-length')];
        ",
    )
    .await;
    let value = value_of(&result);
    assert_eq!(value[0], json!(512 * 1024));
    assert_type_error(&value[1], &["maxResponseBytes"]);
    assert_eq!((&value[2], &value[3]), (&json!(200), &json!("2097152")));
}

/// A response slower than the policy's timeout rejects naming `timeoutMs`;
/// the program catches it and goes on fetching.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_past_the_timeout_rejects_and_the_run_goes_on() {
    let server = Server::start().await;
    let result = run_against(
        &server,
        reach(&server).timeout(Duration::from_millis(300)),
        "
        const slow = await attempt(() => fetch(origin + '/slow?ms=5000'));
        return [slow, await attempt(() => fetch(origin + '/json'))];
        ",
    )
    .await;
    let value = value_of(&result);
    assert_type_error(&value[0], &["timeoutMs"]);
    assert_eq!(value[1], json!(["resolved", 200]));
}

/// A request body past `maxRequestBodyBytes` is refused before it is sent;
/// one within it reaches the server whole.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_body_past_the_cap_is_refused_unsent() {
    let server = Server::start().await;
    let result = run_against(
        &server,
        reach(&server).max_request_body_bytes(1024),
        "
        const refused = await attempt(() => fetch(origin + '/echo', { method: 'POST', body: 'x'.repeat(4096) }));
        const echoed = await (await fetch(origin + '/echo', { method: 'POST', body: 'y'.repeat(512) })).json();
        return [refused, echoed.method, echoed.body.length];
        ",
    )
    .await;
    let value = value_of(&result);
    assert_type_error(&value[0], &["maxRequestBodyBytes"]);
    assert_eq!(value[1], json!("POST"));
    assert_eq!(value[2], json!(512));
    assert_eq!(server.requests().len(), 1, "{:?}", server.paths());
}

/// Past `maxRequests` every further fetch of the run rejects naming the
/// cap, and is not sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fetches_past_max_requests_reject() {
    let server = Server::start().await;
    let result = run_against(
        &server,
        reach(&server).max_requests(3),
        "
        const outcomes = [];
        for (let i = 0; i < 5; i++) outcomes.push(await attempt(() => fetch(origin + '/items/' + i)));
        return outcomes;
        ",
    )
    .await;
    let value = value_of(&result);
    let outcomes = value.as_array().expect("a list");
    for (i, outcome) in outcomes.iter().take(3).enumerate() {
        assert_eq!(outcome, &json!(["resolved", 200]), "fetch {i}");
    }
    assert_type_error(&value[3], &["maxRequests"]);
    assert_type_error(&value[4], &["maxRequests"]);
    assert_eq!(server.paths(), ["/items/0", "/items/1", "/items/2"]);
}

/// Fetches past `maxInFlight` wait their turn rather than fail: all ten
/// answer, and the server never serves more than two at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fetches_past_max_in_flight_wait_their_turn() {
    let server = Server::start().await;
    let result = run_against(
        &server,
        reach(&server).max_in_flight(2),
        "
        const slow = () => fetch(origin + '/slow?ms=100').then((response) => response.text());
        return await Promise.all(Array.from({ length: 10 }, slow));
        ",
    )
    .await;
    assert_eq!(value_of(&result), json!(vec!["done"; 10]));
    assert_eq!(server.requests().len(), 10);
    let most = server.max_concurrent();
    assert!(
        (1..=2).contains(&most),
        "the server served {most} requests at once past maxInFlight 2"
    );
}

/// An AbortSignal that fires while the request is out rejects the fetch
/// with an AbortError; an already-aborted one rejects at once, unsent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_abort_rejects_the_fetch_with_an_abort_error() {
    let server = Server::start().await;
    let result = run_against(
        &server,
        reach(&server),
        "
        const controller = new AbortController();
        const pending = fetch(origin + '/slow?ms=5000', { signal: controller.signal });
        setTimeout(() => controller.abort(), 50);
        let late;
        try { await pending; late = 'resolved'; } catch (e) { late = e.name; }
        let early;
        try {
          await fetch(origin + '/json', { signal: AbortSignal.abort() });
          early = 'resolved';
        } catch (e) {
          early = e.name;
        }
        return [late, early];
        ",
    )
    .await;
    assert_eq!(value_of(&result), json!(["AbortError", "AbortError"]));
    assert!(
        !server.paths().iter().any(|path| path == "/json"),
        "an aborted fetch was sent: {:?}",
        server.paths()
    );
}
