//! Finding tools by what they do: the index behind `tools.$search`, and the
//! closest names to a name that is not a tool ("did you mean").
//!
//! The index is BM25 over one bag of words per tool: the words of its name
//! (split at `_`, `-`, `.` and camelCase humps), of its parameters' names,
//! and of its description. Name words count three times and parameter words
//! twice, so a query naming what a tool is called outranks one that only
//! appears in some other tool's prose. Words are lowercased ASCII
//! alphanumerics, with a plural `s` dropped. Ties are broken by name, so the
//! ranking is a pure function of the tools and the query: the same catalog
//! answers the same query identically, every time.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, OnceLock};

use serde_json::Value;

use crate::tool::Tool;

/// How many times a word of a tool's name counts.
const NAME_WEIGHT: u32 = 3;
/// How many times a word of a parameter's name counts.
const PARAMETER_WEIGHT: u32 = 2;
/// BM25's term-frequency saturation.
const K1: f64 = 1.2;
/// BM25's length normalisation.
const B: f64 = 0.75;
/// How many names a "did you mean" offers.
const SUGGESTIONS: usize = 3;
/// The least similarity (0 to 1: one less the edit distance over the
/// longer length) a name needs to be offered for its spelling alone.
const SIMILAR: f64 = 0.7;
/// The longest name (in characters) compared for its spelling: a longer
/// one is no misspelling of a tool's name, and comparing costs its length
/// times each name's. The host does this work outside any run's fuel, so
/// its cost is bounded by these caps, whatever a program or an upstream
/// sends.
const MAX_SPELLED_CHARS: usize = 128;
/// The edit-distance cells (one name's length times another's) one
/// "did you mean" may compute in all; past it, the remaining names go
/// unchecked.
const MAX_SPELLING_CELLS: usize = 2_000_000;
/// The distinct words of a query that count, in the order given.
const MAX_QUERY_WORDS: usize = 32;
/// The longest word indexed or looked up.
const MAX_WORD_BYTES: usize = 64;

/// The search index of a set of tools, by their position in that set.
#[derive(Debug, Clone, Default)]
pub(crate) struct Catalog {
    /// Per tool: its weighted term frequencies and its weighted length.
    docs: Vec<(HashMap<String, u32>, u32)>,
    /// How many tools each word occurs in.
    document_frequency: HashMap<String, u32>,
    average_length: f64,
    names: Vec<String>,
    /// Per tool: its TypeScript signature, rendered once, when `$search`
    /// or `$describe` first shows it.
    signatures: Vec<OnceLock<Arc<str>>>,
}

impl Catalog {
    /// The index of `tools`.
    pub(crate) fn new(tools: &[Tool]) -> Self {
        let mut docs = Vec::with_capacity(tools.len());
        let mut document_frequency: HashMap<String, u32> = HashMap::new();
        let mut total = 0u64;
        for tool in tools {
            let mut terms: HashMap<String, u32> = HashMap::new();
            let mut add = |text: &str, weight: u32| {
                for word in words(text) {
                    *terms.entry(word).or_default() += weight;
                }
            };
            add(tool.name(), NAME_WEIGHT);
            for parameter in parameter_names(tool.input_schema()) {
                add(parameter, PARAMETER_WEIGHT);
            }
            add(tool.description(), 1);
            let length: u32 = terms.values().sum();
            total += u64::from(length);
            for word in terms.keys() {
                *document_frequency.entry(word.clone()).or_default() += 1;
            }
            docs.push((terms, length));
        }
        let average_length = if docs.is_empty() {
            1.0
        } else {
            (total as f64 / docs.len() as f64).max(1.0)
        };
        Self {
            docs,
            document_frequency,
            average_length,
            names: tools.iter().map(|tool| tool.name().to_owned()).collect(),
            signatures: tools.iter().map(|_| OnceLock::new()).collect(),
        }
    }

    /// The signature of `tool`, the catalog's tool at `index`: rendered on
    /// first use, then kept, so that a run asking for it again and again
    /// costs the host a copy, not a rendering of its schemas.
    pub(crate) fn signature(&self, index: usize, tool: &Tool) -> Arc<str> {
        match self.signatures.get(index) {
            Some(cell) => {
                Arc::clone(cell.get_or_init(|| crate::sdk::method_signature(tool).into()))
            }
            None => crate::sdk::method_signature(tool).into(),
        }
    }

    /// The tools matching `query`, best first, at most `limit`: their
    /// positions and scores. A tool matching no word of the query is not
    /// a match. A query that is exactly a tool's name ranks that tool first.
    pub(crate) fn search(&self, query: &str, limit: usize) -> Vec<(usize, f64)> {
        let mut query_words: Vec<String> = Vec::new();
        for word in words(query) {
            if query_words.len() == MAX_QUERY_WORDS {
                break;
            }
            if !query_words.contains(&word) {
                query_words.push(word);
            }
        }
        query_words.retain(|word| self.document_frequency.contains_key(word));
        let n = self.docs.len() as f64;
        let mut scored: Vec<(usize, f64)> = self
            .docs
            .iter()
            .enumerate()
            .filter_map(|(i, (terms, length))| {
                let mut score = 0.0;
                for word in &query_words {
                    let Some(&tf) = terms.get(word) else { continue };
                    let df = f64::from(self.document_frequency.get(word).copied().unwrap_or(0));
                    let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                    let tf = f64::from(tf);
                    let norm = K1 * (1.0 - B + B * f64::from(*length) / self.average_length);
                    score += idf * tf * (K1 + 1.0) / (tf + norm);
                }
                if self.names[i] == query.trim() {
                    score += 1000.0;
                }
                (score > 0.0).then_some((i, score))
            })
            .collect();
        scored.sort_by(|a, b| {
            b.1.total_cmp(&a.1)
                .then_with(|| self.names[a.0].cmp(&self.names[b.0]))
        });
        scored.truncate(limit);
        scored
    }

    /// The names closest to `name`, best first: names spelled alike, then
    /// the best search matches for its words. Empty when nothing is close.
    pub(crate) fn closest(&self, name: &str) -> Vec<&str> {
        let mut similar: Vec<(f64, &str)> = Vec::new();
        let length = name.chars().count();
        let mut cells = 0usize;
        if length <= MAX_SPELLED_CHARS {
            for candidate in &self.names {
                let other = candidate.chars().count();
                // A similarity of SIMILAR needs lengths this close.
                let longer = length.max(other) as f64;
                if other > MAX_SPELLED_CHARS
                    || (length.abs_diff(other) as f64) > (1.0 - SIMILAR) * longer
                {
                    continue;
                }
                cells += length.max(1) * other.max(1);
                if cells > MAX_SPELLING_CELLS {
                    break;
                }
                let similarity = strsim::normalized_damerau_levenshtein(name, candidate);
                if similarity >= SIMILAR {
                    similar.push((similarity, candidate.as_str()));
                }
            }
        }
        similar.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
        let mut out: Vec<&str> = similar.into_iter().map(|(_, name)| name).collect();
        out.truncate(SUGGESTIONS);
        for (i, _) in self.search(name, SUGGESTIONS) {
            if out.len() == SUGGESTIONS {
                break;
            }
            let candidate = self.names[i].as_str();
            if !out.contains(&candidate) {
                out.push(candidate);
            }
        }
        out
    }
}

/// `; did you mean tools.a, tools.b?`, or nothing when no name is close.
pub(crate) fn did_you_mean(closest: &[&str], label: impl Fn(&str) -> String) -> String {
    if closest.is_empty() {
        return String::new();
    }
    let names: Vec<String> = closest.iter().map(|name| label(name)).collect();
    format!("; did you mean {}?", names.join(", "))
}

/// The lowercased words of `text`: runs of ASCII letters and digits, split
/// at camelCase humps, a plural `s` dropped; single characters, and runs
/// longer than [`MAX_WORD_BYTES`] (no word, and each lookup would hash it
/// whole), are skipped.
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut previous_lower = false;
    let mut flush = |current: &mut String| {
        if current.len() > 1 && current.len() <= MAX_WORD_BYTES {
            out.push(stem(std::mem::take(current)));
        } else {
            current.clear();
        }
    };
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            if c.is_ascii_uppercase() && previous_lower {
                flush(&mut current);
            }
            previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
            current.push(c.to_ascii_lowercase());
        } else {
            previous_lower = false;
            flush(&mut current);
        }
    }
    flush(&mut current);
    out.into_iter()
}

/// `files` → `file`, `entries` → `entry`; `class`, `status` and short words
/// stay.
fn stem(word: String) -> String {
    if word.len() > 4
        && let Some(base) = word.strip_suffix("ies")
    {
        return format!("{base}y");
    }
    if word.len() > 3 && word.ends_with('s') && !word.ends_with("ss") && !word.ends_with("us") {
        let mut word = word;
        word.pop();
        return word;
    }
    word
}

/// The property names of an input schema's top level (and of the objects
/// its `anyOf`/`oneOf`/`allOf` members describe), in schema order.
fn parameter_names(schema: &Value) -> Vec<&str> {
    let mut names = BTreeMap::new();
    collect_parameters(schema, &mut names, 0);
    names.into_keys().collect()
}

fn collect_parameters<'a>(schema: &'a Value, names: &mut BTreeMap<&'a str, ()>, depth: usize) {
    if depth > 4 {
        return;
    }
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        for name in properties.keys() {
            names.insert(name, ());
        }
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        for member in schema
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            collect_parameters(member, names, depth + 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::ToolResult;
    use serde_json::json;

    fn tool(name: &str, description: &str, schema: Value) -> Tool {
        Tool::new(name, description, schema, |_, _| async {
            ToolResult::text("")
        })
    }

    fn catalog() -> (Vec<Tool>, Catalog) {
        let tools = vec![
            tool(
                "fs_read_text_file",
                "Read the complete contents of a file as text.",
                json!({"properties": {"path": {}, "head": {}}}),
            ),
            tool(
                "fs_list_directory",
                "Get a listing of all files and directories in a path.",
                json!({"properties": {"path": {}}}),
            ),
            tool(
                "github_create_issue",
                "Create a new issue in a GitHub repository.",
                json!({"properties": {"owner": {}, "repo": {}, "title": {}}}),
            ),
            tool(
                "memory_read_graph",
                "Read the entire knowledge graph.",
                json!({}),
            ),
        ];
        let catalog = Catalog::new(&tools);
        (tools, catalog)
    }

    /// A tool's signature is rendered once: a run asking for it again gets
    /// the kept text, not a new rendering of its schemas.
    #[test]
    fn a_signature_is_rendered_once() {
        let (tools, catalog) = catalog();
        let first = catalog.signature(1, &tools[1]);
        assert!(first.contains("path"), "{first}");
        assert!(Arc::ptr_eq(&first, &catalog.signature(1, &tools[1])));
        assert!(!Arc::ptr_eq(&first, &catalog.signature(2, &tools[2])));
    }

    /// A program (or an upstream) controls the text the host compares
    /// here, outside any run's fuel: a megabyte-long name is not compared
    /// for its spelling at all, a query counts its first 32 distinct words
    /// only, and a typo'd name of ordinary length is still found.
    #[test]
    fn discovery_work_is_bounded_whatever_the_input() {
        let tools: Vec<Tool> = (0..10_000)
            .map(|i| {
                tool(
                    &format!("service_{i:05}_fetch_record"),
                    "Fetch one record.",
                    json!({}),
                )
            })
            .collect();
        let catalog = Catalog::new(&tools);
        let huge = "x".repeat(1 << 20);
        assert!(catalog.closest(&huge).is_empty());
        let many_words: String = (0..150_000).map(|i| format!("w{i} ")).collect();
        let query = format!("{many_words} fetch");
        assert!(
            catalog.search(&query, 5).is_empty(),
            "the 150,001st distinct word does not count"
        );
        let few = Catalog::new(&tools[4000..4500]);
        assert_eq!(
            few.closest("service_04242_fetch_recrod").first(),
            Some(&"service_04242_fetch_record")
        );
    }

    #[test]
    fn words_split_at_separators_and_humps() {
        let got: Vec<String> = words("readTextFile list_directories HTTPServer a").collect();
        assert_eq!(
            got,
            ["read", "text", "file", "list", "directory", "httpserver"]
        );
    }

    #[test]
    fn name_words_outrank_description_words() {
        let (tools, catalog) = catalog();
        let hits = catalog.search("read file", 10);
        assert_eq!(tools[hits[0].0].name(), "fs_read_text_file");
        let hits = catalog.search("create an issue", 2);
        assert_eq!(tools[hits[0].0].name(), "github_create_issue");
        assert!(catalog.search("kubernetes", 5).is_empty());
    }

    #[test]
    fn the_same_query_ranks_the_same_way_in_any_tool_order() {
        let (tools, catalog) = catalog();
        let mut reversed = tools.clone();
        reversed.reverse();
        let other = Catalog::new(&reversed);
        let names = |tools: &[Tool], hits: Vec<(usize, f64)>| -> Vec<String> {
            hits.into_iter()
                .map(|(i, _)| tools[i].name().to_owned())
                .collect()
        };
        assert_eq!(
            names(&tools, catalog.search("read", 10)),
            names(&reversed, other.search("read", 10))
        );
    }

    #[test]
    fn closest_names_come_by_spelling_then_by_words() {
        let (_, catalog) = catalog();
        assert_eq!(catalog.closest("fs_read_text_fiel")[0], "fs_read_text_file");
        assert!(catalog.closest("read_graph").contains(&"memory_read_graph"));
        assert!(catalog.closest("zzz").is_empty());
    }
}
