//! Errors for misuse of the API and for invalid configuration. A program's
//! own failure is never one of these: it is data on the run's result.

/// `run` was called in a way the runtime cannot honour.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MisuseError {
    /// The runtime was disposed before this run was submitted.
    #[error("the runtime has been disposed; create a new one to run more programs")]
    Disposed,
    /// A binding namespace's `global` cannot be used as a global identifier.
    #[error("binding global {global:?} is invalid: {reason}")]
    InvalidBindingGlobal {
        /// The offending name.
        global: String,
        /// Why it was refused.
        reason: &'static str,
    },
    /// Two binding namespaces share one `global`.
    #[error("binding global {global:?} is declared more than once")]
    DuplicateBindingGlobal {
        /// The repeated name.
        global: String,
    },
    /// The request's preamble spans more than one line.
    #[error(
        "the request's preamble must be one line of JavaScript (got a line terminator at byte {at})"
    )]
    PreambleNotOneLine {
        /// The byte offset of the first line terminator.
        at: usize,
    },
    /// The request's network policy is invalid: the message names the key.
    #[error("the request's network policy is invalid: {0}")]
    InvalidNetworkPolicy(String),
    /// The record or continuation cannot be replayed or resumed here.
    #[error(transparent)]
    Durable(#[from] crate::durable::DurableError),
}

/// A configuration value is out of range. Raised when the runtime is built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("config.{key} {requirement} (got {value})")]
pub struct ConfigError {
    pub(crate) key: &'static str,
    pub(crate) requirement: String,
    pub(crate) value: String,
}

impl ConfigError {
    /// The name of the configuration key.
    pub fn key(&self) -> &'static str {
        self.key
    }
}

/// The runtime could not be created.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RuntimeError {
    /// The configuration is invalid.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// wasmtime refused the engine or the guest component.
    #[error("the wasm engine could not be set up: {0}")]
    Engine(String),
}
