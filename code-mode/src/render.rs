//! A compact, Node-like rendering of a program's returned value, as the
//! model reads it in `run_code`'s result.
//!
//! It follows `util.inspect` on one line: `{ a: 1, 'b-c': [ 1, 2 ] }`,
//! strings in single quotes (double or back quotes when that avoids
//! escaping), keys bare when they are identifiers. Unlike Node it never
//! elides nesting (`[Object]`) and never breaks lines.

use serde_json::{Number, Value};

/// Renders a returned value: a string as-is, anything else as `util.inspect`
/// would print it on one line.
pub fn render_value(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => {
            let mut out = String::new();
            inspect(other, &mut out);
            out
        }
    }
}

fn inspect(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&number(n)),
        Value::String(s) => quote(s, out),
        Value::Array(items) if items.is_empty() => out.push_str("[]"),
        Value::Array(items) => {
            out.push_str("[ ");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                inspect(item, out);
            }
            out.push_str(" ]");
        }
        Value::Object(map) if map.is_empty() => out.push_str("{}"),
        Value::Object(map) => {
            out.push_str("{ ");
            for (i, (key, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                if is_plain_key(key) {
                    out.push_str(key);
                } else {
                    quote(key, out);
                }
                out.push_str(": ");
                inspect(item, out);
            }
            out.push_str(" }");
        }
    }
}

/// Integral floats print without a fraction, as JavaScript prints them.
fn number(n: &Number) -> String {
    match n.as_f64() {
        Some(f) if n.is_f64() && f.fract() == 0.0 && f.abs() < 1e15 => format!("{f:.0}"),
        _ => n.to_string(),
    }
}

/// Node's rule for bare keys: `/^[a-zA-Z_][a-zA-Z_0-9]*$/`.
fn is_plain_key(key: &str) -> bool {
    let mut bytes = key.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// A string literal as Node quotes it: `'` unless the text contains one,
/// then `"`, then `` ` ``, and `'` with escaping when it contains all three.
fn quote(s: &str, out: &mut String) {
    let quote = ['\'', '"', '`']
        .into_iter()
        .find(|q| !s.contains(*q))
        .unwrap_or('\'');
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\u{b}' => out.push_str("\\v"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() && (c as u32) < 0x100 => {
                out.push_str(&format!("\\x{:02X}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push(quote);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strings_at_the_top_are_as_is() {
        assert_eq!(render_value(&json!("hello\nworld")), "hello\nworld");
    }

    #[test]
    fn objects_and_arrays_render_like_node() {
        assert_eq!(
            render_value(&json!({"a": 1, "b": [1, 2]})),
            "{ a: 1, b: [ 1, 2 ] }"
        );
        assert_eq!(
            render_value(&json!({"my-key": "it's", "$x": null, "n": {}, "e": []})),
            "{ 'my-key': \"it's\", '$x': null, n: {}, e: [] }"
        );
        assert_eq!(
            render_value(&json!([true, 1.5, "a\tb"])),
            "[ true, 1.5, 'a\\tb' ]"
        );
    }

    #[test]
    fn integral_floats_print_without_a_fraction() {
        assert_eq!(render_value(&json!(3.0)), "3");
        assert_eq!(render_value(&json!(-0.25)), "-0.25");
    }

    #[test]
    fn strings_with_every_quote_are_escaped() {
        assert_eq!(render_value(&json!(["'\"`\u{1b}"])), "[ '\\'\"`\\x1B' ]");
    }
}
