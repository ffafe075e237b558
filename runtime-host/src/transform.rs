//! TypeScript → JavaScript on the host, with positions mapped back.
//!
//! The program is parsed as a TypeScript module whose top level may `return`
//! (it becomes the body of an async function), its types are stripped by
//! oxc's transformer (`enum` and `namespace` are lowered to plain
//! JavaScript), and the result is wrapped as `(async function () {…})` on the
//! wrapper's first line, so line numbers of the generated script only shift
//! by the source map, never by the wrapper. Positions QuickJS reports for
//! the script (`program.js:L:C`) are mapped through the source map back to
//! the program as written (`program.ts:L:C`).
//!
//! Most programs skip semantic analysis, the transform and the reprint:
//! a program with no TypeScript syntax is wrapped as written, and one whose
//! TypeScript is all erasable (annotations, interfaces, generics, `as`, …)
//! has its types overwritten with spaces in place (`erase`). Either way its
//! positions only shift on the first line, by the wrapper's head.
//!
//! # Bounded by construction
//! The program is hostile input, and the front end runs on the host, before
//! any of the guest's budgets apply. So it is bounded itself: a program over
//! `config.max_program_bytes` or with a NUL character is refused before any
//! parsing; its nesting is measured by a scan over its tokens (`nesting`)
//! and refused past `config.max_nesting_depth`; and the parser and the
//! passes after it run on a stack sized for what was measured (grown with
//! `stacker` when the calling thread has less left), so no program within
//! the limits can overflow it. A panic inside oxc ends the run as an
//! exception. Its time counts against the run's wall clock (see
//! `wasm_runtime`).
//!
//! `positions` turns offsets into the line, column and excerpt of a syntax
//! error, and maps the script's positions back to the program's.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use oxc::allocator::Allocator;
use oxc::ast::AstType;
use oxc::ast::ast::{Program, Statement};
use oxc::codegen::{Codegen, CodegenOptions};
use oxc::diagnostics::OxcDiagnostic;
use oxc::parser::{ParseOptions, Parser};
use oxc::semantic::SemanticBuilder;
use oxc::span::SourceType;
use oxc::transformer::{TransformOptions, Transformer};
use oxc_sourcemap::SourceMap;

use crate::nesting::{self, Nesting};
use crate::shards::Sharded;

mod erase;
mod positions;
#[cfg(test)]
mod tests;

use positions::syntax_error;

/// The name positions in the generated script carry (set by the guest).
pub(crate) const SCRIPT_FILE: &str = "program.js";
/// The name positions in the program as written carry.
pub(crate) const PROGRAM_FILE: &str = "program.ts";
const WRAPPER_HEAD: &str = "(async function () {";
const WRAPPER_TAIL: &str = "\n})";

/// Stack the front end needs besides what nesting costs.
const BASE_STACK_BYTES: usize = 256 * 1024;
/// Stack per measured level of nesting. The costliest measured construct
/// (nested arrow functions with block bodies) takes about 1.9 KiB a level
/// through oxc's parser; the measure can undercount by a factor of about
/// two where a statement ends inside a chain, hence the margin.
const STACK_BYTES_PER_LEVEL: usize = 5 * 1024;
/// Stack per byte of source, in case the measure misses a construct: the
/// costliest chains per byte of source measured (`x.a.a…`, `x[0][0]…`,
/// `x?.a?.a…`) take up to about 85 bytes of stack per byte.
const STACK_BYTES_PER_SOURCE_BYTE: usize = 128;

/// The limits the front end applies to every program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FrontEndLimits {
    /// `config.max_program_bytes`.
    pub(crate) max_program_bytes: usize,
    /// `config.max_nesting_depth`.
    pub(crate) max_nesting_depth: usize,
}

/// A program ready for the guest.
pub(crate) struct Transformed {
    /// The function expression the guest evaluates.
    pub(crate) script: String,
    positions: Arc<Positions>,
    /// Bytes on the script's first line before the program's first
    /// character: the wrapper's head.
    head: u32,
}

/// How positions in the script relate to the program as written.
enum Positions {
    /// The script is the program with its types stripped and reprinted:
    /// positions go through the source map.
    Mapped(Box<SourceMap<'static>>),
    /// The script is the program as written (its types, if any, erased in
    /// place), inside the wrapper: lines are the same, and only the first
    /// line's columns shift, by the wrapper's head. Holds the program's
    /// number of lines.
    Verbatim(u32),
    /// No source map was produced: positions stay as generated.
    Unmapped,
}

/// Programs transformed recently, by source text: a program run again (a
/// retry, a scheduled job, a benchmark) skips oxc. The transform is a pure
/// function of the source (and the runtime's limits), so sharing its output
/// between runs shares no state. Bounded in entries and in the size of the
/// programs it keeps.
///
/// Kept in shards, one per instance pool (`shards.rs`): a program run
/// again on several cores at once is transformed once per shard, and each
/// core then locks, and counts references to, a copy no other core writes.
pub(crate) struct TransformCache {
    limits: FrontEndLimits,
    shards: Sharded<Mutex<HashMap<String, Arc<Transformed>>>>,
    /// Programs one shard keeps at once.
    per_shard: usize,
}

/// Programs kept at once, over all shards; past a shard's share, an
/// arbitrary one of its programs is forgotten.
const CACHED_PROGRAMS: usize = 256;
/// The fewest programs a shard keeps, however many shards there are.
const MIN_CACHED_PER_SHARD: usize = 32;
/// Longer programs are transformed every time.
pub(crate) const MAX_CACHED_SOURCE_BYTES: usize = 16 * 1024;

impl TransformCache {
    pub(crate) fn new(limits: FrontEndLimits, shards: usize) -> Self {
        let shards = Sharded::new(shards, || Mutex::new(HashMap::new()));
        let per_shard = (CACHED_PROGRAMS / shards.len()).max(MIN_CACHED_PER_SHARD);
        Self {
            limits,
            shards,
            per_shard,
        }
    }

    pub(crate) fn limits(&self) -> FrontEndLimits {
        self.limits
    }

    /// Like [`transform`], through this thread's shard of the cache.
    pub(crate) fn transform(&self, source: &str) -> Result<Arc<Transformed>, String> {
        if source.len() > MAX_CACHED_SOURCE_BYTES {
            return transform(source, &self.limits).map(Arc::new);
        }
        let entries = self.shards.local();
        if let Some(hit) = entries
            .lock()
            .ok()
            .and_then(|entries| entries.get(source).cloned())
        {
            return Ok(hit);
        }
        let transformed = Arc::new(transform(source, &self.limits)?);
        if let Ok(mut entries) = entries.lock() {
            if entries.len() >= self.per_shard {
                let evicted = entries.keys().next().cloned();
                if let Some(evicted) = evicted {
                    entries.remove(&evicted);
                }
            }
            entries.insert(source.to_owned(), transformed.clone());
        }
        Ok(transformed)
    }
}

/// Transforms `source` within `limits`; the error is a message naming the
/// line and column of the program as written.
pub(crate) fn transform(source: &str, limits: &FrontEndLimits) -> Result<Transformed, String> {
    transform_with(source, limits, Strip::EraseOrTransform)
}

/// [`transform`] with no type erasure: what the benches compare it with.
pub(crate) fn transform_fully(
    source: &str,
    limits: &FrontEndLimits,
) -> Result<Transformed, String> {
    transform_with(source, limits, Strip::Transform)
}

fn transform_with(
    source: &str,
    limits: &FrontEndLimits,
    strip: Strip,
) -> Result<Transformed, String> {
    // The program is hostile input to the scan and to oxc: a panic in
    // either must end this run as an exception, never unwind into the
    // caller.
    std::panic::catch_unwind(|| transform_bounded(source, limits, strip)).unwrap_or_else(|_| {
        Err(
            "InternalError: the TypeScript front end failed on this program; \
             simplify the syntax around types, enums or namespaces"
                .to_owned(),
        )
    })
}

fn transform_bounded(
    source: &str,
    limits: &FrontEndLimits,
    strip: Strip,
) -> Result<Transformed, String> {
    if source.len() > limits.max_program_bytes {
        return Err(format!(
            "RangeError: the program is {} bytes, more than config.max_program_bytes ({}); \
             send a shorter program",
            source.len(),
            limits.max_program_bytes
        ));
    }
    if let Some(offset) = memchr::memchr(0, source.as_bytes()) {
        return Err(syntax_error(
            source,
            "the program contains a NUL character (U+0000); write it as \\0 inside a string",
            offset,
        ));
    }
    let depth = match nesting::measure(source, limits.max_nesting_depth) {
        Nesting::Within(depth) => depth,
        Nesting::TooDeep { offset } => {
            return Err(syntax_error(
                source,
                &format!(
                    "the program nests more than {} levels deep (config.max_nesting_depth; \
                     brackets, blocks and chained operators each count a level); flatten it",
                    limits.max_nesting_depth
                ),
                offset,
            ));
        }
    };
    // A `#!` line is a comment; inside the wrapper it would be an error.
    let source: Cow<'_, str> = match source.strip_prefix("#!") {
        Some(rest) => Cow::Owned(format!("//{rest}")),
        None => Cow::Borrowed(source),
    };
    let needed = BASE_STACK_BYTES
        .saturating_add(depth.saturating_mul(STACK_BYTES_PER_LEVEL))
        .saturating_add(source.len().saturating_mul(STACK_BYTES_PER_SOURCE_BYTE));
    stacker::maybe_grow(needed, needed, || transform_unguarded(&source, strip))
}

/// How a program's TypeScript becomes JavaScript.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Strip {
    /// Erase it in place where it is all erasable, else transform.
    EraseOrTransform,
    /// Always the full transform (the tests and benches compare the two).
    Transform,
}

thread_local! {
    /// The arena oxc builds each program's tree in, reset and reused by the
    /// next program on this thread, so that a program's parse does not start
    /// by taking fresh chunks from the system allocator. After a panic
    /// inside oxc the next program resets it like any other.
    static ARENA: RefCell<Allocator> = RefCell::new(Allocator::default());
}

/// An arena kept for reuse holds at most this much: past it (a long program
/// was parsed), it is dropped rather than kept by the thread.
const MAX_KEPT_ARENA_BYTES: usize = 4 * 1024 * 1024;

fn transform_unguarded(source: &str, strip: Strip) -> Result<Transformed, String> {
    ARENA.with(|arena| match arena.try_borrow_mut() {
        Ok(mut arena) => {
            arena.reset();
            let transformed = transform_in(&arena, source, strip);
            if arena.capacity() > MAX_KEPT_ARENA_BYTES {
                *arena = Allocator::default();
            }
            transformed
        }
        // Not reentrant in practice; a fresh arena is always correct.
        Err(_) => transform_in(&Allocator::default(), source, strip),
    })
}

fn transform_in(allocator: &Allocator, source: &str, strip: Strip) -> Result<Transformed, String> {
    // Erasure reads spans alone; semantic analysis needs identifiers hashed
    // as they are parsed, so a program that takes the full transform after
    // all is parsed again with them.
    let erasing = strip == Strip::EraseOrTransform;
    let mut program = parse(allocator, source, !erasing)?;
    if let Some(statement) = program.body.iter().find(|s| s.is_module_declaration()) {
        let offset = statement_start(statement);
        return Err(syntax_error(
            source,
            "import and export declarations are not available: the program is the body of an \
             async function and reaches the host only through its bindings (e.g. `await tools.name(args)`)",
            offset,
        ));
    }

    // HTML-like comments (`<!--`, `-->`) read differently once the source
    // sits inside the wrapper and is evaluated as a script. Both hold `--`,
    // which most programs lack: one vectorised search rules both out.
    if erasing {
        let html_comment = memchr::memmem::find(source.as_bytes(), b"--").is_some()
            && (source.contains("<!--") || source.contains("-->"));
        if !html_comment && let Some(script) = erase::erase(source, &program) {
            return Ok(Transformed::verbatim(&script));
        }
        program = parse(allocator, source, true)?;
    }

    // `enum_eval` precomputes enum member values, which enum lowering needs.
    let scoping = SemanticBuilder::new()
        .with_enum_eval(true)
        .build(&program)
        .semantic
        .into_scoping();
    let path = Path::new(PROGRAM_FILE);
    let transformed = Transformer::new(allocator, path, &TransformOptions::default())
        .build_with_scoping(scoping, &mut program);
    if let Some(error) = transformed.diagnostics.errors().next() {
        return Err(reported(source, error));
    }

    let generated = Codegen::new()
        .with_options(CodegenOptions {
            source_map_path: Some(path.to_path_buf()),
            ..CodegenOptions::default()
        })
        .build(&program);
    let mut script = String::with_capacity(generated.code.len() + 32);
    script.push_str(WRAPPER_HEAD);
    script.push_str(&generated.code);
    script.push_str(WRAPPER_TAIL);
    Ok(Transformed {
        script,
        positions: Arc::new(generated.map.map_or(Positions::Unmapped, |map| {
            Positions::Mapped(Box::new(map.into_owned()))
        })),
        head: WRAPPER_HEAD.len() as u32,
    })
}

/// Parses `source` as a TypeScript module whose top level may `return`,
/// or, where TypeScript's own rules refuse it, as JavaScript; the error is
/// TypeScript's. `hashed`: identifiers carry their hashes, which semantic
/// analysis needs and erasure does not.
fn parse<'a>(
    allocator: &'a Allocator,
    source: &'a str,
    hashed: bool,
) -> Result<Program<'a>, String> {
    let options = ParseOptions {
        allow_return_outside_function: true,
        enable_ident_hashes: hashed,
        ..ParseOptions::default()
    };
    let parsed = Parser::new(allocator, source, SourceType::ts().with_module(true))
        .with_options(options)
        .parse();
    let Some(error) = parsed.diagnostics.errors().next() else {
        return Ok(parsed.program);
    };
    // TypeScript's parser refuses some valid JavaScript for rules of its
    // own (`set a(x = 1) {}`: "A 'set' accessor cannot have an
    // initializer"). A program that parses as JavaScript is run as such;
    // otherwise TypeScript's error stands.
    let reason = reported(source, error);
    let script = Parser::new(allocator, source, SourceType::mjs())
        .with_options(options)
        .parse();
    if script.panicked || script.diagnostics.errors().next().is_some() {
        return Err(reason);
    }
    Ok(script.program)
}

/// An error oxc reported, as a syntax error at its first label.
fn reported(source: &str, error: &OxcDiagnostic) -> String {
    let offset = error
        .labels
        .first()
        .map_or(0, |label| label.offset() as usize);
    syntax_error(source, &error.message, offset)
}

/// The node types that are TypeScript syntax: oxc numbers them as one run,
/// from `TSThisParameter` to `TSInstantiationExpression`, with `Decorator`
/// among them (the tests cover every kind of TypeScript syntax, so a
/// reordering would show).
const TYPESCRIPT_NODES: std::ops::RangeInclusive<u8> =
    AstType::TSThisParameter as u8..=AstType::TSInstantiationExpression as u8;

fn statement_start(statement: &Statement<'_>) -> usize {
    use oxc::span::GetSpan;
    statement.span().start as usize
}
