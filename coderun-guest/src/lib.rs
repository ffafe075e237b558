//! The coderun guest, ready to run: QuickJS (quickjs-ng, through rquickjs)
//! and the guest's event loop compiled to a `wasm32-wasip2` component, then
//! pre-initialised with Wizer so that every instance starts with the
//! JavaScript runtime, its context and the prelude already created.
//!
//! ```
//! assert!(coderun_guest::WASM.starts_with(b"\0asm"));
//! assert!(coderun_guest::RECIPE.contains("inputs-sha256"));
//! ```
//!
//! The bytes are built from the sources in the repository's
//! `guest-js-engine/` (with `wit/` and the QuickJS patch) by `make guest`,
//! which also writes [`RECIPE`]: the toolchain that built them and a hash of
//! every input. CI rebuilds the guest from source and checks the result is
//! byte-for-byte this file; depending on this crate needs no wasm toolchain.

/// The pre-initialised guest component.
pub const WASM: &[u8] = include_bytes!("../coderun-guest.wasm");

/// How [`WASM`] was built: the toolchain's versions and the SHA-256 of its
/// inputs and of itself (TOML, written by `make guest`).
pub const RECIPE: &str = include_str!("../RECIPE.toml");
