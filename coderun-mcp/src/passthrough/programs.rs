//! The upstreams' resources and prompts for programs: the globals
//! `resources` and `prompts` beside `tools`, in every mode, when some
//! upstream offers them.

use std::sync::Arc;

use coderun_code_mode::HostGlobal;
use coderun_runtime::{BindingError, CodeBindingNamespace};
use rmcp::ErrorData;
use rmcp::model::{GetPromptRequestParams, JsonObject, ReadResourceRequestParams};
use serde::Serialize;
use serde_json::{Value, json};

use super::Passthrough;

const RESOURCES_DECLARATIONS: &str = r#"declare const resources: {
  /** Every resource and resource template the servers list. A resource's `uri` is what `$read` takes. */
  $list(): Promise<{
    resources: { uri: string; name: string; title?: string; description?: string; mimeType?: string }[];
    resourceTemplates: { uriTemplate: string; name: string; title?: string; description?: string; mimeType?: string }[];
  }>;
  /** The contents of the resource at `uri` (a listed one, or a template filled in): text as `text`, binary as base64 `blob`. */
  $read(uri: string): Promise<{ uri: string; mimeType?: string; text?: string; blob?: string }[]>;
};
"#;

const RESOURCES_PREAMBLE: &str = "{const g=globalThis.resources;if(g){const list=g.$list,read=g.$read;\
g.$list=function $list(){return list({});};\
g.$read=function $read(uri){return read({uri:uri});};}}";

const PROMPTS_DECLARATIONS: &str = r#"declare const prompts: {
  /** Every prompt the servers offer, with the arguments each takes. */
  $list(): Promise<{ name: string; title?: string; description?: string; arguments?: { name: string; description?: string; required?: boolean }[] }[]>;
  /** The prompt `name` filled in with `args`: its messages, each `{ role, content }`. */
  $get(name: string, args?: Record<string, string>): Promise<{ description?: string; messages: { role: "user" | "assistant"; content: unknown }[] }>;
};
"#;

const PROMPTS_PREAMBLE: &str = "{const g=globalThis.prompts;if(g){const list=g.$list,get=g.$get;\
g.$list=function $list(){return list({});};\
g.$get=function $get(name,args){return get({name:name,arguments:args});};}}";

/// What a program's call resolves with, or why it rejects.
fn answer<T: Serialize>(result: Result<T, ErrorData>) -> Result<Value, BindingError> {
    let value = result.map_err(|error| BindingError::new(error.message.to_string()))?;
    serde_json::to_value(value).map_err(|error| BindingError::new(error.to_string()))
}

fn text_argument<'a>(arguments: &'a Value, key: &str, call: &str) -> Result<&'a str, BindingError> {
    arguments.get(key).and_then(Value::as_str).ok_or_else(|| {
        BindingError::new(format!(
            "{call} takes a string {key} (got {})",
            coderun_runtime::shorten(
                &arguments
                    .get(key)
                    .map_or_else(|| "nothing".to_owned(), Value::to_string),
                64
            )
        ))
    })
}

/// `resources`, if some upstream offers resources.
pub(crate) fn resources(passthrough: &Arc<Passthrough>) -> Option<HostGlobal> {
    if !passthrough.sources.iter().any(super::Source::has_resources) {
        return None;
    }
    let listing = Arc::clone(passthrough);
    let reading = Arc::clone(passthrough);
    let namespace = CodeBindingNamespace::new("resources")
        .function("$list", move |_| {
            let passthrough = Arc::clone(&listing);
            async move {
                let resources = passthrough.list_resources().await;
                let templates = passthrough.list_resource_templates().await;
                let (resources, templates) = (answer(resources)?, answer(templates)?);
                Ok(json!({
                    "resources": resources["resources"],
                    "resourceTemplates": templates["resourceTemplates"],
                }))
            }
        })
        .function("$read", move |arguments| {
            let passthrough = Arc::clone(&reading);
            async move {
                let uri = text_argument(&arguments, "uri", "resources.$read")?.to_owned();
                let read = passthrough
                    .read_resource(ReadResourceRequestParams::new(uri))
                    .await;
                Ok(answer(read)?["contents"].take())
            }
        });
    Some(HostGlobal::new(namespace, RESOURCES_DECLARATIONS).preamble(RESOURCES_PREAMBLE))
}

/// `prompts`, if some upstream offers prompts.
pub(crate) fn prompts(passthrough: &Arc<Passthrough>) -> Option<HostGlobal> {
    if !passthrough.sources.iter().any(super::Source::has_prompts) {
        return None;
    }
    let listing = Arc::clone(passthrough);
    let getting = Arc::clone(passthrough);
    let namespace = CodeBindingNamespace::new("prompts")
        .function("$list", move |_| {
            let passthrough = Arc::clone(&listing);
            async move { Ok(answer(passthrough.list_prompts().await)?["prompts"].take()) }
        })
        .function("$get", move |arguments| {
            let passthrough = Arc::clone(&getting);
            async move {
                let name = text_argument(&arguments, "name", "prompts.$get")?.to_owned();
                let mut params = GetPromptRequestParams::new(name);
                match arguments.get("arguments") {
                    None | Some(Value::Null) => {}
                    Some(Value::Object(given)) => {
                        let mut filled = JsonObject::new();
                        for (key, value) in given {
                            let Value::String(text) = value else {
                                return Err(BindingError::new(format!(
                                    "prompts.$get: the argument {key:?} is not a string; a \
                                     prompt's arguments are strings"
                                )));
                            };
                            filled.insert(key.clone(), Value::String(text.clone()));
                        }
                        params.arguments = Some(filled);
                    }
                    Some(_) => {
                        return Err(BindingError::new(
                            "prompts.$get takes its arguments as an object of strings",
                        ));
                    }
                }
                answer(passthrough.get_prompt(params).await)
            }
        });
    Some(HostGlobal::new(namespace, PROMPTS_DECLARATIONS).preamble(PROMPTS_PREAMBLE))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_preambles_are_one_line() {
        assert!(!RESOURCES_PREAMBLE.contains(['\n', '\r']));
        assert!(!PROMPTS_PREAMBLE.contains(['\n', '\r']));
    }
}
