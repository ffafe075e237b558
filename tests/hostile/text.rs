//! Cases whose text or output attacks the host: the TypeScript front end,
//! strings that do not survive a naive crossing, and output floods.

use super::{Case, Kind, case, dispatching, nest};

/// Programs whose own text attacks the host's TypeScript front end: it
/// parses them before any budget of the guest applies.
pub(super) fn front_end(cases: &mut Vec<Case>) {
    use Kind::*;
    for n in [2_000, 10_000, 100_000] {
        for (what, program) in [
            ("parentheses", format!("return {}", nest("(", "1", ")", n))),
            ("brackets", format!("return {}", nest("[", "1", "]", n))),
            ("blocks", nest("{", "", "}", n)),
            (
                "object literals",
                format!("return {}", nest("{a:", "1", "}", n)),
            ),
            (
                "`as any`",
                format!("return {}", nest("(", "x", " as any)", n)),
            ),
            ("arrows", format!("return {}1", "() => ".repeat(n))),
            (
                "template substitutions",
                format!("return {}", nest("`${", "1", "}`", n)),
            ),
            ("negations", format!("return {}1", "!".repeat(n))),
            ("additions", format!("return 1{}", "+1".repeat(n))),
            ("ifs", format!("{}x", "if (1) ".repeat(n))),
            (
                "generic types",
                format!("let x: {} = 1", nest("Array<", "number", ">", n)),
            ),
        ] {
            cases.push(case(
                format!("front end: {n} nested {what}"),
                program,
                Exception,
                "config.max_nesting_depth",
            ));
        }
    }
    cases.push(case(
        "front end: 2,000-deep else-if chain",
        format!("if (a) x;\n{}", "else if (b) y;\n".repeat(2000)),
        Exception,
        "config.max_nesting_depth",
    ));
    cases.push(case(
        "front end: nesting within the limit runs",
        format!("let v: number = 1;\nreturn {}", nest("(", "v", ")", 900)),
        Ok,
        "1",
    ));
    cases.push(case(
        "front end: a program over the size limit",
        format!("return 1 // {}", "x".repeat(2 * 1024 * 1024)),
        Exception,
        "config.max_program_bytes",
    ));
    cases.push(case(
        "front end: a syntax error on a 500 KB line",
        format!("const a = [{}(;", "1, ".repeat(160_000)),
        Exception,
        "program.ts:1:",
    ));
    cases.push(case(
        "front end: a raw NUL byte",
        "return 'a\u{0}b'",
        Exception,
        "NUL",
    ));
    cases.push(case(
        "front end: a hashbang line",
        "#!/usr/bin/env coderun\nreturn 'hashbang ok'",
        Ok,
        "hashbang ok",
    ));
    cases.push(case(
        "front end: import declarations",
        "import fs from 'fs'; return 1",
        Exception,
        "import and export",
    ));
    cases.push(case(
        "front end: dynamic import",
        "return await import('fs')",
        Exception,
        "",
    ));
    cases.push(case(
        "front end: an unterminated template",
        "return `${",
        Exception,
        "SyntaxError",
    ));
    cases.push(case(
        "front end: line separators",
        "const a = 1;\u{2028}const b = 2;\u{2029}return a + b",
        Ok,
        "3",
    ));
}

pub(super) fn strings(cases: &mut Vec<Case>) {
    use Kind::*;
    let lone = "'😀'.slice(0, 1)";
    cases.push(case(
        "strings: a lone surrogate in console.log",
        format!("console.log({lone}, [{lone}]); return 'logged'"),
        Ok,
        "logged",
    ));
    cases.push(case(
        "strings: a lone surrogate thrown",
        format!("throw {lone}"),
        Exception,
        "\u{fffd}",
    ));
    cases.push(case(
        "strings: a lone surrogate in an Error",
        format!("throw new Error('x' + {lone})"),
        Exception,
        "Error: x\u{fffd}",
    ));
    cases.push(case(
        "strings: a lone surrogate returned",
        format!("return [{lone}, '😀'.slice(1)]"),
        Ok,
        "\u{fffd}",
    ));
    cases.push(case(
        "strings: a lone surrogate as an object key",
        format!("return {{ [{lone}]: 1 }}"),
        Ok,
        "\u{fffd}",
    ));
    cases.push(dispatching(
        "strings: a lone surrogate in a binding argument",
        format!("return await tools.echo({lone} + 'x')"),
        Ok,
        "\u{fffd}x",
    ));
    cases.push(case(
        "strings: NUL characters by escape",
        "return 'a\\u0000b'.length",
        Ok,
        "3",
    ));
    cases.push(case(
        "strings: NUL characters logged and returned",
        "console.log('a\\0b'); return 'c\\0d'",
        Ok,
        "c\\u0000d",
    ));
    cases.push(case(
        "strings: all of Unicode's planes",
        "return String.fromCodePoint(0x10FFFF, 0xFFFF, 0x1F600)",
        Ok,
        "\u{10ffff}",
    ));
    cases.push(case(
        "strings: a huge string returned is capped",
        "return 'é'.repeat(5_000_000)",
        Ok,
        "truncated by coderun",
    ));
}

pub(super) fn output(cases: &mut Vec<Case>) {
    use Kind::*;
    cases.push(case("output: 100 MB of console.log", "const line = 'x'.repeat(1 << 20); for (let i = 0; i < 100; i++) console.log(line); return 'logged'", Ok, "logged"));
    cases.push(case(
        "output: a hundred thousand empty lines",
        "for (let i = 0; i < 1e5; i++) console.log(''); return 'empty'",
        Ok,
        "empty",
    ));
    cases.push(case(
        "output: a 10 MB thrown string",
        "throw 'x'.repeat(10_000_000)",
        Exception,
        "truncated by coderun",
    ));
    cases.push(case(
        "output: a 10 MB Error message",
        "throw new Error('y'.repeat(10_000_000))",
        Exception,
        "config.max_error_bytes",
    ));
    cases.push(case(
        "output: an Error with a 10 MB stack",
        "const e = new Error('m'); e.stack = 's'.repeat(10_000_000); throw e",
        Exception,
        "truncated by coderun",
    ));
    cases.push(dispatching(
        "output: a 4 MB binding rejection, uncaught",
        "await tools.fail()",
        Exception,
        "truncated by coderun",
    ));
    cases.push(dispatching(
        "output: a 4 MB binding rejection, caught and measured",
        "try { await tools.fail() } catch (e) { return e.message.length <= 16 * 1024 }",
        Ok,
        "true",
    ));
    cases.push(case(
        "output: a huge value",
        "return Array.from({ length: 2e5 }, (_, i) => i)",
        Ok,
        "truncated by coderun",
    ));
    cases.push(dispatching(
        "output: a 2 MB binding result returned",
        "return await tools.big()",
        Ok,
        "truncated by coderun",
    ));
    cases.push(case(
        "output: a thrown object with a huge string renders it elided, as Node does",
        "throw { a: 'z'.repeat(500_000) }",
        Exception,
        "'... 490000 more characters",
    ));
    cases.push(case(
        "output: a syntax error in eval of a huge line",
        "eval('x'.repeat(1e6) + ' +')",
        Exception,
        "SyntaxError",
    ));
    cases.push(case(
        "output: a value 2,000 levels deep comes back as text",
        "let a = 1; for (let i = 0; i < 2000; i++) a = [a]; return a",
        Ok,
        "[[[[",
    ));
}
