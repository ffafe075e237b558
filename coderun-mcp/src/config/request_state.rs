//! The `requestState` section of the configuration: the keys a paused run
//! is sealed with before it goes back to the client (as MCP's
//! `requestState` or `resume_code`'s `id`), and how long it stays
//! resumable.
//!
//! ```json
//! "requestState": {
//!   "keys": [
//!     {"id": "2026-12", "file": "/run/secrets/coderun/state-key"},
//!     {"id": "2026-11", "env": "CODERUN_STATE_KEY_PREVIOUS"}
//!   ],
//!   "ttlSeconds": 86400
//! }
//! ```
//!
//! The first key seals; every key listed opens. Rotating is listing a new
//! key first and keeping the old one until the states it sealed expire.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;

/// How long a sealed paused run stays resumable unless
/// `requestState.ttlSeconds` says otherwise: a day, for a person to answer.
pub const DEFAULT_STATE_TTL: Duration = Duration::from_secs(24 * 3600);
/// The longest `requestState.ttlSeconds` may be: 30 days.
const MAX_TTL_SECS: f64 = 30.0 * 24.0 * 3600.0;
/// The fewest bytes a key's secret may have.
pub const MIN_KEY_BYTES: usize = 32;
/// The most bytes a key's secret may have (a file named by mistake is not
/// read whole).
const MAX_KEY_BYTES: usize = 4096;
/// The most keys the section may list.
const MAX_KEYS: usize = 8;
/// The longest key id.
const MAX_KEY_ID_BYTES: usize = 64;

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(super) struct RawRequestState {
    #[serde(default)]
    keys: Vec<RawKey>,
    ttl_seconds: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawKey {
    id: String,
    env: Option<String>,
    file: Option<PathBuf>,
}

/// One sealing key: the id every state it seals names, and its secret.
/// Its `Debug` does not show the secret.
#[derive(Clone, PartialEq, Eq)]
pub struct StateKey {
    id: String,
    secret: Vec<u8>,
}

impl StateKey {
    /// A key from its id and secret bytes ([`MIN_KEY_BYTES`] or more,
    /// random).
    pub fn new(id: impl Into<String>, secret: impl Into<Vec<u8>>) -> Result<Self, String> {
        let id = id.into();
        validate_id(&id)?;
        let secret = secret.into();
        if secret.len() < MIN_KEY_BYTES {
            return Err(format!(
                "the key {id:?} has {} bytes; a sealing key needs at least {MIN_KEY_BYTES} \
                 random bytes",
                secret.len()
            ));
        }
        Ok(Self { id, secret })
    }

    /// The key's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The key's secret bytes.
    pub(crate) fn secret(&self) -> &[u8] {
        &self.secret
    }
}

impl fmt::Debug for StateKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "StateKey({:?}, {} bytes)", self.id, self.secret.len())
    }
}

/// The validated `requestState` section. Without keys, each process seals
/// with a random key of its own: a paused run then resumes only in the
/// process that paused it, and not after a restart.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RequestStateConfig {
    /// The keys, the sealing one first.
    pub keys: Vec<StateKey>,
    /// How long a sealed state stays resumable ([`DEFAULT_STATE_TTL`] when
    /// absent).
    pub ttl: Option<Duration>,
}

impl RequestStateConfig {
    pub(super) fn from_raw(raw: RawRequestState) -> Result<Self, String> {
        if raw.keys.len() > MAX_KEYS {
            return Err(format!(
                "requestState.keys lists {} keys; at most {MAX_KEYS} are accepted",
                raw.keys.len()
            ));
        }
        let mut keys: Vec<StateKey> = Vec::with_capacity(raw.keys.len());
        for (at, key) in raw.keys.into_iter().enumerate() {
            let key =
                read_key(key).map_err(|message| format!("requestState.keys[{at}]: {message}"))?;
            if keys.iter().any(|other| other.id == key.id) {
                return Err(format!(
                    "requestState.keys[{at}]: the id {:?} is listed twice",
                    key.id
                ));
            }
            keys.push(key);
        }
        let ttl = raw
            .ttl_seconds
            .map(|value| {
                if value > MAX_TTL_SECS {
                    return Err(format!(
                        "requestState.ttlSeconds must be at most {MAX_TTL_SECS} (30 days; got \
                         {value})"
                    ));
                }
                super::seconds("requestState.ttlSeconds", value)
            })
            .transpose()?;
        Ok(Self { keys, ttl })
    }

    /// The time a sealed state stays resumable.
    pub fn ttl(&self) -> Duration {
        self.ttl.unwrap_or(DEFAULT_STATE_TTL)
    }
}

fn validate_id(id: &str) -> Result<(), String> {
    if id.is_empty() || id.len() > MAX_KEY_ID_BYTES {
        return Err(format!(
            "a key id has 1 to {MAX_KEY_ID_BYTES} characters (got {} bytes)",
            id.len()
        ));
    }
    if let Some(bad) = id
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')))
    {
        return Err(format!(
            "the key id {id:?} has {bad:?}; ids are letters, digits, '.', '_' and '-'"
        ));
    }
    Ok(())
}

/// The key a raw entry names, read from its variable or file now, its
/// trailing whitespace (a file's last newline) dropped.
fn read_key(raw: RawKey) -> Result<StateKey, String> {
    validate_id(&raw.id)?;
    let secret = match (raw.env, raw.file) {
        (Some(name), None) => std::env::var_os(&name)
            .ok_or_else(|| format!("the environment variable {name} is not set"))?
            .into_encoded_bytes(),
        (None, Some(path)) => {
            let bytes = std::fs::read(&path)
                .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
            if bytes.len() > MAX_KEY_BYTES {
                return Err(format!(
                    "{} has {} bytes; a key file holds at most {MAX_KEY_BYTES}",
                    path.display(),
                    bytes.len()
                ));
            }
            bytes
        }
        _ => {
            return Err(format!(
                "the key {:?} needs exactly one of \"env\" (a variable's name) or \"file\" (a \
                 path)",
                raw.id
            ));
        }
    };
    let kept = secret
        .iter()
        .rposition(|byte| !byte.is_ascii_whitespace())
        .map_or(0, |last| last + 1);
    StateKey::new(raw.id, &secret[..kept])
}
