//! A fuzz target for everything the host does with hostile input: the
//! TypeScript front end (nesting scan, parse, transform, position mapping),
//! the guest's JSON (binding arguments, returned values) and the log ledger,
//! records and continuations (mutated, then replayed and resumed), plus a
//! slice of the generated programs run in the real sandbox.
//!
//! Inputs come from three sources, driven by `arbitrary` over a seeded
//! stream of bytes: programs built from nesting constructs at random depths
//! (up to 100,000 levels), mutations of the corpus in `tests/fuzz/corpus/`,
//! and raw bytes. Every input must come back as a value or a typed error
//! within its caps; a panic, an abort or a stack overflow fails the run
//! (the process dies, and the test with it).
//!
//! `cargo test --test fuzz` runs a short pass (CI); `make fuzz` runs it for
//! `CODERUN_FUZZ_SECONDS` (default 600) in the release profile. A failing
//! input is printed with the seed that reproduces the run:
//! `CODERUN_FUZZ_SEED=<seed> cargo test --test fuzz`.

use std::path::Path;
use std::time::{Duration, Instant};

use arbitrary::Unstructured;
use coderun_runtime::__internals as internals;
use coderun_runtime::{
    BindingError, CodeBindingNamespace, CodeRunRequest, CodeRuntime, Continuation, RunRecord,
    RuntimeConfig, WasmCodeRuntime,
};
use fuzz_input::Stream;

#[allow(dead_code, reason = "each test target uses part of it")]
#[path = "../common/fuzz_input.rs"]
mod fuzz_input;

/// How long a pass runs unless `CODERUN_FUZZ_SECONDS` says otherwise.
const DEFAULT_SECONDS: u64 = 15;
/// The longest error the front end may return: a message and an excerpt.
const MAX_FRONT_END_ERROR_BYTES: usize = 2048;

const OPENERS: &[(&str, &str, &str)] = &[
    ("(", "1", ")"),
    ("[", "1", "]"),
    ("{", "", "}"),
    ("{a:", "1", "}"),
    ("`${", "1", "}`"),
    ("(", "x", " as any)"),
    ("() => {", "", "}"),
    ("function f() {", "", "}"),
    ("Array<", "number", ">"),
    ("/*", "(", "*/"),
    ("'", "((", "'"),
];
const PREFIXES: &[&str] = &[
    "!", "-", "typeof ", "void ", "await ", "new ", "a = ", "a ? b : ", "x => ", "if (a) ",
    "if (a)\n", "else ", "l: ", "...", "keyof ", "@d ", "<T>", "yield ",
];
const SUFFIXES: &[&str] = &[
    ".a", "()", "[0]", "!", "?.b", "`t`", " + 1", " as any", "[]", "\n.c", ";", ",", "\n",
];
const ATOMS: &[&str] = &[
    "1",
    "x",
    "'s'",
    "/re/g",
    "null",
    "`t`",
    "{}",
    "[]",
    "() => 1",
    "\u{2028}",
    "😀",
    "\u{0}",
    "#!",
    "<!--",
    "-->",
    "\\u0069f",
    "0x1e+1",
    "1_000n",
    "#p",
    "function f() {}\n/'/;",
    "x = function () {} /",
    "x = class {} /",
    "type T = {}\n/'/;",
    "interface I {}\n/`/;",
    "x = {} /",
    "of /",
    "for (x of /'/)",
    "l: {}\n/\"/;",
    "() => {}\n/'/;",
    "'\\\r\n'",
    "// c\u{2028}",
    "x.return /",
    "get /",
    "`${",
    "}`",
    "/[/]/",
    "\\",
];

/// A program built from nesting constructs.
fn generated(u: &mut Unstructured<'_>) -> arbitrary::Result<String> {
    let mut program = String::new();
    for _ in 0..u.int_in_range(1..=4)? {
        let depth = match u.int_in_range(0..=3)? {
            0 => u.int_in_range(0..=50)?,
            1 => u.int_in_range(0..=1200)?,
            2 => u.int_in_range(0..=20_000)?,
            _ => u.int_in_range(0..=100_000)?,
        };
        match u.int_in_range(0..=3)? {
            0 => {
                let (open, inner, close) = u.choose(OPENERS)?;
                program.push_str(&open.repeat(depth));
                program.push_str(inner);
                program.push_str(&close.repeat(depth));
            }
            1 => {
                program.push_str(&u.choose(PREFIXES)?.repeat(depth));
                program.push_str(u.choose(ATOMS)?);
            }
            2 => {
                program.push_str(u.choose(ATOMS)?);
                program.push_str(&u.choose(SUFFIXES)?.repeat(depth));
            }
            _ => {
                // A mix, one construct at a time.
                for _ in 0..depth.min(5_000) {
                    let piece = match u.int_in_range(0..=3)? {
                        0 => u.choose(OPENERS)?.0,
                        1 => u.choose(PREFIXES)?,
                        2 => u.choose(SUFFIXES)?,
                        _ => u.choose(ATOMS)?,
                    };
                    program.push_str(piece);
                }
            }
        }
        program.push('\n');
    }
    if u.ratio(1, 3)? {
        program.insert_str(0, "let typed: number = 1;\n");
    }
    Ok(program)
}

/// A corpus entry with a few slices inserted, removed or repeated.
fn mutated(u: &mut Unstructured<'_>, corpus: &[Vec<u8>]) -> arbitrary::Result<String> {
    let mut bytes = u.choose(corpus)?.clone();
    for _ in 0..u.int_in_range(1..=8)? {
        if bytes.is_empty() {
            break;
        }
        let at = u.int_in_range(0..=bytes.len() - 1)?;
        let len = u.int_in_range(0..=(bytes.len() - at).min(64))?;
        match u.int_in_range(0..=3)? {
            0 => {
                bytes.drain(at..at + len);
            }
            1 => {
                let slice = bytes[at..at + len].to_vec();
                let times = u.int_in_range(1..=2000)?;
                for _ in 0..times.min(100_000 / (len + 1)) {
                    bytes.splice(at..at, slice.iter().copied());
                }
            }
            2 => {
                let byte: u8 = u.arbitrary()?;
                bytes.insert(at, byte);
            }
            _ => {
                let atom = u.choose(ATOMS)?;
                bytes.splice(at..at, atom.bytes());
            }
        }
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// JSON-like text: nested arrays and objects, escapes of surrogates,
/// truncation.
fn json_like(u: &mut Unstructured<'_>) -> arbitrary::Result<String> {
    let depth = match u.int_in_range(0..=2)? {
        0 => u.int_in_range(0..=10)?,
        1 => u.int_in_range(0..=1100)?,
        _ => u.int_in_range(0..=20_000)?,
    };
    let pieces = [
        "\"\\ud83d\"",
        "\"\\ude00\"",
        "\"\\ud83d\\ude00\"",
        "\"\\\\ud800\"",
        "1e999",
        "-0",
        "null",
        "\"\\u0000\"",
        "\"日本\"",
        "true",
        "{}",
        "[]",
        "\"\\uDFFF\\uD800\"",
    ];
    let mut text = String::new();
    for _ in 0..depth {
        text.push_str(if u.ratio(1, 2)? { "[" } else { "{\"k\":" });
    }
    text.push_str(u.choose(&pieces)?);
    for _ in 0..depth {
        text.push(']');
    }
    if u.ratio(1, 4)? {
        let cut = u.int_in_range(0..=text.len())?;
        if text.is_char_boundary(cut) {
            text.truncate(cut);
        }
    }
    Ok(text)
}

fn check_front_end(program: &str, config: &RuntimeConfig) -> Result<(), String> {
    if let Err(message) = internals::transform(program, config)
        && message.len() > MAX_FRONT_END_ERROR_BYTES
    {
        return Err(format!("a front-end error of {} bytes", message.len()));
    }
    let _ = internals::nesting(program, config.get_max_nesting_depth());
    let _ = internals::map_positions(
        program,
        "at f (program.js:1:25) program.js:999999999999:1 program.js:",
    );
    Ok(())
}

fn check_json(text: &str, max_bytes: usize) -> Result<(), String> {
    let _ = internals::parse_argument(text);
    match internals::decode_value(text, max_bytes) {
        serde_json::Value::String(s) if s.len() > max_bytes && text.len() <= max_bytes => {
            // A string that fits is returned whole, and one that does not is cut.
            Err(format!(
                "a decoded string of {} bytes over {max_bytes}",
                s.len()
            ))
        }
        _ => Ok(()),
    }
}

/// A binding argument's tape, as the guest writes one (see
/// `render/src/tape.rs`), with a few of its bytes then
/// overwritten: lengths and counts past the end, unknown tags and shapes,
/// deep nesting, shapes of long keys used again and again.
fn tape_like(u: &mut Unstructured<'_>) -> arbitrary::Result<Vec<u8>> {
    fn value(
        u: &mut Unstructured<'_>,
        out: &mut Vec<u8>,
        depth: u32,
        shapes: &mut u32,
    ) -> arbitrary::Result<()> {
        let tag = if depth > 300 {
            u.int_in_range(0..=7)?
        } else {
            u.int_in_range(0..=10)?
        };
        out.push(tag);
        match tag {
            4 => out.extend_from_slice(&u.arbitrary::<u32>()?.to_le_bytes()),
            5 => out.extend_from_slice(&u.arbitrary::<f64>()?.to_le_bytes()),
            6 | 7 => {
                let len = u.int_in_range(0..=40u32)?;
                out.extend_from_slice(&len.to_le_bytes());
                for _ in 0..len * (u32::from(tag) - 5) {
                    out.push(u.arbitrary()?);
                }
            }
            8 => {
                let count = u.int_in_range(0..=4u32)?;
                out.extend_from_slice(&count.to_le_bytes());
                for _ in 0..count {
                    value(u, out, depth + 1, shapes)?;
                }
            }
            9 => {
                let count = u.int_in_range(0..=3u32)?;
                out.extend_from_slice(&count.to_le_bytes());
                for _ in 0..count {
                    out.push(6);
                    let len = u.int_in_range(0..=2000u32)?;
                    out.extend_from_slice(&len.to_le_bytes());
                    out.extend(std::iter::repeat_n(b'k', len as usize));
                }
                *shapes += u32::from(count > 0);
                for _ in 0..count {
                    value(u, out, depth + 1, shapes)?;
                }
            }
            10 => {
                let number = u.int_in_range(0..=(*shapes).max(1))?;
                out.extend_from_slice(&number.to_le_bytes());
                for _ in 0..u.int_in_range(0..=3)? {
                    value(u, out, depth + 1, shapes)?;
                }
            }
            _ => {}
        }
        Ok(())
    }
    let mut out = Vec::new();
    value(u, &mut out, 0, &mut 0)?;
    for _ in 0..u.int_in_range(0..=3)? {
        if !out.is_empty() {
            let at = u.choose_index(out.len())?;
            out[at] = u.arbitrary()?;
        }
    }
    Ok(out)
}

fn check_tape(tape: &[u8], max_bytes: usize) -> Result<(), String> {
    match internals::read_argument_tape(tape, max_bytes) {
        Ok((_, bytes)) if bytes > max_bytes => Err(format!(
            "a tape read as {bytes} bytes of JSON, over {max_bytes}"
        )),
        Ok(_) => Ok(()),
        Err(refusal) => bounded(&refusal),
    }
}

fn check_logs(u: &mut Unstructured<'_>) -> Result<(), String> {
    let max = u.int_in_range(128..=4096).map_err(|e| e.to_string())?;
    let lines: Vec<String> = (0..u.int_in_range(0..=200).unwrap_or(0))
        .map(|i| "é".repeat(i * 7 % 300))
        .collect();
    let capped = internals::cap_logs(lines, max);
    let total: usize = capped.iter().map(|l| l.len() + 1).sum();
    let markers = capped
        .iter()
        .filter(|l| l.contains("truncated by coderun"))
        .count();
    if total > max || markers > 1 {
        return Err(format!(
            "{total} bytes of logs with {markers} markers for a cap of {max}"
        ));
    }
    Ok(())
}

fn corpus() -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz/corpus");
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .collect();
    entries.sort();
    entries
        .iter()
        .filter_map(|path| std::fs::read(path).ok())
        .collect()
}

/// The most bytes of a misuse error's message: whatever a record or a
/// continuation holds, the error that refuses it stays short.
const MAX_MISUSE_BYTES: usize = 4096;

/// A program whose record and continuation the durable inputs mutate.
const DURABLE: &str = "const a = await tools.echo({ n: 1, s: 'x' }); \
     const ok = await tools.approve({ a }); return [a, ok];";

/// A real record and continuation of [`DURABLE`], as JSON.
async fn durable_seeds(runtime: &WasmCodeRuntime, tools: &CodeBindingNamespace) -> [String; 2] {
    let mut request = CodeRunRequest::new(DURABLE).binding(tools.clone());
    request.record = true;
    let result = runtime.run(request).await.expect("no misuse");
    let interrupted = result.interrupted.expect("the run is interrupted");
    let record = serde_json::to_string(&interrupted.continuation.record).expect("JSON");
    let continuation = serde_json::to_string(&interrupted.continuation).expect("JSON");
    [record, continuation]
}

/// `seed` with a few of its bytes or tokens changed.
fn mutate_json(u: &mut Unstructured<'_>, seed: &str) -> arbitrary::Result<String> {
    let mut text = seed.to_owned();
    for _ in 0..u.int_in_range(1..=4)? {
        let at = text.floor_char_boundary(u.int_in_range(0..=text.len())?);
        match u.int_in_range(0..=4)? {
            0 => text.insert_str(at, &json_like(u)?),
            1 => {
                let end = text.floor_char_boundary(at + u.int_in_range(0..=40)?);
                text.replace_range(at..end, "");
            }
            2 => text.insert_str(at, &"9".repeat(u.int_in_range(1..=400)?)),
            3 => text.insert_str(at, &"[".repeat(u.int_in_range(1..=5000)?)),
            _ => text.insert(at, char::from(u.int_in_range(0..=127u8)?)),
        }
    }
    Ok(text)
}

/// A mutated record replayed, or a mutated continuation resumed: a result
/// or a short typed refusal, never a panic.
async fn check_durable(
    runtime: &WasmCodeRuntime,
    tools: &CodeBindingNamespace,
    u: &mut Unstructured<'_>,
    seeds: &[String; 2],
) -> Result<(), String> {
    let record = u.arbitrary::<bool>().unwrap_or(true);
    let text = mutate_json(u, &seeds[usize::from(!record)]).unwrap_or_default();
    let request = if record {
        match RunRecord::from_json(&text) {
            Ok(record) => CodeRunRequest::replay(record),
            Err(error) => return bounded(&error.to_string()),
        }
    } else {
        match Continuation::from_json(&text) {
            Ok(continuation) => CodeRunRequest::resume(continuation, Ok(serde_json::json!(true)))
                .binding(tools.clone()),
            Err(error) => return bounded(&error.to_string()),
        }
    };
    match runtime.run(request).await {
        Ok(_) => Ok(()),
        Err(misuse) => bounded(&misuse.to_string()),
    }
}

fn bounded(message: &str) -> Result<(), String> {
    if message.len() > MAX_MISUSE_BYTES {
        return Err(format!(
            "a refusal of {} bytes: {}",
            message.len(),
            message.chars().take(300).collect::<String>()
        ));
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_inputs_never_crash_the_host() {
    let seconds = fuzz_input::seconds().unwrap_or(DEFAULT_SECONDS);
    let seed = fuzz_input::seed();
    eprintln!("fuzz: seed {seed}, {seconds} s (CODERUN_FUZZ_SEED={seed} reproduces this run)");
    let corpus = corpus();
    assert!(
        corpus.len() >= 10,
        "the corpus has {} entries",
        corpus.len()
    );
    let config = RuntimeConfig::default();
    let mut sandbox_config = RuntimeConfig::default();
    sandbox_config
        .fuel(20_000_000)
        .wall_clock(Duration::from_secs(5))
        .max_memory_bytes(32 * 1024 * 1024)
        .max_concurrent_runs(4);
    let runtime = WasmCodeRuntime::new(sandbox_config).expect("the runtime builds");
    let tools = CodeBindingNamespace::new("tools")
        .function("echo", |x| async move { Ok(x) })
        .function(
            "approve",
            |x| async move { Err(BindingError::interrupt(x)) },
        );
    let seeds = durable_seeds(&runtime, &tools).await;

    let mut stream = Stream(seed);
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let (mut inputs, mut runs) = (0u64, 0u64);
    // Every corpus entry once, as it is, then generated inputs.
    for entry in &corpus {
        let text = String::from_utf8_lossy(entry);
        if let Err(why) = check_front_end(&text, &config).and_then(|()| check_json(&text, 4096)) {
            panic!(
                "corpus input failed: {why}\n{}",
                text.chars().take(500).collect::<String>()
            );
        }
    }
    while Instant::now() < deadline {
        let bytes = stream.bytes(4096);
        let mut u = Unstructured::new(&bytes);
        let kind = u.int_in_range(0..=10).unwrap_or(0);
        let input = match kind {
            0..=3 => generated(&mut u),
            4..=6 => mutated(&mut u, &corpus),
            7 => json_like(&mut u),
            8 => Ok(
                String::from_utf8_lossy(&stream.bytes(u.int_in_range(0..=4096).unwrap_or(0)))
                    .into_owned(),
            ),
            _ => Ok(String::new()),
        }
        .unwrap_or_default();
        if kind == 10 {
            if let Err(why) = check_durable(&runtime, &tools, &mut u, &seeds).await {
                panic!("durable input {inputs} (seed {seed}) failed: {why}");
            }
            inputs += 1;
            runs += 1;
            continue;
        }
        if std::env::var_os("CODERUN_FUZZ_TRACE").is_some() {
            std::fs::write("/tmp/fuzz-last-input", &input).ok();
        }
        let verdict = if kind == 9 {
            check_logs(&mut u)
        } else if kind == 8 {
            // Raw bytes as a program, as JSON, and, with a generated tape,
            // as a binding argument's tape.
            check_front_end(&input, &config)
                .and_then(|()| check_json(&input, 4096))
                .and_then(|()| check_tape(input.as_bytes(), 4096))
                .and_then(|()| check_tape(&tape_like(&mut u).unwrap_or_default(), 4096))
        } else {
            check_front_end(&input, &config).and_then(|()| check_json(&input, 4096))
        };
        if let Err(why) = verdict {
            panic!(
                "input {inputs} (seed {seed}) failed: {why}\n{}",
                input.chars().take(500).collect::<String>()
            );
        }
        // A slice of the programs runs in the sandbox itself.
        if kind <= 6 && inputs % 8 == 0 && input.len() < 200_000 {
            let request = CodeRunRequest::new(input.clone()).binding(tools.clone());
            if let Err(misuse) = runtime.run(request).await {
                panic!("input {inputs} (seed {seed}) was refused as misuse: {misuse}");
            }
            runs += 1;
        }
        inputs += 1;
    }
    let alive = runtime
        .run(CodeRunRequest::new("return 'alive'"))
        .await
        .expect("no misuse");
    assert_eq!(alive.value, Some(serde_json::json!("alive")));
    eprintln!("fuzz: {inputs} inputs, {runs} of them run in the sandbox");
}
