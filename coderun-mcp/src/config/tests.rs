//! Reading configurations as MCP clients write them, and refusing bad ones by key.

use super::*;

fn parse(text: &str) -> Result<McpConfig, String> {
    McpConfig::parse(Path::new("servers.json"), text).map_err(|error| error.to_string())
}

#[test]
fn reads_the_client_format_with_limits() {
    let config = parse(
        r#"{"mcpServers": {
            "fs": {"command": "node", "args": ["fs.js", "/tmp"], "env": {"A": "1"}},
            "web": {"type": "http", "url": "http://127.0.0.1:9/mcp", "headers": {"X": "y"}},
            "off": {"command": "nothing", "disabled": true}
          },
          "limits": {"wallClockSeconds": 1.5, "fuel": 10, "callTimeoutSeconds": 2}}"#,
    )
    .expect("valid");
    assert_eq!(config.servers.len(), 2);
    assert_eq!(config.servers["fs"].describe(), "node fs.js /tmp");
    assert!(
        matches!(&config.servers["web"], ServerSpec::Http { headers, .. } if headers["X"] == "y")
    );
    assert_eq!(config.limits.wall_clock, Some(Duration::from_millis(1500)));
    assert_eq!(config.limits.call_timeout(), Duration::from_secs(2));
    assert_eq!(config.limits.startup_timeout(), DEFAULT_STARTUP_TIMEOUT);
    assert_eq!(config.limits.runtime_config().get_fuel(), 10);
}

#[test]
fn bad_configurations_name_the_key() {
    let cases = [
        ("{}", "no \"mcpServers\" object"),
        ("{\"mcpServers\": {}}", "no enabled server"),
        ("[1]", "not a valid mcpServers configuration"),
        ("{\"mcpServers\": {\"a\": {}}}", "mcpServers.a: has neither"),
        (
            "{\"mcpServers\": {\"a\": {\"command\": \"x\", \"url\": \"http://h\"}}}",
            "mcpServers.a: has both",
        ),
        (
            "{\"mcpServers\": {\"a\": {\"url\": \"ftp://h\"}}}",
            "mcpServers.a: \"url\" must start with http",
        ),
        (
            "{\"mcpServers\": {\"a\": {\"type\": \"sse\", \"url\": \"http://h\"}}}",
            "not supported",
        ),
        (
            "{\"mcpServers\": {\"a b\": {\"command\": \"x\"}}}",
            "mcpServers.a b: a server name may only use",
        ),
        (
            "{\"mcpServers\": {\"a\": {\"command\": \"x\"}}, \"limits\": {\"wallClockSeconds\": -1}}",
            "limits.wallClockSeconds must be a positive number",
        ),
        (
            "{\"mcpServers\": {\"a\": {\"command\": \"x\"}}, \"limits\": {\"fuell\": 1}}",
            "unknown field `fuell`",
        ),
        (
            "{\"mcpServers\": {\"a\": {\"command\": \"x\"}}, \"limits\": {\"maxMessageBytes\": 0}}",
            "limits.maxMessageBytes must be positive (got 0)",
        ),
        (
            "{\"mcpServers\": {\"a\": {\"command\": \"x\"}}, \"http\": {\"allowedOrigins\": [\"https://a.example/x\"]}}",
            "http.allowedOrigins[0] takes an origin like",
        ),
        (
            "{\"mcpServers\": {\"a\": {\"command\": \"x\"}}, \"http\": {\"authTokenEnv\": \"\"}}",
            "http.authTokenEnv takes the name of an environment variable",
        ),
        (
            "{\"mcpServers\": {\"a\": {\"command\": \"x\"}}, \"http\": {\"origins\": []}}",
            "unknown field `origins`",
        ),
    ];
    for (text, expected) in cases {
        let error = parse(text).expect_err(text);
        assert!(error.starts_with("servers.json: "), "{error}");
        assert!(error.contains(expected), "{text}: {error}");
    }
}

#[test]
fn reads_the_http_section_and_the_message_cap() {
    let config = parse(
        r#"{"mcpServers": {"a": {"command": "x"}},
          "limits": {"maxMessageBytes": 1024},
          "http": {"allowedOrigins": ["https://App.example.com", "http://h:*"],
                   "authTokenEnv": "TOKEN"}}"#,
    )
    .expect("valid");
    assert_eq!(config.limits.max_message_bytes(), 1024);
    assert_eq!(
        config.http.allowed_origins(),
        ["https://app.example.com:443", "http://h:*"]
    );
    assert_eq!(config.http.auth_token_env(), Some("TOKEN"));
    let flags = config
        .http
        .with_flags(&["http://[::1]:8080".to_owned()], Some("OTHER"))
        .expect("valid flags");
    assert_eq!(
        flags.allowed_origins(),
        [
            "https://app.example.com:443",
            "http://h:*",
            "http://[::1]:8080"
        ]
    );
    assert_eq!(flags.auth_token_env(), Some("OTHER"));
    assert_eq!(
        Limits::default().max_message_bytes(),
        DEFAULT_MAX_MESSAGE_BYTES
    );
}

#[test]
fn reads_which_servers_need_approval() {
    let config = parse(
        r#"{"mcpServers": {
            "fs": {"command": "fs-mcp", "requireApproval": "destructive"},
            "all": {"command": "x", "requireApproval": "always"},
            "none": {"command": "y", "requireApproval": "never"},
            "plain": {"command": "z"}
        }}"#,
    )
    .unwrap();
    assert_eq!(
        config.require_approval.into_iter().collect::<Vec<_>>(),
        vec![
            ("all".to_owned(), RequireApproval::Always),
            ("fs".to_owned(), RequireApproval::Destructive)
        ]
    );
    let error =
        parse(r#"{"mcpServers": {"fs": {"command": "x", "requireApproval": "yes"}}}"#).unwrap_err();
    assert!(
        error.contains("mcpServers.fs: \"requireApproval\" must be \"never\", \"destructive\" or \"always\" (got \"yes\")"),
        "{error}"
    );
}

#[test]
fn request_state_keys_come_from_files_and_the_environment() {
    let dir = std::env::temp_dir().join(format!("coderun-state-keys-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let file = dir.join("key");
    std::fs::write(&file, format!("{}\n", "k".repeat(40))).expect("write the key");
    let short = dir.join("short");
    std::fs::write(&short, "too short\n").expect("write the key");
    let with = |section: String| {
        parse(&format!(
            "{{\"mcpServers\": {{\"a\": {{\"command\": \"x\"}}}}, \"requestState\": {section}}}"
        ))
    };
    let config = with(format!(
        "{{\"keys\": [{{\"id\": \"new\", \"file\": {:?}}}, {{\"id\": \"old\", \"env\": \"PATH\"}}], \
         \"ttlSeconds\": 60}}",
        file.display().to_string()
    ))
    .expect("valid");
    let ids: Vec<&str> = config.request_state.keys.iter().map(StateKey::id).collect();
    assert_eq!(ids, ["new", "old"]);
    // The file's last newline is not part of the key.
    assert_eq!(
        config.request_state.keys[0],
        StateKey::new("new", "k".repeat(40)).unwrap()
    );
    assert_eq!(config.request_state.ttl(), Duration::from_secs(60));
    assert!(
        !format!("{config:?}").contains("kkkk"),
        "the secret is not shown"
    );
    let absent = with("{}".to_owned()).expect("valid");
    assert_eq!(absent.request_state.ttl(), DEFAULT_STATE_TTL);
    assert!(absent.request_state.keys.is_empty());

    let cases = [
        (
            format!(
                "{{\"keys\": [{{\"id\": \"a\", \"file\": {:?}}}]}}",
                short.display().to_string()
            ),
            "requestState.keys[0]: the key \"a\" has 9 bytes; a sealing key needs at least 32",
        ),
        (
            "{\"keys\": [{\"id\": \"a\", \"env\": \"CODERUN_TEST_UNSET_KEY_VAR\"}]}".to_owned(),
            "requestState.keys[0]: the environment variable CODERUN_TEST_UNSET_KEY_VAR is not set",
        ),
        (
            "{\"keys\": [{\"id\": \"a\"}]}".to_owned(),
            "needs exactly one of \"env\" (a variable's name) or \"file\"",
        ),
        (
            "{\"keys\": [{\"id\": \"a b\", \"env\": \"PATH\"}]}".to_owned(),
            "the key id \"a b\" has ' '",
        ),
        (
            format!(
                "{{\"keys\": [{{\"id\": \"a\", \"file\": {0:?}}}, {{\"id\": \"a\", \"file\": {0:?}}}]}}",
                file.display().to_string()
            ),
            "requestState.keys[1]: the id \"a\" is listed twice",
        ),
        (
            "{\"ttlSeconds\": 0}".to_owned(),
            "requestState.ttlSeconds must be a positive number",
        ),
        (
            "{\"ttlSeconds\": 1e9}".to_owned(),
            "requestState.ttlSeconds must be at most",
        ),
        ("{\"key\": []}".to_owned(), "unknown field `key`"),
    ];
    for (section, expected) in cases {
        let error = with(section.clone()).expect_err(&section);
        assert!(error.contains(expected), "{section}: {error}");
    }
    std::fs::remove_dir_all(&dir).ok();
}
