//! Why `coderun mcp` could not start or serve. An upstream's own failure is
//! not one of these: the gateway serves the others and reports it
//! ([`Gateway::unavailable`](crate::Gateway::unavailable)).

/// `coderun mcp` could not start or stopped serving.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The limits do not make a valid runtime configuration.
    #[error("the limits are invalid: {0}")]
    Runtime(#[from] coderun_runtime::RuntimeError),
    /// Building the runtime stopped before it finished.
    #[error("building the runtime stopped unexpectedly")]
    RuntimeStopped,
    /// The keys paused runs are sealed with cannot be used.
    #[error("requestState: {0}")]
    Sealing(String),
    /// The registry cannot offer its tools in the mode asked for.
    #[error(transparent)]
    Assembly(#[from] coderun_code_mode::AssemblyError),
    /// `--listen` names a host that cannot be resolved.
    #[error("--listen: resolving {host:?}: {source}")]
    Resolve {
        /// The host name.
        host: String,
        /// Why it could not be resolved.
        #[source]
        source: std::io::Error,
    },
    /// `--listen` names a host with no address.
    #[error("--listen: {host:?} resolves to no address")]
    NoAddress {
        /// The host name.
        host: String,
    },
    /// The socket could not be bound or read.
    #[error("listening on {address}: {source}")]
    Listen {
        /// The address, as given or resolved.
        address: String,
        /// Why listening failed.
        #[source]
        source: std::io::Error,
    },
    /// The MCP handshake with the client failed.
    #[error("the MCP handshake failed: {0}")]
    Handshake(String),
    /// The transport failed while serving.
    #[error("serving MCP over {transport}: {message}")]
    Transport {
        /// `stdio` or `HTTP`.
        transport: &'static str,
        /// What failed.
        message: String,
    },
}
