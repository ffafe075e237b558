//! Console output against Node's: every case of
//! `fixtures/console-node.json` (programs and the lines Node v20 printed
//! for them, recorded) runs in the sandbox and must print the same lines at
//! the same levels. A line whose text depends on the engine (stack frames,
//! durations) is matched by the anchored pattern recorded with it.

use regex::Regex;
use serde_json::Value;

use super::*;

/// Makes the native renderer (render/src/) decline everything, so
/// that every value goes through the JavaScript one: `Array.prototype`
/// gains a `toJSON` that is not a function, which neither JSON nor inspect
/// shows or calls.
pub(crate) const JAVASCRIPT_RENDERER: &str =
    "Object.defineProperty(Array.prototype, 'toJSON', { value: undefined, configurable: true });\n";

#[tokio::test]
async fn console_prints_what_node_prints() {
    console_matches_node("").await;
}

/// The same cases with the native renderer declining: both renderers must
/// print Node's text.
#[tokio::test]
async fn console_prints_what_node_prints_through_the_javascript_renderer() {
    console_matches_node(JAVASCRIPT_RENDERER).await;
}

async fn console_matches_node(prefix: &str) {
    let fixture: Value =
        serde_json::from_str(include_str!("fixtures/console-node.json")).expect("the fixture");
    let cases = fixture["cases"].as_array().expect("cases");
    assert!(cases.len() > 200, "the fixture lost its cases");
    let mut wrong = Vec::new();
    for case in cases {
        let program = case["program"].as_str().expect("a program");
        let result = run(&format!("{prefix}{program}")).await;
        if let Some(error) = &result.error {
            wrong.push(format!("{program}\n  failed: {error}"));
            continue;
        }
        let got: Vec<Value> = result
            .logs
            .iter()
            .map(|line| serde_json::to_value(line).expect("a log line serialises"))
            .collect();
        let expected = case["logs"].as_array().expect("logs");
        let matches = got.len() == expected.len()
            && got.iter().zip(expected).all(|(got, want)| {
                got["level"] == want["level"]
                    && match (&want["text"], want["pattern"].as_str()) {
                        (Value::String(text), _) => got["text"] == *text,
                        (_, Some(pattern)) => Regex::new(pattern)
                            .expect("a valid pattern")
                            .is_match(got["text"].as_str().unwrap_or_default()),
                        _ => false,
                    }
            });
        if !matches {
            wrong.push(format!(
                "{program}\n  node:    {expected:?}\n  coderun: {got:?}"
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} cases differ from Node:\n{}",
        wrong.len(),
        cases.len(),
        wrong.join("\n")
    );
}

/// A line of primitives outside a group is written natively
/// (`render/line.rs`) by `console.log`, a C function
/// (`natives.consoleMethod`): 200 `console.log('x')` cost at most 200
/// calls of an empty function taking the same rest argument (about 0.7;
/// 2.1 while `console.log` was a JavaScript method making an array of its
/// arguments, 5.3 while every line went through `format` and `write` in
/// JavaScript), and 200 `console.log(i)` at most 1.5 times the strings
/// (about 1.0; 2.0 before, 3.7 while every number made an inspect
/// context). The texts are Node's (the golden cases above cover each
/// kind).
#[tokio::test]
async fn logging_primitives_costs_little_more_than_calling_a_function() {
    let each = |body: &str| {
        format!("const f = (...d) => {{}}; for (let i = 0; i < 200; i++) {body}; return 1;")
    };
    let bare = fuel_of(&each("")).await;
    let call = fuel_of(&each("f('x')")).await - bare;
    let string = fuel_of(&each("console.log('x')")).await - bare;
    let number = fuel_of(&each("console.log(i)")).await - bare;
    eprintln!(
        "200 calls: {call:.0} fuel; 200 strings logged: {string:.0}; 200 numbers: {number:.0}"
    );
    assert!(string <= call, "strings {string:.0}, calls {call:.0}");
    assert!(
        number <= 1.5 * string,
        "numbers {number:.0}, strings {string:.0}"
    );
    let result = run("console.log(-0, 1.5, true, undefined, 10n, null, NaN); return 1;").await;
    assert_ok(&result);
    assert_eq!(result.logs[0].text, "-0 1.5 true undefined 10n null NaN");
}

/// `console.log` and its kin are C functions that write a plain line
/// themselves and leave the rest to JavaScript: they keep what Node's
/// methods are (named, of length 0, own enumerable writable properties,
/// not constructors, called without their console), and inside a group
/// every line is indented, the native ones' too, until the last group
/// ends. The lines and the answers are Node's for the same program.
#[tokio::test]
async fn console_methods_are_native_and_keep_nodes_behaviour() {
    let result = run(r#"
        const log = console.log;
        log('unbound', 1);
        console.log.call(null, 'called');
        console.group('g');
        console.log('inside', { a: 1 });
        console.group();
        console.info('deeper', [1, 2]);
        console.groupEnd();
        console.warn('still');
        console.groupEnd();
        console.groupEnd();
        console.log('out', [1]);
        console.error('%s and %d', 'format', 42);
        console.debug();
        let notConstructor = '';
        try { new console.log(); } catch (e) { notConstructor = e.constructor.name; }
        const d = Object.getOwnPropertyDescriptor(console, 'log');
        return [console.log.name, console.log.length, typeof console.log, d.writable,
          d.enumerable, d.configurable, notConstructor, console.error.name,
          console.dirxml.name, console.debug.length];
    "#)
    .await;
    assert_ok(&result);
    let lines: Vec<(String, String)> = result
        .logs
        .iter()
        .map(|line| {
            let line = serde_json::to_value(line).expect("a log line serialises");
            (
                line["level"].as_str().unwrap_or_default().to_owned(),
                line["text"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    let expected = [
        ("log", "unbound 1"),
        ("log", "called"),
        ("log", "g"),
        ("log", "  inside { a: 1 }"),
        ("info", "    deeper [ 1, 2 ]"),
        ("warn", "  still"),
        ("log", "out [ 1 ]"),
        ("error", "format and 42"),
        ("debug", ""),
    ]
    .map(|(level, text)| (level.to_owned(), text.to_owned()));
    assert_eq!(lines, expected);
    assert_eq!(
        result.value,
        Some(serde_json::json!([
            "log",
            0,
            "function",
            true,
            true,
            true,
            "TypeError",
            "error",
            "dirxml",
            0
        ]))
    );
}

/// An array of numbers on a console line is laid out in Node's columns
/// from its numbers' texts, each written once in a loop of their own
/// (`render/numbers.rs`): the benchmark's 10,000 numbers, of which a line
/// shows 100, cost at most 90 units of fuel per byte of the line (about
/// 66; 120 while each number was an entry of the general layout). The
/// text is the JavaScript renderer's.
#[tokio::test]
async fn logging_an_array_of_numbers_formats_each_shown_number_once() {
    let build = "const a = []; for (let i = 0; i < 10000; i++) a.push(i % 7 ? i * 1.5 : i);";
    let built = run(&format!("{build} return a.length;")).await;
    let logged = run(&format!("{build} console.log(a); return a.length;")).await;
    let javascript = run(&format!(
        "{JAVASCRIPT_RENDERER}{build} console.log(a); return a.length;"
    ))
    .await;
    assert_ok(&logged);
    assert_ok(&javascript);
    let text = &logged.logs[0].text;
    assert_eq!(*text, javascript.logs[0].text);
    assert!(text.ends_with(",\n  ... 9900 more items\n]"), "{text}");
    let per_byte = (logged.fuel_consumed - built.fuel_consumed) / text.len() as u64;
    eprintln!("logging numbers: {per_byte} fuel per byte of the line");
    assert!(per_byte <= 90, "logging cost {per_byte} fuel per byte");
}

/// An object on a console line is written in place after the line's
/// text, not in a buffer of its own copied there: a line of an array of
/// ten 100 KB strings (each shown up to Node's 10,000 characters) costs at
/// most 5 units of fuel per byte of the line (about 4.4; 5.5 with the
/// copy).
#[tokio::test]
async fn logging_an_object_writes_it_into_the_line() {
    let build = "const s = 'x'.repeat(100000); const a = [s, s, s, s, s, s, s, s, s, s];";
    let built = run(&format!("{build} return a.length;")).await;
    let logged = run(&format!(
        "{build} console.log('strings:', a); return a.length;"
    ))
    .await;
    assert_ok(&logged);
    let text = &logged.logs[0].text;
    assert!(
        text.starts_with("strings: [\n  'xxxx") && text.ends_with("... 90000 more characters\n]"),
        "{}",
        &text[..40]
    );
    let per_byte = (logged.fuel_consumed - built.fuel_consumed) as f64 / text.len() as f64;
    eprintln!("logging strings: {per_byte:.2} fuel per byte of the line");
    assert!(per_byte <= 5.0, "logging cost {per_byte:.2} fuel per byte");
}

/// The native line and `format` in JavaScript print the same text: each
/// list of arguments is logged outside a group (natively, when it holds
/// only primitives) and inside one (always through `format`, then
/// indented). Strings print as they are (a lone surrogate as U+FFFD, a
/// `%` directive in a first string filled from the rest), numbers as
/// `inspect` writes them.
#[tokio::test]
async fn a_native_console_line_prints_what_format_prints() {
    let result = run(r#"
        const lists = [
          [], ['x'], [''], ['a', 'b'], ['é日本', '😀'], ['\ud800 lone', 'x\udc00'], ['a\nb', 'c'],
          [0, -0, 1.5, -2.25, 1e21, 1e-7, 0.1, 2 ** 53, -(2 ** 31), NaN, Infinity, -Infinity],
          [true, false, null, undefined], ['%d%%', 42, 'x'], ['%s', 'y'], ['100%'], ['a', '%d', 1],
          ['%o'], ['%', 1], [10n, 1], [Symbol('s')], ['x', { a: 1 }], [[1, 2]], ['nul\0x', 3],
          ['\u00ff\u0100', 255],
        ];
        for (const list of lists) console.log(...list);
        console.group();
        for (const list of lists) console.log(...list);
        console.groupEnd();
        return lists.length;
    "#)
    .await;
    assert_ok(&result);
    let count = result
        .value
        .as_ref()
        .and_then(Value::as_u64)
        .expect("a count") as usize;
    let texts: Vec<&str> = result.logs.iter().map(|line| line.text.as_str()).collect();
    assert_eq!(texts.len(), 2 * count, "{texts:?}");
    for (native, formatted) in texts[..count].iter().zip(&texts[count..]) {
        let indented = format!("  {}", native.replace('\n', "\n  "));
        assert_eq!(&indented, formatted);
    }
    assert_eq!(texts[0], "");
    assert_eq!(texts[4], "é日本 😀");
    assert_eq!(texts[5], "\u{fffd} lone x\u{fffd}");
    assert_eq!(
        texts[7],
        "0 -0 1.5 -2.25 1e+21 1e-7 0.1 9007199254740992 -2147483648 NaN Infinity -Infinity"
    );
    assert_eq!(texts[8], "true false null undefined");
    assert_eq!(texts[9], "42% x");
    assert_eq!(texts[12], "a %d 1");
    assert_eq!(texts[19], "nul\0x 3");
}
