//! The policy's decisions: origins, rules, secrets and their refusals.

use super::*;
use crate::egress::{AllowRule, Secret};

fn url(text: &str) -> Url {
    Url::parse(text).expect("a URL")
}

#[test]
fn origins_match_scheme_host_and_port_with_wildcards() {
    let pattern = OriginPattern::parse("https://*.example.com").expect("parses");
    assert!(pattern.matches(&url("https://api.example.com/x")));
    assert!(pattern.matches(&url("https://a.b.example.com/")));
    assert!(!pattern.matches(&url("https://example.com/")));
    assert!(!pattern.matches(&url("https://evilexample.com/")));
    assert!(!pattern.matches(&url("http://api.example.com/")));
    assert!(!pattern.matches(&url("https://api.example.com:8443/")));
    let any_port = OriginPattern::parse("http://127.0.0.1:*").expect("parses");
    assert!(any_port.matches(&url("http://127.0.0.1:9/")));
    let v6 = OriginPattern::parse("http://[::1]:8080").expect("parses");
    assert!(v6.matches(&url("http://[::1]:8080/")));
    let upper = OriginPattern::parse("HTTPS://API.Example.COM").expect("parses");
    assert!(upper.matches(&url("https://api.example.com/")));
    for bad in [
        "ftp://x",
        "https://x/path",
        "https://u@x",
        "x",
        "https://*.1.2.3.4",
        "https://x:99999",
    ] {
        assert!(OriginPattern::parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn rules_name_what_refused_a_request() {
    let policy = Policy::compile(
        &NetworkPolicy::new().allow(
            AllowRule::new("https://api.x.com")
                .methods(["get"])
                .paths(["/v1/"]),
        ),
    )
    .expect("compiles");
    assert!(
        policy
            .allows("GET", &url("https://api.x.com/v1/items"))
            .is_ok()
    );
    let method = policy
        .allows("POST", &url("https://api.x.com/v1/items"))
        .expect_err("refused");
    assert!(method.contains("not POST"), "{method}");
    let path = policy
        .allows("GET", &url("https://api.x.com/admin"))
        .expect_err("refused");
    assert!(path.contains("/v1/"), "{path}");
    let encoded = policy
        .allows("GET", &url("https://api.x.com/v1%2F..%2Fadmin"))
        .expect_err("an encoded slash matches no prefix");
    assert!(encoded.contains("/v1/"), "{encoded}");
    let origin = policy
        .allows("GET", &url("https://other.com/"))
        .expect_err("refused");
    assert!(
        origin.contains("no rule allows the origin https://other.com"),
        "{origin}"
    );
    let closed = Policy::compile(&NetworkPolicy::new()).expect("compiles");
    assert!(
        closed
            .allows("GET", &url("https://x.com/"))
            .expect_err("refused")
            .contains("no network access")
    );
}

#[test]
fn secrets_go_only_where_allowed_and_are_scrubbed() {
    let policy = Policy::compile(
        &NetworkPolicy::new()
            .allow("https://a.com")
            .secret(Secret::new("tok", "value-of-the-token").origin("https://a.com")),
    )
    .expect("compiles");
    let mut used = Vec::new();
    let sent = policy
        .substitute("Bearer {{secret:tok}}", &url("https://a.com/"), &mut used)
        .expect("allowed");
    assert_eq!(sent, "Bearer value-of-the-token");
    assert_eq!(used.len(), 1);
    let refused = policy
        .substitute("{{secret:tok}}", &url("https://b.com/"), &mut Vec::new())
        .expect_err("refused");
    assert!(
        refused.contains("'tok' may not be sent to https://b.com"),
        "{refused}"
    );
    assert!(
        policy
            .substitute("{{secret:nope}}", &url("https://a.com/"), &mut Vec::new())
            .is_err()
    );
    let body = scrub_bytes(b"x value-of-the-token y value-of-the-token".to_vec(), &used);
    assert_eq!(body, b"x {{secret:tok}} y {{secret:tok}}");
    assert_eq!(
        scrub_text("=value-of-the-token".into(), &used),
        "={{secret:tok}}"
    );
}

#[test]
fn invalid_policies_name_the_key() {
    let short = NetworkPolicy::new().secret(Secret::new("s", "short"));
    assert!(
        Policy::compile(&short)
            .expect_err("refused")
            .starts_with("secrets[s].value")
    );
    let bad = NetworkPolicy::new().allow("gopher://x");
    assert!(
        Policy::compile(&bad)
            .expect_err("refused")
            .starts_with("allow[0].origin")
    );
    let zero = NetworkPolicy::new().max_in_flight(0);
    assert!(
        Policy::compile(&zero)
            .expect_err("refused")
            .starts_with("maxInFlight")
    );
}
