//! Console output against Node's: every case of
//! `fixtures/console-node.json` (programs and the lines Node v20 printed
//! for them, recorded) runs in the sandbox and must print the same lines at
//! the same levels. A line whose text depends on the engine (stack frames,
//! durations) is matched by the anchored pattern recorded with it.

use regex::Regex;
use serde_json::Value;

use super::*;

/// Makes the guest's native renderer (src/render/) decline everything, so
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

/// A number, a boolean, `undefined` or a bigint is printed without the
/// inspect context the options make (its text is the same whatever they
/// say): 200 `console.log(i)` cost at most 2.5 times 200 of a string, which
/// prints as it is (about 2.0 times; 3.7 while every number made one). The
/// texts are Node's (the golden cases above cover each kind).
#[tokio::test]
async fn logging_a_number_costs_little_more_than_logging_a_string() {
    let bare = fuel_of("for (let i = 0; i < 200; i++) {} return 1;").await;
    let logged =
        |each: &str| format!("for (let i = 0; i < 200; i++) console.log({each}); return 1;");
    let number = fuel_of(&logged("i")).await - bare;
    let string = fuel_of(&logged("'x'")).await - bare;
    eprintln!("200 numbers logged: {number:.0} fuel; 200 strings: {string:.0}");
    assert!(
        number <= 2.5 * string,
        "numbers {number:.0}, strings {string:.0}"
    );
    let result = run("console.log(-0, 1.5, true, undefined, 10n, null, NaN); return 1;").await;
    assert_ok(&result);
    assert_eq!(result.logs[0].text, "-0 1.5 true undefined 10n null NaN");
}
