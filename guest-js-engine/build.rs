//! Link settings of the guest.

fn main() {
    // The C shadow stack QuickJS recurses on (Rust's default for wasm is
    // 1 MiB). `engine::MAX_STACK_BYTES` must stay below it.
    println!("cargo:rustc-link-arg=-zstack-size=2097152");
}
