//! Approvals in `coderun mcp`: the published filesystem server annotates
//! `write_file` `destructiveHint: true`; with `"requireApproval":
//! "destructive"` a program's write pauses until someone approves it,
//! asked through elicitation when the client can answer (an input-required
//! result on MCP 2026-07-28, an elicitation request before it), or else
//! returned as a paused run that `resume_code` answers.

use rmcp::model::{
    ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationCapability,
    ProtocolVersion,
};
use rmcp::service::RequestContext;
use rmcp::{ClientHandler, ErrorData};

use super::*;

/// Lists the root, then writes a file: the write needs approval.
pub(super) fn program(files: &Path) -> String {
    format!(
        r#"const root = {root};
const before = await tools.filesystem_list_directory({{ path: root }});
console.log("listed");
try {{
  await tools.filesystem_write_file({{ path: root + "/approved.txt", content: "yes" }});
  return "written";
}} catch (e) {{
  return "kept: " + (e as Error).message;
}}"#,
        root = serde_json::to_string(&files.display().to_string()).expect("a string serialises")
    )
}

fn approval_config(workspace: &Workspace) -> PathBuf {
    let mut config = workspace.npm_config();
    config["mcpServers"]["filesystem"]["requireApproval"] = json!("destructive");
    workspace.write_config(&config)
}

/// A client whose user answers every approval question with `approve`.
#[derive(Clone)]
struct Approver {
    approve: bool,
    protocol: ProtocolVersion,
    asked: Arc<Mutex<Vec<String>>>,
}

impl ClientHandler for Approver {
    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        if let ElicitRequestParams::FormElicitationParams { message, .. } = request {
            self.asked.lock().expect("not poisoned").push(message);
        }
        Ok(ElicitResult::new(ElicitationAction::Accept)
            .with_content(json!({"approve": self.approve, "reason": "not today"})))
    }

    fn get_info(&self) -> ClientConfig {
        let mut info = ClientConfig::default();
        info.protocol_version = self.protocol.clone();
        info.capabilities.elicitation = Some(ElicitationCapability::default());
        info
    }
}

async fn connect<H: ClientHandler>(handler: H, config: &Path) -> RunningService<RoleClient, H> {
    let mut command = coderun_command();
    command
        .arg("mcp")
        .arg("--config")
        .arg(config)
        .kill_on_drop(true);
    let transport = TokioChildProcess::new(command).expect("spawn coderun mcp");
    handler.serve(transport).await.expect("connects")
}

/// [`connect`] on MCP 2026-07-28: `server/discover` instead of the
/// `initialize` handshake, and each request carrying its metadata.
async fn connect_stateless<H: ClientHandler>(
    handler: H,
    config: &Path,
) -> RunningService<RoleClient, H> {
    use rmcp::service::{ClientLifecycleMode, ClientServiceExt as _};
    let mut command = coderun_command();
    command
        .arg("mcp")
        .arg("--config")
        .arg(config)
        .kill_on_drop(true);
    let transport = TokioChildProcess::new(command).expect("spawn coderun mcp");
    let lifecycle = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    handler
        .serve_with_lifecycle(transport, lifecycle)
        .await
        .expect("discovers")
}

async fn call<H: ClientHandler>(
    client: &RunningService<RoleClient, H>,
    name: &str,
    arguments: Value,
) -> CallToolResult {
    let Value::Object(arguments) = arguments else {
        panic!("arguments must be an object")
    };
    // The service's call_tool (not its peer's) answers MCP 2026-07-28's
    // input-required rounds through the handler.
    client
        .call_tool(CallToolRequestParams::new(name.to_owned()).with_arguments(arguments))
        .await
        .expect("tools/call")
}

fn written(workspace: &Workspace) -> Option<String> {
    std::fs::read_to_string(workspace.files().join("approved.txt")).ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_elicitation_the_paused_run_is_answered_with_resume_code() {
    let workspace = Workspace::new();
    let client = connect((), &approval_config(&workspace)).await;
    let tools = client.peer().list_all_tools().await.expect("tools/list");
    assert!(
        tools.iter().any(|tool| tool.name == "resume_code"),
        "resume_code is offered"
    );

    let paused = call(
        &client,
        "run_code",
        json!({"code": program(&workspace.files())}),
    )
    .await;
    let text = text(&paused);
    assert!(
        text.starts_with("listed\npaused: tools.filesystem_write_file needs approval: "),
        "{text}"
    );
    assert_eq!(
        written(&workspace),
        None,
        "nothing is written before approval"
    );
    let id = paused.structured_content.as_ref().unwrap()["paused"]["id"]
        .as_str()
        .expect("the paused run's id")
        .to_owned();

    let done = call(&client, "resume_code", json!({"id": id, "approve": true})).await;
    assert_eq!(done.is_error, Some(false), "{}", super::text(&done));
    assert_eq!(
        done.structured_content.as_ref().unwrap()["value"],
        "written"
    );
    assert_eq!(written(&workspace).as_deref(), Some("yes"));

    // A rejection reaches the program's catch path.
    std::fs::remove_file(workspace.files().join("approved.txt")).unwrap();
    let paused = call(
        &client,
        "run_code",
        json!({"code": program(&workspace.files())}),
    )
    .await;
    let id = paused.structured_content.as_ref().unwrap()["paused"]["id"].clone();
    let kept = call(
        &client,
        "resume_code",
        json!({"id": id, "approve": false, "reason": "read-only today"}),
    )
    .await;
    assert_eq!(
        kept.structured_content.as_ref().unwrap()["value"],
        "kept: not approved: read-only today"
    );
    assert_eq!(written(&workspace), None);
    client.cancel().await.ok();
}

async fn ask_through(
    protocol: ProtocolVersion,
    approve: bool,
) -> (CallToolResult, Vec<String>, Workspace) {
    let workspace = Workspace::new();
    let asked = Arc::new(Mutex::new(Vec::new()));
    let approver = Approver {
        approve,
        protocol: protocol.clone(),
        asked: Arc::clone(&asked),
    };
    let config = approval_config(&workspace);
    let client = if protocol >= ProtocolVersion::V_2026_07_28 {
        connect_stateless(approver, &config).await
    } else {
        connect(approver, &config).await
    };
    let result = call(
        &client,
        "run_code",
        json!({"code": program(&workspace.files())}),
    )
    .await;
    client.cancel().await.ok();
    let asked = asked.lock().expect("not poisoned").clone();
    (result, asked, workspace)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_on_the_latest_protocol_is_asked_by_an_input_required_result() {
    let (result, asked, workspace) = ask_through(ProtocolVersion::LATEST, true).await;
    assert_eq!(result.is_error, Some(false), "{}", text(&result));
    assert_eq!(
        result.structured_content.as_ref().unwrap()["value"],
        "written"
    );
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert!(
        asked[0].starts_with("A program wants to call tools.filesystem_write_file with "),
        "{asked:?}"
    );
    assert!(asked[0].contains("approved.txt"), "{asked:?}");
    assert_eq!(written(&workspace).as_deref(), Some("yes"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_on_an_earlier_protocol_is_asked_by_an_elicitation_request() {
    let (result, asked, workspace) = ask_through(ProtocolVersion::V_2025_06_18, false).await;
    assert_eq!(
        result.structured_content.as_ref().unwrap()["value"],
        "kept: not approved: not today",
        "{}",
        text(&result)
    );
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(written(&workspace), None);
}

/// The approval configuration with a sealing key in a file: every
/// process started with it opens the states the others sealed.
fn keyed_config(workspace: &Workspace) -> PathBuf {
    let key = workspace.dir.path().join("state-key");
    std::fs::write(&key, "0123456789abcdef0123456789abcdef-test-key\n").expect("write the key");
    let mut config = workspace.npm_config();
    config["mcpServers"]["filesystem"]["requireApproval"] = json!("destructive");
    config["requestState"] = json!({"keys": [{"id": "test", "file": key}]});
    workspace.write_config(&config)
}

/// The JSON-RPC error code of a failed `tools/call`.
fn error_code(result: Result<impl std::fmt::Debug, rmcp::ServiceError>) -> i32 {
    match result {
        Err(rmcp::ServiceError::McpError(error)) => error.code.0,
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

/// `state` with one character of its sealed part changed.
fn tampered(state: &str) -> String {
    let mut bytes = state.as_bytes().to_vec();
    let at = bytes.len() - 10;
    bytes[at] = if bytes[at] == b'A' { b'B' } else { b'A' };
    String::from_utf8(bytes).expect("ASCII")
}

/// No paused run lives in one process: the paused run is the sealed state
/// the client holds, and a second `coderun mcp` started with the same key
/// resumes it after the first has exited. The approved call runs once
/// there: the state opens once (a replay writes nothing), and a changed
/// state is refused with Invalid params.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paused_run_resumes_in_another_process_holding_the_key() {
    let workspace = Workspace::new();
    let config = keyed_config(&workspace);
    let first = connect((), &config).await;
    let paused = call(
        &first,
        "run_code",
        json!({"code": program(&workspace.files())}),
    )
    .await;
    let id = paused.structured_content.as_ref().expect("structured")["paused"]["id"]
        .as_str()
        .expect("the paused run's state")
        .to_owned();
    assert!(
        text(&paused).contains(&id),
        "the text names the state to resume"
    );
    first.cancel().await.expect("the first process exits");
    assert_eq!(
        written(&workspace),
        None,
        "nothing is written before approval"
    );

    let second = connect((), &config).await;
    let resume = |id: String| {
        let peer = second.peer().clone();
        async move {
            let Value::Object(arguments) = json!({"id": id, "approve": true}) else {
                unreachable!()
            };
            peer.call_tool(CallToolRequestParams::new("resume_code").with_arguments(arguments))
                .await
        }
    };
    assert_eq!(error_code(resume(tampered(&id)).await), -32602);
    assert_eq!(written(&workspace), None, "a changed state runs nothing");
    let done = resume(id.clone()).await.expect("tools/call");
    assert_eq!(done.is_error, Some(false), "{}", text(&done));
    assert_eq!(
        done.structured_content.as_ref().unwrap()["value"],
        "written"
    );
    assert_eq!(written(&workspace).as_deref(), Some("yes"));

    std::fs::remove_file(workspace.files().join("approved.txt")).expect("remove");
    assert_eq!(error_code(resume(id).await), -32602, "a state opens once");
    assert_eq!(written(&workspace), None, "the approved call ran once");
    second.cancel().await.ok();
}

/// The same on MCP 2026-07-28: the input-required result's `requestState`
/// is the sealed run, which the retry may bring to another process.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_state_resumes_in_another_process_holding_the_key() {
    let workspace = Workspace::new();
    let config = keyed_config(&workspace);
    let approver = Approver {
        approve: true,
        protocol: ProtocolVersion::LATEST,
        asked: Arc::default(),
    };
    let request = |state: Option<String>| {
        let Value::Object(arguments) = json!({"code": program(&workspace.files())}) else {
            unreachable!()
        };
        let mut request = CallToolRequestParams::new("run_code").with_arguments(arguments);
        if let Some(state) = state {
            request.request_state = Some(state);
            request.input_responses = Some(
                [(
                    "approval".to_owned(),
                    json!({"action": "accept", "content": {"approve": true}}),
                )]
                .into(),
            );
        }
        request
    };
    let first = connect_stateless(approver.clone(), &config).await;
    let response = first
        .peer()
        .call_tool_once(request(None))
        .await
        .expect("tools/call");
    let rmcp::model::CallToolResponse::InputRequired(input) = response else {
        panic!("expected an input-required result, got {response:?}")
    };
    let state = input.request_state.clone().expect("a requestState");
    first.cancel().await.expect("the first process exits");

    let second = connect_stateless(approver, &config).await;
    assert_eq!(
        error_code(
            second
                .peer()
                .call_tool_once(request(Some(tampered(&state))))
                .await
        ),
        -32602
    );
    let response = second
        .peer()
        .call_tool_once(request(Some(state.clone())))
        .await
        .expect("tools/call");
    let rmcp::model::CallToolResponse::Complete(done) = response else {
        panic!("expected the program's result, got {response:?}")
    };
    assert_eq!(
        done.structured_content.as_ref().unwrap()["value"],
        "written",
        "{}",
        text(&done)
    );
    assert_eq!(written(&workspace).as_deref(), Some("yes"));
    assert_eq!(
        error_code(second.peer().call_tool_once(request(Some(state))).await),
        -32602,
        "a state opens once"
    );
    second.cancel().await.ok();
}
