//! JSON Schema to TypeScript declarations.
//!
//! [`schema_to_ts`] renders one schema as a TypeScript type expression and
//! [`render_sdk`] renders the `declare const tools: { ... };` block that shows
//! a set of tools to the model as methods.
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
//! escaping (`"my-key"`). An identifier here is ASCII
//! `[A-Za-z_$][A-Za-z0-9_$]*` that is not a JavaScript reserved word; reserved
//! words are quoted too (`"delete"`), although TypeScript would accept them
//! bare, so that one rule decides quoting everywhere.
//!
//! A `description` becomes a one-line JSDoc comment above its property (or
//! tool): control characters and runs of whitespace collapse to one space and
//! `*/` is written `*\/`. `title`, `default`, `format`, `minimum` and other
//! annotations are not rendered.

use std::collections::HashSet;

use serde_json::{Map, Value};

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

/// One level of indentation.
const INDENT: &str = "  ";

/// One tool as the SDK shows it.
#[derive(Debug, Clone, Copy)]
pub struct ToolSignature<'a> {
    /// The tool's name: the method name on `tools` (quoted when it is not an identifier).
    pub name: &'a str,
    /// What the tool does; shown as a one-line JSDoc comment above the method.
    pub description: &'a str,
    /// JSON Schema of the tool's arguments object.
    pub input_schema: &'a Value,
    /// JSON Schema of the tool's structured result, if it declares one.
    pub output_schema: Option<&'a Value>,
}

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

/// Renders the full SDK declaration block for a set of tools:
/// `declare const tools: {\n  /** desc */\n  name(args: {...}): Promise<Out>;\n ...\n};`
///
/// Tools are sorted by name (byte order; equal names by their rendering), so
/// input order never changes the output. Tools without an output schema
/// resolve to `Promise<string>` (the tool's text); tools with one get the
/// typed result. The result has no trailing newline.
pub fn render_sdk(tools: &[ToolSignature<'_>]) -> String {
    let mut methods: Vec<(&str, String)> = tools.iter().map(|t| (t.name, render_tool(t))).collect();
    methods.sort();
    let mut out = String::from("declare const tools: {\n");
    for (_, method) in &methods {
        out.push_str(method);
        out.push('\n');
    }
    out.push_str("};");
    out
}

/// Renders one tool as a method signature inside the `tools` type (at
/// indentation level 1), with its JSDoc line if it has a description; no
/// trailing newline.
///
/// The parameter is `args: T`, with `T` the input schema's type. It is
/// optional (`args?: T`) when the input schema plainly accepts `{}`: it is
/// `true`, junk that renders as `unknown`, or an object schema (`type` absent
/// or including `"object"`) with no `enum` or `const`, whose `required` names
/// nothing and whose `minProperties` is 0 or absent, whose local `$ref` and
/// every `allOf` member qualify too, and of whose `anyOf` and `oneOf` at least
/// one member qualifies. So a tool with no properties, or with only optional
/// ones, can be called as `tools.name()`; a host calling a tool whose `args`
/// were omitted passes `{}`.
pub fn render_tool(tool: &ToolSignature<'_>) -> String {
    let mut out = String::new();
    if let Some(doc) = jsdoc(tool.description) {
        out.push_str(INDENT);
        out.push_str(&doc);
        out.push('\n');
    }
    let args = schema_to_ts(tool.input_schema, 1);
    let optional = if args_are_optional(tool.input_schema) {
        "?"
    } else {
        ""
    };
    let result = tool
        .output_schema
        .map_or_else(|| "string".to_owned(), |s| schema_to_ts(s, 1));
    out.push_str(INDENT);
    out.push_str(&property_key(tool.name));
    out.push_str("(args");
    out.push_str(optional);
    out.push_str(": ");
    out.push_str(&args);
    out.push_str("): Promise<");
    out.push_str(&result);
    out.push_str(">;");
    out
}

/// Whether `name` can be written bare as a property key or method name:
/// ASCII `[A-Za-z_$][A-Za-z0-9_$]*` and not a JavaScript reserved word.
pub fn is_identifier(name: &str) -> bool {
    let mut bytes = name.bytes();
    let starts_well = bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_' || b == b'$');
    starts_well
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$')
        && !runtime_host::is_reserved_word(name)
}

/// A property key: bare when it is an identifier, otherwise a string literal.
fn property_key(name: &str) -> String {
    if is_identifier(name) {
        name.to_owned()
    } else {
        string_literal(name)
    }
}

/// A TypeScript string literal with JSON escaping (plus U+2028 and U+2029,
/// which older parsers do not accept raw inside strings).
fn string_literal(s: &str) -> String {
    // `Display` for `Value` writes into a `String`, which cannot fail.
    Value::String(s.to_owned())
        .to_string()
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

/// A one-line JSDoc comment, or `None` for an empty description.
fn jsdoc(description: &str) -> Option<String> {
    let cleaned: String = description
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let words: Vec<&str> = cleaned.split_whitespace().collect();
    if words.is_empty() {
        return None;
    }
    Some(format!("/** {} */", words.join(" ").replace("*/", "*\\/")))
}

fn indentation(level: usize) -> String {
    INDENT.repeat(level)
}

/// A rendered type, kept structured so unions and intersections can be
/// flattened, simplified and parenthesised correctly.
#[derive(Clone, Debug)]
enum Ty {
    /// `unknown`: anything.
    Unknown,
    /// `never`: nothing.
    Never,
    /// A type that needs no parentheses as a union or intersection member.
    Atom(String, Shape),
    /// `A | B`, at least two members, none of them a union, `unknown` or `never`.
    Union(Vec<Ty>),
    /// `A & B`, at least two members, none of them an intersection, `unknown` or `never`.
    Inter(Vec<Ty>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    /// Keywords, literals, arrays, tuples.
    Plain,
    /// A negative number literal: parenthesised before `[]` and `?`.
    Negative,
    /// An object literal type.
    Object,
    /// `{ [key: string]: unknown }`: any object; redundant beside another object type.
    OpenObject,
}

impl Ty {
    fn atom(text: impl Into<String>) -> Ty {
        Ty::Atom(text.into(), Shape::Plain)
    }

    fn text(&self) -> String {
        match self {
            Ty::Unknown => "unknown".to_owned(),
            Ty::Never => "never".to_owned(),
            Ty::Atom(text, _) => text.clone(),
            Ty::Union(members) => members.iter().map(Ty::text).collect::<Vec<_>>().join(" | "),
            Ty::Inter(members) => members
                .iter()
                .map(|m| match m {
                    Ty::Union(_) => format!("({})", m.text()),
                    _ => m.text(),
                })
                .collect::<Vec<_>>()
                .join(" & "),
        }
    }

    /// The text to put before a postfix `[]` or `?`.
    fn postfix_text(&self) -> String {
        match self {
            Ty::Unknown
            | Ty::Never
            | Ty::Atom(_, Shape::Plain | Shape::Object | Shape::OpenObject) => self.text(),
            _ => format!("({})", self.text()),
        }
    }

    /// Whether every value of this type is an object (of our object literal kinds).
    fn is_objectish(&self) -> bool {
        match self {
            Ty::Atom(_, shape) => matches!(shape, Shape::Object | Shape::OpenObject),
            Ty::Union(members) => members.iter().all(Ty::is_objectish),
            Ty::Inter(members) => members.iter().any(Ty::is_objectish),
            Ty::Unknown | Ty::Never => false,
        }
    }

    fn is_open_object(&self) -> bool {
        matches!(self, Ty::Atom(_, Shape::OpenObject))
    }
}

/// `A | B | ...`, flattened, with duplicates and `never` dropped; `unknown`
/// absorbs everything.
fn union(members: Vec<Ty>) -> Ty {
    let mut flat: Vec<Ty> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    let mut stack: Vec<Ty> = members.into_iter().rev().collect();
    while let Some(member) = stack.pop() {
        match member {
            Ty::Unknown => return Ty::Unknown,
            Ty::Never => {}
            Ty::Union(inner) => stack.extend(inner.into_iter().rev()),
            other => {
                if seen.insert(other.text()) {
                    flat.push(other);
                }
            }
        }
    }
    match flat.len() {
        0 => Ty::Never,
        1 => flat.pop().unwrap_or(Ty::Never),
        _ => Ty::Union(flat),
    }
}

/// `A & B & ...`, flattened, with duplicates and `unknown` dropped; `never`
/// absorbs everything. `{ [key: string]: unknown }` is dropped beside
/// another object type.
fn intersection(parts: Vec<Ty>) -> Ty {
    let mut flat: Vec<Ty> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    let mut stack: Vec<Ty> = parts.into_iter().rev().collect();
    while let Some(part) = stack.pop() {
        match part {
            Ty::Never => return Ty::Never,
            Ty::Unknown => {}
            Ty::Inter(inner) => stack.extend(inner.into_iter().rev()),
            other => {
                if seen.insert(other.text()) {
                    flat.push(other);
                }
            }
        }
    }
    if flat.iter().any(|t| t.is_objectish() && !t.is_open_object()) {
        flat.retain(|t| !t.is_open_object());
    }
    match flat.len() {
        0 => Ty::Unknown,
        1 => flat.pop().unwrap_or(Ty::Unknown),
        _ => Ty::Inter(flat),
    }
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

    fn render_ref(&mut self, reference: &Value, indent: usize) -> Ty {
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

    fn render_object(&mut self, obj: &'a Map<String, Value>, indent: usize) -> Ty {
        let inner = indent + 1;
        let mut required: Vec<&'a str> = Vec::new();
        if let Some(Value::Array(names)) = obj.get("required") {
            for name in names.iter().filter_map(Value::as_str) {
                if !required.contains(&name) {
                    required.push(name);
                }
            }
        }

        // What keys other than the named properties may hold.
        let patterns: Vec<Ty> = match obj.get("patternProperties") {
            Some(Value::Object(patterns)) => {
                patterns.values().map(|s| self.render(s, inner)).collect()
            }
            _ => Vec::new(),
        };
        enum Rest {
            Open,
            Closed,
            Typed(Ty),
        }
        let rest = match obj.get("additionalProperties") {
            Some(Value::Bool(false)) => Rest::Closed,
            Some(schema @ Value::Object(_)) => Rest::Typed(self.render(schema, inner)),
            _ => Rest::Open,
        };
        let undeclared = match &rest {
            Rest::Open => Ty::Unknown,
            Rest::Closed => union(patterns.clone()),
            Rest::Typed(ty) => union(
                std::iter::once(ty.clone())
                    .chain(patterns.iter().cloned())
                    .collect(),
            ),
        };

        struct Member {
            doc: Option<String>,
            key: String,
            optional: bool,
            ty: Ty,
        }
        let mut members: Vec<Member> = Vec::new();
        if let Some(Value::Object(properties)) = obj.get("properties") {
            for (name, schema) in properties {
                let optional = !(required.contains(&name.as_str())
                    || schema.get("required") == Some(&Value::Bool(true)));
                let doc = schema
                    .get("description")
                    .and_then(Value::as_str)
                    .and_then(jsdoc);
                let key = property_key(name);
                self.text_bytes += key.len() + doc.as_ref().map_or(0, String::len);
                members.push(Member {
                    doc,
                    key,
                    optional,
                    ty: self.render(schema, inner),
                });
            }
        }
        for name in required {
            let declared =
                matches!(obj.get("properties"), Some(Value::Object(p)) if p.contains_key(name));
            if !declared {
                self.text_bytes += name.len();
                members.push(Member {
                    doc: None,
                    key: property_key(name),
                    optional: false,
                    ty: undeclared.clone(),
                });
            }
        }

        let index = match rest {
            Rest::Open => members.is_empty().then_some(Ty::Unknown),
            Rest::Closed => (!patterns.is_empty()).then(|| union(patterns)),
            Rest::Typed(ty) => Some(union(std::iter::once(ty).chain(patterns).collect())),
        };
        // Named properties must be assignable to the index signature's type.
        let index = index.map(|base| {
            if members.is_empty() {
                base
            } else if members.iter().any(|m| m.ty.text().contains('\n')) {
                Ty::Unknown
            } else {
                let mut all = vec![base];
                all.extend(members.iter().map(|m| m.ty.clone()));
                if members.iter().any(|m| m.optional) {
                    all.push(Ty::atom("undefined"));
                }
                union(all)
            }
        });

        if members.is_empty() {
            let (value, shape) = match &index {
                None => ("never".to_owned(), Shape::Object),
                Some(Ty::Unknown) => ("unknown".to_owned(), Shape::OpenObject),
                Some(ty) => (ty.text(), Shape::Object),
            };
            if !value.contains('\n') {
                return Ty::Atom(format!("{{ [key: string]: {value} }}"), shape);
            }
        }

        let pad = indentation(inner);
        let mut text = String::from("{\n");
        for member in &members {
            if let Some(doc) = &member.doc {
                text.push_str(&pad);
                text.push_str(doc);
                text.push('\n');
            }
            text.push_str(&pad);
            text.push_str(&member.key);
            if member.optional {
                text.push('?');
            }
            text.push_str(": ");
            text.push_str(&member.ty.text());
            text.push_str(";\n");
        }
        if let Some(ty) = &index {
            text.push_str(&pad);
            text.push_str("[key: string]: ");
            text.push_str(&ty.text());
            text.push_str(";\n");
        }
        text.push_str(&indentation(indent));
        text.push('}');
        Ty::Atom(text, Shape::Object)
    }

    fn render_array(&mut self, obj: &'a Map<String, Value>, indent: usize) -> Ty {
        let (prefix, rest) = match (obj.get("prefixItems"), obj.get("items")) {
            (Some(Value::Array(prefix)), rest) => (prefix, rest),
            (_, Some(Value::Array(prefix))) => (prefix, obj.get("additionalItems")),
            (_, items) => {
                return match items {
                    Some(Value::Bool(false)) => Ty::atom("[]"),
                    Some(schema @ Value::Object(_)) => {
                        let element = self.render(schema, indent);
                        Ty::atom(format!("{}[]", element.postfix_text()))
                    }
                    _ => Ty::atom("unknown[]"),
                };
            }
        };
        let min_items = obj.get("minItems").and_then(Value::as_u64);
        let mut elements: Vec<String> = Vec::new();
        for (i, schema) in prefix.iter().enumerate() {
            let ty = self.render(schema, indent);
            let optional = min_items.is_some_and(|min| (i as u64) >= min);
            elements.push(if optional {
                format!("{}?", ty.postfix_text())
            } else {
                ty.text()
            });
        }
        let rest = match rest {
            Some(Value::Bool(true)) => Some(Ty::Unknown),
            Some(schema @ Value::Object(_)) => Some(self.render(schema, indent)),
            _ => None,
        };
        if let Some(rest) = rest {
            elements.push(format!("...{}[]", rest.postfix_text()));
        }
        Ty::atom(format!("[{}]", elements.join(", ")))
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

/// The decoded JSON pointer tokens of a local reference (`#...`), or `None`
/// when the reference is not local or malformed.
fn parse_local_ref(reference: &str) -> Option<Vec<String>> {
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

fn resolve_pointer<'v>(root: &'v Value, tokens: &[String]) -> Option<&'v Value> {
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

/// Whether a tool with this input schema is declared with an optional
/// parameter (`args?:`), so that a call without arguments means `{}`.
pub(crate) fn args_are_optional(input_schema: &Value) -> bool {
    accepts_empty_object(input_schema, input_schema)
}

/// Whether `{}` plainly satisfies `schema` (see [`render_tool`]); `root`
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
    use serde_json::json;

    fn ts(schema: Value) -> String {
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
    fn identifiers() {
        assert!(is_identifier("path"));
        assert!(is_identifier("_x$1"));
        assert!(!is_identifier(""));
        assert!(!is_identifier("1a"));
        assert!(!is_identifier("my-tool"));
        assert!(!is_identifier("café"));
        assert!(!is_identifier("delete"));
        assert_eq!(property_key("my-key"), "\"my-key\"");
        assert_eq!(property_key("a\"b"), "\"a\\\"b\"");
        assert_eq!(property_key("l\u{2028}s"), "\"l\\u2028s\"");
    }

    #[test]
    fn jsdoc_is_one_escaped_line() {
        assert_eq!(
            jsdoc("  a\n\tb  */ c\u{0}d "),
            Some("/** a b *\\/ c d */".to_owned())
        );
        assert_eq!(jsdoc(" \n "), None);
    }

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

    #[test]
    fn sdk_sorts_and_quotes() {
        let schema =
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]});
        let tools = [
            ToolSignature {
                name: "zeta",
                description: "",
                input_schema: &schema,
                output_schema: None,
            },
            ToolSignature {
                name: "my-tool",
                description: "Does\nthings",
                input_schema: &schema,
                output_schema: None,
            },
        ];
        let out = render_sdk(&tools);
        assert_eq!(
            out,
            "declare const tools: {\n  /** Does things */\n  \"my-tool\"(args: {\n    a: string;\n  }): Promise<string>;\n  zeta(args: {\n    a: string;\n  }): Promise<string>;\n};"
        );
        let reversed = [tools[1], tools[0]];
        assert_eq!(render_sdk(&reversed), out);
    }
}
