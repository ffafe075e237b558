//! Secrets the program never sees: the host substitutes `{{secret:NAME}}`
//! on the way out, only for the origins the secret names, and the program,
//! its logs and the run's record hold the placeholder, never the value.

use coderun_runtime::{AllowRule, CodeRunRequest, CodeRunResult, NetworkPolicy, Secret};
use serde_json::json;

use super::server::Server;
use super::{assert_type_error, program, reach, run_against, value_of};
use crate::run_request;

/// The secret's value: nothing the program can observe may contain it.
const TOKEN: &str = "s3cr3t-token-value";

/// What programs write in its place.
const PLACEHOLDER: &str = "{{secret:github}}";

/// The secret `github`, for `origin` only.
fn github(origin: &str) -> Secret {
    Secret::new("github", TOKEN).origin(origin)
}

/// Asserts that nothing of `result` (value, logs, error, record) holds the
/// secret's value.
#[track_caller]
fn assert_unseen(result: &CodeRunResult) {
    let whole = serde_json::to_string(result).expect("a result serializes");
    assert!(
        !whole.contains(TOKEN),
        "the secret's value reached the program's side: {whole}"
    );
}

/// A placeholder in a request header reaches the echo server as the value;
/// the program sees only the placeholder, through the Request's headers,
/// the echoed body and header, and its logs, and so does the record.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_secret_reaches_the_server_and_the_program_sees_only_its_placeholder() {
    let server = Server::start().await;
    let policy = reach(&server).secret(github(&server.origin));
    let source = program(
        &[("origin", &server.origin)],
        "
        const request = new Request(origin + '/echo', {
          method: 'POST', headers: { authorization: 'Bearer {{secret:github}}' }, body: 'payload',
        });
        const sent = request.headers.get('authorization');
        const response = await fetch(request);
        const echoed = response.headers.get('x-echo-authorization');
        const text = await response.text();
        console.log('sent', sent, 'echoed', echoed);
        console.log(text);
        console.log(JSON.stringify([...response.headers]));
        return { sent, echoed, text, status: response.status };
        ",
    );
    let result = run_request(CodeRunRequest::new(source).network(policy).record(true)).await;
    let value = value_of(&result);

    let requests = server.requests();
    assert_eq!(requests.len(), 1, "{requests:?}");
    assert_eq!(
        requests[0].header("authorization"),
        Some(format!("Bearer {TOKEN}").as_str()),
        "the server did not receive the secret's value"
    );

    assert_unseen(&result);
    let bearer = format!("Bearer {PLACEHOLDER}");
    assert_eq!(value["status"], json!(200));
    assert_eq!(value["sent"], json!(bearer));
    assert_eq!(value["echoed"], json!(bearer));
    assert!(
        value["text"]
            .as_str()
            .is_some_and(|t| t.contains(PLACEHOLDER)),
        "{value}"
    );
    let record = serde_json::to_string(result.record.as_deref().expect("a record"))
        .expect("a record serializes");
    assert!(
        record.contains(PLACEHOLDER),
        "the record lacks the placeholder: {record}"
    );
}

/// A header the policy attaches to an origin reaches the server though the
/// program set none, and the program cannot read its value.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_policy_header_reaches_the_server_unseen_by_the_program() {
    let server = Server::start().await;
    let policy = NetworkPolicy::new()
        .allow(AllowRule::new(server.origin.clone()).header("x-api-key", PLACEHOLDER))
        .allow_loopback(true)
        .secret(github(&server.origin));
    let result = run_against(
        &server,
        policy,
        "
        const request = new Request(origin + '/echo');
        const response = await fetch(request);
        const text = await response.text();
        console.log(text);
        return { own: [...request.headers], text, headers: [...response.headers] };
        ",
    )
    .await;
    let value = value_of(&result);
    assert_eq!(
        value["own"],
        json!([]),
        "the program's Request gained headers"
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 1, "{requests:?}");
    assert_eq!(requests[0].header("x-api-key"), Some(TOKEN));
    assert_unseen(&result);
}

/// A secret offered to an origin the policy allows but the secret does not
/// name is refused, naming the secret, and the request is never sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_secret_offered_to_another_origin_is_refused_unsent() {
    let (owner, other) = (Server::start().await, Server::start().await);
    let policy = reach(&owner)
        .allow(other.origin.clone())
        .secret(github(&owner.origin));
    let source = program(
        &[("other", &other.origin)],
        "
        const headers = { authorization: 'Bearer {{secret:github}}' };
        return await attempt(() => fetch(other + '/echo', { headers }));
        ",
    );
    let result = run_request(CodeRunRequest::new(source).network(policy)).await;
    assert_type_error(&value_of(&result), &["secret", "github"]);
    assert!(other.requests().is_empty(), "{:?}", other.requests());
    assert!(owner.requests().is_empty(), "{:?}", owner.requests());
    assert_unseen(&result);
}
