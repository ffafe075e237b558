//! Embeds the pre-initialised guest component built by `make guest`.

use std::path::PathBuf;

fn main() {
    let manifest_dir = PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"),
    );
    let snapshot = manifest_dir.join("../target/guest/coderun-guest.wasm");
    println!("cargo:rerun-if-changed={}", snapshot.display());
    if !snapshot.exists() {
        panic!(
            "the guest component is missing at {}: run `make guest` (from the repository root) first",
            snapshot.display()
        );
    }
    let snapshot = snapshot.canonicalize().expect("the guest path resolves");
    println!("cargo:rustc-env=CODERUN_GUEST_WASM={}", snapshot.display());
}
