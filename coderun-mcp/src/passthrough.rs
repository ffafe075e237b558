//! Mode both (and native): an upstream's resources, resource templates,
//! resource subscriptions, prompts and completions, offered to the client
//! as the upstream offers them, its prompts' names prefixed `<server>_` when
//! its tools' are. Resource URIs are the upstream's own.
//!
//! Listings are asked of every upstream that declared the capability when
//! the client asks, each within the gateway's listing caps (pages and
//! items), and merged in one page. A read, a subscription or a completion
//! goes to the upstream whose listing had the URI (or a template whose
//! fixed parts match it); failing that, to the only upstream with
//! resources, or to each in turn until one answers. A prompt goes to the
//! upstream whose prefix its name carries.
//!
//! An upstream's `notifications/resources/updated` reaches the clients
//! that subscribed to the URI through coderun (see relay.rs).
#![allow(
    deprecated,
    reason = "rmcp marks resources/subscribe legacy after MCP 2025-11-25; clients on \
              2025-11-25 use it"
)]

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{
    CompleteRequestParams, CompleteResult, GetPromptRequestParams, GetPromptResult,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, PaginatedRequestParams,
    Prompt, PromptsCapability, ReadResourceRequestParams, ReadResourceResult, Reference, Resource,
    ResourceTemplate, ResourcesCapability, ServerCapabilities, SubscribeRequestParams,
    UnsubscribeRequestParams,
};
use rmcp::{ErrorData, Peer, RoleClient, RoleServer, ServiceError};

use crate::relay::Relay;
use crate::upstream::ListingCaps;

mod programs;

pub(crate) use programs::{prompts as prompts_global, resources as resources_global};

/// One upstream, as the passthrough sees it.
#[derive(Clone)]
pub(crate) struct Source {
    /// Its name.
    pub name: String,
    /// The prefix of its tools' (and prompts') names, if they have one.
    pub prefix: Option<String>,
    /// The connection.
    pub peer: Peer<RoleClient>,
    /// What it declared.
    pub capabilities: ServerCapabilities,
}

impl Source {
    pub(crate) fn has_resources(&self) -> bool {
        self.capabilities.resources.is_some()
    }

    pub(crate) fn has_prompts(&self) -> bool {
        self.capabilities.prompts.is_some()
    }

    /// The name a client sees for this upstream's prompt `name`.
    fn outer(&self, name: &str) -> String {
        match &self.prefix {
            Some(prefix) => format!("{prefix}_{name}"),
            None => name.to_owned(),
        }
    }

    /// This upstream's name for the prompt a client calls `outer`, if the
    /// prompt is this upstream's.
    fn inner<'a>(&self, outer: &'a str) -> Option<&'a str> {
        match &self.prefix {
            Some(prefix) => outer.strip_prefix(prefix.as_str())?.strip_prefix('_'),
            None => Some(outer),
        }
    }
}

/// The upstreams' resources and prompts, and where each URI was seen.
pub(crate) struct Passthrough {
    pub(crate) sources: Vec<Source>,
    caps: ListingCaps,
    /// The upstream (index) each listed resource URI came from.
    uris: Mutex<HashMap<String, usize>>,
    /// Each listed template's fixed parts (before its first `{`, after its
    /// last `}`) and upstream.
    templates: Mutex<Vec<(String, String, usize)>>,
    relay: Arc<Relay>,
}

/// The most resource URIs remembered for routing.
const MAX_ROUTED_URIS: usize = 100_000;

fn unavailable(source: &Source, error: &ServiceError) -> ErrorData {
    match error {
        ServiceError::McpError(error) => error.clone(),
        other => {
            ErrorData::internal_error(format!("upstream {:?} failed: {other}", source.name), None)
        }
    }
}

/// Every page of one listing, within `caps`: the items and, past a cap,
/// an error naming the upstream.
async fn all_pages<T, F, Fut>(
    source: &Source,
    what: &str,
    caps: ListingCaps,
    mut page: F,
) -> Result<Vec<T>, ErrorData>
where
    F: FnMut(Option<PaginatedRequestParams>) -> Fut,
    Fut: Future<Output = Result<(Vec<T>, Option<String>), ServiceError>>,
{
    let mut items = Vec::new();
    let mut cursor = None;
    for _ in 0..caps.pages {
        let params = cursor.take().map(|cursor| {
            let mut params = PaginatedRequestParams::default();
            params.cursor = Some(cursor);
            params
        });
        let (mut listed, next) = page(params)
            .await
            .map_err(|error| unavailable(source, &error))?;
        items.append(&mut listed);
        if items.len() > caps.tools {
            return Err(ErrorData::internal_error(
                format!(
                    "upstream {:?} listed more than {} {what}",
                    source.name, caps.tools
                ),
                None,
            ));
        }
        match next {
            Some(next) => cursor = Some(next),
            None => return Ok(items),
        }
    }
    Err(ErrorData::internal_error(
        format!(
            "upstream {:?} listed {what} over more than {} pages",
            source.name, caps.pages
        ),
        None,
    ))
}

/// The fixed parts of a URI template: before its first `{` and after its
/// last `}`.
fn fixed_parts(template: &str) -> (String, String) {
    let head = template.split('{').next().unwrap_or_default().to_owned();
    let tail = template
        .rsplit('}')
        .next()
        .filter(|_| template.contains('}'))
        .unwrap_or_default()
        .to_owned();
    (head, tail)
}

impl Passthrough {
    pub(crate) fn new(sources: Vec<Source>, caps: ListingCaps, relay: Arc<Relay>) -> Self {
        Self {
            sources,
            caps,
            uris: Mutex::default(),
            templates: Mutex::default(),
            relay,
        }
    }

    /// What the server declares for them.
    pub(crate) fn declare(&self, capabilities: &mut ServerCapabilities) {
        if self.sources.iter().any(Source::has_resources) {
            let mut resources = ResourcesCapability::default();
            resources.subscribe = Some(self.sources.iter().any(|source| {
                source
                    .capabilities
                    .resources
                    .as_ref()
                    .is_some_and(|resources| resources.subscribe == Some(true))
            }));
            resources.list_changed = Some(self.sources.iter().any(|source| {
                source
                    .capabilities
                    .resources
                    .as_ref()
                    .is_some_and(|resources| resources.list_changed == Some(true))
            }));
            capabilities.resources = Some(resources);
        }
        if self.sources.iter().any(Source::has_prompts) {
            let mut prompts = PromptsCapability::default();
            prompts.list_changed = Some(self.sources.iter().any(|source| {
                source
                    .capabilities
                    .prompts
                    .as_ref()
                    .is_some_and(|prompts| prompts.list_changed == Some(true))
            }));
            capabilities.prompts = Some(prompts);
        }
        if self
            .sources
            .iter()
            .any(|source| source.capabilities.completions.is_some())
        {
            capabilities.completions = Some(Default::default());
        }
    }

    pub(crate) async fn list_resources(&self) -> Result<ListResourcesResult, ErrorData> {
        let mut all: Vec<Resource> = Vec::new();
        for (index, source) in self.sources.iter().enumerate() {
            if !source.has_resources() {
                continue;
            }
            let listed = all_pages(source, "resources", self.caps, |params| async move {
                let page = source.peer.list_resources(params).await?;
                Ok((page.resources, page.next_cursor))
            })
            .await?;
            {
                let mut uris = self.uris.lock().unwrap_or_else(PoisonError::into_inner);
                for resource in &listed {
                    if uris.len() < MAX_ROUTED_URIS {
                        uris.insert(resource.uri.clone(), index);
                    }
                }
            }
            all.extend(listed.into_iter().map(|mut resource| {
                resource.name = source.outer(&resource.name);
                resource
            }));
        }
        Ok(ListResourcesResult::with_all_items(all))
    }

    pub(crate) async fn list_resource_templates(
        &self,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let mut all: Vec<ResourceTemplate> = Vec::new();
        let mut fixed = Vec::new();
        for (index, source) in self.sources.iter().enumerate() {
            if !source.has_resources() {
                continue;
            }
            let listed = all_pages(
                source,
                "resource templates",
                self.caps,
                |params| async move {
                    let page = source.peer.list_resource_templates(params).await?;
                    Ok((page.resource_templates, page.next_cursor))
                },
            )
            .await?;
            for template in listed {
                let (head, tail) = fixed_parts(&template.uri_template);
                fixed.push((head, tail, index));
                let mut template = template;
                template.name = source.outer(&template.name);
                all.push(template);
            }
        }
        *self
            .templates
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = fixed;
        Ok(ListResourceTemplatesResult::with_all_items(all))
    }

    /// The upstreams to ask about `uri`, the likeliest first.
    async fn routes(&self, uri: &str) -> Vec<usize> {
        if let Some(&index) = self
            .uris
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(uri)
        {
            return vec![index];
        }
        let matching = |templates: &[(String, String, usize)]| {
            templates
                .iter()
                .filter(|(head, tail, _)| {
                    uri.len() >= head.len() + tail.len()
                        && uri.starts_with(head.as_str())
                        && uri.ends_with(tail.as_str())
                })
                .max_by_key(|(head, tail, _)| head.len() + tail.len())
                .map(|(_, _, index)| *index)
        };
        let known = matching(
            &self
                .templates
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        );
        let found = match known {
            Some(index) => Some(index),
            // The client may read before it lists: list the templates now.
            None => match self.list_resource_templates().await {
                Ok(_) => matching(
                    &self
                        .templates
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner),
                ),
                Err(_) => None,
            },
        };
        if let Some(index) = found {
            return vec![index];
        }
        self.sources
            .iter()
            .enumerate()
            .filter(|(_, source)| source.has_resources())
            .map(|(index, _)| index)
            .collect()
    }

    /// Asks the upstreams `uri` may belong to, in turn, until one answers:
    /// its answer and its name.
    async fn routed<T, F, Fut>(&self, uri: &str, mut ask: F) -> Result<(T, &str), ErrorData>
    where
        F: FnMut(Peer<RoleClient>) -> Fut,
        Fut: Future<Output = Result<T, ServiceError>>,
    {
        let mut last = None;
        for index in self.routes(uri).await {
            let source = &self.sources[index];
            match ask(source.peer.clone()).await {
                Ok(answer) => return Ok((answer, &source.name)),
                Err(error) => last = Some(unavailable(source, &error)),
            }
        }
        Err(last.unwrap_or_else(|| {
            ErrorData::resource_not_found(format!("no upstream offers the resource {uri}"), None)
        }))
    }

    pub(crate) async fn read_resource(
        &self,
        params: ReadResourceRequestParams,
    ) -> Result<ReadResourceResult, ErrorData> {
        let uri = params.uri.clone();
        let (read, _) = self
            .routed(&uri, |peer| {
                let params = params.clone();
                async move { peer.read_resource(params).await }
            })
            .await?;
        Ok(read)
    }

    pub(crate) async fn subscribe(
        &self,
        params: SubscribeRequestParams,
        session: u64,
        client: &Peer<RoleServer>,
    ) -> Result<(), ErrorData> {
        let uri = params.uri.clone();
        let ((), upstream) = self
            .routed(&uri, |peer| {
                let params = params.clone();
                async move { peer.subscribe(params).await }
            })
            .await?;
        self.relay.subscribe(upstream, &uri, session, client)
    }

    pub(crate) async fn unsubscribe(
        &self,
        params: UnsubscribeRequestParams,
        session: u64,
    ) -> Result<(), ErrorData> {
        let uri = params.uri.clone();
        // Another client may still want the upstream's updates: the
        // upstream is told only when none does.
        if let Some(upstream) = self.relay.unsubscribe(&uri, session) {
            for source in self.sources.iter().filter(|source| source.name == upstream) {
                source
                    .peer
                    .unsubscribe(params.clone())
                    .await
                    .map_err(|error| unavailable(source, &error))?;
            }
        }
        Ok(())
    }

    pub(crate) async fn list_prompts(&self) -> Result<ListPromptsResult, ErrorData> {
        let mut all: Vec<Prompt> = Vec::new();
        for source in self.sources.iter().filter(|source| source.has_prompts()) {
            let listed = all_pages(source, "prompts", self.caps, |params| async move {
                let page = source.peer.list_prompts(params).await?;
                Ok((page.prompts, page.next_cursor))
            })
            .await?;
            all.extend(listed.into_iter().map(|mut prompt| {
                prompt.name = source.outer(&prompt.name);
                prompt
            }));
        }
        Ok(ListPromptsResult::with_all_items(all))
    }

    /// The upstream whose prompt a client calls `name`, and its own name
    /// for it.
    fn prompt<'a>(&self, name: &'a str) -> Result<(&Source, &'a str), ErrorData> {
        self.sources
            .iter()
            .filter(|source| source.has_prompts())
            .find_map(|source| Some((source, source.inner(name)?)))
            .ok_or_else(|| {
                ErrorData::invalid_params(format!("no upstream offers the prompt {name:?}"), None)
            })
    }

    pub(crate) async fn get_prompt(
        &self,
        mut params: GetPromptRequestParams,
    ) -> Result<GetPromptResult, ErrorData> {
        let outer = params.name.clone();
        let (source, inner) = self.prompt(&outer)?;
        params.name = inner.to_owned();
        source
            .peer
            .get_prompt(params)
            .await
            .map_err(|error| unavailable(source, &error))
    }

    pub(crate) async fn complete(
        &self,
        mut params: CompleteRequestParams,
    ) -> Result<CompleteResult, ErrorData> {
        match &mut params.r#ref {
            Reference::Prompt(reference) => {
                let outer = reference.name.clone();
                let (source, inner) = self.prompt(&outer)?;
                reference.name = inner.to_owned();
                source
                    .peer
                    .complete(params)
                    .await
                    .map_err(|error| unavailable(source, &error))
            }
            Reference::Resource(reference) => {
                let uri = reference.uri.clone();
                let (completed, _) = self
                    .routed(&uri, |peer| {
                        let params = params.clone();
                        async move { peer.complete(params).await }
                    })
                    .await?;
                Ok(completed)
            }
            _ => Err(ErrorData::invalid_params(
                "coderun relays completions for ref/prompt and ref/resource only",
                None,
            )),
        }
    }
}
