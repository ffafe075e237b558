//! Extracts the library example from the repository's README, so that what
//! this crate runs is exactly what the README shows.

use std::path::PathBuf;

fn main() {
    let readme = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../README.md");
    println!("cargo:rerun-if-changed={}", readme.display());
    let text = std::fs::read_to_string(&readme).expect("the README is readable");
    let start = text
        .find("```rust\nuse coderun_runtime::")
        .expect("the README has a library example using coderun_runtime");
    let code = &text[start + "```rust\n".len()..];
    let end = code.find("```").expect("the library example ends");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out.join("readme_example.rs"), &code[..end]).expect("OUT_DIR is writable");
}
