//! Sealing and opening paused runs: round trips, rotation, and every way
//! a handle is refused.

use super::*;
use serde_json::json;

fn continuation(arguments: serde_json::Value) -> Continuation {
    let record = coderun_runtime::RunRecord {
        format: coderun_runtime::RECORD_FORMAT.to_owned(),
        version: coderun_runtime::FORMAT_VERSION,
        guest_sha256: "0".repeat(64),
        program: "await tools.write({});".to_owned(),
        program_sha256: "1".repeat(64),
        seed: 7,
        clock: coderun_runtime::Clock::Real,
        time_zone: None,
        budgets: coderun_runtime::RecordedBudgets {
            fuel: 1,
            fuel_metering: true,
            wall_clock_ms: 1,
            max_memory_bytes: 1,
        },
        bindings: Vec::new(),
        calls: vec![RecordedCall {
            step: 1,
            namespace: "tools".to_owned(),
            function: "write".to_owned(),
            arguments,
            outcome: coderun_runtime::CallOutcome::Interrupt(json!({"why": "approve"})),
            delivered: None,
        }],
    };
    Continuation {
        format: coderun_runtime::CONTINUATION_FORMAT.to_owned(),
        version: coderun_runtime::FORMAT_VERSION,
        record,
        step: 1,
        expires_at_ms: None,
        signature: None,
    }
}

fn config(keys: &[(&str, u8)]) -> RequestStateConfig {
    RequestStateConfig {
        keys: keys
            .iter()
            .map(|(id, byte)| StateKey::new(*id, vec![*byte; 32]).expect("a valid key"))
            .collect(),
        ttl: None,
    }
}

fn sealer(keys: &[(&str, u8)]) -> Sealer {
    Sealer::new(&config(keys), 1 << 20, 1 << 20).expect("a sealer")
}

fn holder(principal: Option<&str>, session: Option<&str>) -> Holder {
    Holder {
        principal: principal.map(str::to_owned),
        session: session.map(str::to_owned),
    }
}

#[test]
fn a_sealed_run_opens_once_in_another_sealer_with_the_key() {
    let paused = continuation(json!({"path": "/tmp/a", "content": "x".repeat(5000)}));
    let who = holder(Some("bearer:ab"), None);
    let handle = sealer(&[("k1", 1)]).seal(&paused, &who).expect("sealed");
    assert!(handle.starts_with(PREFIX), "{handle}");
    assert!(handle.len() < 2000, "compressed: {} bytes", handle.len());
    let other = sealer(&[("k1", 1)]);
    assert_eq!(other.open(&handle, &who), Ok(paused));
    assert_eq!(other.open(&handle, &who), Err("already used"));
}

#[test]
fn a_changed_expired_or_foreign_handle_is_refused() {
    let paused = continuation(json!({"path": "/tmp/a"}));
    let who = holder(Some("bearer:ab"), Some("s1"));
    let sealing = sealer(&[("k1", 1)]);
    let handle = sealing.seal(&paused, &who).expect("sealed");

    let (header, body) = handle[PREFIX.len()..].split_once('.').expect("two parts");
    let mut bytes = URL_SAFE_NO_PAD.decode(body).expect("base64");
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    let flipped = format!("{PREFIX}{header}.{}", URL_SAFE_NO_PAD.encode(&bytes));
    assert!(
        sealing
            .open(&flipped, &who)
            .unwrap_err()
            .starts_with("altered")
    );

    // A header changed to another principal fails authentication too.
    let mut forged: serde_json::Value =
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(header).expect("base64")).unwrap();
    forged["sub"] = json!("bearer:cd");
    let forged = format!(
        "{PREFIX}{}.{body}",
        URL_SAFE_NO_PAD.encode(serde_json::to_vec(&forged).unwrap())
    );
    assert!(
        sealing
            .open(&forged, &holder(Some("bearer:cd"), Some("s1")))
            .unwrap_err()
            .starts_with("altered")
    );

    assert_eq!(
        sealing.open(&handle, &holder(Some("bearer:cd"), Some("s1"))),
        Err("sealed for another principal")
    );
    assert_eq!(
        sealing.open(&handle, &holder(Some("bearer:ab"), Some("s2"))),
        Err("sealed in another session")
    );
    assert_eq!(
        sealer(&[("k2", 2)]).open(&handle, &who),
        Err("sealed under a key this server does not hold")
    );
    assert!(
        sealer(&[("k1", 2)])
            .open(&handle, &who)
            .unwrap_err()
            .starts_with("altered")
    );
    for junk in [
        "",
        "crs1.",
        "crs1..",
        "crs1.e30.AAAA",
        "crs1.\u{0}.x",
        "x".repeat(2 << 20).as_str(),
    ] {
        assert!(sealing.open(junk, &who).is_err(), "{junk:.20}");
    }
    // The refusals spent nothing: the holder still opens it.
    assert_eq!(sealing.open(&handle, &who), Ok(paused.clone()));

    let mut expired = config(&[("k1", 1)]);
    expired.ttl = Some(Duration::from_millis(1));
    let quick = Sealer::new(&expired, 1 << 20, 1 << 20).expect("a sealer");
    let handle = quick.seal(&paused, &who).expect("sealed");
    std::thread::sleep(Duration::from_millis(5));
    assert_eq!(quick.open(&handle, &who), Err("expired"));
}

#[test]
fn rotation_opens_states_sealed_under_the_previous_key() {
    let paused = continuation(json!({}));
    let who = Holder::default();
    let old = sealer(&[("k1", 1)]).seal(&paused, &who).expect("sealed");
    let rotated = sealer(&[("k2", 2), ("k1", 1)]);
    let new = rotated.seal(&paused, &who).expect("sealed");
    assert_eq!(rotated.open(&old, &who), Ok(paused.clone()));
    assert_eq!(rotated.open(&new, &who), Ok(paused.clone()));
    assert_eq!(
        sealer(&[("k1", 1)]).open(&new, &who),
        Err("sealed under a key this server does not hold")
    );
}

#[test]
fn a_state_over_the_caps_is_not_sealed() {
    let paused = continuation(json!({"content": "y".repeat(4096)}));
    let small = Sealer::new(&config(&[("k1", 1)]), 1 << 20, 1024).expect("a sealer");
    assert!(matches!(
        small.seal(&paused, &Holder::default()),
        Err(SealError::TooLarge { cap: 1024, .. })
    ));
    let short = Sealer::new(&config(&[("k1", 1)]), 100, 1 << 20).expect("a sealer");
    assert!(matches!(
        short.seal(&paused, &Holder::default()),
        Err(SealError::TooLarge { cap: 100, .. })
    ));
}

#[test]
fn a_bearer_token_is_a_principal_by_digest() {
    let a = Holder::new(Some(b"Bearer secret-one"), None);
    let principal = a.principal.clone().expect("a principal");
    assert!(principal.starts_with("bearer:") && !principal.contains("secret"));
    assert_eq!(Holder::new(Some(b"bearer secret-one"), None), a);
    assert_ne!(Holder::new(Some(b"Bearer secret-two"), None), a);
    assert_eq!(Holder::new(Some(b"Basic abc"), None).principal, None);
    assert_eq!(Holder::new(None, None).principal, None);
}
