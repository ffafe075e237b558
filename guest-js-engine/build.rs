//! Link settings of the guest.

fn main() {
    // The C shadow stack QuickJS recurses on (Rust's default for wasm is
    // 1 MiB). `engine::MAX_STACK_BYTES` must stay below it, and the host's
    // wasm stack (`MAX_WASM_STACK` in runtime-host) must hold the native
    // frames of a recursion that fills it.
    println!("cargo:rustc-link-arg=-zstack-size=4194304");
}
