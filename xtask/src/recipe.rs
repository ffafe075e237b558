//! `coderun-guest/RECIPE.toml`: what the guest artifact was built from.
//!
//! The inputs are every file the artifact depends on (the guest crate, its
//! lock file and C compiler wrapper, the QuickJS patch, the WIT, and this
//! tool), hashed in a fixed order together with their paths; the toolchain
//! is named by the versions its tools print.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::Context as _;
use sha2::{Digest as _, Sha256};

/// Directories whose files are inputs, and single files that are.
const INPUT_DIRS: &[&str] = &[
    "guest-js-engine/src",
    "guest-js-engine/patches",
    "render/src",
    "wit",
    "xtask/src",
];
const INPUT_FILES: &[&str] = &[
    "guest-js-engine/Cargo.toml",
    "guest-js-engine/Cargo.lock",
    "guest-js-engine/build.rs",
    "guest-js-engine/cc.sh",
    "guest-js-engine/hot-functions.txt",
    "render/Cargo.toml",
    "xtask/Cargo.toml",
];

fn files_under(repo: &Path, dir: &str, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    let path = repo.join(dir);
    let mut entries: Vec<_> = std::fs::read_dir(&path)
        .with_context(|| format!("reading {}", path.display()))?
        .collect::<Result<_, _>>()?;
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for entry in entries {
        let relative = format!("{dir}/{}", entry.file_name().to_string_lossy());
        if entry.file_type()?.is_dir() {
            files_under(repo, &relative, out)?;
        } else {
            out.push(PathBuf::from(relative));
        }
    }
    Ok(())
}

/// Every input of the artifact, relative to the repository, sorted.
pub fn input_files(repo: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = INPUT_FILES.iter().map(PathBuf::from).collect();
    for dir in INPUT_DIRS {
        files_under(repo, dir, &mut files)?;
    }
    files.sort();
    Ok(files)
}

/// The files that decide how QuickJS's C is patched.
pub fn quickjs_patch_files(repo: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut files = vec![PathBuf::from("guest-js-engine/cc.sh")];
    files_under(repo, "guest-js-engine/patches", &mut files)?;
    Ok(files)
}

/// The SHA-256, in hex, of `files` (paths relative to `repo`) and their
/// contents, in the order given.
pub fn hash_files(repo: &Path, files: &[PathBuf]) -> anyhow::Result<String> {
    let mut hasher = Sha256::new();
    for file in files {
        let bytes = std::fs::read(repo.join(file))
            .with_context(|| format!("reading {}", file.display()))?;
        hasher.update(file.to_string_lossy().as_bytes());
        hasher.update([0]);
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(&bytes);
    }
    Ok(hex(&hasher.finalize()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::new(), |mut out, byte| {
        let _ = write!(out, "{byte:02x}");
        out
    })
}

/// The first line a tool prints for `args`, or `unknown`.
fn version(program: &str, args: &[&str]) -> String {
    Command::new(program)
        .args(args)
        .output()
        .ok()
        .and_then(|output| {
            String::from_utf8(output.stdout)
                .ok()?
                .lines()
                .next()
                .map(str::to_owned)
        })
        .unwrap_or_else(|| "unknown".to_owned())
}

/// The version of `package` a Cargo.lock resolves.
fn locked_version(lock: &Path, package: &str) -> anyhow::Result<String> {
    let text =
        std::fs::read_to_string(lock).with_context(|| format!("reading {}", lock.display()))?;
    let needle = format!("name = \"{package}\"\nversion = \"");
    let start = text
        .find(&needle)
        .with_context(|| format!("{} does not lock {package}", lock.display()))?
        + needle.len();
    Ok(text[start..].chars().take_while(|&c| c != '"').collect())
}

/// The recipe of `artifact`, as TOML.
pub fn write(repo: &Path, artifact: &[u8]) -> anyhow::Result<String> {
    let inputs = input_files(repo)?;
    let inputs_hash = hash_files(repo, &inputs)?;
    let artifact_hash = hex(&Sha256::digest(artifact));
    let rustc = version("rustc", &["--version"]);
    let clang = version(super::CLANG, &["--version"]);
    let wasi_libc = version("dpkg-query", &["-W", "-f", "${Version}\n", "wasi-libc"]);
    let wizer = locked_version(&repo.join("Cargo.lock"), "wasmtime-wizer")?;
    let rquickjs = locked_version(&repo.join("guest-js-engine/Cargo.lock"), "rquickjs-sys")?;
    let mut out =
        String::from("# How coderun-guest.wasm was built. Written by `make guest`; do not edit.\n");
    let _ = writeln!(out, "rustc = {rustc:?}");
    let _ = writeln!(out, "clang = {clang:?}");
    let _ = writeln!(out, "wasi-libc = {wasi_libc:?} # Debian package");
    let _ = writeln!(out, "rquickjs-sys = {rquickjs:?}");
    let _ = writeln!(out, "wasmtime-wizer = {wizer:?}");
    let _ = writeln!(out, "target = \"wasm32-wasip2\"");
    let _ = writeln!(out, "inputs-sha256 = {inputs_hash:?}");
    let _ = writeln!(out, "wasm-sha256 = {artifact_hash:?}");
    let _ = writeln!(out, "\n[inputs]\nfiles = [");
    for file in &inputs {
        let _ = writeln!(out, "  {:?},", file.to_string_lossy());
    }
    out.push_str("]\n");
    Ok(out)
}
