//! How returned values cross the boundary.

use super::*;
use serde_json::json;

#[tokio::test]
async fn json_values_round_trip() {
    let result =
        run("return { s: 'x', n: 1.5, b: true, nil: null, list: [1, [2]], skipped: undefined }")
            .await;
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(json!({"s": "x", "n": 1.5, "b": true, "nil": null, "list": [1, [2]]}))
    );
}

#[tokio::test]
async fn primitive_results_keep_their_json_and_display() {
    for (program, json, display) in [
        ("return 2", json!(2), "2"),
        ("return -2147483648", json!(-2147483648), "-2147483648"),
        ("return 2147483648", json!(2147483648_i64), "2147483648"),
        ("return -0", json!(0), "-0"),
        ("return 0.5", json!(0.5), "0.5"),
        ("return 1e21", json!(1e21), "1e+21"),
        ("return true", json!(true), "true"),
        ("return false", json!(false), "false"),
        ("return null", json!(null), "null"),
    ] {
        let result = run(program).await;
        assert_ok(&result);
        assert_eq!(result.value, Some(json), "{program}");
        assert_eq!(result.value_display.as_deref(), Some(display), "{program}");
    }
}

#[tokio::test]
async fn values_json_cannot_carry_come_back_rendered() {
    let cases = [
        ("return { f: () => 1 }", "{ f: [Function: f] }"),
        ("return 10n", "10n"),
        ("return new Map([['a', 1]])", "Map(1) { 'a' => 1 }"),
        ("return new Set(['x'])", "Set(1) { 'x' }"),
        (
            "const c: any = { k: 1 }; c.c = c; return c",
            "<ref *1> { k: 1, c: [Circular *1] }",
        ),
        ("return Symbol('tag')", "Symbol(tag)"),
    ];
    for (program, rendered) in cases {
        let result = run(program).await;
        assert_ok(&result);
        assert_eq!(result.value, Some(json!(rendered)), "{program}");
    }
}

#[tokio::test]
async fn dates_come_back_as_iso_strings() {
    let result = run("return { at: new Date(Date.UTC(2024, 0, 2, 3, 4, 5)) }").await;
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(json!({"at": "2024-01-02T03:04:05.000Z"}))
    );
}
