//! Egress: `fetch` in the sandbox under the host's network policy, against
//! real HTTP servers on loopback ([`server`]), a fresh one per test. The
//! policy alone decides what a program reaches (origins, methods, paths,
//! and the addresses names resolve to, on every redirect hop); [`limits`]
//! caps what a run sends and receives; [`secrets`] are substituted on the
//! way out and never seen by the program; [`durable`] runs replay their
//! requests offline; [`hostile`] holds the hostile suite's `fetch` cases.

mod durable;
mod hostile;
mod limits;
mod secrets;
mod server;

use coderun_runtime::{AllowRule, CodeRunRequest, CodeRunResult, CodeRuntime, NetworkPolicy};
use serde_json::{Value, json};

use self::server::Server;
use crate::{assert_ok, run_request, runtime_with};

/// Defined before every program: `attempt(() => fetch(…))` reads the whole
/// response and answers `['resolved', status]`, or the constructor name and
/// message of what was thrown, with runs of one character in the message
/// shortened (a hostile URL would otherwise fill the value).
const ATTEMPT: &str = r"
const attempt = async (make) => {
  try {
    const response = await make();
    await response.arrayBuffer();
    return ['resolved', response.status];
  } catch (e) {
    return [e.constructor.name, String(e.message).replace(/(.)\1{63,}/g, '$1…')];
  }
};
";

/// `body` after `const NAME = "VALUE";` for each of `vars`, and [`ATTEMPT`].
fn program(vars: &[(&str, &str)], body: &str) -> String {
    let mut source = String::new();
    for (name, value) in vars {
        source.push_str(&format!("const {name} = {};\n", json!(value)));
    }
    source.push_str(ATTEMPT);
    source.push_str(body);
    source
}

/// A policy that reaches `server` (on loopback) and nothing else.
fn reach(server: &Server) -> NetworkPolicy {
    NetworkPolicy::new()
        .allow(server.origin.clone())
        .allow_loopback(true)
}

/// Runs `body`, with `origin` defined as the server's, under `policy`.
async fn run_against(server: &Server, policy: NetworkPolicy, body: &str) -> CodeRunResult {
    let source = program(&[("origin", &server.origin)], body);
    run_request(CodeRunRequest::new(source).network(policy)).await
}

/// The value of a run that must succeed.
#[track_caller]
fn value_of(result: &CodeRunResult) -> Value {
    assert_ok(result);
    result.value.clone().expect("a value")
}

/// Asserts that `outcome`, what `attempt` answered, is a TypeError whose
/// message contains every needle.
#[track_caller]
fn assert_type_error(outcome: &Value, needles: &[&str]) {
    assert_eq!(
        outcome[0],
        json!("TypeError"),
        "the fetch did not reject with a TypeError: {outcome}"
    );
    let message = outcome[1].as_str().unwrap_or_default();
    for needle in needles {
        assert!(
            message.contains(needle),
            "the rejection lacks {needle:?}: {message}"
        );
    }
}

/// The default policy allows nothing: `fetch` rejects with a TypeError that
/// names the policy, whether the runtime's default applies or a request
/// sets `NetworkPolicy::new()`, and nothing reaches the server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_default_policy_refuses_every_fetch_naming_the_policy() {
    let server = Server::start().await;
    let source = program(
        &[("origin", &server.origin)],
        "return await attempt(() => fetch(origin + '/json'));",
    );
    let by_default = run_request(CodeRunRequest::new(source.clone())).await;
    let explicit = run_request(CodeRunRequest::new(source).network(NetworkPolicy::new())).await;
    for result in [by_default, explicit] {
        assert_type_error(
            &value_of(&result),
            &["network policy", "allows no network access"],
        );
    }
    assert!(server.requests().is_empty(), "{:?}", server.paths());
}

/// An allowed loopback origin answers: the Response carries the status,
/// the headers, the final URL, and a JSON body the program parses.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_allowed_loopback_origin_answers_json_the_program_parses() {
    let server = Server::start().await;
    let result = run_against(
        &server,
        reach(&server),
        "
        const response = await fetch(origin + '/json');
        return {
          status: response.status, ok: response.ok, type: response.headers.get('content-type'),
          url: response.url, redirected: response.redirected, body: await response.json(),
        };
        ",
    )
    .await;
    assert_eq!(
        value_of(&result),
        json!({
            "status": 200, "ok": true, "type": "application/json",
            "url": format!("{}/json", server.origin), "redirected": false,
            "body": server::json_body(),
        })
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 1, "{requests:?}");
    assert_eq!(
        (requests[0].method.as_str(), requests[0].path.as_str()),
        ("GET", "/json")
    );
}

/// The runtime's policy applies to every run that sets none, and a
/// request's policy replaces it rather than adding to it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_policy_replaces_the_runtime_policy() {
    let server = Server::start().await;
    let runtime = runtime_with(|c| {
        c.network(reach(&server));
    });
    let source = program(
        &[("origin", &server.origin)],
        "return await attempt(() => fetch(origin + '/json'));",
    );
    let inherited = runtime
        .run(CodeRunRequest::new(source.clone()))
        .await
        .expect("no misuse");
    assert_eq!(value_of(&inherited), json!(["resolved", 200]));
    let replaced = runtime
        .run(CodeRunRequest::new(source).network(NetworkPolicy::new()))
        .await
        .expect("no misuse");
    assert_type_error(&value_of(&replaced), &["network policy"]);
    assert_eq!(server.paths(), ["/json"]);
}

/// Origins no rule lists (another port of the same host, another host, a
/// name that only looks like an allowed one) reject with a TypeError
/// saying so, and are not sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn origins_no_rule_allows_are_refused_unsent() {
    let (allowed, other) = (Server::start().await, Server::start().await);
    let policy = reach(&allowed).allow("http://*.example.com");
    let source = program(
        &[("other", &other.origin)],
        "
        return [
          await attempt(() => fetch(other + '/json')),
          await attempt(() => fetch('http://example.invalid/json')),
          await attempt(() => fetch('http://example.com/')),
          await attempt(() => fetch('http://example.com.evil.invalid/')),
          await attempt(() => fetch('https://api.example.com/')),
        ];
        ",
    );
    let value = value_of(&run_request(CodeRunRequest::new(source).network(policy)).await);
    for outcome in value.as_array().expect("a list") {
        assert_type_error(outcome, &["no rule allows"]);
    }
    assert!(other.requests().is_empty(), "{:?}", other.paths());
    assert!(allowed.requests().is_empty(), "{:?}", allowed.paths());
}

/// A port of `*` allows every port of the host.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wildcard_port_allows_every_port_of_the_host() {
    let (first, second) = (Server::start().await, Server::start().await);
    let policy = NetworkPolicy::new()
        .allow("http://127.0.0.1:*")
        .allow_loopback(true);
    let source = program(
        &[("first", &first.origin), ("second", &second.origin)],
        "
        return [
          await attempt(() => fetch(first + '/json')),
          await attempt(() => fetch(second + '/items/1')),
        ];
        ",
    );
    let value = value_of(&run_request(CodeRunRequest::new(source).network(policy)).await);
    assert_eq!(value, json!([["resolved", 200], ["resolved", 200]]));
    assert_eq!(first.paths(), ["/json"]);
    assert_eq!(second.paths(), ["/items/1"]);
}

/// A rule's methods and path prefixes: what it lists goes through, any
/// other method or path of the same origin is refused, unsent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn method_and_path_rules_refuse_what_they_do_not_list() {
    let server = Server::start().await;
    let policy = NetworkPolicy::new()
        .allow(
            AllowRule::new(server.origin.clone())
                .methods(["GET"])
                .paths(["/items/"]),
        )
        .allow_loopback(true);
    let result = run_against(
        &server,
        policy,
        "
        const allowed = await (await fetch(origin + '/items/3')).json();
        return [
          allowed,
          await attempt(() => fetch(origin + '/items/3', { method: 'POST', body: 'x' })),
          await attempt(() => fetch(origin + '/json')),
          await attempt(() => fetch(origin + '/items')),
        ];
        ",
    )
    .await;
    let value = value_of(&result);
    assert_eq!(value[0], json!({ "n": 3 }));
    for refused in &value.as_array().expect("a list")[1..] {
        assert_type_error(refused, &["network policy"]);
    }
    assert_eq!(server.paths(), ["/items/3"]);
}

/// `/redirect?to=TARGET`, TARGET encoded, as a program expression.
const REDIRECT: &str = "origin + '/redirect?to=' + encodeURIComponent";

/// Every redirect hop is checked again: a redirect from an allowed origin
/// to a disallowed one rejects, and the disallowed one is never sent to.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redirect_to_a_disallowed_origin_is_refused() {
    let (allowed, other) = (Server::start().await, Server::start().await);
    let source = program(
        &[("origin", &allowed.origin), ("other", &other.origin)],
        &format!("return await attempt(() => fetch({REDIRECT}(other + '/json')));"),
    );
    let result = run_request(CodeRunRequest::new(source).network(reach(&allowed))).await;
    assert_type_error(&value_of(&result), &["redirect", "no rule allows"]);
    assert!(other.requests().is_empty(), "{:?}", other.paths());
    assert_eq!(allowed.requests().len(), 1);
}

/// `redirect: 'manual'` answers the redirect itself, its Location readable;
/// `redirect: 'error'` rejects; neither follows it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn manual_redirects_answer_the_redirect_and_error_redirects_reject() {
    let server = Server::start().await;
    let result = run_against(
        &server,
        reach(&server),
        &format!(
            "
            const target = origin + '/json';
            const response = await fetch({REDIRECT}(target), {{ redirect: 'manual' }});
            return {{
              status: response.status, location: response.headers.get('location'),
              redirected: response.redirected,
              error: await attempt(() => fetch({REDIRECT}(target), {{ redirect: 'error' }})),
            }};
            "
        ),
    )
    .await;
    let value = value_of(&result);
    assert_eq!(value["status"], json!(302));
    assert_eq!(value["location"], json!(format!("{}/json", server.origin)));
    assert_eq!(value["redirected"], json!(false));
    assert_type_error(&value["error"], &["redirect"]);
    assert!(
        !server.paths().iter().any(|path| path == "/json"),
        "a redirect was followed: {:?}",
        server.paths()
    );
}

/// Redirects within what the policy allows are followed, hop by hop: the
/// Response says it was redirected and has the final URL. Past
/// `maxRedirects` the fetch rejects.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn allowed_redirects_are_followed_to_the_final_url() {
    let server = Server::start().await;
    let body = format!(
        "
        const twice = {REDIRECT}({REDIRECT}(origin + '/items/5'));
        const response = await fetch(twice);
        return {{
          redirected: response.redirected, url: response.url, status: response.status,
          body: await response.json(),
        }};
        "
    );
    let followed = value_of(&run_against(&server, reach(&server), &body).await);
    assert_eq!(
        followed,
        json!({
            "redirected": true, "url": format!("{}/items/5", server.origin), "status": 200,
            "body": { "n": 5 },
        })
    );
    assert_eq!(server.requests().len(), 3, "{:?}", server.paths());

    let capped = run_against(
        &server,
        reach(&server).max_redirects(1),
        &format!("return await attempt(() => fetch({REDIRECT}({REDIRECT}(origin + '/items/5'))));"),
    )
    .await;
    let outcome = value_of(&capped);
    assert_type_error(&outcome, &[]);
    let message = outcome[1].as_str().unwrap_or_default().to_lowercase();
    assert!(message.contains("redirect"), "{message}");
}

/// The metadata address is link-local and refused after resolution, even
/// when a rule allows its origin: directly, and as a redirect's target.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_metadata_address_is_refused_even_when_a_rule_allows_it() {
    let server = Server::start().await;
    let policy = reach(&server).allow("http://169.254.169.254");
    let result = run_against(
        &server,
        policy,
        &format!(
            "
            const metadata = 'http://169.254.169.254/latest/meta-data/';
            return [
              await attempt(() => fetch({REDIRECT}(metadata))),
              await attempt(() => fetch(metadata)),
            ];
            "
        ),
    )
    .await;
    let value = value_of(&result);
    assert_type_error(&value[0], &["169.254.169.254", "link-local"]);
    assert_type_error(&value[1], &["169.254.169.254", "link-local"]);
}

/// With loopback not allowed, a name that resolves to a loopback address is
/// refused after resolution (so a DNS answer cannot smuggle it in), and so
/// is the literal address, though a rule allows each origin.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn loopback_is_refused_after_resolution_unless_allowed() {
    let server = Server::start().await;
    let localhost = format!("http://localhost:{}", server.port);
    let policy = NetworkPolicy::new()
        .allow(localhost.clone())
        .allow(server.origin.clone());
    let source = program(
        &[("origin", &server.origin), ("localhost", &localhost)],
        "
        return [
          await attempt(() => fetch(localhost + '/json')),
          await attempt(() => fetch(origin + '/json')),
        ];
        ",
    );
    let value = value_of(&run_request(CodeRunRequest::new(source).network(policy)).await);
    assert_type_error(&value[0], &["resolves to", "loopback"]);
    assert_type_error(&value[1], &["loopback"]);
    assert!(server.requests().is_empty(), "{:?}", server.paths());
}

/// A gzipped body is decoded before the program reads it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gzip_body_reads_decoded() {
    let server = Server::start().await;
    let result = run_against(
        &server,
        reach(&server),
        "return await (await fetch(origin + '/gzip')).json();",
    )
    .await;
    assert_eq!(value_of(&result), server::gzip_value());
}

/// A chunked stream without a content length reads whole, as text and
/// through the body's reader.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chunked_stream_reads_whole_as_text_and_through_a_reader() {
    let server = Server::start().await;
    let result = run_against(
        &server,
        reach(&server),
        "
        const text = await (await fetch(origin + '/chunked')).text();
        const reader = (await fetch(origin + '/chunked')).body.getReader();
        const chunks = [];
        let bytes = 0;
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          chunks.push(value);
          bytes += value.byteLength;
        }
        return { text, bytes, read: await new Blob(chunks).text() };
        ",
    )
    .await;
    let expected = server::chunked_text();
    assert_eq!(
        value_of(&result),
        json!({ "text": expected, "bytes": expected.len(), "read": expected })
    );
}
