//! JSON Schema to TypeScript declarations.
//!
//! [`schema_to_ts`] renders one schema as a TypeScript type expression
//! (`crate::sdk` uses it to declare the tools).
//!
//! The renderer is split the way schema-to-code generators are: this module
//! walks a schema and renders its own keywords; `ty` holds the rendered
//! types and their union and intersection algebra; `refs` resolves `$ref`s;
//! `object` and `array` render those shapes; and `optional` decides whether
//! a tool's argument may be omitted.
//!
//! # Guarantees
//!
//! * **Total.** Every [`serde_json::Value`] renders; nothing panics or fails.
//!   What TypeScript cannot express (patterns, `not`, `if`/`then`, ...) is
//!   dropped, and a schema that constrains nothing we can express becomes
//!   `unknown`. The output never contains `any`.
//! * **Deterministic.** The same input gives byte-identical output: properties
//!   keep the order the schema gives them and tools are sorted by name.
//! * **Valid TypeScript.** The output type-checks under `tsc --strict`.
//! * **Bounded.** A schema is expanded at most [`MAX_DEPTH`] levels deep,
//!   through at most [`MAX_REF_DEPTH`] nested `$ref`s, and at most
//!   [`MAX_NODES`] schema nodes and [`MAX_TEXT_BYTES`] bytes of names,
//!   descriptions and literals per rendering; past any of these the rest
//!   becomes `unknown`. This keeps hostile or recursive schemas (a chain of
//!   definitions that each refer to the next twice, say) from blowing up.
//!
//! # Mapping
//!
//! | JSON Schema | TypeScript |
//! | --- | --- |
//! | `true`, `{}`, junk (`null`, `42`, `"str"`, `[]`) | `unknown` |
//! | `false` | `never` |
//! | `type`: `string`, `number`/`integer`, `boolean`, `null` | `string`, `number`, `boolean`, `null` |
//! | `type: ["string", "null"]` | `string \| null` |
//! | `const`, `enum` | literal (union); values not admitted by a sibling `type` are dropped |
//! | `anyOf`, `oneOf` | union |
//! | `allOf`, `$ref`, and the schema's own keywords side by side | intersection: `A & B & { ... }` |
//! | `nullable: true` (OpenAPI) | `T \| null` |
//! | `items: S` | `S[]` (`(A \| B)[]` where needed) |
//! | `prefixItems`, or array-form `items` | tuple `[A, B]`, `[A, B, ...R[]]` when `items` / `additionalItems` give a rest schema; elements at or past `minItems` (when given) are optional |
//! | `properties` + `required` | object literal; not-required properties get `?` |
//! | `additionalProperties: S`, `patternProperties` | index signature `[key: string]: T` |
//!
//! Objects: a schema with `type: "object"`, or without `type` but with object
//! keywords (`properties`, `required`, `additionalProperties`,
//! `patternProperties`), renders as an object literal. Names listed in
//! `required` but not in `properties` become required members of the type the
//! index signature would give them (`unknown` for an open object).
//!
//! Index signatures: `additionalProperties: false` gives none. An absent (or
//! `true`) `additionalProperties` gives none when the object names any
//! property and `{ [key: string]: unknown }` when it names none. A schema for
//! `additionalProperties` (or `patternProperties`) gives `[key: string]: T`;
//! since TypeScript requires every named property's type to be assignable to
//! the string index type, `T` there is the union of the additional type and
//! every named property's type (plus `undefined` when one is optional), or
//! `unknown` when a named property's type spans several lines (so that large
//! types are not repeated). An object closed with no properties at all is
//! `{ [key: string]: never }`.
//!
//! `$ref`: only local references (`#`, `#/$defs/X`, `#/definitions/X`, any
//! JSON pointer, with `~0`/`~1` and percent-encoding) resolve, against the
//! root of the schema document given to [`schema_to_ts`]. A reference that is
//! already being expanded (a cycle; the root counts as being expanded), a
//! reference to nowhere and a non-local reference all become `unknown`.
//!
//! Property names and tool names that are not identifiers are quoted with JSON
//! escaping (`"my-key"`). An identifier is what the runtime's
//! [`is_identifier`](coderun_runtime::is_identifier) says: a JavaScript
//! `IdentifierName` that is not a reserved word (reserved words are quoted
//! too, `"delete"`, although TypeScript would accept them bare), the one rule
//! that also names bindings in the guest's messages.
//!
//! A `description` becomes a one-line JSDoc comment above its property (or
//! tool): control characters and runs of whitespace collapse to one space and
//! `*/` is written `*\/`. `title`, `default`, `format`, `minimum` and other
//! annotations are not rendered.

mod array;
mod object;
mod optional;
mod refs;
mod ty;

use serde_json::{Map, Value};

use crate::ts_syntax::{property_key, string_literal};

pub(crate) use optional::args_are_optional;
use ty::{Shape, Ty, intersection, union};

/// Deepest nesting of schemas that is expanded; deeper ones become `unknown`.
pub const MAX_DEPTH: usize = 64;
/// Most `$ref`s expanded inside one another; deeper ones become `unknown`.
pub const MAX_REF_DEPTH: usize = 32;
/// Most schema nodes rendered by one [`schema_to_ts`] call; later ones become `unknown`.
pub const MAX_NODES: usize = 20_000;
/// Most bytes of names, descriptions and literals one [`schema_to_ts`] call
/// writes (each counted once, where it is written); past it the schemas not
/// yet rendered become `unknown`.
pub const MAX_TEXT_BYTES: usize = 1 << 20;

/// Renders a TypeScript type expression for one schema; `indent` is the
/// current indentation level (2 spaces per level). Total: never fails.
///
/// The first line of the result is not indented (it continues the line it is
/// placed on); the following lines of a multi-line type are indented from
/// level `indent`, whose closing brace sits at that level. The schema is its
/// own `$ref` resolution scope.
pub fn schema_to_ts(schema: &Value, indent: usize) -> String {
    Ctx::new(schema).render(schema, indent).text()
}

/// The names in a schema's `type`, or `None` when it has no usable `type`.
/// A non-string entry in a `type` array becomes `"?"`, which admits anything.
fn declared_types(obj: &Map<String, Value>) -> Option<Vec<&str>> {
    match obj.get("type")? {
        Value::String(name) => Some(vec![name.as_str()]),
        Value::Array(names) if !names.is_empty() => {
            Some(names.iter().map(|n| n.as_str().unwrap_or("?")).collect())
        }
        _ => None,
    }
}

/// Whether a value is of one of the JSON Schema type names (unknown names admit anything).
fn admits(types: &[&str], value: &Value) -> bool {
    types.iter().any(|t| match *t {
        "string" => value.is_string(),
        "number" => value.is_number(),
        "integer" => {
            value.is_i64() || value.is_u64() || value.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        _ => true,
    })
}

const OBJECT_KEYWORDS: &[&str] = &[
    "properties",
    "required",
    "additionalProperties",
    "patternProperties",
];
const ARRAY_KEYWORDS: &[&str] = &["items", "prefixItems", "additionalItems"];

/// The rendering state for one schema document.
struct Ctx<'a> {
    /// The document root: `$ref`s resolve against it.
    root: &'a Value,
    /// JSON pointers (as decoded tokens) of the references being expanded; the root is first.
    expanding: Vec<Vec<String>>,
    /// Current nesting of `render` calls.
    depth: usize,
    /// Schema nodes rendered so far.
    nodes: usize,
    /// Bytes of names, descriptions and literals written so far.
    text_bytes: usize,
}

impl<'a> Ctx<'a> {
    fn new(root: &'a Value) -> Self {
        Ctx {
            root,
            expanding: vec![Vec::new()],
            depth: 0,
            nodes: 0,
            text_bytes: 0,
        }
    }

    fn render(&mut self, schema: &'a Value, indent: usize) -> Ty {
        self.nodes += 1;
        if self.nodes > MAX_NODES || self.text_bytes > MAX_TEXT_BYTES || self.depth >= MAX_DEPTH {
            return Ty::Unknown;
        }
        self.depth += 1;
        let ty = self.render_schema(schema, indent);
        self.depth -= 1;
        ty
    }

    fn render_schema(&mut self, schema: &'a Value, indent: usize) -> Ty {
        let obj = match schema {
            Value::Bool(true) => return Ty::Unknown,
            Value::Bool(false) => return Ty::Never,
            Value::Object(obj) => obj,
            _ => return Ty::Unknown,
        };
        let mut parts = Vec::new();
        if let Some(reference) = obj.get("$ref") {
            parts.push(self.render_ref(reference, indent));
        }
        if let Some(Value::Array(members)) = obj.get("allOf") {
            for member in members {
                parts.push(self.render(member, indent));
            }
        }
        for keyword in ["anyOf", "oneOf"] {
            if let Some(Value::Array(members)) = obj.get(keyword)
                && !members.is_empty()
            {
                let rendered = members.iter().map(|m| self.render(m, indent)).collect();
                parts.push(union(rendered));
            }
        }
        parts.push(self.render_own(obj, indent));
        let ty = intersection(parts);
        if obj.get("nullable") == Some(&Value::Bool(true)) {
            union(vec![ty, Ty::atom("null")])
        } else {
            ty
        }
    }

    /// The schema's own keywords: `const`, `enum`, `type` (or the type its keywords imply).
    fn render_own(&mut self, obj: &'a Map<String, Value>, indent: usize) -> Ty {
        let types = declared_types(obj);
        let admitted = |v: &Value| types.as_deref().is_none_or(|t| admits(t, v));
        if let Some(value) = obj.get("const") {
            return if admitted(value) {
                self.literal(value)
            } else {
                Ty::Never
            };
        }
        if let Some(Value::Array(values)) = obj.get("enum") {
            let literals = values
                .iter()
                .filter(|v| admitted(v))
                .map(|v| self.literal(v))
                .collect();
            return union(literals);
        }
        let kinds = match types {
            Some(types) => types,
            None => {
                let mut implied = Vec::new();
                if OBJECT_KEYWORDS.iter().any(|k| obj.contains_key(*k)) {
                    implied.push("object");
                }
                if ARRAY_KEYWORDS.iter().any(|k| obj.contains_key(*k)) {
                    implied.push("array");
                }
                if implied.is_empty() {
                    return Ty::Unknown;
                }
                implied
            }
        };
        let rendered = kinds
            .into_iter()
            .map(|kind| match kind {
                "string" => Ty::atom("string"),
                "number" | "integer" => Ty::atom("number"),
                "boolean" => Ty::atom("boolean"),
                "null" => Ty::atom("null"),
                "object" => self.render_object(obj, indent),
                "array" => self.render_array(obj, indent),
                _ => Ty::Unknown,
            })
            .collect();
        union(rendered)
    }

    /// The type whose only value is `value` (structurally, for objects and arrays).
    fn literal(&mut self, value: &Value) -> Ty {
        if self.depth >= MAX_DEPTH || self.text_bytes > MAX_TEXT_BYTES {
            return Ty::Unknown;
        }
        self.depth += 1;
        let ty = match value {
            Value::Null => Ty::atom("null"),
            Value::Bool(b) => Ty::atom(b.to_string()),
            Value::Number(n) => {
                let text = n.to_string();
                let shape = if text.starts_with('-') {
                    Shape::Negative
                } else {
                    Shape::Plain
                };
                Ty::Atom(text, shape)
            }
            Value::String(s) => {
                self.text_bytes += s.len();
                Ty::atom(string_literal(s))
            }
            Value::Array(items) => {
                let items: Vec<String> = items.iter().map(|v| self.literal(v).text()).collect();
                Ty::atom(format!("[{}]", items.join(", ")))
            }
            Value::Object(fields) if fields.is_empty() => {
                Ty::Atom("{ [key: string]: never }".to_owned(), Shape::Object)
            }
            Value::Object(fields) => {
                self.text_bytes += fields.keys().map(String::len).sum::<usize>();
                let fields: Vec<String> = fields
                    .iter()
                    .map(|(k, v)| format!("{}: {}", property_key(k), self.literal(v).text()))
                    .collect();
                Ty::Atom(format!("{{ {} }}", fields.join("; ")), Shape::Object)
            }
        };
        self.depth -= 1;
        ty
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    pub(super) fn ts(schema: Value) -> String {
        schema_to_ts(&schema, 0)
    }

    #[test]
    fn primitives_and_junk() {
        assert_eq!(ts(json!({"type": "string"})), "string");
        assert_eq!(ts(json!({"type": "integer"})), "number");
        assert_eq!(ts(json!({"type": ["string", "null"]})), "string | null");
        assert_eq!(ts(json!({"type": ["number", "integer"]})), "number");
        assert_eq!(ts(json!(true)), "unknown");
        assert_eq!(ts(json!(false)), "never");
        for junk in [
            json!(null),
            json!(42),
            json!("str"),
            json!([]),
            json!({}),
            json!({"frob": 1}),
        ] {
            assert_eq!(ts(junk), "unknown");
        }
    }

    #[test]
    fn refs_spelled_differently_are_one_cycle() {
        let schema = json!({
            "$defs": {"n": {"type": "object", "properties": {"next": {"$ref": "#/%24defs/n"}}}},
            "$ref": "#/$defs/n"
        });
        assert_eq!(ts(schema), "{\n  next?: unknown;\n}");
    }

    #[test]
    fn programmatically_deep_schema_is_cut_off() {
        let mut schema = json!({"type": "string"});
        for _ in 0..1000 {
            // Not `json!`, which would copy the whole value at every level.
            let mut level = Map::new();
            level.insert("type".to_owned(), json!("array"));
            level.insert("items".to_owned(), schema);
            schema = Value::Object(level);
        }
        let out = ts(schema);
        assert_eq!(out, format!("unknown{}", "[]".repeat(MAX_DEPTH)));
    }

    #[test]
    fn exponential_refs_are_bounded() {
        let mut defs = Map::new();
        for i in 0..40 {
            defs.insert(
                format!("d{i}"),
                json!({"type": "object", "properties": {
                    "l": {"$ref": format!("#/$defs/d{}", i + 1)},
                    "r": {"$ref": format!("#/$defs/d{}", i + 1)},
                }}),
            );
        }
        let schema = json!({"$defs": defs, "$ref": "#/$defs/d0"});
        let out = ts(schema);
        assert!(out.len() < 10_000_000, "{}", out.len());
        assert!(out.contains("unknown"));
    }

    #[test]
    fn large_text_through_refs_is_bounded() {
        let big = "word ".repeat(20_000);
        let mut properties = Map::new();
        for i in 0..2_000 {
            properties.insert(format!("p{i}"), json!({"$ref": "#/$defs/big"}));
        }
        let schema = json!({
            "$defs": {"big": {"type": "object", "properties": {"x": {"description": big, "enum": [big]}}}},
            "type": "object",
            "properties": properties
        });
        let out = ts(schema);
        assert!(out.len() < 8 * MAX_TEXT_BYTES, "{}", out.len());
        assert!(out.contains("p1999?: unknown;"));
    }
}
