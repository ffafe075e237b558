//! Paused runs sealed into the handle the client echoes back: MCP
//! 2026-07-28's `requestState`, and `resume_code`'s `id`. The handle is
//! the run's continuation itself (its program and the ledger of the calls
//! it made), compressed and encrypted with ChaCha20-Poly1305 under a key
//! the server holds, so that no paused run lives in a process's memory:
//! any process holding the key resumes it by replaying the ledger, after a
//! restart too.
//!
//! A handle is `crs1.<header>.<sealed>`, both parts base64url:
//! - the header, JSON in the clear and authenticated as the cipher's
//!   associated data, names the key (`kid`), the expiry (`exp`, ms since
//!   the epoch), the principal that paused it (`sub`: a digest of the
//!   bearer token it presented), the HTTP session (`sid`), the tool the
//!   run paused at (`tool`) and the SHA-256 of that call's arguments
//!   (`args`);
//! - the sealed part is the nonce followed by the encrypted, deflated JSON
//!   of the continuation and its tag.
//!
//! Opening checks all of it, and every refusal (altered, expired, another
//! principal's or session's, a key this server does not hold, already
//! used) reaches the client as one message, so that a forger learns
//! nothing; the reason is logged. A handle opens once per process: the
//! nonces of opened handles are kept until they expire.

use std::collections::{HashSet, VecDeque};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, SystemTime};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use coderun_runtime::{Continuation, RecordedCall, sha256_hex};
use ring::aead::{Aad, CHACHA20_POLY1305, LessSafeKey, NONCE_LEN, Nonce, UnboundKey};
use ring::hmac;
use ring::rand::{SecureRandom, SystemRandom};
use serde::{Deserialize, Serialize};

use crate::config::{Limits, RequestStateConfig, StateKey};

/// What every sealed handle begins with (the format's version).
const PREFIX: &str = "crs1.";
/// The longest header accepted, in bytes of base64.
const MAX_HEADER_BYTES: usize = 4096;
/// How many opened handles' nonces a process remembers; past it, the
/// oldest is forgotten (and that handle, if unexpired, opens again).
const MAX_SPENT: usize = 65_536;
/// The deflate level: the default's ratio at a fraction of the best's time.
const DEFLATE_LEVEL: u8 = 6;
/// The most JSON a sealed continuation may hold: the runtime's default
/// cap on a run's record.
pub const MAX_STATE_JSON_BYTES: usize = 64 * 1024 * 1024;
/// What a request resuming a run carries beside its handle, at most.
const REQUEST_MARGIN_BYTES: usize = 64 * 1024;
/// The message every refused handle gets.
pub const REFUSED: &str = "the paused run's state (requestState, or resume_code's id) is not one \
this server can resume: it was changed, has expired, was already used, or was issued to another \
client or under a key this server does not hold";

/// Who presents a handle: the principal and session it must have been
/// sealed for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Holder {
    /// A digest of the bearer token the request presented, if any.
    pub principal: Option<String>,
    /// The request's `Mcp-Session-Id`, if its transport has sessions.
    pub session: Option<String>,
}

impl Holder {
    /// The holder of a request that presented `authorization` (an
    /// `Authorization` header's value) in `session`.
    pub fn new(authorization: Option<&[u8]>, session: Option<String>) -> Self {
        let principal = authorization.and_then(|value| {
            let (scheme, token) = value.split_at_checked(7)?;
            scheme
                .eq_ignore_ascii_case(b"bearer ")
                .then(|| format!("bearer:{}", &sha256_hex(token)[..32]))
        });
        Self { principal, session }
    }
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Header {
    kid: String,
    exp: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sub: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sid: Option<String>,
    tool: String,
    args: String,
}

/// Why a continuation could not be sealed.
#[derive(Debug, thiserror::Error)]
pub enum SealError {
    /// The continuation is not a run paused at a call.
    #[error("the continuation is not paused at a call (step {0})")]
    NotPaused(u64),
    /// Its JSON or its handle is over a cap.
    #[error(
        "the paused run's state is {bytes} bytes, over the {cap} bytes a client can send back \
         ({what}); the run cannot wait for approval: make it call fewer or smaller tools before \
         the call that needs approval"
    )]
    TooLarge {
        /// Its size.
        bytes: usize,
        /// The cap.
        cap: usize,
        /// Which cap.
        what: &'static str,
    },
    /// Serialising or encrypting failed.
    #[error("the paused run's state could not be sealed: {0}")]
    Failed(String),
}

/// The keys, the expiry and the memory of opened handles.
pub struct Sealer {
    /// The sealing key first.
    keys: Vec<(String, LessSafeKey)>,
    ttl: Duration,
    rng: SystemRandom,
    /// The longest handle made or accepted.
    max_handle_bytes: usize,
    /// The longest continuation JSON sealed or inflated.
    max_plain_bytes: usize,
    spent: Mutex<Spent>,
}

impl std::fmt::Debug for Sealer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ids: Vec<&str> = self.keys.iter().map(|(id, _)| id.as_str()).collect();
        f.debug_struct("Sealer")
            .field("keys", &ids)
            .field("ttl", &self.ttl)
            .finish_non_exhaustive()
    }
}

impl Sealer {
    /// A sealer with `config`'s keys, or with a random key of this
    /// process's own when it lists none. A handle is at most
    /// `max_handle_bytes` (what a client can send back in one message), the
    /// continuation in it at most `max_plain_bytes` of JSON.
    pub fn new(
        config: &RequestStateConfig,
        max_handle_bytes: usize,
        max_plain_bytes: usize,
    ) -> Result<Self, String> {
        let rng = SystemRandom::new();
        let keys = if config.keys.is_empty() {
            let mut secret = [0_u8; 32];
            rng.fill(&mut secret)
                .map_err(|_| "the system's random source failed".to_owned())?;
            let key = StateKey::new("process", secret.to_vec())?;
            vec![cipher(&key)?]
        } else {
            config.keys.iter().map(cipher).collect::<Result<_, _>>()?
        };
        Ok(Self {
            keys,
            ttl: config.ttl(),
            rng,
            max_handle_bytes,
            max_plain_bytes,
            spent: Mutex::new(Spent::default()),
        })
    }

    /// A sealer with `config`'s keys whose handles fit in one message of
    /// `limits`, beside the rest of the request that carries them back.
    pub fn for_limits(config: &RequestStateConfig, limits: &Limits) -> Result<Self, String> {
        let handle = limits
            .max_message_bytes()
            .saturating_sub(REQUEST_MARGIN_BYTES)
            .max(REQUEST_MARGIN_BYTES);
        Self::new(config, handle, MAX_STATE_JSON_BYTES)
    }

    /// Seals `continuation` for `holder`, valid for the configured time.
    pub fn seal(&self, continuation: &Continuation, holder: &Holder) -> Result<String, SealError> {
        let call = paused_call(continuation).ok_or(SealError::NotPaused(continuation.step))?;
        let plain = serde_json::to_vec(continuation)
            .map_err(|error| SealError::Failed(error.to_string()))?;
        if plain.len() > self.max_plain_bytes {
            return Err(SealError::TooLarge {
                bytes: plain.len(),
                cap: self.max_plain_bytes,
                what: "the record's cap",
            });
        }
        let ttl = u64::try_from(self.ttl.as_millis()).unwrap_or(u64::MAX);
        let header = Header {
            kid: self.keys[0].0.clone(),
            exp: now_ms().saturating_add(ttl),
            sub: holder.principal.clone(),
            sid: holder.session.clone(),
            tool: call_name(call),
            args: arguments_digest(call),
        };
        let header =
            serde_json::to_vec(&header).map_err(|error| SealError::Failed(error.to_string()))?;
        let mut nonce = [0_u8; NONCE_LEN];
        self.rng
            .fill(&mut nonce)
            .map_err(|_| SealError::Failed("the system's random source failed".to_owned()))?;
        let mut sealed = miniz_oxide::deflate::compress_to_vec(&plain, DEFLATE_LEVEL);
        self.keys[0]
            .1
            .seal_in_place_append_tag(
                Nonce::assume_unique_for_key(nonce),
                Aad::from(&header),
                &mut sealed,
            )
            .map_err(|_| SealError::Failed("encryption failed".to_owned()))?;
        let mut body = nonce.to_vec();
        body.append(&mut sealed);
        let handle = format!(
            "{PREFIX}{}.{}",
            URL_SAFE_NO_PAD.encode(&header),
            URL_SAFE_NO_PAD.encode(&body)
        );
        if handle.len() > self.max_handle_bytes {
            return Err(SealError::TooLarge {
                bytes: handle.len(),
                cap: self.max_handle_bytes,
                what: "limits.maxMessageBytes",
            });
        }
        Ok(handle)
    }

    /// Opens `handle` for `holder`: the continuation it seals, if it is
    /// authentic, unexpired, sealed for `holder` and not opened before;
    /// else why not (for the log: the client gets [`REFUSED`]).
    pub fn open(&self, handle: &str, holder: &Holder) -> Result<Continuation, &'static str> {
        if handle.len() > self.max_handle_bytes {
            return Err("longer than any handle this server makes");
        }
        let rest = handle.strip_prefix(PREFIX).ok_or("not a sealed state")?;
        let (header_text, body_text) = rest.split_once('.').ok_or("not a sealed state")?;
        if header_text.len() > MAX_HEADER_BYTES {
            return Err("its header is too long");
        }
        let header_bytes = URL_SAFE_NO_PAD
            .decode(header_text)
            .map_err(|_| "its header is not base64url")?;
        let header: Header =
            serde_json::from_slice(&header_bytes).map_err(|_| "its header is not valid")?;
        if header.exp <= now_ms() {
            return Err("expired");
        }
        let key = self
            .keys
            .iter()
            .find(|(id, _)| *id == header.kid)
            .map(|(_, key)| key)
            .ok_or("sealed under a key this server does not hold")?;
        let mut body = URL_SAFE_NO_PAD
            .decode(body_text)
            .map_err(|_| "its sealed part is not base64url")?;
        if body.len() < NONCE_LEN + CHACHA20_POLY1305.tag_len() {
            return Err("its sealed part is too short");
        }
        let mut nonce = [0_u8; NONCE_LEN];
        nonce.copy_from_slice(&body[..NONCE_LEN]);
        let deflated = key
            .open_in_place(
                Nonce::assume_unique_for_key(nonce),
                Aad::from(&header_bytes),
                &mut body[NONCE_LEN..],
            )
            .map_err(|_| "altered, or sealed under another key with the same id")?;
        if header.sub != holder.principal {
            return Err("sealed for another principal");
        }
        if header.sid.is_some() && header.sid != holder.session {
            return Err("sealed in another session");
        }
        let plain =
            miniz_oxide::inflate::decompress_to_vec_with_limit(deflated, self.max_plain_bytes)
                .map_err(|_| "its continuation does not inflate within the cap")?;
        let continuation: Continuation =
            serde_json::from_slice(&plain).map_err(|_| "its continuation is not valid")?;
        let call = paused_call(&continuation).ok_or("its continuation is not paused at a call")?;
        if call_name(call) != header.tool || arguments_digest(call) != header.args {
            return Err("its header does not match its continuation");
        }
        if !self.spent().spend(nonce, header.exp) {
            return Err("already used");
        }
        Ok(continuation)
    }

    fn spent(&self) -> MutexGuard<'_, Spent> {
        // Every update is one step: the set stays consistent across a panic.
        self.spent.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The nonces of opened handles, oldest first, until they expire.
#[derive(Default)]
struct Spent {
    order: VecDeque<([u8; NONCE_LEN], u64)>,
    nonces: HashSet<[u8; NONCE_LEN]>,
}

impl Spent {
    /// Records `nonce` as opened until `expires`; false if it was already.
    fn spend(&mut self, nonce: [u8; NONCE_LEN], expires: u64) -> bool {
        let now = now_ms();
        while let Some(&(old, exp)) = self.order.front() {
            if exp > now && self.order.len() < MAX_SPENT {
                break;
            }
            self.order.pop_front();
            self.nonces.remove(&old);
        }
        if !self.nonces.insert(nonce) {
            return false;
        }
        self.order.push_back((nonce, expires));
        true
    }
}

/// The cipher for `key`: ChaCha20-Poly1305 under HMAC-SHA256(secret,
/// label), so that a secret of any length gives a 32-byte key.
fn cipher(key: &StateKey) -> Result<(String, LessSafeKey), String> {
    let derive = hmac::Key::new(hmac::HMAC_SHA256, key.secret());
    let derived = hmac::sign(&derive, b"coderun requestState v1 chacha20-poly1305");
    let unbound = UnboundKey::new(&CHACHA20_POLY1305, derived.as_ref())
        .map_err(|_| format!("the key {:?} could not be used", key.id()))?;
    Ok((key.id().to_owned(), LessSafeKey::new(unbound)))
}

/// The call a continuation is paused at.
fn paused_call(continuation: &Continuation) -> Option<&RecordedCall> {
    let at = usize::try_from(continuation.step.checked_sub(1)?).ok()?;
    continuation.record.calls.get(at)
}

fn call_name(call: &RecordedCall) -> String {
    coderun_runtime::property_access(&call.namespace, &call.function)
}

/// Lowercase hex of SHA-256 of the call's arguments as JSON.
fn arguments_digest(call: &RecordedCall) -> String {
    let json = serde_json::to_vec(&call.arguments).unwrap_or_default();
    sha256_hex(&json)
}

/// Milliseconds since the Unix epoch, by the host's clock.
fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or(Duration::ZERO)
        .as_millis()
        .try_into()
        .unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests;
