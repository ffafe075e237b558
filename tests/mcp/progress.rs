//! Progress notifications: a `tools/call` with a progress token hears of
//! every tool call its program makes and, while it runs, of the time
//! passing, so a client that resets its timeout on progress keeps waiting.

use rmcp::ClientHandler;
use rmcp::model::{NumberOrString, ProgressNotificationParam, ProgressToken, RequestMetaObject};
use rmcp::service::NotificationContext;

use super::*;

/// A client that keeps every progress notification it gets.
#[derive(Clone, Default)]
struct Listener {
    heard: Arc<Mutex<Vec<ProgressNotificationParam>>>,
}

impl ClientHandler for Listener {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.heard.lock().expect("not poisoned").push(params);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_program_reports_its_calls_and_the_time_passing() {
    let workspace = Workspace::new();
    let config = workspace.write_config(&workspace.npm_config());
    let listener = Listener::default();
    let mut command = coderun_command();
    command
        .arg("mcp")
        .arg("--config")
        .arg(&config)
        .kill_on_drop(true);
    let transport = TokioChildProcess::new(command).expect("spawn coderun mcp");
    let client = listener.clone().serve(transport).await.expect("connects");

    let root = serde_json::to_string(&workspace.files().display().to_string()).expect("a string");
    let program = format!(
        "for (let i = 0; i < 3; i++) await tools.filesystem_list_directory({{ path: {root} }});
         await new Promise((r) => setTimeout(r, 5500));
         return 'done';"
    );
    let mut arguments = JsonObject::new();
    arguments.insert("code".to_owned(), Value::from(program));
    let mut meta = RequestMetaObject::default();
    meta.set_progress_token(ProgressToken(NumberOrString::String("run-1".into())));
    let mut params = CallToolRequestParams::new("run_code").with_arguments(arguments);
    params.meta = Some(meta);
    let result = client.peer().call_tool(params).await.expect("tools/call");
    assert_eq!(
        result.structured_content.as_ref().expect("structured")["value"],
        "done"
    );

    let heard = listener.heard.lock().expect("not poisoned").clone();
    let messages: Vec<&str> = heard.iter().filter_map(|p| p.message.as_deref()).collect();
    assert_eq!(
        messages
            .iter()
            .filter(|m| **m == "tools.filesystem_list_directory done")
            .count(),
        3,
        "{messages:?}"
    );
    assert!(
        messages.iter().any(|m| m.starts_with("running for 5 s")),
        "{messages:?}"
    );
    // rmcp's client puts a token of its own on the request; all carry it.
    assert!(
        heard
            .iter()
            .all(|p| p.progress_token == heard[0].progress_token),
        "{heard:?}"
    );
    let progress: Vec<f64> = heard.iter().map(|p| p.progress).collect();
    assert!(
        progress.windows(2).all(|w| w[0] < w[1]),
        "progress increases: {progress:?}"
    );
    client.cancel().await.ok();
}

/// End to end, in the order coderun writes its stdout: a program that
/// returns right after its last tool call has that call's "done" notice
/// before its response, 100 times out of 100, with a tool that answers at
/// once and with one that sends progress of its own first. (Whether the
/// reporter or the response wins a race here depends on scheduling; the
/// unit test in progress.rs makes the race certain.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_last_calls_notice_precedes_the_response() {
    let fixture = fixture();
    let mut session = RawSession::initialized(&["--", "node", &fixture]).await;
    for n in 1..=100 {
        let tool = if n % 2 == 0 { "echo" } else { "steps" };
        session
            .send(
                &json!({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {
                    "name": "run_code",
                    "arguments": {"code": format!("return await tools.{tool}({{ text: 'x' }})")},
                    "_meta": {"progressToken": format!("p-{n}")}
                }}),
            )
            .await;
        let mut notices = Vec::new();
        loop {
            let message = session.reply().await;
            if message["id"] == n {
                break;
            }
            if message["method"] == "notifications/progress"
                && message["params"]["progressToken"] == format!("p-{n}")
            {
                notices.push(
                    message["params"]["message"]
                        .as_str()
                        .unwrap_or_default()
                        .to_owned(),
                );
            }
        }
        assert!(
            notices.iter().any(|m| *m == format!("tools.{tool} done")),
            "call {n}: the notices before the response were {notices:?}"
        );
    }
}

/// MCP logging: once the client sets a level, a program's console lines at
/// or above it arrive as `notifications/message` from the `run_code`
/// logger, in order, before the call's response; below it, or before any
/// level is set, none do.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn console_lines_are_log_notifications_once_a_level_is_set() {
    let fixture = fixture();
    let mut session = RawSession::initialized(&["--", "node", &fixture]).await;
    let program = "console.debug('d'); console.log('l'); console.warn('w'); \
                   console.error('e', {n: 1}); return 1";
    let run = async |session: &mut RawSession, id: u64| {
        session
            .send(
                &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
                    "name": "run_code", "arguments": {"code": program}
                }}),
            )
            .await;
        let mut heard = Vec::new();
        loop {
            let message = session.reply().await;
            if message["id"] == id {
                assert_eq!(message["result"]["isError"], false, "{message}");
                return heard;
            }
            if message["method"] == "notifications/message" {
                assert_eq!(message["params"]["logger"], "run_code", "{message}");
                heard.push(format!(
                    "{} {}",
                    message["params"]["level"].as_str().unwrap_or_default(),
                    message["params"]["data"].as_str().unwrap_or_default()
                ));
            }
        }
    };
    assert_eq!(
        run(&mut session, 10).await,
        Vec::<String>::new(),
        "no level set: none"
    );

    session
        .send(
            &json!({"jsonrpc": "2.0", "id": 11, "method": "logging/setLevel",
                      "params": {"level": "warning"}}),
        )
        .await;
    let set = session.reply().await;
    assert_eq!(set["result"], json!({}), "{set}");
    assert_eq!(
        run(&mut session, 12).await,
        ["warning w", "error e { n: 1 }"]
    );

    session
        .send(
            &json!({"jsonrpc": "2.0", "id": 13, "method": "logging/setLevel",
                      "params": {"level": "debug"}}),
        )
        .await;
    session.reply().await;
    assert_eq!(
        run(&mut session, 14).await,
        ["debug d", "info l", "warning w", "error e { n: 1 }"]
    );
}

/// The progress an upstream tool reports reaches the client: under the
/// client's own token, with the upstream's values, for a call of the tool
/// itself (`--mode both`), and as `run_code` progress naming the tool for a
/// program's call. Both before the response.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstreams_progress_reaches_the_client() {
    let fixture = fixture();
    let mut session = RawSession::initialized(&["--mode", "both", "--", "node", &fixture]).await;
    let mut call = async |id: u64, name: &str, arguments: Value| {
        session
            .send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
                "name": name, "arguments": arguments, "_meta": {"progressToken": format!("t-{id}")}
            }}))
            .await;
        let mut heard = Vec::new();
        loop {
            let message = session.reply().await;
            if message["id"] == id {
                assert!(message["result"].is_object(), "{message}");
                return heard;
            }
            if message["method"] == "notifications/progress" {
                assert_eq!(message["params"]["progressToken"], format!("t-{id}"));
                heard.push(message["params"].clone());
            }
        }
    };
    // Twenty times over: the order and the completeness must not depend
    // on scheduling.
    for round in 0..20_u64 {
        let id = 1 + 2 * round;
        let native = call(id, "steps", json!({})).await;
        assert_eq!(
            native,
            (1..=3_u32)
                .map(
                    |n| json!({"progressToken": format!("t-{id}"), "progress": f64::from(n),
                                "total": 3.0, "message": format!("step {n}")})
                )
                .collect::<Vec<_>>()
        );

        let program = call(
            id + 1,
            "run_code",
            json!({"code": "return await tools.steps({})"}),
        )
        .await;
        let messages: Vec<&str> = program
            .iter()
            .filter_map(|params| params["message"].as_str())
            .collect();
        assert_eq!(
            messages,
            [
                "tools.steps: step 1",
                "tools.steps: step 2",
                "tools.steps: step 3",
                "tools.steps done"
            ]
        );
    }
}
