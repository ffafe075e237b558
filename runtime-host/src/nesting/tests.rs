//! The scan against the programs it must measure and the text it must
//! not be fooled by.

use super::*;

fn depth(source: &str) -> usize {
    match measure(source, usize::MAX) {
        Nesting::Within(depth) => depth,
        Nesting::TooDeep { .. } => unreachable!("no limit"),
    }
}

#[test]
fn typical_programs_measure_small() {
    let program = r#"
        const files = await tools.search({ q: "quarterly report", limit: 10 });
        const big = files.filter((f) => f.size > 1_000_000).map((f) => f.name);
        if (big.length === 0) {
          console.log(`none of ${files.length} is large`);
          return [];
        } else if (big.length > 5) {
          console.log('many')
        }
        for (const name of big) {
          await tools.archive({ name })
        }
        return big
    "#;
    let measured = depth(program);
    assert!(measured < 20, "{measured}");
}

#[test]
fn statements_without_semicolons_do_not_accumulate() {
    for program in [
        "let x = 1\nx = x + 1\n",
        "if (a) {\n  b()\n}\n",
        "[1, 2, 3].map(x => x * 2);\n",
        "function f(a) {\n  return a\n}\n",
        "const o = { a: 1, b: [2] }\n",
        "class A { m() { return 1 } }\n",
        "try { x() } catch (e) { y() } finally { z() }\n",
        "switch (x) { case 1: break; default: y() }\n",
        "type T = { a: number }\n",
        "label: for (const a of b) continue label\n",
        "x = a ? b : c\n",
    ] {
        let measured = depth(&program.repeat(2000));
        assert!(measured < 12, "{program:?} measured {measured}");
    }
}

#[test]
fn every_nesting_construct_counts() {
    let n = 300;
    for (name, source) in [
        ("parens", format!("{}1{}", "(".repeat(n), ")".repeat(n))),
        ("brackets", format!("{}1{}", "[".repeat(n), "]".repeat(n))),
        ("blocks", format!("{}{}", "{".repeat(n), "}".repeat(n))),
        (
            "templates",
            format!("{}1{}", "`${".repeat(n), "}`".repeat(n)),
        ),
        ("not", format!("{}x", "!".repeat(n))),
        ("assignments", format!("{}1", "a = ".repeat(n))),
        ("conditionals", format!("{}1", "a ? b : ".repeat(n))),
        ("arrows", format!("{}1", "x => ".repeat(n))),
        ("ifs on one line", format!("{}x", "if (a) ".repeat(n))),
        ("ifs on lines", format!("{}x", "if (a)\n".repeat(n))),
        (
            "for awaits on lines",
            format!("{}x", "for await (a of b)\n".repeat(n)),
        ),
        (
            "tagged templates on lines",
            format!("f{}", "\n`x`".repeat(n)),
        ),
        (
            "else ifs",
            format!("if (a) x;\n{}", "else if (b) y;\n".repeat(n)),
        ),
        (
            "else ifs with blocks",
            format!("if (a) {{}}{}", " else if (b) {}\n".repeat(n)),
        ),
        (
            "labels",
            (0..n).map(|i| format!("l{i}: ")).collect::<String>() + "x",
        ),
        ("members", format!("x{}", ".a".repeat(n))),
        ("members of a number", format!("1_000n{}", ".a".repeat(n))),
        ("members of a fraction", format!("1.5{}", ".a".repeat(n))),
        ("members of 1.", format!("1.{}", ".a".repeat(n))),
        ("members on lines", format!("x{}", "\n.a".repeat(n))),
        ("calls", format!("f{}", "()".repeat(n))),
        ("indexes", format!("x{}", "[0]".repeat(n))),
        ("non-null", format!("x{}", "!".repeat(n))),
        (
            "generics",
            format!("let x: {}T{}", "A<".repeat(n), ">".repeat(n)),
        ),
        ("array types", format!("let x: T{}", "[]".repeat(n))),
        ("keyof", format!("let x: {}T", "keyof ".repeat(n))),
        ("new", format!("{}X", "new ".repeat(n))),
        ("additions", format!("1{}", " + 1".repeat(n))),
    ] {
        let measured = depth(&source);
        assert!(measured >= n, "{name}: measured {measured} for {n} levels");
    }
}

#[test]
fn brackets_in_strings_comments_templates_and_regexes_do_not_count() {
    let n = 500;
    let open = "(".repeat(n);
    for source in [
        format!("'{open}'"),
        format!("\"{open}\""),
        format!("// {open}\nx"),
        format!("/* {open} */ x"),
        format!("`{open}`"),
        format!("x = /{open}/"),
        format!("if (a) /[{open}]/.test(b)"),
        format!("#!{open}\nx"),
    ] {
        assert!(depth(&source) < 10, "{source}");
    }
}

#[test]
fn what_hides_brackets_from_the_parser_hides_them_from_the_scan_too() {
    // Each of these puts 300 brackets where the parser sees them as
    // code; a scan that read them as comment, string or regex text
    // would let them through unmeasured.
    let n = 300;
    let deep = format!("{}1{}", "(".repeat(n), ")".repeat(n));
    for source in [
        format!("// comment\u{2028}{deep}"),
        format!("// comment\u{2029}{deep}"),
        format!("'a\\\r\n' + {deep}"),
        format!("x.return / {deep} / 1"),
        format!("x?.typeof / {deep} / 1"),
        format!("get / {deep} / 1"),
        format!("of / {deep} / 1"),
        format!("`a\\\u{2028}` + {deep}"),
    ] {
        assert!(depth(&source) >= n, "{source:?}");
    }
    // A `/` after `}` is a regular expression after a block and a
    // division after an expression: either way the brackets count.
    for source in [
        format!("function f() {{}}\n/'/; {deep}"),
        format!("export function f() {{}}\n/'/; {deep}"),
        format!("async function f() {{}}\n/'/; {deep}"),
        format!("class A {{}}\n/'/; {deep}"),
        format!("x = function () {{}} / {deep} / 1"),
        format!("x = async function () {{}} / {deep} / 1"),
        format!("x = class {{}} / {deep} / 1"),
        format!("x = {{}} / {deep} / 1"),
        format!("type T = {{}}\n/'/; {deep}"),
        format!("interface I {{}}\n/'/; {deep}"),
        format!("module = {{}} / {deep} / 1"),
        format!("type = {{}} / {deep} / 1"),
        format!("l: {{}}\n/'/; {deep}"),
        format!("if (a) {{}}\n/'/; {deep}"),
        format!("() => {{}}\n/'/; {deep}"),
        format!("switch (a) {{ case 1: {{}}\n/'/; {deep} }}"),
        format!("for (const x of /'/) {deep}"),
        format!("of / {deep} / 1"),
        format!("do {{}} while (a) /'/; {deep}"),
    ] {
        assert!(depth(&source) >= n, "{source:?}");
    }
    // And contextual words at line ends do not end statements early:
    // `await` chains across lines are one expression.
    assert!(depth(&format!("{}x", "await\n".repeat(n))) >= n);
}

#[test]
fn a_division_is_not_a_regex() {
    // Read as a regex, the second `/` would hide the parentheses.
    let n = 300;
    let source = format!("x = a / {}1{} / b", "(".repeat(n), ")".repeat(n));
    assert!(depth(&source) >= n);
    let source = format!("x = {{}} / {}1{} / b", "(".repeat(n), ")".repeat(n));
    assert!(depth(&source) >= n);
}

#[test]
fn the_limit_names_the_token_that_crossed_it() {
    let source = format!("return {}1{}", "(".repeat(50), ")".repeat(50));
    assert_eq!(
        measure(&source, 10),
        Nesting::TooDeep {
            offset: "return ".len() + 9
        }
    );
    assert!(matches!(measure(&source, 100), Nesting::Within(_)));
}

#[test]
fn hostile_bytes_end_the_scan_cleanly() {
    for source in [
        "\u{2028}(\u{2029})",
        "'unterminated",
        "`${",
        "/unterminated",
        "/* unterminated",
        ")))]]]}}}",
        "\\u0069f (a) x",
        "日本 = 1 + 語",
        "0x1e+1 1e+5 .5 1_000n 1.5e-3.toFixed 1..a 0b1.a",
        "x\\",
        "'\\",
        "`\\",
        "/\\",
        "`${'\\",
    ] {
        let _ = depth(source);
    }
}
