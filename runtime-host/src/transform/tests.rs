//! The front end on programs as models write them and as attackers do.

use super::*;

const LIMITS: FrontEndLimits = FrontEndLimits {
    max_program_bytes: 1024 * 1024,
    max_nesting_depth: 1000,
};

fn transform(source: &str) -> Result<Transformed, String> {
    super::transform(source, &LIMITS)
}

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
fn a_syntax_error_on_a_huge_line_shows_only_the_part_around_it() {
    let source = format!("const a = [{}(;", "1, ".repeat(300_000));
    let err = transform(&source).err().unwrap();
    assert!(err.len() < 1000, "{} bytes", err.len());
    assert!(err.contains("program.ts:1:"), "{err}");
    assert!(err.contains(" | …, 1, 1, 1"), "{err}");
    // The caret sits under the column.
    let lines: Vec<&str> = err.lines().collect();
    let caret = lines[2].find('^').unwrap();
    assert_eq!(lines[1].chars().nth(caret), Some(';'), "{err}");
}

#[test]
fn programs_over_the_size_limit_are_refused_before_parsing() {
    let limits = FrontEndLimits {
        max_program_bytes: 100,
        ..LIMITS
    };
    let err = super::transform(&"x;".repeat(51), &limits).err().unwrap();
    assert!(err.contains("102 bytes"), "{err}");
    assert!(err.contains("config.max_program_bytes (100)"), "{err}");
    assert!(super::transform(&"x;".repeat(50), &limits).is_ok());
}

#[test]
fn a_nul_character_is_a_syntax_error_at_its_position() {
    let err = transform("const a = 1;\nconst b = 'x\0y';").err().unwrap();
    assert!(
        err.starts_with("SyntaxError: the program contains a NUL"),
        "{err}"
    );
    assert!(err.contains("program.ts:2:13"), "{err}");
}

#[test]
fn nesting_past_the_limit_is_refused_naming_the_limit_and_position() {
    let source = format!("return {}1{}", "(".repeat(5000), ")".repeat(5000));
    let err = transform(&source).err().unwrap();
    assert!(err.contains("more than 1000 levels deep"), "{err}");
    assert!(err.contains("config.max_nesting_depth"), "{err}");
    assert!(err.contains("program.ts:1:"), "{err}");
    assert!(err.len() < 1000, "{} bytes", err.len());
}

#[test]
fn deep_nesting_within_the_limit_transforms_on_a_small_thread() {
    // A thread with far less stack than the front end needs for these:
    // the front end grows its own.
    let sources = [
        format!("return {}1{}", "(".repeat(990), ")".repeat(990)),
        format!(
            "let x: number = 1;\nreturn {}1{}",
            "[".repeat(990),
            "]".repeat(990)
        ),
        // Each arrow counts its parentheses and its `=>`.
        format!("return {}1", "() => ".repeat(490)),
        format!("let y: number = 1;\n{}x", "if (y)\n".repeat(300)),
        format!("return 1{}", " + 1".repeat(990)),
        format!("return x{}", ".a".repeat(990)),
    ];
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || {
            for source in &sources {
                let result = transform(source);
                assert!(result.is_ok(), "{:?}", result.err());
            }
        })
        .unwrap()
        .join()
        .unwrap();
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
    let verbatim = matches!(*out.positions, Positions::Verbatim(_));
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

/// The script's program part when the types were erased in place (or
/// there were none), `None` when it took the full transform.
fn erased(source: &str) -> Option<String> {
    let out = transform(source).unwrap();
    match *out.positions {
        Positions::Verbatim(_) => {
            Some(out.script[WRAPPER_HEAD.len()..out.script.len() - WRAPPER_TAIL.len()].to_owned())
        }
        _ => None,
    }
}

/// Erasable TypeScript of every kind: annotations, declarations, generics,
/// expressions, class members and modifiers, overloads, `declare`.
const ERASABLE: &[&str] = &[
    "const x: number = 1;\nreturn x as number;",
    "let a: string[] = [];\nfunction f<T extends object>(x: T, y?: number): T { return x }\nreturn f<{ a: 1 }>({ a: 1 })",
    "interface I { a: number }\ntype T = I | null\nconst o: T = { a: 1 }\nreturn o!.a",
    "const g = (x: number): string => String(x)\nreturn g(2)",
    "class A<T> extends Array<T> implements I, J<T> {\n  private x: number = 1\n  protected readonly y?: string\n  declare z: number\n  static s: number\n  public constructor() { super() }\n  override m(this: A<T>, a: number): void {}\n  n(): void;\n  n(a?: number) {}\n  [k: string]: any\n}\nreturn new A().x",
    "abstract class B { abstract f(): void; g() { return 1 } }\nclass C extends B { f() {} }\nreturn new C().g()",
    "declare const d: number;\ndeclare function h(): void;\ndeclare class K {}\ndeclare namespace N { const a: number }\ndeclare enum DE { A }\nreturn 1",
    "let x!: number;\nx = 3;\nreturn x",
    "const v = <number>(1 + 2);\nreturn v",
    "const f = function <T>(x: T) { return x };\nreturn f(1)",
    "const o = { m<T>(x: T): T { return x }, get g(): number { return 1 } };\nreturn o.m(2) + o.g",
    "const arr = [1, 2, 3] as const;\nreturn arr.length satisfies number",
    "try { throw 1 } catch (e: unknown) { return e as number }",
    "const xs = [1, 2, 3];\nreturn xs.map((x: number, i: number): number => x * i).filter(<T,>(x: T) => !!x)",
    "async function f(): Promise<number> { return 1 }\nreturn await f()",
    "const y = (1 as unknown as number) + 1;\nreturn y",
    "function over(a: string): string;\nfunction over(a: number): number;\nfunction over(a: any) { return a }\nreturn over(1)",
    "const m = new Map<string, number>();\nm.set('a', 1);\nreturn m.get('a')!",
    "class P { #x: number = 1; get x(): number { return this.#x } }\nreturn new P().x",
    "for (const k of Object.keys({ a: 1 }) as string[]) {}\nreturn 1",
    "let u: {\n  a: number;\n  b: string\n} = { a: 1, b: '' };\nreturn u.a",
    "const fn = async <T,>(x: T): Promise<T> => x;\nreturn await fn(5)",
    "return (function (this: any, a: number) { return a }).call(null, 4)",
    "const s = { a: 1 } satisfies Record<string, number>;\nreturn s.a",
    "let z = 1\ntype Q = string\n[z] = [2]\nreturn z",
    "class F { x = 1\n  private [Symbol.iterator]() {}\n}\nreturn new F().x",
    "class G { a = 1\n  declare b: number\n  ['c'] = 2 }\nreturn new G().c",
    "const q = (x: number) => x satisfies number ? 1 : 2;\nreturn q(1)",
    "const r = [1, 2].map(x => x as number).reduce((a, b) => a + b, 0 as number);\nreturn r",
    "const wf = (a?: number, ...rest: number[]): number => (a ?? 0) + rest.length;\nreturn wf(1, 2, 3)",
    "const { a, b }: { a: number; b: number } = { a: 1, b: 2 };\nreturn a + b",
    "let n: number | undefined;\nn! = 4;\n(n as any) = 5;\nreturn n",
    "const c = (a: any) => a as number || 0 && (a as number) !== 1 ? a as string : a;\nreturn c(1)",
    "function f<\n  T,\n>(x: T) { return x }\nreturn f<\n  number\n>(1)",
    "const g = <T,>(x: T) => x;\nconst h = g<number>;\nreturn h(1)",
    "class H { constructor(a?: number) {} static async *gen(): AsyncGenerator<number> { yield 1 } }\nreturn 1",
    "class W { private static readonly k = 1; protected get v(): number { return W.k } }\nreturn new W()",
    "const e = new (class<T> { v?: T })<number>();\nreturn e",
    "const t = (s: TemplateStringsArray) => s[0];\nreturn t<string>`x`",
    "type F = (a: number) => void;\nconst h: F = (a) => {};\nreturn typeof h",
    "const k = (x: number) => { return x as number };\nreturn k(1)",
];

/// TypeScript that erasing would change or cannot express: it takes the
/// full transform.
const NOT_ERASABLE: &[&str] = &[
    "enum E { A, B }\nreturn E.B",
    "const enum CE { A = 1 }\nreturn CE.A",
    "namespace N { export const a = 1 }\nreturn N.a",
    "class A { constructor(private x) {} }\nreturn new A(1)",
    "class A { constructor(public readonly x) {} }\nreturn new A(1).x",
    "@dec class A {}\nfunction dec(c) { return c }\nreturn 1",
    "class A { @dec m() {} }\nfunction dec() {}\nreturn 1",
    "class A { accessor x = 1 }\nreturn 1",
    "class A { m?() {} }\nreturn 1",
    "class A { [k]?: number }\nconst k = 'a';\nreturn 1",
    // Two statements in TypeScript, `a[0]` once blank.
    "let a = [1]\nlet b = a as any\n[0]\nreturn b",
    "let a = [1]\nlet b = a satisfies any\n(0)\nreturn b",
    "const f = (x: number):\n  number => x\nreturn f(1)",
    "function f() { return <number>\n1 }\nreturn f()",
    "const s: 'é' = 'é';\nreturn s",
    "const g = async <T,>(x: T) => x;\nconst h = async <\n  T,\n>(x: T) => x;\nreturn 1",
];

#[test]
fn erasable_typescript_is_erased_in_place() {
    for source in ERASABLE {
        let script = erased(source).unwrap_or_else(|| panic!("not erased: {source}"));
        assert_eq!(script.len(), source.len(), "{source}");
        assert_eq!(
            script.lines().count(),
            source.lines().count(),
            "lines moved: {source}"
        );
    }
    assert_eq!(
        erased("const x: number = 1;\nreturn x as number;").unwrap(),
        "const x         = 1;\nreturn x          ;"
    );
    assert_eq!(
        erased("let z = 1\ntype Q = string\n[z] = [2]").unwrap(),
        "let z = 1\n;              \n[z] = [2]"
    );
    assert_eq!(
        erased("class F { x = 1\n  private [k]() {} }").unwrap(),
        "class F { x = 1\n  ;       [k]() {} }"
    );
    assert_eq!(
        erased("function f(this: T, a?: number) {}").unwrap(),
        "function f(         a         ) {}"
    );
}

#[test]
fn typescript_that_erasing_would_change_takes_the_full_transform() {
    for source in NOT_ERASABLE {
        assert_eq!(erased(source), None, "erased: {source}");
    }
}

/// `script` parsed and printed by oxc, without parentheses or empty
/// statements, so that two scripts print the same exactly when they are
/// the same JavaScript.
fn normalised(script: &str) -> String {
    use oxc::ast::ast::Statement;
    use oxc::ast_visit::{VisitMut, walk_mut};

    struct DropEmpty;
    impl<'a> VisitMut<'a> for DropEmpty {
        fn visit_statements(&mut self, it: &mut oxc::allocator::Vec<'a, Statement<'a>>) {
            it.retain(|statement| !matches!(statement, Statement::EmptyStatement(_)));
            walk_mut::walk_statements(self, it);
        }
    }

    let allocator = Allocator::default();
    let options = ParseOptions {
        preserve_parens: false,
        ..ParseOptions::default()
    };
    let parsed = Parser::new(&allocator, script, SourceType::cjs())
        .with_options(options)
        .parse();
    let errors: Vec<_> = parsed.diagnostics.errors().collect();
    assert!(errors.is_empty(), "{errors:?}\n{script}");
    let mut program = parsed.program;
    DropEmpty.visit_program(&mut program);
    Codegen::new().build(&program).code
}

#[test]
fn erasing_gives_the_javascript_the_full_transform_gives() {
    for source in ERASABLE.iter().chain(NOT_ERASABLE) {
        let full = transform_unguarded(source, Strip::Transform).unwrap();
        let Ok(out) = transform(source) else {
            panic!("{source}");
        };
        assert_eq!(
            normalised(&out.script),
            normalised(&full.script),
            "{source}\nerased:\n{}",
            out.script
        );
    }
}

#[test]
fn html_like_comments_go_through_the_transform() {
    let out = transform("let b = 2;\nreturn 1 <!--b").unwrap();
    assert!(!matches!(*out.positions, Positions::Verbatim(_)));
    let out = transform("let i = 2;\nwhile (i-->0) {}\nreturn i").unwrap();
    assert!(!matches!(*out.positions, Positions::Verbatim(_)));
    // A decrement alone is no comment.
    let out = transform("let i = 2;\ni--;\nreturn i").unwrap();
    assert!(matches!(*out.positions, Positions::Verbatim(3)));
}

#[test]
fn a_hashbang_line_becomes_a_comment_and_keeps_positions() {
    let out = transform("#!/usr/bin/env node\nthrow new Error('x')").unwrap();
    assert!(
        out.script
            .starts_with("(async function () {///usr/bin/env node\n"),
        "{}",
        out.script
    );
    assert!(matches!(*out.positions, Positions::Verbatim(2)));
    let out = transform("#!/usr/bin/env node\nconst a: number = 1").unwrap();
    assert!(!out.script.contains("#!"), "{}", out.script);
}

#[test]
fn verbatim_positions_shift_only_on_the_first_line() {
    let out = transform("const a = 1;\nthrow new Error('x')").unwrap();
    assert!(matches!(*out.positions, Positions::Verbatim(2)));
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
