//! coderun: run model-written TypeScript in a QuickJS-in-wasm sandbox.
//!
//! This crate is the `coderun` command-line tool and a façade over the
//! libraries: [`runtime`] is the embeddable runtime (`coderun-runtime`),
//! [`code_mode`] the tool registry and `run_code` bridge
//! (`coderun-code-mode`), and [`mcp`] is `coderun mcp`, the Code Mode server
//! in front of MCP servers (`coderun-mcp`).
//!
//! ```
//! use coderun::runtime::{CodeRunRequest, CodeRuntime, RuntimeConfig, WasmCodeRuntime};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let runtime = WasmCodeRuntime::new(RuntimeConfig::default())?;
//! let result = runtime.run(CodeRunRequest::new("return 1 + 1")).await?;
//! assert_eq!(result.value, Some(serde_json::json!(2)));
//! # Ok(())
//! # }
//! ```

pub use coderun_code_mode as code_mode;
pub use coderun_mcp as mcp;
pub use coderun_runtime as runtime;

pub mod demo;

/// The README's examples are compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
