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

async fn call<H: ClientHandler>(
    client: &RunningService<RoleClient, H>,
    name: &str,
    arguments: Value,
) -> CallToolResult {
    let Value::Object(arguments) = arguments else {
        panic!("arguments must be an object")
    };
    client
        .peer()
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
        protocol,
        asked: Arc::clone(&asked),
    };
    let client = connect(approver, &approval_config(&workspace)).await;
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
