//! Helpers shared by the integration tests: where the golden cases live, how
//! each one renders, and a small deterministic generator of odd schemas.

#![allow(dead_code, reason = "each test crate uses a different part")]

use std::fs;
use std::path::{Path, PathBuf};

use coderun_code_mode::{ToolSignature, render_sdk, schema_to_ts};
use serde_json::{Map, Value, json};

/// `tests/golden`: `NAME.json` inputs and `NAME.d.ts` expected outputs.
pub fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("golden")
}

/// `tests/data/mcp`: `tools/list` results captured from published MCP servers.
pub fn mcp_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("data")
        .join("mcp")
}

/// Files in `dir` whose name ends with `suffix`, sorted by name.
pub fn files_with_suffix(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with(suffix))
        })
        .collect();
    files.sort();
    files
}

/// The file name without `suffix`.
pub fn stem(path: &Path, suffix: &str) -> String {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .expect("UTF-8 file name");
    name.strip_suffix(suffix).expect("suffix").to_owned()
}

pub fn read_json(path: &Path) -> Value {
    let text =
        fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("parsing {}: {e}", path.display()))
}

static NULL: Value = Value::Null;

/// The tools of `{"tools": [...]}`, reading each tool's schemas from the
/// given keys; a missing or `null` output schema means none.
pub fn tools<'a>(doc: &'a Value, input_key: &str, output_key: &str) -> Vec<ToolSignature<'a>> {
    let Some(list) = doc.get("tools").and_then(Value::as_array) else {
        return Vec::new();
    };
    list.iter()
        .map(|tool| ToolSignature {
            name: tool.get("name").and_then(Value::as_str).unwrap_or(""),
            description: tool
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or(""),
            input_schema: tool.get(input_key).unwrap_or(&NULL),
            output_schema: tool.get(output_key).filter(|v| !v.is_null()),
        })
        .collect()
}

/// A golden `.d.ts` for a schema: the rendered type as a complete module.
pub fn schema_file(schema: &Value) -> String {
    format!("type T = {};\nexport {{}};\n", schema_to_ts(schema, 0))
}

/// A golden `.d.ts` for a set of tools: the SDK block as a complete module.
pub fn sdk_file(tools: &[ToolSignature<'_>]) -> String {
    format!("{}\nexport {{}};\n", render_sdk(tools))
}

/// Renders golden case `name` (`sdk_*` cases hold tools, the others a schema).
pub fn render_case(name: &str, input: &Value) -> String {
    if name.starts_with("sdk_") {
        sdk_file(&tools(input, "input_schema", "output_schema"))
    } else {
        schema_file(input)
    }
}

/// Renders one captured MCP `tools/list` result.
pub fn render_mcp(doc: &Value) -> String {
    sdk_file(&tools(doc, "inputSchema", "outputSchema"))
}

/// Whether TypeScript text uses the `any` type: looks for the word outside
/// comments and string literals.
pub fn mentions_any(ts: &str) -> bool {
    let mut code = String::with_capacity(ts.len());
    let mut chars = ts.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'*') => {
                let mut prev = ' ';
                for d in chars.by_ref() {
                    if prev == '*' && d == '/' {
                        break;
                    }
                    prev = d;
                }
                code.push(' ');
            }
            '"' => {
                while let Some(d) = chars.next() {
                    match d {
                        '\\' => {
                            chars.next();
                        }
                        '"' => break,
                        _ => {}
                    }
                }
                code.push(' ');
            }
            _ => code.push(c),
        }
    }
    code.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
        .any(|w| w == "any")
}

/// A small deterministic pseudo-random generator (xorshift64*).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// A permutation of `0..n`.
    pub fn permutation(&mut self, n: usize) -> Vec<usize> {
        let mut order: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            order.swap(i, self.below(i + 1));
        }
        order
    }
}

const KEYS: &[&str] = &[
    "a",
    "b-c",
    "class",
    "x y",
    "",
    "\"q\"",
    "ü",
    "$d",
    "_e",
    "f1",
    "__proto__",
    "constructor",
    "9",
    "line\u{2028}sep",
    "*/",
];
const STRINGS: &[&str] = &[
    "s", "", "quote\"", "nl\n", "*/", "\u{2028}", "\\", "any", "${x}", "`",
];
const TYPES: &[&str] = &[
    "string", "number", "integer", "boolean", "null", "object", "array", "bogus",
];
const REFS: &[&str] = &[
    "#",
    "#/$defs/a",
    "#/$defs/b",
    "#/definitions/c",
    "#/$defs/missing",
    "http://example.com/s.json",
    "#/properties/a",
    "#/%24defs/a",
    "#/$defs/a~1b",
    "#/items/0",
    "#/$defs",
    "#x",
    "#/anyOf/1",
    "not-a-ref",
];

fn random_value(rng: &mut Rng, depth: usize) -> Value {
    match rng.below(if depth == 0 { 4 } else { 6 }) {
        0 => Value::Null,
        1 => json!(rng.below(2) == 0),
        2 => rng
            .pick(&[
                json!(0),
                json!(-3),
                json!(2.5),
                json!(1e300),
                json!(u64::MAX),
                json!(-0.0),
            ])
            .clone(),
        3 => json!(rng.pick(STRINGS)),
        4 => Value::Array(
            (0..rng.below(3))
                .map(|_| random_value(rng, depth - 1))
                .collect(),
        ),
        _ => {
            let mut map = Map::new();
            for _ in 0..rng.below(3) {
                map.insert((*rng.pick(KEYS)).to_owned(), random_value(rng, depth - 1));
            }
            Value::Object(map)
        }
    }
}

fn random_schemas(rng: &mut Rng, depth: usize) -> Value {
    Value::Array(
        (0..rng.below(4))
            .map(|_| random_schema(rng, depth))
            .collect(),
    )
}

/// A random schema, valid or not, using the keywords the renderer reads.
pub fn random_schema(rng: &mut Rng, depth: usize) -> Value {
    if depth == 0 {
        return match rng.below(5) {
            0 => json!(rng.below(2) == 0),
            1 => random_value(rng, 0),
            _ => json!({"type": rng.pick(TYPES)}),
        };
    }
    let mut map = Map::new();
    for _ in 0..=rng.below(3) {
        let (key, value) = match rng.below(22) {
            0 => ("type", json!(rng.pick(TYPES))),
            1 => ("type", json!([rng.pick(TYPES), rng.pick(TYPES)])),
            2 | 3 => {
                let mut props = Map::new();
                for _ in 0..rng.below(4) {
                    props.insert((*rng.pick(KEYS)).to_owned(), random_schema(rng, depth - 1));
                }
                ("properties", Value::Object(props))
            }
            4 => ("required", json!([rng.pick(KEYS), rng.pick(KEYS)])),
            5 => ("additionalProperties", random_schema(rng, depth - 1)),
            6 => ("items", random_schema(rng, depth - 1)),
            7 => ("items", random_schemas(rng, depth - 1)),
            8 => ("prefixItems", random_schemas(rng, depth - 1)),
            9 => ("additionalItems", random_schema(rng, depth - 1)),
            10 => ("anyOf", random_schemas(rng, depth - 1)),
            11 => ("oneOf", random_schemas(rng, depth - 1)),
            12 => ("allOf", random_schemas(rng, depth - 1)),
            13 => (
                "enum",
                Value::Array((0..rng.below(4)).map(|_| random_value(rng, 2)).collect()),
            ),
            14 => ("const", random_value(rng, 2)),
            15 | 16 => ("$ref", json!(rng.pick(REFS))),
            17 => ("nullable", json!(rng.below(3) != 0)),
            18 => ("description", json!(rng.pick(STRINGS))),
            19 => ("minItems", json!(rng.below(3))),
            20 => {
                let mut props = Map::new();
                props.insert("^x".to_owned(), random_schema(rng, depth - 1));
                ("patternProperties", Value::Object(props))
            }
            _ => ("x-unknown", random_value(rng, 1)),
        };
        map.insert(key.to_owned(), value);
    }
    Value::Object(map)
}

/// A random schema document: a random root with random `$defs` and `definitions`.
pub fn random_document(rng: &mut Rng) -> Value {
    let mut root = random_schema(rng, 4);
    if let Value::Object(map) = &mut root {
        map.insert(
            "$defs".to_owned(),
            json!({"a": random_schema(rng, 3), "b": random_schema(rng, 3), "a/b": random_schema(rng, 2)}),
        );
        map.insert(
            "definitions".to_owned(),
            json!({"c": random_schema(rng, 3)}),
        );
    }
    root
}
