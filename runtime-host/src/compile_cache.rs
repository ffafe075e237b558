//! The compiled guest, cached: Cranelift takes a second or more to compile
//! it, so runtimes in one process share one compilation, and a process may
//! keep it on disk (`config.compile_cache_dir`) for the next.
//!
//! A file on disk is trusted only as far as it is checked: its name carries
//! the engine's compatibility hash and the guest's bytes' hash (so a file of
//! another version or configuration is never read), and its contents start
//! with a header holding their length and checksum (so a torn or corrupted
//! file is ignored, not loaded). Writers write a temporary file and rename
//! it over the final name, so concurrent writers never expose a half file.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex};

use wasmtime::Engine;
use wasmtime::component::Component;

/// The pre-initialised guest component (the `coderun-guest` crate).
const GUEST_WASM: &[u8] = coderun_guest::WASM;

/// Compiled guests, serialised, by engine compatibility hash: runtimes in one
/// process compile the component once (Cranelift takes a second or more) and
/// deserialise it after that (milliseconds).
static COMPILED: LazyLock<Mutex<HashMap<u64, Arc<[u8]>>>> = LazyLock::new(Default::default);

/// The compiled guest for each of `engines` (all configured alike): from
/// the on-disk cache in `cache_dir`, else from this process's cache, else
/// compiled now for the first engine and deserialised into the others; a
/// cache that missed is filled.
pub(crate) fn load(
    engines: &[Engine],
    cache_dir: Option<&Path>,
) -> wasmtime::Result<Vec<Component>> {
    let Some(first) = engines.first() else {
        return Ok(Vec::new());
    };
    let mut hasher = DefaultHasher::new();
    first.precompile_compatibility_hash().hash(&mut hasher);
    GUEST_WASM.hash(&mut hasher);
    let key = hasher.finish();
    let file = cache_dir.map(|dir| dir.join(format!("coderun-guest-{key:016x}.cwasm")));
    // Read, not mapped: a file changed while mapped would fault the process.
    if let Some((file, contents)) = file
        .as_deref()
        .and_then(|file| Some((file, std::fs::read(file).ok()?)))
    {
        match checked(&contents) {
            Some(bytes) => {
                #[expect(
                    unsafe_code,
                    reason = "loading compiled code from the configured cache directory"
                )]
                // SAFETY: these bytes passed `checked`: they are exactly what
                // `store_on_disk` wrote from `Component::serialize` (their
                // length and checksum match the header it wrote), under a
                // name keyed by the engines' compatibility hash and the
                // guest's bytes; wasmtime checks its own header against each
                // engine again. The directory is trusted by contract
                // (`RuntimeConfig::compile_cache_dir`).
                match unsafe { deserialise_each(engines, bytes) } {
                    Ok(components) => return Ok(components),
                    Err(error) => tracing::warn!(
                        "ignoring the compiled guest at {}: {error:#}",
                        file.display()
                    ),
                }
            }
            None => tracing::warn!(
                "ignoring the compiled guest at {}: it is truncated or corrupted",
                file.display()
            ),
        }
    }
    let cached = COMPILED
        .lock()
        .map(|cache| cache.get(&key).cloned())
        .unwrap_or(None);
    let deserialised = cached.and_then(|bytes| {
        #[expect(
            unsafe_code,
            reason = "deserialising a component this process compiled"
        )]
        // SAFETY: `bytes` came from `Component::serialize` in this process,
        // for an engine with the same compatibility hash, and was never
        // written anywhere outside this process's memory.
        let components = unsafe { deserialise_each(engines, &bytes) };
        components.ok().map(|components| (components, Some(bytes)))
    });
    let (components, bytes) = match deserialised {
        Some(found) => found,
        None => compile(engines, key)?,
    };
    if let (Some(file), Some(bytes)) = (file, bytes)
        && let Err(error) = store_on_disk(&file, &bytes)
    {
        tracing::warn!(
            "the compiled guest could not be cached at {}: {error}",
            file.display()
        );
    }
    Ok(components)
}

/// `bytes` deserialised into each of `engines`.
///
/// # Safety
/// `bytes` must be what `Component::serialize` produced for an engine with
/// the same compatibility hash as `engines` (see `Component::deserialize`).
#[expect(
    unsafe_code,
    reason = "deserialising compiled code the caller vouches for"
)]
unsafe fn deserialise_each(engines: &[Engine], bytes: &[u8]) -> wasmtime::Result<Vec<Component>> {
    engines
        .iter()
        // SAFETY: the caller's contract.
        .map(|engine| unsafe { Component::deserialize(engine, bytes) })
        .collect()
}

/// A component for each engine, and the serialised bytes they were made
/// from (none if serialising failed).
type Loaded = (Vec<Component>, Option<Arc<[u8]>>);

/// Compiles the guest for the first of `engines` and deserialises it into
/// the others; keeps it, serialised, for later runtimes of this process.
fn compile(engines: &[Engine], key: u64) -> wasmtime::Result<Loaded> {
    let mut components = Vec::with_capacity(engines.len());
    let mut bytes: Option<Arc<[u8]>> = None;
    for engine in engines {
        let component = match &bytes {
            #[expect(
                unsafe_code,
                reason = "deserialising a component this process just compiled"
            )]
            // SAFETY: `bytes` came from `Component::serialize` just above,
            // for an engine configured as this one is.
            Some(bytes) => unsafe { Component::deserialize(engine, bytes)? },
            None => {
                let component = Component::new(engine, GUEST_WASM)?;
                bytes = component.serialize().ok().map(Into::into);
                component
            }
        };
        components.push(component);
    }
    if let (Some(bytes), Ok(mut cache)) = (&bytes, COMPILED.lock()) {
        cache.insert(key, bytes.clone());
    }
    Ok((components, bytes))
}

/// What a cache file starts with: a magic string with the format's version,
/// then the length and the checksum of what follows, little-endian.
const MAGIC: &[u8; 16] = b"coderun-cwasm-1\n";
const HEADER_BYTES: usize = MAGIC.len() + 16;

/// A checksum of `bytes`, to tell a torn or corrupted file (not to resist a
/// forger: the directory is trusted): 64-bit multiply-rotate over 8-byte
/// words.
fn checksum(bytes: &[u8]) -> u64 {
    let mut words = bytes.chunks_exact(8);
    let mut state = 0x243F_6A88_85A3_08D3_u64 ^ bytes.len() as u64;
    for word in &mut words {
        let mut array = [0u8; 8];
        array.copy_from_slice(word);
        state = (state ^ u64::from_le_bytes(array))
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_left(29);
    }
    for &byte in words.remainder() {
        state = (state ^ u64::from(byte)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    state
}

/// The compiled bytes of a cache file, if its header vouches for them.
fn checked(contents: &[u8]) -> Option<&[u8]> {
    let header = contents.get(..HEADER_BYTES)?;
    if &header[..MAGIC.len()] != MAGIC {
        return None;
    }
    let field = |at: usize| {
        let mut array = [0u8; 8];
        array.copy_from_slice(&header[at..at + 8]);
        u64::from_le_bytes(array)
    };
    let (len, sum) = (field(MAGIC.len()), field(MAGIC.len() + 8));
    let bytes = &contents[HEADER_BYTES..];
    (bytes.len() as u64 == len && checksum(bytes) == sum).then_some(bytes)
}

/// Writes `bytes` to `file` atomically, behind the header: to a unique
/// temporary name in the same directory, then renamed over the final name.
fn store_on_disk(file: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = file.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let temporary = dir.join(format!(
        ".{}.{}-{}.tmp",
        file.file_name()
            .and_then(|name| name.to_str())
            .unwrap_or("guest"),
        std::process::id(),
        WRITES.fetch_add(1, Ordering::Relaxed)
    ));
    let mut contents = Vec::with_capacity(HEADER_BYTES + bytes.len());
    contents.extend_from_slice(MAGIC);
    contents.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
    contents.extend_from_slice(&checksum(bytes).to_le_bytes());
    contents.extend_from_slice(bytes);
    std::fs::write(&temporary, contents)?;
    std::fs::rename(&temporary, file).inspect_err(|_| {
        let _ = std::fs::remove_file(&temporary);
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file_for(bytes: &[u8]) -> Vec<u8> {
        let dir = std::env::temp_dir().join(format!("coderun-cache-test-{}", std::process::id()));
        let file = dir.join("x.cwasm");
        store_on_disk(&file, bytes).unwrap();
        let contents = std::fs::read(&file).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        contents
    }

    #[test]
    fn a_stored_file_checks_out_and_any_damage_is_caught() {
        let bytes: Vec<u8> = (0..10_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let contents = file_for(&bytes);
        assert_eq!(checked(&contents), Some(&bytes[..]));
        // Torn: cut anywhere.
        for cut in [0, 5, HEADER_BYTES, HEADER_BYTES + 1, contents.len() - 1] {
            assert_eq!(checked(&contents[..cut]), None, "cut at {cut}");
        }
        // Corrupted: one flipped bit anywhere.
        for at in [0, MAGIC.len() + 3, HEADER_BYTES + 17, contents.len() - 1] {
            let mut damaged = contents.clone();
            damaged[at] ^= 0x10;
            assert_eq!(checked(&damaged), None, "flipped at {at}");
        }
    }
}
