//! The coderun guest: QuickJS inside a wasm component.
//!
//! # Lifecycle
//! `initialize` runs once, at build time, under Wizer: it creates the QuickJS
//! runtime and context and evaluates the prelude (console, bindings plumbing,
//! value encoding). The resulting memory is the snapshot every instance starts
//! from, so a run pays only for its own program. The host instantiates the
//! snapshot, calls `run` exactly once and drops the instance: nothing a
//! program does can reach the next run. (An instance the host makes to
//! compile a preamble calls `compile-preamble` once instead, and is dropped
//! as well.)
//!
//! # The event loop
//! `run` evaluates the program (a function expression the host produced),
//! calls it, and then loops: run every pending job; if the program's promise
//! settled, encode the outcome and return; if binding calls are in flight,
//! feed the next settled call back to its promise: one the host settled
//! with its `start-call`, else the one its `wait-settled` blocks for; if
//! none is in flight, the program awaits something that can never
//! settle, and the run ends as `stalled` rather than hanging.

#![expect(unsafe_code, reason = "wit-bindgen's export glue is unsafe code")]

wit_bindgen::generate!({
    world: "guest",
    path: "../wit",
});

mod alloc;
mod cfunction;
mod engine;
mod json;
mod parse;
mod web;

use coderun_render as render;

use exports::coderun::sandbox::program::{Guest as Program, Namespace, Outcome, Settings};

struct Component;

impl Guest for Component {
    fn initialize() {
        engine::initialize();
    }
}

impl Program for Component {
    fn run(source: String, bindings: Vec<Namespace>, settings: Settings) -> Outcome {
        engine::run(&source, bindings, &settings)
    }

    fn compile_preamble(source: String) -> Result<Vec<u8>, String> {
        engine::compile_preamble(&source)
    }
}

export!(Component);
