//! `run_code` as a task (the MCP Tasks extension, SEP-2663): a client that
//! declares tasks gets the task at once and polls it, so a program may run
//! past the client's request timeout; `tasks/cancel` aborts the program;
//! and what an upstream asks the client during the program (elicitation)
//! becomes the task's input request, answered with `tasks/update`.

use rmcp::model::{
    CallToolResponse, CancelTaskParams, ClientCapabilities, ClientConfig, GetTaskParams,
    Implementation, TaskPayload, TaskStatus, UpdateTaskParams,
};

use super::*;

/// A client that declares the tasks extension and form elicitation.
fn tasks_client() -> ClientConfig {
    ClientConfig::new(
        ClientCapabilities::builder()
            .enable_elicitation()
            .enable_tasks()
            .build(),
        Implementation::new("tasks-test", "1"),
    )
}

/// `coderun mcp` with a wall clock of `seconds` in front of the
/// conformance fixture server.
async fn connect(
    workspace: &Workspace,
    wall_clock_seconds: u64,
) -> RunningService<RoleClient, ClientConfig> {
    let node = super::conformance::node().display().to_string();
    let config = workspace.write_config(&json!({
        "mcpServers": {"fixture": {"command": node, "args": [super::conformance::conformance_fixture()]}},
        "limits": {"wallClockSeconds": wall_clock_seconds}
    }));
    let mut command = coderun_command();
    command
        .arg("mcp")
        .arg("--config")
        .arg(&config)
        .kill_on_drop(true);
    let transport = TokioChildProcess::new(command).expect("spawn coderun mcp");
    tasks_client().serve(transport).await.expect("connects")
}

fn run_code(code: &str) -> CallToolRequestParams {
    let Value::Object(arguments) = json!({ "code": code }) else {
        unreachable!()
    };
    CallToolRequestParams::new("run_code").with_arguments(arguments)
}

/// Starts `code` as a task, every request within `timeout`; its id.
async fn start(
    client: &RunningService<RoleClient, ClientConfig>,
    code: &str,
    timeout: Duration,
) -> String {
    let response = tokio::time::timeout(timeout, client.peer().call_tool_once(run_code(code)))
        .await
        .expect("the call answers within the client's timeout")
        .expect("tools/call");
    let CallToolResponse::Task(created) = response else {
        panic!("expected a task, got {response:?}")
    };
    assert_eq!(created.task.status, TaskStatus::Working);
    created.task.task_id
}

/// Polls the task until its status is not `working`, each poll within
/// `timeout`.
async fn poll(
    client: &RunningService<RoleClient, ClientConfig>,
    id: &str,
    timeout: Duration,
) -> TaskPayload {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(600);
    loop {
        let got = tokio::time::timeout(
            timeout,
            client.peer().get_task(GetTaskParams::new(id.to_owned())),
        )
        .await
        .expect("tasks/get answers within the client's timeout")
        .expect("tasks/get");
        if got.task.payload.status() != TaskStatus::Working {
            return got.task.payload;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the task never ended"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// A program longer than the client's request timeout completes as a
/// task. By default it runs 6 s against a 4 s timeout;
/// `CODERUN_LONG_TASK_SECONDS=90` (`make soak`) runs the 90 s against 60 s
/// of the acceptance.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_program_longer_than_the_clients_timeout_completes_as_a_task() {
    let seconds: u64 = std::env::var("CODERUN_LONG_TASK_SECONDS")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(6);
    let timeout = Duration::from_secs(seconds * 2 / 3);
    let workspace = Workspace::new();
    let client = connect(&workspace, seconds + 30).await;
    let code = format!(
        "const started = Date.now();
         await new Promise((resolve) => setTimeout(resolve, {ms}));
         return {{ slept: Date.now() - started >= {ms} }};",
        ms = seconds * 1000
    );
    let started = std::time::Instant::now();
    let id = start(&client, &code, timeout).await;
    let payload = poll(&client, &id, timeout).await;
    assert!(
        started.elapsed() > timeout,
        "the program outlived the timeout"
    );
    let TaskPayload::Completed { result } = payload else {
        panic!("expected a completed task, got {payload:?}")
    };
    assert_eq!(
        result["structuredContent"]["value"],
        json!({"slept": true}),
        "{result:?}"
    );
    client.cancel().await.ok();
}

/// `tasks/cancel` aborts the program: the task ends cancelled long before
/// the program would have.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_task_aborts_its_program() {
    let workspace = Workspace::new();
    let client = connect(&workspace, 120).await;
    let timeout = Duration::from_secs(10);
    let id = start(
        &client,
        "await new Promise((resolve) => setTimeout(resolve, 100000)); return 'late'",
        timeout,
    )
    .await;
    let started = std::time::Instant::now();
    client
        .peer()
        .cancel_task(CancelTaskParams::new(id.clone()))
        .await
        .expect("tasks/cancel");
    let payload = poll(&client, &id, timeout).await;
    assert!(matches!(payload, TaskPayload::Cancelled), "{payload:?}");
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "aborted, not waited out"
    );
    client.cancel().await.ok();
}

/// An upstream that asks the user for input in the middle of a program
/// run as a task: the request becomes the task's input request, the
/// client's `tasks/update` answers it, and the answer reaches the upstream
/// (whose result quotes it) and the program.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstreams_elicitation_during_a_task_is_answered_with_tasks_update() {
    let workspace = Workspace::new();
    let client = connect(&workspace, 60).await;
    let timeout = Duration::from_secs(10);
    let id = start(
        &client,
        "const answer = await tools.fixture_test_elicitation({ message: 'Who are you?' });
         return answer;",
        timeout,
    )
    .await;
    let payload = poll(&client, &id, timeout).await;
    let TaskPayload::InputRequired { input_requests } = payload else {
        panic!("expected an input request, got {payload:?}")
    };
    let (key, request) = input_requests.iter().next().expect("one input request");
    let asked = serde_json::to_string(request).expect("JSON");
    assert!(asked.contains("Who are you?"), "{asked}");
    let answer =
        json!({"action": "accept", "content": {"username": "ada", "email": "ada@example.com"}});
    client
        .peer()
        .update_task(UpdateTaskParams::new(
            id.clone(),
            [(key.clone(), answer)].into(),
        ))
        .await
        .expect("tasks/update");
    let payload = poll(&client, &id, timeout).await;
    let TaskPayload::Completed { result } = payload else {
        panic!("expected a completed task, got {payload:?}")
    };
    let text = serde_json::to_string(&result).expect("JSON");
    assert!(text.contains("ada@example.com"), "{text}");
    client.cancel().await.ok();
}
