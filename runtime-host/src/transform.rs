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

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use oxc::allocator::Allocator;
use oxc::ast::ast::Statement;
use oxc::codegen::{Codegen, CodegenOptions};
use oxc::parser::{ParseOptions, Parser};
use oxc::semantic::SemanticBuilder;
use oxc::span::SourceType;
use oxc::transformer::{TransformOptions, Transformer};
use oxc_sourcemap::SourceMap;

/// The name positions in the generated script carry (set by the guest).
pub(crate) const SCRIPT_FILE: &str = "program.js";
/// The name positions in the program as written carry.
pub(crate) const PROGRAM_FILE: &str = "program.ts";
const WRAPPER_HEAD: &str = "(async function () {";
const WRAPPER_TAIL: &str = "\n})";

/// A program ready for the guest.
pub(crate) struct Transformed {
    /// The function expression the guest evaluates.
    pub(crate) script: String,
    map: Option<SourceMap<'static>>,
}

/// Programs transformed recently, by source text: a program run again (a
/// retry, a scheduled job, a benchmark) skips oxc. The transform is a pure
/// function of the source, so sharing its output between runs shares no
/// state. Bounded in entries and in the size of the programs it keeps.
pub(crate) struct TransformCache {
    entries: Mutex<HashMap<String, Arc<Transformed>>>,
}

/// Programs kept at once; past it, an arbitrary one is forgotten.
const CACHED_PROGRAMS: usize = 256;
/// Longer programs are transformed every time.
const MAX_CACHED_SOURCE_BYTES: usize = 16 * 1024;

impl TransformCache {
    pub(crate) fn new() -> Self {
        Self {
            entries: Mutex::new(HashMap::new()),
        }
    }

    /// Like [`transform`], through the cache.
    pub(crate) fn transform(&self, source: &str) -> Result<Arc<Transformed>, String> {
        if source.len() > MAX_CACHED_SOURCE_BYTES {
            return transform(source).map(Arc::new);
        }
        if let Some(hit) = self
            .entries
            .lock()
            .ok()
            .and_then(|entries| entries.get(source).cloned())
        {
            return Ok(hit);
        }
        let transformed = Arc::new(transform(source)?);
        if let Ok(mut entries) = self.entries.lock() {
            if entries.len() >= CACHED_PROGRAMS {
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

/// Transforms `source`; the error is a message naming the line and column
/// of the program as written.
pub(crate) fn transform(source: &str) -> Result<Transformed, String> {
    // The program is hostile input to oxc too: a panic inside the compiler
    // must end this run as an exception, never unwind into the caller.
    std::panic::catch_unwind(|| transform_unguarded(source)).unwrap_or_else(|_| {
        Err(
            "InternalError: the TypeScript transform failed on this program; \
             simplify the syntax around types, enums or namespaces"
                .to_owned(),
        )
    })
}

fn transform_unguarded(source: &str) -> Result<Transformed, String> {
    let allocator = Allocator::default();
    let source_type = SourceType::ts().with_module(true);
    let options = ParseOptions {
        allow_return_outside_function: true,
        ..ParseOptions::default()
    };
    let parsed = Parser::new(&allocator, source, source_type)
        .with_options(options)
        .parse();
    if let Some(error) = parsed.diagnostics.errors().next() {
        let offset = error
            .labels
            .first()
            .map_or(0, |label| label.offset() as usize);
        return Err(syntax_error(source, &error.message, offset));
    }
    let mut program = parsed.program;
    if let Some(statement) = program.body.iter().find(|s| s.is_module_declaration()) {
        let offset = statement_start(statement);
        return Err(syntax_error(
            source,
            "import and export declarations are not available: the program is the body of an \
             async function and reaches the host only through its bindings (e.g. `await tools.name(args)`)",
            offset,
        ));
    }

    // `enum_eval` precomputes enum member values, which enum lowering needs.
    let scoping = SemanticBuilder::new()
        .with_enum_eval(true)
        .build(&program)
        .semantic
        .into_scoping();
    let path = Path::new(PROGRAM_FILE);
    let transformed = Transformer::new(&allocator, path, &TransformOptions::default())
        .build_with_scoping(scoping, &mut program);
    if let Some(error) = transformed.diagnostics.errors().next() {
        let offset = error
            .labels
            .first()
            .map_or(0, |label| label.offset() as usize);
        return Err(syntax_error(source, &error.message, offset));
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
        map: generated.map.map(SourceMap::into_owned),
    })
}

fn statement_start(statement: &Statement<'_>) -> usize {
    use oxc::span::GetSpan;
    statement.span().start as usize
}

/// `SyntaxError: <message> (program.ts:L:C)` followed by the offending line
/// and a caret under the column.
fn syntax_error(source: &str, message: &str, offset: usize) -> String {
    let offset = offset.min(source.len());
    let (line, column) = line_column(source, offset);
    let text = source.lines().nth(line - 1).unwrap_or("");
    let gutter = line.to_string();
    format!(
        "SyntaxError: {message} ({PROGRAM_FILE}:{line}:{column})\n {gutter} | {text}\n {pad} | {caret}^",
        pad = " ".repeat(gutter.len()),
        caret = " ".repeat(column - 1),
    )
}

/// 1-based line and column (in chars) of byte `offset`.
fn line_column(source: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset;
    while !source.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &source[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = source[line_start..offset].chars().count() + 1;
    (line, column)
}

impl Transformed {
    /// Rewrites every `program.js:L:C` in `text` to the matching
    /// `program.ts:L:C`. Positions with no mapping keep the generated ones.
    pub(crate) fn map_positions(&self, text: &str) -> String {
        let Some(map) = &self.map else {
            return text.to_owned();
        };
        let table = map.generate_lookup_table();
        let lookup = |line: u32, column: u32| {
            // QuickJS counts from 1; source maps from 0. The wrapper's head
            // shares the script's first line.
            let mut column = column.checked_sub(1)?;
            let line = line.checked_sub(1)?;
            if line == 0 {
                column = column.checked_sub(WRAPPER_HEAD.len() as u32)?;
            }
            let token = map.lookup_token(&table, line, column)?;
            Some((token.get_src_line() + 1, token.get_src_col() + 1))
        };
        let needle = format!("{SCRIPT_FILE}:");
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = rest.find(&needle) {
            out.push_str(&rest[..at]);
            let after = &rest[at + needle.len()..];
            match parse_position(after) {
                Some((line, column, used)) => {
                    let mapped = lookup(line, column);
                    match mapped {
                        Some((line, column)) => {
                            out.push_str(&format!("{PROGRAM_FILE}:{line}:{column}"));
                        }
                        None => out.push_str(&rest[at..at + needle.len() + used]),
                    }
                    rest = &after[used..];
                }
                None => {
                    out.push_str(&needle);
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        out
    }
}

/// Parses `L:C` (or just `L`) at the start of `s`; returns line, column and
/// the bytes consumed.
fn parse_position(s: &str) -> Option<(u32, u32, usize)> {
    let digits = |s: &str| s.bytes().take_while(u8::is_ascii_digit).count();
    let line_len = digits(s);
    let line: u32 = s[..line_len].parse().ok()?;
    let rest = &s[line_len..];
    if let Some(col_text) = rest.strip_prefix(':') {
        let col_len = digits(col_text);
        if col_len > 0 {
            let column: u32 = col_text[..col_len].parse().ok()?;
            return Some((line, column, line_len + 1 + col_len));
        }
    }
    Some((line, 1, line_len))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_types() {
        let out = transform("const x: number = 1;\nreturn x as number;").unwrap();
        assert!(out.script.starts_with(WRAPPER_HEAD));
        assert!(!out.script.contains("number"), "{}", out.script);
    }

    #[test]
    fn syntax_error_names_line_and_column() {
        let err = transform("const a = 1;\nconst b = 2;\nconst c = (;\n")
            .err()
            .unwrap();
        assert!(err.contains("program.ts:3:"), "{err}");
        assert!(err.contains("const c = (;"), "{err}");
    }

    #[test]
    fn imports_are_refused() {
        let err = transform("import fs from 'fs';\nreturn 1").err().unwrap();
        assert!(
            err.contains("import and export declarations are not available"),
            "{err}"
        );
        assert!(err.contains("program.ts:1:1"), "{err}");
    }

    #[test]
    fn maps_positions_back() {
        let out =
            transform("type T = { a: number };\n\n\nconst v: T = { a: 1 };\nthrow new Error('x');")
                .unwrap();
        let line = out
            .script
            .lines()
            .position(|l| l.contains("throw"))
            .unwrap()
            + 1;
        let col = out
            .script
            .lines()
            .nth(line - 1)
            .unwrap()
            .find("throw")
            .unwrap()
            + 1;
        let mapped = out.map_positions(&format!("at f (program.js:{line}:{col})"));
        assert_eq!(mapped, "at f (program.ts:5:1)");
    }
}
