//! Signed continuations: HMAC-SHA256 with a key the host holds, over the
//! continuation's canonical JSON (object keys sorted at every level, no
//! whitespace), so that a signature checks in any process whatever its JSON
//! library keeps of key order. A continuation the host signed cannot be
//! altered (a call's result, the program, the expiry) without the key.

use std::fmt;

use hmac::{Hmac, Mac};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::{Continuation, DurableError};

/// The key a runtime signs continuations with. Its `Debug` does not show
/// it.
#[derive(Clone, PartialEq, Eq)]
pub struct SigningKey(Vec<u8>);

impl SigningKey {
    /// A key from secret bytes: at least 32 of them, random.
    pub fn new(bytes: impl Into<Vec<u8>>) -> Self {
        Self(bytes.into())
    }

    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }
}

impl fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SigningKey({} bytes)", self.0.len())
    }
}

/// Lowercase hex of SHA-256 of `bytes`: how a record names its program
/// (`program_sha256`) and guest.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(bytes: &[u8]) -> String {
    use fmt::Write as _;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut out, byte| {
            let _ = write!(out, "{byte:02x}");
            out
        })
}

/// Signs `continuation` with `key`, valid until `expires_at_ms`.
pub(crate) fn sign(continuation: &mut Continuation, key: &SigningKey, expires_at_ms: u64) {
    continuation.expires_at_ms = Some(expires_at_ms);
    continuation.signature = None;
    continuation.signature = Some(hex(&mac(continuation, key).finalize().into_bytes()));
}

/// Checks `continuation`'s signature with `key`, and that it has not
/// expired at `now_ms`.
pub(crate) fn verify(
    continuation: &Continuation,
    key: &SigningKey,
    now_ms: u64,
) -> Result<(), DurableError> {
    let Some(signature) = &continuation.signature else {
        return Err(DurableError::BadSignature("missing"));
    };
    let Some(bytes) = unhex(signature) else {
        return Err(DurableError::BadSignature("not hex"));
    };
    let mut unsigned = continuation.clone();
    unsigned.signature = None;
    // `verify_slice` compares in constant time.
    if mac(&unsigned, key).verify_slice(&bytes).is_err() {
        return Err(DurableError::BadSignature("wrong"));
    }
    match continuation.expires_at_ms {
        Some(expires_at_ms) if expires_at_ms <= now_ms => Err(DurableError::Expired {
            expires_at_ms,
            now_ms,
        }),
        Some(_) => Ok(()),
        None => Err(DurableError::BadSignature("without an expiry")),
    }
}

fn mac(continuation: &Continuation, key: &SigningKey) -> Hmac<Sha256> {
    // Any key length is valid for HMAC.
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&key.0)
        .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
    // Serialising plain data to a `Value` cannot fail.
    let value = serde_json::to_value(continuation).unwrap_or(Value::Null);
    let mut canonical = String::new();
    write_canonical(&value, &mut canonical);
    mac.update(canonical.as_bytes());
    mac
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|at| u8::from_str_radix(text.get(at..at + 2)?, 16).ok())
        .collect()
}

/// `value` as JSON with every object's keys sorted. Iterative: a record
/// may nest as deeply as the values its calls carried.
fn write_canonical(value: &Value, out: &mut String) {
    enum Step<'a> {
        Value(&'a Value),
        Text(&'static str),
        Key(&'a str),
    }
    let mut stack = vec![Step::Value(value)];
    while let Some(step) = stack.pop() {
        match step {
            Step::Text(text) => out.push_str(text),
            Step::Key(key) => {
                out.push_str(&Value::from(key).to_string());
                out.push(':');
            }
            Step::Value(Value::Array(items)) => {
                out.push('[');
                stack.push(Step::Text("]"));
                for (i, item) in items.iter().enumerate().rev() {
                    stack.push(Step::Value(item));
                    if i > 0 {
                        stack.push(Step::Text(","));
                    }
                }
            }
            Step::Value(Value::Object(map)) => {
                out.push('{');
                stack.push(Step::Text("}"));
                let mut entries: Vec<(&String, &Value)> = map.iter().collect();
                entries.sort_by(|a, b| a.0.cmp(b.0));
                for (i, (key, item)) in entries.into_iter().enumerate().rev() {
                    stack.push(Step::Value(item));
                    stack.push(Step::Key(key));
                    if i > 0 {
                        stack.push(Step::Text(","));
                    }
                }
            }
            Step::Value(scalar) => out.push_str(&scalar.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn canonical_json_sorts_keys_at_every_level() {
        let mut out = String::new();
        write_canonical(
            &json!({"b": [1, {"z": null, "a": "x"}], "a": true}),
            &mut out,
        );
        assert_eq!(out, r#"{"a":true,"b":[1,{"a":"x","z":null}]}"#);
    }

    #[test]
    fn canonical_json_of_deep_values_does_not_recurse() {
        let mut value = json!(0);
        for _ in 0..100_000 {
            value = Value::Array(vec![value]);
        }
        let mut out = String::new();
        write_canonical(&value, &mut out);
        assert_eq!(out.len(), 200_001);
        // Dropping a deep `Value` recurses: take it apart level by level.
        let mut next = Some(value);
        while let Some(Value::Array(mut items)) = next {
            next = items.pop();
        }
    }

    #[test]
    fn hex_round_trips() {
        assert_eq!(unhex(&hex(&[0, 1, 254, 255])), Some(vec![0, 1, 254, 255]));
        assert_eq!(unhex("abc"), None);
        assert_eq!(unhex("zz"), None);
    }
}
