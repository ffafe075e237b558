//! Discovery from inside a program: `tools.$search(query, { limit })`,
//! `tools.$describe(name)`, and the rejection of a name that is not a tool
//! with the closest names.
//!
//! The runtime's bindings take one JSON argument and a namespace has only
//! the names it is given, so a one-line preamble adapts the `tools` object
//! before the program runs: it turns the host functions `$search` and
//! `$describe` into the two-parameter and one-parameter forms the SDK
//! declares, and wraps `tools` in a `Proxy` whose unknown names are
//! functions that reject through the host function `$unknown` (which the
//! preamble removes from the object the program sees). The answers are
//! computed here, on the host, from the registry's [`Catalog`].

use serde_json::{Value, json};

use crate::catalog::{Catalog, did_you_mean};
use crate::registry::ToolRegistry;
use crate::sdk::TOOLS_GLOBAL;
use crate::tool::Tool;
use crate::ts_syntax::member_access;

/// The program-side name of the search function.
pub const SEARCH: &str = "$search";
/// The program-side name of the describe function.
pub const DESCRIBE: &str = "$describe";
/// The host function unknown names reject through; not visible to programs.
pub(crate) const UNKNOWN: &str = "$unknown";
/// How many matches `$search` returns without a `limit`.
pub const DEFAULT_SEARCH_LIMIT: usize = 5;
/// The most matches one `$search` returns.
pub const MAX_SEARCH_LIMIT: usize = 50;

/// The preamble every `run_code` program runs after (see the module docs).
/// Every function a program takes from `tools` is wrapped to note where it
/// was called: a rejection's stack is the call site's (minus the wrapper's
/// own frame), so an uncaught tool error names the program's line. `then`
/// and `toJSON` stay absent, so `await tools` and `JSON.stringify` behave
/// as on a plain object.
pub(crate) const PREAMBLE: &str = "{const raw=globalThis.tools;if(raw){\
const search=raw.$search,describe=raw.$describe,unknown=raw.$unknown;delete raw.$unknown;\
const wrapped=new Map();\
const wrap=function(key,fn){let w=wrapped.get(key);if(w===undefined){\
w={[key](...args){const site=new Error();return fn(...args).then(undefined,function(e){\
if(e instanceof Error&&typeof site.stack===\"string\"){const at=site.stack.indexOf(\"\\n\");\
e.stack=at<0?\"\":site.stack.slice(at+1);}throw e;});}}[key];wrapped.set(key,w);}return w;};\
raw.$search=function $search(query,options){return search({query:query,options:options});};\
raw.$describe=function $describe(name){return describe({name:name});};\
globalThis.tools=new Proxy(raw,{get(target,key){\
if(typeof key!==\"string\"||key===\"then\"||key===\"toJSON\")return target[key];\
const fn=target[key];if(typeof fn===\"function\")return wrap(key,fn);if(key in target)return fn;\
return wrap(key,function(){return unknown({name:key});});}});}}";

/// One tool as `$search` and `$describe` give it: the registry's tool at
/// `index`, its signature from the catalog.
fn tool_match(catalog: &Catalog, index: usize, tool: &Tool) -> Value {
    let mut out = json!({
        "name": tool.name(),
        "description": tool.description(),
        "signature": &*catalog.signature(index, tool),
    });
    if let (Some(group), Value::Object(map)) = (tool.get_group(), &mut out) {
        map.insert("group".to_owned(), Value::from(group));
    }
    out
}

/// `tools.$search({query, options})`: the best matches.
pub(crate) fn search(registry: &ToolRegistry, arguments: &Value) -> Result<Value, String> {
    let Some(query) = arguments.get("query").and_then(Value::as_str) else {
        return Err(format!(
            "{} expects a query string as its first argument (got {})",
            member_access(TOOLS_GLOBAL, SEARCH),
            kind(arguments.get("query"))
        ));
    };
    let limit = match arguments.get("options") {
        None | Some(Value::Null) => DEFAULT_SEARCH_LIMIT,
        Some(Value::Object(options)) => match options.get("limit") {
            None | Some(Value::Null) => DEFAULT_SEARCH_LIMIT,
            Some(limit) => match limit.as_u64() {
                Some(n) if n >= 1 => usize::try_from(n)
                    .unwrap_or(MAX_SEARCH_LIMIT)
                    .min(MAX_SEARCH_LIMIT),
                _ => {
                    return Err(format!(
                        "{} options.limit must be a positive integer (got {limit})",
                        member_access(TOOLS_GLOBAL, SEARCH)
                    ));
                }
            },
        },
        Some(other) => {
            return Err(format!(
                "{} expects {{ limit?: number }} as its second argument (got {})",
                member_access(TOOLS_GLOBAL, SEARCH),
                kind(Some(other))
            ));
        }
    };
    let catalog = registry.catalog();
    let tools = registry.tools();
    let matches: Vec<Value> = catalog
        .search(query, limit)
        .into_iter()
        .filter_map(|(i, _)| Some((i, tools.get(i)?)))
        .map(|(i, tool)| tool_match(&catalog, i, tool))
        .collect();
    Ok(Value::Array(matches))
}

/// `tools.$describe({name})`: one tool, or a rejection with the closest
/// names.
pub(crate) fn describe(registry: &ToolRegistry, arguments: &Value) -> Result<Value, String> {
    let Some(name) = arguments.get("name").and_then(Value::as_str) else {
        return Err(format!(
            "{} expects a tool name (got {})",
            member_access(TOOLS_GLOBAL, DESCRIBE),
            kind(arguments.get("name"))
        ));
    };
    match registry.tool_index(name) {
        Some((index, tool)) => Ok(tool_match(&registry.catalog(), index, tool)),
        None => Err(format!(
            "{}: there is no tool named {}{}",
            member_access(TOOLS_GLOBAL, DESCRIBE),
            coderun_runtime::string_literal(name),
            suggestions(registry, name)
        )),
    }
}

/// A call of `tools.<name>` where no tool has that name.
pub(crate) fn unknown(registry: &ToolRegistry, arguments: &Value) -> String {
    let name = arguments
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    format!(
        "{} is not a tool{}",
        member_access(TOOLS_GLOBAL, name),
        suggestions(registry, name)
    )
}

/// `; did you mean tools.a, tools.b?` for `name`, or nothing.
pub(crate) fn suggestions(registry: &ToolRegistry, name: &str) -> String {
    let catalog = registry.catalog();
    did_you_mean(&catalog.closest(name), |name| {
        member_access(TOOLS_GLOBAL, name)
    })
}

fn kind(value: Option<&Value>) -> &'static str {
    match value {
        None | Some(Value::Null) => "nothing",
        Some(Value::Bool(_)) => "a boolean",
        Some(Value::Number(_)) => "a number",
        Some(Value::String(_)) => "a string",
        Some(Value::Array(_)) => "an array",
        Some(Value::Object(_)) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_preamble_is_one_line() {
        assert!(!PREAMBLE.contains(['\n', '\r']));
    }
}
