//! Globals beside `tools` that every `run_code` program gets: a host's own
//! namespace of async functions (`coderun mcp` offers its upstreams'
//! resources and prompts this way), declared in TypeScript at the end of
//! the SDK section, with an optional preamble that shapes its functions'
//! arguments in the guest.

use coderun_runtime::CodeBindingNamespace;

/// A namespace of host functions a program reaches as a global.
#[derive(Clone, Debug)]
pub struct HostGlobal {
    namespace: CodeBindingNamespace,
    declarations: String,
    preamble: String,
}

impl HostGlobal {
    /// `namespace`, declared by `declarations` (TypeScript: a `declare
    /// const <global>: { ... };` with doc comments) in the SDK section.
    /// Each of its functions takes the one JSON value a program passes.
    pub fn new(namespace: CodeBindingNamespace, declarations: impl Into<String>) -> Self {
        Self {
            namespace,
            declarations: declarations.into(),
            preamble: String::new(),
        }
    }

    /// JavaScript run before each program (one line, no `\n`) that wraps
    /// the namespace's functions, say to take positional arguments:
    /// `{const g=globalThis.resources;const read=g.$read;g.$read=(uri)=>read({uri});}`.
    pub fn preamble(mut self, preamble: impl Into<String>) -> Self {
        self.preamble = preamble.into();
        self
    }

    /// The global's name.
    pub fn global(&self) -> &str {
        self.namespace.global()
    }

    pub(crate) fn namespace(&self) -> &CodeBindingNamespace {
        &self.namespace
    }

    pub(crate) fn declarations(&self) -> &str {
        &self.declarations
    }

    pub(crate) fn preamble_text(&self) -> &str {
        &self.preamble
    }
}
