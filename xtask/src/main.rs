//! Build tooling for coderun, run by the Makefile.
//!
//! `xtask guest` builds the guest from source and writes the artifact the
//! `coderun-guest` crate ships: it compiles `guest-js-engine/` for
//! `wasm32-wasip2` (QuickJS's C through `guest-js-engine/cc.sh`, which
//! applies the project's patch), pre-initialises the component with Wizer
//! (instantiate it, call its `initialize` export, which creates the QuickJS
//! runtime and context and evaluates the prelude, and write a component
//! whose memory starts in that state), exports the functions runs call most
//! (`guest-js-engine/hot-functions.txt`, see `hot.rs`), and writes
//! `coderun-guest/coderun-guest.wasm` and `coderun-guest/RECIPE.toml`.
//!
//! `xtask hot-functions` rewrites that list from what the committed
//! artifact's runs call (`examples/hot_functions.rs`).
//!
//! The build is reproducible, so that CI can check the committed artifact
//! against a rebuild: paths are remapped out of the Rust and C output, and
//! the snapshot is taken with a fixed clock and fixed randomness, so that
//! nothing of the machine or the moment ends up in the guest's memory.

mod hot;
mod recipe;

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context as _, bail};
use wasmtime::component::{Linker, ResourceTable};
use wasmtime::{Config, Engine, Store};
use wasmtime_wasi::{HostMonotonicClock, HostWallClock, WasiCtx, WasiCtxView, WasiView};
use wasmtime_wizer::Wizer;

/// The C compiler QuickJS is built with (TOOLCHAIN.md).
const CLANG: &str = "clang-19";
const LLVM_AR: &str = "llvm-ar-19";

struct InitState {
    wasi: WasiCtx,
    table: ResourceTable,
}

impl WasiView for InitState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

/// A clock that always says the same: 2026-01-01T00:00:00Z.
struct FixedClock;

const FIXED_SECONDS: u64 = 1_767_225_600;

impl HostWallClock for FixedClock {
    fn resolution(&self) -> std::time::Duration {
        std::time::Duration::from_nanos(1)
    }

    fn now(&self) -> std::time::Duration {
        std::time::Duration::from_secs(FIXED_SECONDS)
    }
}

impl HostMonotonicClock for FixedClock {
    fn resolution(&self) -> u64 {
        1
    }

    fn now(&self) -> u64 {
        0
    }
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let repo = repository()?;
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| repo.join("target"), PathBuf::from);
    match args.as_slice() {
        [cmd] if cmd == "guest" => guest(&repo, &target),
        [cmd] if cmd == "hot-functions" => hot_functions(&repo),
        [cmd] if cmd == "guest-clippy" => {
            run(guest_cargo(&repo, &target, &["clippy"])?.args(["--", "-D", "warnings"]))
        }
        _ => bail!("usage: xtask guest | guest-clippy | hot-functions"),
    }
}

/// The repository: the current directory or the nearest one above it that
/// holds `guest-js-engine/Cargo.toml` (the Makefile runs xtask from the
/// repository's root).
fn repository() -> anyhow::Result<PathBuf> {
    let current = std::env::current_dir().context("reading the current directory")?;
    current
        .ancestors()
        .find(|dir| dir.join("guest-js-engine/Cargo.toml").is_file())
        .map(Path::to_path_buf)
        .with_context(|| {
            format!(
                "{} is not inside a coderun repository (no guest-js-engine/Cargo.toml above it)",
                current.display()
            )
        })
}

fn guest(repo: &Path, target: &Path) -> anyhow::Result<()> {
    check_path_packages(repo)?;
    run(&mut guest_cargo(repo, target, &["build"])?)?;
    let raw = target.join("wasm32-wasip2/release/guest_js_engine.wasm");
    let wasm =
        std::fs::read(&raw).with_context(|| format!("reading the guest {}", raw.display()))?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let snapshot = runtime.block_on(snapshot(&wasm))?;
    let list = std::fs::read_to_string(repo.join(HOT_FUNCTIONS))
        .with_context(|| format!("reading {HOT_FUNCTIONS}"))?;
    let (snapshot, hot) = hot::export_hot(&snapshot, &list)?;
    eprintln!("guest: {} hot functions exported", hot.exported);
    if !hot.missing.is_empty() {
        eprintln!(
            "guest: {} hot functions the guest no longer has (run `make hot-functions`): {}",
            hot.missing.len(),
            hot.missing.join(", ")
        );
    }
    let artifact = repo.join("coderun-guest");
    std::fs::write(artifact.join("coderun-guest.wasm"), &snapshot)
        .context("writing coderun-guest/coderun-guest.wasm")?;
    let recipe = recipe::write(repo, &snapshot)?;
    std::fs::write(artifact.join("RECIPE.toml"), recipe)
        .context("writing coderun-guest/RECIPE.toml")?;
    eprintln!(
        "guest: {} ({} bytes) -> coderun-guest/coderun-guest.wasm ({} bytes)",
        raw.display(),
        wasm.len(),
        snapshot.len()
    );
    Ok(())
}

/// The functions exported for their `VMFuncRef`s' sake (see `hot.rs`).
const HOT_FUNCTIONS: &str = "guest-js-engine/hot-functions.txt";

/// The exports `examples/hot_functions.rs` places the entries by.
const RUN_EXPORT: &str = "coderun:sandbox/program@0.1.0#run";
const PREAMBLE_EXPORT: &str = "coderun:sandbox/program@0.1.0#compile-preamble";

/// Rewrites `HOT_FUNCTIONS` from the probe's runs of the committed
/// artifact: the functions called through the table, the ones more of its
/// programs call first. The component's own exports are left out (they are
/// exported already).
fn hot_functions(repo: &Path) -> anyhow::Result<()> {
    let artifact = repo.join("coderun-guest/coderun-guest.wasm");
    let component =
        std::fs::read(&artifact).with_context(|| format!("reading {}", artifact.display()))?;
    let names = hot::escaped_names(&component)?;
    let index = |name: &str| {
        names
            .iter()
            .position(|escaped| escaped == name)
            .with_context(|| format!("the guest exports no {name}"))
    };
    let interface = [RUN_EXPORT, "cabi_realloc", "initialize", PREAMBLE_EXPORT];
    let signature = interface.map(index);
    let mut probe = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    probe
        .args([
            "run",
            "--release",
            "--locked",
            "--quiet",
            "--example",
            "hot_functions",
            "--",
        ])
        .arg(names.len().to_string())
        .current_dir(repo);
    for index in signature {
        probe.arg(index?.to_string());
    }
    let mut written: Vec<(usize, usize)> = String::from_utf8(stdout_of(&mut probe)?)?
        .lines()
        .map(|line| {
            let (index, programs) = line.split_once(' ').context("a probe line")?;
            anyhow::Ok((index.parse()?, programs.parse()?))
        })
        .collect::<anyhow::Result<_>>()?;
    written.sort_by_key(|&(index, programs)| (std::cmp::Reverse(programs), index));
    let mut list = String::from(
        "# The guest's functions short runs call through QuickJS's table, the ones\n\
         # more kinds of program call first: exported by `make guest` so that\n\
         # wasmtime keeps their entries together (xtask/src/hot.rs). Written by\n\
         # `make hot-functions`; a name the guest no longer has is skipped.\n",
    );
    let mut listed = 0;
    for (index, _) in written {
        let name = names
            .get(index)
            .context("a probe index past the escaped functions")?;
        if !interface.contains(&name.as_str()) && !name.starts_with("cabi_post_") {
            list.push_str(name);
            list.push('\n');
            listed += 1;
        }
    }
    std::fs::write(repo.join(HOT_FUNCTIONS), list)
        .with_context(|| format!("writing {HOT_FUNCTIONS}"))?;
    eprintln!(
        "hot-functions: {listed} functions -> {HOT_FUNCTIONS}; run `make guest` to apply them"
    );
    Ok(())
}

fn run(command: &mut Command) -> anyhow::Result<()> {
    let status = command
        .status()
        .with_context(|| format!("running {command:?}"))?;
    if !status.success() {
        bail!("{command:?} failed ({status})");
    }
    Ok(())
}

/// What `command` printed on its standard output; an error with its
/// standard error when it fails.
fn stdout_of(command: &mut Command) -> anyhow::Result<Vec<u8>> {
    let output = command
        .output()
        .with_context(|| format!("running {command:?}"))?;
    if !output.status.success() {
        bail!(
            "{command:?} failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(output.stdout)
}

/// Fails unless every package of the guest's own (path dependencies) lies
/// inside the guest's workspace. Cargo hashes a path package's location
/// into its symbols' names: relative to the workspace inside it, absolute
/// outside, which would make the artifact depend on where the repository
/// is checked out. A crate shared with the root workspace is reached
/// through a symbolic link inside `guest-js-engine/` (as `render` is).
fn check_path_packages(repo: &Path) -> anyhow::Result<()> {
    let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    command
        .args(["metadata", "--locked", "--format-version", "1"])
        .arg("--manifest-path")
        .arg(repo.join("guest-js-engine/Cargo.toml"));
    let metadata: serde_json::Value = serde_json::from_slice(&stdout_of(&mut command)?)
        .context("reading cargo metadata's output")?;
    let workspace = repo.join("guest-js-engine");
    let packages = metadata["packages"]
        .as_array()
        .map_or(&[][..], Vec::as_slice);
    // A path package has no `source`; registry ones are hashed by name.
    for package in packages
        .iter()
        .filter(|package| package["source"].is_null())
    {
        let manifest = Path::new(package["manifest_path"].as_str().unwrap_or_default());
        if !manifest.starts_with(&workspace) {
            bail!(
                "the guest's path dependency {} lies outside guest-js-engine/ ({}): the artifact would depend on the checkout's location; reach it through a symbolic link inside guest-js-engine/",
                package["name"],
                manifest.display()
            );
        }
    }
    Ok(())
}

/// `cargo <subcommand>` for the guest: release, wasm32-wasip2, into
/// `target`, with QuickJS's C compiled through `cc.sh` and the paths of the
/// build machine remapped out of the output.
fn guest_cargo(repo: &Path, target: &Path, subcommand: &[&str]) -> anyhow::Result<Command> {
    let sysroot = target.join("wasi-sysroot");
    if !sysroot.join("include").exists() {
        bail!(
            "the WASI sysroot is missing at {}: run `make toolchain` first",
            sysroot.display()
        );
    }
    let cargo_home = std::env::var_os("CARGO_HOME").map_or_else(
        || Path::new(&std::env::var_os("HOME").unwrap_or_default()).join(".cargo"),
        PathBuf::from,
    );
    // Any change to the patch must rebuild QuickJS: the C flags carry its
    // hash, and rquickjs-sys's build script reruns when they change.
    let patch_hash = recipe::hash_files(repo, &recipe::quickjs_patch_files(repo)?)?;
    // `-msimd128` lets clang vectorise QuickJS's byte loops (the UTF-8
    // scan of every string made from Rust text, copies, compares): wasm
    // SIMD is on in wasmtime's default configuration, which the runtime
    // keeps, and the guest's own Rust scans already use it.
    // `-mbulk-memory` makes QuickJS's `memcpy`, `memmove` and `memset`
    // wasm's `memory.copy` and `memory.fill` in line, as the guest's Rust
    // already is: wasi-libc's functions used them only past 32 bytes, and
    // aligned a shorter copy a byte at a time first (about a hundred
    // instructions for a string's few bytes). A run of `return 1 + 1`
    // burns 0.967x the fuel, building 2,000 records 0.934x.
    let cflags = format!(
        "--sysroot={} -msimd128 -mbulk-memory -ffile-prefix-map={}=/target -DCODERUN_QUICKJS_PATCH={}",
        sysroot.display(),
        target.display(),
        &patch_hash[..16]
    );
    // The guest's Rust is compiled for wasm SIMD as its C is: LLVM then
    // vectorises its loops over lists and bytes (sums, widths, checks),
    // and the renderer's SIMD scan (`scan::find`) is inlined where it is
    // called. Fuel counts one unit a wasm instruction whatever its width:
    // a cold run burns 0.998x the fuel, returning 10,000 numbers 0.93x.
    let rustflags = [
        "-Ctarget-feature=+simd128".to_string(),
        format!("--remap-path-prefix={}=/coderun", repo.display()),
        format!("--remap-path-prefix={}=/cargo", cargo_home.display()),
    ]
    .join("\u{1f}");
    let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    command
        .args(subcommand)
        .args(["--release", "--locked", "--target", "wasm32-wasip2"])
        .arg("--manifest-path")
        .arg(repo.join("guest-js-engine/Cargo.toml"))
        .arg("--target-dir")
        .arg(target)
        .env("RQUICKJS_SYS_NO_WASI_SDK", "1")
        .env("CC_wasm32_wasip2", repo.join("guest-js-engine/cc.sh"))
        .env("CODERUN_GUEST_CLANG", CLANG)
        .env("AR_wasm32_wasip2", LLVM_AR)
        .env("CFLAGS_wasm32_wasip2", cflags)
        .env("CARGO_ENCODED_RUSTFLAGS", rustflags);
    Ok(command)
}

/// Pre-initialises the guest component with Wizer.
async fn snapshot(wasm: &[u8]) -> anyhow::Result<Vec<u8>> {
    let engine = Engine::new(&Config::new())?;
    // Initialisation must not depend on the build machine or the moment: no
    // environment, arguments or files, a fixed clock and fixed randomness
    // (QuickJS reads the clock when its context is created, and the guest's
    // hash maps draw their keys), and host imports trap if called.
    let mut wasi = WasiCtx::builder();
    wasi.wall_clock(FixedClock)
        .monotonic_clock(FixedClock)
        .secure_random(Counter(0))
        .insecure_random(Counter(1))
        .insecure_random_seed(0);
    let mut store = Store::new(
        &engine,
        InitState {
            wasi: wasi.build(),
            table: ResourceTable::new(),
        },
    );
    let mut linker = Linker::new(&engine);
    wasmtime_wasi::p2::add_to_linker_async(&mut linker)?;
    let mut host = linker.instance("coderun:sandbox/host@0.1.0")?;
    for name in [
        "start-call",
        "wait-settled",
        "log",
        "start-fetch",
        "take-body",
        "cancel-fetch",
    ] {
        host.func_new(name, move |_, _, _, _| {
            wasmtime::bail!("the guest called coderun:sandbox/host#{name} during initialisation")
        })?;
    }

    let mut wizer = Wizer::new();
    // A component's init export is wired into its component-level exports,
    // so it has to stay; calling it again is a no-op in the guest.
    wizer.init_func("initialize").keep_init_func(true);
    let (snapshot, _) = wizer
        .run_component(&mut store, wasm, async |store, component| {
            linker.instantiate_async(store, component).await
        })
        .await
        .map_err(|e| anyhow::anyhow!("{e:?} (root cause: {})", e.root_cause()))
        .context("pre-initialising the guest")?;
    Ok(snapshot)
}

/// Deterministic "randomness" for the snapshot: a counter through
/// splitmix64.
struct Counter(u64);

impl rand::TryRng for Counter {
    type Error = std::convert::Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        self.try_next_u64().map(|x| x as u32)
    }

    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        Ok(z ^ (z >> 31))
    }

    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), Self::Error> {
        for chunk in dest.chunks_mut(8) {
            let bytes = self.try_next_u64()?.to_le_bytes();
            chunk.copy_from_slice(&bytes[..chunk.len()]);
        }
        Ok(())
    }
}
