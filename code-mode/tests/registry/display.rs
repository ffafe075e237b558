//! One renderer: the value line of `run_code`'s result is the guest's
//! rendering, the same text `console.log` prints for the value.

use crate::{code_registry, run_code};

/// Expressions whose rendering exercises each rule of the renderer: quote
/// style and escapes, which keys are bare, numbers, line breaking, nested
/// and lossy values. Each is within console.log's elision limits (depth 2,
/// 100 items), so both renderings show all of it.
const VALUES: &[&str] = &[
    "42",
    "-0",
    "NaN",
    "1e21",
    "'plain text'",
    "['it\\'s', 'say \"hi\"', 'tab\\there', 'nul\\u0000', 'line\\nbreak', '\\u007f']",
    "{ a: 1, $dollar: 2, _under: 3, 'délai': 4, 'kebab-key': 5, '1': 6, delete: 7, '': 8 }",
    "[1, 'two', null, undefined, true, [3, [4]]]",
    "{ nested: { deeper: { deepest: 1 } } }",
    "{ first: 'a fairly long string value', second: 'another long string value', third: 3 }",
    "new Map([['k', { v: 1 }], [2, 'two']])",
    "new Set([1, 'a', [2]])",
    "10n",
    "[Symbol('s'), function named() {}, () => 1, class Widget {}]",
    "new Date(0)",
    "/ab+c/gi",
    "Object.assign(Object.create(null), { bare: true })",
    "new (class Point { constructor() { this.x = 1; this.y = 2; } })()",
    "(() => { const o = { name: 'loop' }; o.self = o; return o; })()",
    "[1, , 3]",
    "new Uint8Array([1, 2, 3])",
    "Array.from({ length: 100 }, (_, i) => i)",
    "'\\ud83d lone surrogate'",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_value_line_is_what_console_log_prints() {
    let (registry, _) = code_registry([]);
    for expression in VALUES {
        let program = format!("const v = ({expression});\nconsole.log(v);\nreturn v;");
        let result = run_code(&registry, &program).await;
        assert!(!result.is_error, "{expression}: {}", result.text_content());
        let structured = result.structured.as_ref().expect("a structured result");
        let logs = structured["logs"].as_array().expect("logs");
        assert_eq!(logs.len(), 1, "{expression}: {structured}");
        let printed = logs[0]["text"].as_str().expect("a log line's text");
        assert_eq!(
            result.text_content(),
            format!("{printed}\n{printed}"),
            "{expression}: the value line differs from console.log's"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_value_line_shows_what_console_log_elides() {
    let (registry, _) = code_registry([]);
    let program = "const v = { a: { b: { c: { d: 'deep' } } }, list: Array.from({ length: 101 }, (_, i) => i) };\n\
                   console.log(v);\nreturn v;";
    let result = run_code(&registry, program).await;
    let text = result.text_content();
    let (printed, value_line) = text.split_once("\n}\n").expect("two renderings");
    assert!(printed.contains("c: [Object]"), "{printed}");
    assert!(printed.contains("... 1 more item"), "{printed}");
    assert!(value_line.contains("d: 'deep'"), "{value_line}");
    assert!(value_line.contains("100"), "{value_line}");
    assert!(!value_line.contains("more item"), "{value_line}");
}
