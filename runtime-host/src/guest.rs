//! The host's half of the boundary in `wit/sandbox.wit`: the bindings
//! wasmtime generates for the guest's world, and the types the rest of the
//! runtime uses from them. The imports are implemented in `calls` (binding
//! calls and console lines) over the per-run state of `store`.

wasmtime::component::bindgen!({
    world: "guest",
    // `wit` links to the repository's `wit/`, the one definition of the
    // boundary (the guest reads it too); packaging copies it in.
    path: "wit",
    // Only `wait-settled` can block; the others return at once, and a
    // synchronous import skips the future wasmtime builds for an async one.
    imports: {
        "coderun:sandbox/host.start-call": trappable,
        "coderun:sandbox/host.log": trappable,
        "coderun:sandbox/host.start-fetch": trappable,
        "coderun:sandbox/host.take-body": trappable,
        "coderun:sandbox/host.cancel-fetch": trappable,
        default: async | trappable,
    },
    exports: { default: async },
});

pub(crate) use coderun::sandbox::host::{
    CallArgs, FetchRequest, Host, LogLevel, RedirectMode, SettledCall, StartedCall,
};
pub(crate) use exports::coderun::sandbox::program::{Label, Namespace, Outcome, Settings};
