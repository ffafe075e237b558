//! Code Mode: presents tools to a model as TypeScript functions.
//!
//! Instead of calling tools one JSON blob at a time, the model writes a
//! TypeScript program against a `tools` object. This crate renders the
//! declarations that the model is shown: [`schema_ts`] turns each tool's JSON
//! Schema into a TypeScript type and [`render_sdk`] assembles the
//! `declare const tools: { ... };` block.
//!
//! ```
//! use code_mode::{ToolSignature, render_sdk};
//!
//! let input = serde_json::json!({
//!     "type": "object",
//!     "properties": {"path": {"type": "string", "description": "Where to read."}},
//!     "required": ["path"]
//! });
//! let sdk = render_sdk(&[ToolSignature {
//!     name: "read_file",
//!     description: "Read a file.",
//!     input_schema: &input,
//!     output_schema: None,
//! }]);
//! assert_eq!(
//!     sdk,
//!     "declare const tools: {
//!   /** Read a file. */
//!   read_file(args: {
//!     /** Where to read. */
//!     path: string;
//!   }): Promise<string>;
//! };"
//! );
//! ```

pub mod schema_ts;

pub use schema_ts::{ToolSignature, is_identifier, render_sdk, render_tool, schema_to_ts};
