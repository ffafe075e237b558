//! Egress in durable runs, and at scale: a recorded run's requests and
//! responses are in its ledger, so its replay needs no network, and an
//! edited program that fetches something else diverges naming the
//! request; many runs fetch at once.

use std::time::Duration;

use coderun_runtime::{CodeRunRequest, CodeRuntime, FailureKind};
use serde_json::json;

use super::server::Server;
use super::{program, reach, value_of};
use crate::{assert_failure, run_request, runtime_with};

/// Fetches `/items/0` to `/items/19` one after another and sums their `n`.
const TWENTY_FETCHES: &str = "
    let total = 0;
    for (let i = 0; i < 20; i++) {
      const { n } = await (await fetch(`${origin}/items/${i}`)).json();
      total += n;
    }
    return total;
";

/// A run of twenty fetches, recorded, replays with its server stopped and
/// without a network policy: the ledger answers every request. An edited
/// URL makes the replay diverge, naming the request and the call.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recorded_run_replays_offline_and_an_edited_url_diverges() {
    let server = Server::start().await;
    let source = program(&[("origin", &server.origin)], TWENTY_FETCHES);
    let recorded = run_request(
        CodeRunRequest::new(source)
            .network(reach(&server))
            .record(true),
    )
    .await;
    assert_eq!(value_of(&recorded), json!(190));
    assert_eq!(server.requests().len(), 20);
    let record = *recorded.record.expect("a record");

    server.stop().await;
    let replayed = run_request(CodeRunRequest::replay(record.clone())).await;
    assert_eq!(value_of(&replayed), json!(190));
    assert_eq!(
        server.requests().len(),
        20,
        "the replay sent requests: {:?}",
        server.paths()
    );

    let mut edited = CodeRunRequest::replay(record);
    let original = edited.program.clone();
    edited.program = original.replace("/items/${i}", "/items/${i === 7 ? 70 : i}");
    assert_ne!(edited.program, original, "the edit applies");
    let diverged = run_request(edited).await;
    assert_failure(&diverged, FailureKind::Diverged, "/items/70");
    assert_failure(&diverged, FailureKind::Diverged, "at call 8");
    assert_eq!(server.requests().len(), 20, "{:?}", server.paths());
}

/// A hundred runs at once, each making ten requests, all complete with the
/// right answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hundred_concurrent_runs_of_ten_fetches_each_complete() {
    let server = Server::start().await;
    let runtime = runtime_with(|c| {
        c.max_concurrent_runs(100)
            .wall_clock(Duration::from_secs(120))
            .network(reach(&server));
    });
    let runtime = &runtime;
    let runs = (0..100u64).map(|k| {
        let source = program(
            &[("origin", &server.origin), ("k", &k.to_string())],
            "
            let total = 0;
            for (let i = 0; i < 10; i++) {
              total += (await (await fetch(`${origin}/items/${Number(k) * 10 + i}`)).json()).n;
            }
            return total;
            ",
        );
        async move {
            let result = runtime
                .run(CodeRunRequest::new(source))
                .await
                .expect("no misuse");
            (k, result)
        }
    });
    for (k, result) in futures::future::join_all(runs).await {
        assert_eq!(value_of(&result), json!(100 * k + 45), "run {k}");
    }
    assert_eq!(server.requests().len(), 1000);
}

/// A recorded run's responses count against `max_record_bytes`: a response
/// larger than the record may hold ends the run naming the key.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recorded_responses_count_against_the_record_cap() {
    let server = Server::start().await;
    let runtime = runtime_with(|config| {
        config.max_record_bytes(64 * 1024).network(reach(&server));
    });
    let source = program(
        &[("origin", &server.origin)],
        "return (await (await fetch(origin + '/large?bytes=200000')).arrayBuffer()).byteLength;",
    );
    let recorded = runtime
        .run(CodeRunRequest::new(source.clone()).record(true))
        .await
        .expect("no misuse");
    assert_failure(&recorded, FailureKind::Exception, "max_record_bytes");
    let live = runtime
        .run(CodeRunRequest::new(source))
        .await
        .expect("no misuse");
    assert_eq!(value_of(&live), json!(200_000));
}
