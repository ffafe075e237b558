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
//! A program with no TypeScript syntax at all (most of what models write)
//! skips semantic analysis, the transform and the reprint: it is wrapped as
//! written, and its positions only shift on the first line.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use oxc::allocator::Allocator;
use oxc::ast::ast::{
    FunctionType, MethodDefinitionType, Program, PropertyDefinitionType, Statement,
};
use oxc::ast::{AstKind, AstType};
use oxc::ast_visit::Visit;
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
    positions: Positions,
}

/// How positions in the script relate to the program as written.
enum Positions {
    /// The script is the program with its types stripped and reprinted:
    /// positions go through the source map.
    Mapped(Box<SourceMap<'static>>),
    /// The script is the program as written, inside the wrapper: lines are
    /// the same, and only the first line's columns shift, by the wrapper's
    /// head. Holds the program's number of lines.
    Verbatim(u32),
    /// No source map was produced: positions stay as generated.
    Unmapped,
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

    if runs_as_written(source, &program) {
        return Ok(Transformed::verbatim(source));
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
        positions: generated.map.map_or(Positions::Unmapped, |map| {
            Positions::Mapped(Box::new(map.into_owned()))
        }),
    })
}

/// Whether `source`, which parsed as TypeScript into `program`, can run as
/// written, skipping semantic analysis, the transform and the reprint: it
/// has no TypeScript syntax.
///
/// Conservative by construction: a TypeScript node anywhere (a type, an
/// `as`, a `!`, generics, an enum, a namespace, a decorator) or a
/// TypeScript-only mark on a JavaScript node (`private`, `readonly`,
/// `declare`, `abstract`, `override`, parameter properties, `?` and `!`
/// marks, overload signatures) sends it through the transform. Text that is
/// valid in both languages but reads differently (`f<T>(x)` is a call with
/// a type argument in TypeScript, two comparisons in JavaScript) has a
/// TypeScript node.
fn runs_as_written(source: &str, program: &Program<'_>) -> bool {
    // A hashbang and HTML-like comments (`<!--`, `-->`) read differently
    // once the source sits inside the wrapper and is evaluated as a script.
    if source.starts_with("#!") || source.contains("<!--") || source.contains("-->") {
        return false;
    }
    let mut finder = TypeScriptFinder { found: false };
    finder.visit_program(program);
    !finder.found
}

/// Finds any TypeScript syntax in a program.
struct TypeScriptFinder {
    found: bool,
}

/// The node types that are TypeScript syntax: oxc numbers them as one run,
/// from `TSThisParameter` to `TSInstantiationExpression`, with `Decorator`
/// among them (the `typescript_syntax_is_never_run_as_written` test covers
/// every kind of TypeScript syntax, so a reordering would show).
const TYPESCRIPT_NODES: std::ops::RangeInclusive<u8> =
    AstType::TSThisParameter as u8..=AstType::TSInstantiationExpression as u8;

impl<'a> Visit<'a> for TypeScriptFinder {
    fn enter_node(&mut self, kind: AstKind<'a>) {
        let typescript = TYPESCRIPT_NODES.contains(&(kind.ty() as u8))
            || match kind {
                AstKind::VariableDeclaration(it) => it.declare,
                AstKind::VariableDeclarator(it) => it.definite,
                AstKind::Function(it) => {
                    it.declare
                        || it.body.is_none()
                        || !matches!(
                            it.r#type,
                            FunctionType::FunctionDeclaration | FunctionType::FunctionExpression
                        )
                }
                AstKind::FormalParameter(it) => {
                    it.optional || it.accessibility.is_some() || it.readonly || it.r#override
                }
                AstKind::Class(it) => it.r#abstract || it.declare,
                AstKind::MethodDefinition(it) => {
                    it.r#override
                        || it.optional
                        || it.accessibility.is_some()
                        || !matches!(it.r#type, MethodDefinitionType::MethodDefinition)
                }
                AstKind::PropertyDefinition(it) => {
                    it.declare
                        || it.r#override
                        || it.optional
                        || it.definite
                        || it.readonly
                        || it.accessibility.is_some()
                        || !matches!(it.r#type, PropertyDefinitionType::PropertyDefinition)
                }
                // `accessor` fields belong to the decorators proposal,
                // which QuickJS does not parse: the transform handles them.
                AstKind::AccessorProperty(_) => true,
                _ => false,
            };
        self.found |= typescript;
    }
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
    /// The program as written, wrapped.
    fn verbatim(source: &str) -> Self {
        let mut script = String::with_capacity(source.len() + 32);
        script.push_str(WRAPPER_HEAD);
        script.push_str(source);
        script.push_str(WRAPPER_TAIL);
        let lines = u32::try_from(source.split('\n').count()).unwrap_or(u32::MAX);
        Self {
            script,
            positions: Positions::Verbatim(lines),
        }
    }

    /// Rewrites every `program.js:L:C` in `text` to the matching
    /// `program.ts:L:C`. Positions with no mapping keep the generated ones.
    pub(crate) fn map_positions(&self, text: &str) -> String {
        let table = match &self.positions {
            Positions::Unmapped => return text.to_owned(),
            Positions::Mapped(map) => Some(map.generate_lookup_table()),
            Positions::Verbatim(_) => None,
        };
        let lookup = |line: u32, column: u32| {
            // QuickJS counts from 1; source maps from 0. The wrapper's head
            // shares the script's first line.
            let mut column = column.checked_sub(1)?;
            let line = line.checked_sub(1)?;
            if line == 0 {
                column = column.checked_sub(WRAPPER_HEAD.len() as u32)?;
            }
            match (&self.positions, &table) {
                (Positions::Mapped(map), Some(table)) => {
                    let token = map.lookup_token(table, line, column)?;
                    Some((token.get_src_line() + 1, token.get_src_col() + 1))
                }
                // The wrapper's tail is on a line of its own, past the
                // program's last.
                (Positions::Verbatim(lines), _) if line < *lines => Some((line + 1, column + 1)),
                _ => None,
            }
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

    fn is_verbatim(source: &str) -> bool {
        let out = transform(source).unwrap();
        let verbatim = matches!(out.positions, Positions::Verbatim(_));
        if verbatim {
            assert_eq!(out.script, format!("{WRAPPER_HEAD}{source}{WRAPPER_TAIL}"));
        }
        verbatim
    }

    #[test]
    fn javascript_runs_as_written() {
        for source in [
            "return 1 + 1",
            "const xs = [3, 1, 2];\nxs.sort((a, b) => a - b);\nreturn xs",
            "for (let i = 0; i < 3; i++) {}\nreturn a > b ? 1 : 2",
            "class A { #x = 1; static y = 2; get x() { return this.#x } }\nreturn new A().x",
            "label: for (;;) { break label }\nreturn await Promise.resolve(`t${1}`)",
            "const o = { a: 1 };\nreturn o?.a ?? 0",
        ] {
            assert!(is_verbatim(source), "{source}");
        }
    }

    #[test]
    fn typescript_syntax_is_never_run_as_written() {
        for source in [
            "const x: number = 1;\nreturn x",
            "return (1 as number)",
            "return (1 satisfies number)",
            "const o: { a?: number } = {};\nreturn o.a!",
            "function f<T>(x: T) { return x }\nreturn f(1)",
            // Valid JavaScript too, where it means two comparisons.
            "function f(x) { return x }\nreturn f<number>(2)",
            "function f(x) { return x }\nconst g = f<string>;\nreturn g",
            "return <number>(1)",
            "enum E { A, B }\nreturn E.B",
            "namespace N { export const a = 1 }\nreturn N.a",
            "type T = number;\nreturn 1",
            "interface I { a: number }\nreturn 1",
            "declare const d: number;\nreturn 1",
            "class A { private x = 1; readonly y = 2; declare z: number }\nreturn 1",
            "class A { constructor(private x) {} }\nreturn new A(1)",
            "class A { constructor(public readonly x) {} }\nreturn new A(1).x",
            "abstract class A { abstract f(): void }\nreturn 1",
            "class A implements B {}\nreturn 1",
            "class A { x?: number; y!: number }\nreturn 1",
            "function f(x?) { return x }\nreturn f()",
            "function f(this: Window) {}\nreturn 1",
            "function f(a: number): void;\nfunction f(a) {}\nreturn 1",
            "let x!: number;\nreturn 1",
            "@dec class A {}\nfunction dec(c) { return c }\nreturn 1",
            "class A { @dec m() {} }\nfunction dec() {}\nreturn 1",
            "class A { override m() {} }\nreturn 1",
            "class A { private x = 1 }\nreturn 1",
            "class A { protected m() {} }\nreturn 1",
            "class A { readonly y = 2 }\nreturn 1",
            "class A { declare z }\nreturn 1",
            "class A { x? }\nreturn 1",
            "class A { m?() {} }\nreturn 1",
            "abstract class A {}\nreturn 1",
            "declare class A {}\nreturn 1",
            "declare function f();\nreturn 1",
            "class A { accessor x = 1 }\nreturn 1",
            "class A { m(): void; m() {} }\nreturn 1",
            "return (x: number) => x",
            "return ((x) => x)<number>",
        ] {
            assert!(!is_verbatim(source), "ran as written: {source}");
        }
    }

    #[test]
    fn html_like_comments_and_hashbangs_go_through_the_transform() {
        for source in [
            "let b = 2;\nreturn 1 <!--b",
            "#!/usr/bin/env node\nreturn 1",
        ] {
            let out = transform(source).unwrap();
            assert!(!matches!(out.positions, Positions::Verbatim(_)), "{source}");
        }
    }

    #[test]
    fn verbatim_positions_shift_only_on_the_first_line() {
        let out = transform("const a = 1;\nthrow new Error('x')").unwrap();
        assert!(matches!(out.positions, Positions::Verbatim(2)));
        let head = WRAPPER_HEAD.len();
        assert_eq!(
            out.map_positions(&format!("at program.js:1:{} and program.js:2:1", head + 7)),
            "at program.ts:1:7 and program.ts:2:1"
        );
        // The wrapper's own positions (its head, its tail's line) stay.
        assert_eq!(
            out.map_positions("program.js:1:3 program.js:3:1"),
            "program.js:1:3 program.js:3:1"
        );
    }
}
