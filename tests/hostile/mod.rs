//! The hostile-program suite: programs an attacker (or a careless model)
//! would send, each with the exact outcome the sandbox must give. Shared by
//! the library's tests (`tests/runtime/hostile.rs`) and `coderun mcp`'s
//! (`tests/mcp/hostile.rs`): both run every case against the budgets of
//! [`limits`] and then check that the host still runs programs.
//!
//! Cases are grouped by what they attack: CPU, memory, stack, the host's
//! front end (nesting, size), strings, output size, bindings, and attempts
//! to reach outside the sandbox. Bindings are the `tools` namespace of
//! [`tools`]: `tools.echo(x)` returns `x`, `tools.fail()` rejects with a
//! 4 MB message, `tools.big()` returns 2 MB of text. Cases whose outcome
//! depends on a binding being called are marked [`Case::dispatches`]:
//! `coderun mcp`'s tools are its upstreams', so its test runs the others
//! (whatever a program does to a binding's argument before it is sent ends
//! the same way there).

#![allow(dead_code, reason = "each test binary uses part of the suite")]

mod platform;
mod reach;
mod resources;
mod text;

/// The budgets every case runs under.
pub struct Limits {
    pub fuel: u64,
    pub wall_clock_secs: u64,
    pub max_memory_mib: u64,
    pub max_log_bytes: usize,
    pub max_value_bytes: usize,
    pub max_error_bytes: usize,
}

pub const LIMITS: Limits = Limits {
    fuel: 5_000_000_000,
    wall_clock_secs: 20,
    max_memory_mib: 64,
    max_log_bytes: 64 * 1024,
    max_value_bytes: 64 * 1024,
    max_error_bytes: 16 * 1024,
};

/// How a case must end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The run succeeds; the value (rendered as JSON text) contains the
    /// needle.
    Ok,
    Exception,
    Timeout,
    WorkerExit,
}

pub struct Case {
    pub name: String,
    pub program: String,
    pub kind: Kind,
    /// A text the value (for `Ok`) or the failure message must contain.
    pub needle: &'static str,
    /// Whether the outcome depends on what a binding does when called.
    pub dispatches: bool,
}

fn case(
    name: impl Into<String>,
    program: impl Into<String>,
    kind: Kind,
    needle: &'static str,
) -> Case {
    Case {
        name: name.into(),
        program: program.into(),
        kind,
        needle,
        dispatches: false,
    }
}

/// A case whose outcome depends on what the `tools` bindings do.
fn dispatching(
    name: impl Into<String>,
    program: impl Into<String>,
    kind: Kind,
    needle: &'static str,
) -> Case {
    Case {
        dispatches: true,
        ..case(name, program, kind, needle)
    }
}

fn nest(open: &str, inner: &str, close: &str, n: usize) -> String {
    format!("{}{inner}{}", open.repeat(n), close.repeat(n))
}

/// Every case, in a fixed order.
pub fn all() -> Vec<Case> {
    let mut cases = Vec::new();
    resources::cpu(&mut cases);
    resources::memory(&mut cases);
    resources::stack(&mut cases);
    text::front_end(&mut cases);
    text::strings(&mut cases);
    text::output(&mut cases);
    reach::bindings(&mut cases);
    reach::escapes(&mut cases);
    platform::surface(&mut cases);
    cases
}

/// The `tools` namespace the suite's programs call.
pub mod tools {
    pub const FAIL_MESSAGE_BYTES: usize = 4 * 1024 * 1024;
    pub const BIG_RESULT_BYTES: usize = 2 * 1024 * 1024;
}
