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
