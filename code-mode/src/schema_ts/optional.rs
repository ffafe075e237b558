//! Whether a tool's argument may be omitted: its input schema plainly
//! accepts `{}` (see `crate::sdk::render_tool`).

use serde_json::Value;

use super::refs::{parse_local_ref, resolve_pointer};
use super::{MAX_NODES, MAX_REF_DEPTH, declared_types};

/// Whether a tool with this input schema is declared with an optional
/// parameter (`args?:`), so that a call without arguments means `{}`.
pub(crate) fn args_are_optional(input_schema: &Value) -> bool {
    accepts_empty_object(input_schema, input_schema)
}

/// Whether `{}` plainly satisfies `schema` (see `crate::sdk::render_tool`); `root`
/// resolves its `$ref`s.
fn accepts_empty_object(root: &Value, schema: &Value) -> bool {
    let mut budget = MAX_NODES;
    accepts_empty_object_within(root, schema, 0, &mut budget)
}

/// [`accepts_empty_object`], visiting at most `budget` more schemas (past it,
/// and past [`MAX_REF_DEPTH`] levels, the answer is no).
fn accepts_empty_object_within(
    root: &Value,
    schema: &Value,
    depth: usize,
    budget: &mut usize,
) -> bool {
    if *budget == 0 {
        return false;
    }
    *budget -= 1;
    let obj = match schema {
        Value::Bool(b) => return *b,
        Value::Object(obj) => obj,
        // Junk renders as `unknown`.
        _ => return true,
    };
    if depth >= MAX_REF_DEPTH || obj.contains_key("enum") || obj.contains_key("const") {
        return false;
    }
    if let Some(types) = declared_types(obj)
        && !types.iter().any(|t| *t == "object" || *t == "?")
    {
        return false;
    }
    let requires_names = match obj.get("required") {
        Some(Value::Array(names)) => names.iter().any(Value::is_string),
        _ => false,
    };
    let requires_by_flag = match obj.get("properties") {
        Some(Value::Object(props)) => props
            .values()
            .any(|p| p.get("required") == Some(&Value::Bool(true))),
        _ => false,
    };
    let min_properties = obj
        .get("minProperties")
        .and_then(Value::as_u64)
        .is_some_and(|n| n > 0);
    if requires_names || requires_by_flag || min_properties {
        return false;
    }
    let mut accepts = |s: &Value| accepts_empty_object_within(root, s, depth + 1, budget);
    // A reference that does not resolve renders as `unknown`.
    if let Some(tokens) = obj
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(parse_local_ref)
        && let Some(target) = resolve_pointer(root, &tokens)
        && !accepts(target)
    {
        return false;
    }
    if let Some(Value::Array(members)) = obj.get("allOf")
        && !members.iter().all(&mut accepts)
    {
        return false;
    }
    for keyword in ["anyOf", "oneOf"] {
        if let Some(Value::Array(members)) = obj.get(keyword)
            && !members.is_empty()
            && !members.iter().any(&mut accepts)
        {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Map, json};

    #[test]
    fn args_optional_rule() {
        let accepts = |schema: Value| accepts_empty_object(&schema, &schema);
        assert!(accepts(json!({"type": "object"})));
        assert!(accepts(json!({"type": "object", "properties": {"a": {}}})));
        assert!(!accepts(json!({"type": "object", "required": ["a"]})));
        assert!(!accepts(
            json!({"type": "object", "allOf": [{"required": ["a"]}]})
        ));
        assert!(!accepts(json!({"type": "string"})));
        assert!(accepts(
            json!({"$ref": "#/$defs/a", "$defs": {"a": {"type": "object"}}})
        ));
        assert!(!accepts(
            json!({"$ref": "#/$defs/a", "$defs": {"a": {"required": ["x"]}}})
        ));
        assert!(
            !accepts(json!({"$ref": "#"})),
            "a cycle is not known to accept"
        );
        assert!(accepts(
            json!({"anyOf": [{"required": ["x"]}, {"type": "object"}]})
        ));
        assert!(!accepts(
            json!({"oneOf": [{"required": ["x"]}, {"required": ["y"]}]})
        ));
        assert!(!accepts(json!(false)));
        assert!(accepts(json!(null)));
    }

    #[test]
    fn args_optional_rule_is_bounded() {
        let mut defs = Map::new();
        // 2^25 paths to the one schema that requires a property.
        for i in 0..25 {
            let next = format!("#/$defs/d{}", i + 1);
            defs.insert(
                format!("d{i}"),
                json!({"anyOf": [{"$ref": next}, {"$ref": next}]}),
            );
        }
        defs.insert("d25".to_owned(), json!({"required": ["x"]}));
        let schema = json!({"$defs": defs, "$ref": "#/$defs/d0"});
        assert!(!accepts_empty_object(&schema, &schema));
    }
}
