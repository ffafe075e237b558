//! `$ref`: local references (`#`, `#/$defs/X`, any JSON pointer, with
//! `~0`/`~1` and percent-encoding), resolved against the schema document's
//! root; a cycle, a dangling or a non-local reference renders as `unknown`.

use serde_json::Value;

use super::ty::Ty;
use super::{Ctx, MAX_REF_DEPTH};

impl<'a> Ctx<'a> {
    pub(super) fn render_ref(&mut self, reference: &Value, indent: usize) -> Ty {
        let Some(tokens) = reference.as_str().and_then(parse_local_ref) else {
            return Ty::Unknown;
        };
        if self.expanding.contains(&tokens) || self.expanding.len() > MAX_REF_DEPTH {
            return Ty::Unknown;
        }
        let Some(target) = resolve_pointer(self.root, &tokens) else {
            return Ty::Unknown;
        };
        self.expanding.push(tokens);
        let ty = self.render(target, indent);
        self.expanding.pop();
        ty
    }
}

/// The decoded JSON pointer tokens of a local reference (`#...`), or `None`
/// when the reference is not local or malformed.
pub(super) fn parse_local_ref(reference: &str) -> Option<Vec<String>> {
    let fragment = percent_decode(reference.strip_prefix('#')?)?;
    if fragment.is_empty() {
        return Some(Vec::new());
    }
    fragment
        .strip_prefix('/')?
        .split('/')
        .map(unescape_token)
        .collect()
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Undoes JSON pointer escaping: `~1` is `/`, `~0` is `~`, any other `~` is malformed.
fn unescape_token(token: &str) -> Option<String> {
    let mut out = String::with_capacity(token.len());
    let mut chars = token.chars();
    while let Some(c) = chars.next() {
        if c == '~' {
            match chars.next()? {
                '0' => out.push('~'),
                '1' => out.push('/'),
                _ => return None,
            }
        } else {
            out.push(c);
        }
    }
    Some(out)
}

pub(super) fn resolve_pointer<'v>(root: &'v Value, tokens: &[String]) -> Option<&'v Value> {
    let mut current = root;
    for token in tokens {
        current = match current {
            Value::Object(map) => map.get(token)?,
            Value::Array(items) => {
                let canonical = token == "0" || (!token.starts_with('0') && !token.is_empty());
                if !canonical || !token.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                items.get(token.parse::<usize>().ok()?)?
            }
            _ => return None,
        };
    }
    Some(current)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pointers() {
        assert_eq!(parse_local_ref("#"), Some(vec![]));
        assert_eq!(
            parse_local_ref("#/$defs/a~1b~0c"),
            Some(vec!["$defs".to_owned(), "a/b~c".to_owned()])
        );
        assert_eq!(
            parse_local_ref("#/%24defs/a%20b"),
            Some(vec!["$defs".to_owned(), "a b".to_owned()])
        );
        assert_eq!(parse_local_ref("#/a~2"), None);
        assert_eq!(parse_local_ref("#/a%2"), None);
        assert_eq!(parse_local_ref("#/a%ff"), None);
        assert_eq!(parse_local_ref("other.json#/a"), None);
        assert_eq!(parse_local_ref("#anchor"), None);
        let doc = json!({"a": [10, 11]});
        assert_eq!(
            resolve_pointer(&doc, &["a".to_owned(), "1".to_owned()]),
            Some(&json!(11))
        );
        assert_eq!(
            resolve_pointer(&doc, &["a".to_owned(), "01".to_owned()]),
            None
        );
        assert_eq!(
            resolve_pointer(&doc, &["a".to_owned(), "-1".to_owned()]),
            None
        );
    }
}
