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
fn html_like_comments_go_through_the_transform() {
    let out = transform("let b = 2;\nreturn 1 <!--b").unwrap();
    assert!(!matches!(*out.positions, Positions::Verbatim(_)));
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
