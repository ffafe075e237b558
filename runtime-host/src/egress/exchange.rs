//! One fetch: the guest's request checked, sent hop by hop under the
//! policy, and the response read to its end under its caps; and the
//! per-run state (requests made, the turn each waits for, cancellation).

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderName, HeaderValue, LOCATION};
use reqwest::{Method, StatusCode, Url};
use serde_json::{Value, json};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_util::sync::CancellationToken;

use super::address::{AddressRefused, GuardedResolver, Reach};
use super::policy::{CompiledSecret, Policy, scrub_bytes, scrub_text};
use crate::guest::{FetchRequest, RedirectMode};
use crate::output::shorten;

/// The longest URL the host sends (most servers refuse longer ones).
const MAX_URL_BYTES: usize = 16 * 1024;
/// The most headers, and header bytes, the host sends in one request.
const MAX_HEADERS: usize = 100;
const MAX_HEADER_BYTES: usize = 64 * 1024;
/// How much of a URL a message quotes.
const QUOTED_URL_BYTES: usize = 200;
/// Headers the host manages itself: the program's are dropped, as a
/// browser drops them (framing, connection management, compression).
const HOST_HEADERS: &[&str] = &[
    "host",
    "content-length",
    "transfer-encoding",
    "connection",
    "keep-alive",
    "upgrade",
    "te",
    "trailer",
    "expect",
    "accept-encoding",
];
/// The headers that describe a body, dropped with it when a redirect turns
/// a request into a GET.
const BODY_HEADERS: &[&str] = &[
    "content-type",
    "content-encoding",
    "content-language",
    "content-location",
];

/// A response as the program gets it: its head (status, statusText, url,
/// redirected, headers) and its body, secrets scrubbed from both.
#[derive(Debug)]
pub(crate) struct Response {
    pub(crate) head: Value,
    pub(crate) body: Vec<u8>,
    /// The request's turn, held until the guest takes the body: a run's
    /// responses in host memory are at most `max_in_flight`.
    pub(crate) turn: Option<OwnedSemaphorePermit>,
}

/// How a fetch ended: the response, or the message it rejects with.
pub(crate) type Answer = Result<Response, String>;

/// A request the guest asked for, checked.
pub(crate) struct Exchange {
    method: Method,
    url: Url,
    headers: Vec<(HeaderName, String)>,
    redirect: RedirectMode,
    body_bytes: Option<Arc<[u8]>>,
}

/// How messages name a request: `fetch GET https://…`.
pub(crate) fn label(method: &str, url: &str) -> String {
    format!(
        "fetch {} {}",
        shorten(method, 32),
        shorten(url, QUOTED_URL_BYTES)
    )
}

impl Exchange {
    /// Checks what the guest sent, and the first hop against the policy.
    pub(crate) fn prepare(request: FetchRequest, policy: &Policy) -> Result<Self, String> {
        if policy.is_closed() {
            return Err(super::policy::CLOSED.to_owned());
        }
        if request.url.len() > MAX_URL_BYTES {
            return Err(format!(
                "the URL is {} bytes, more than the {MAX_URL_BYTES} the host sends",
                request.url.len()
            ));
        }
        let url =
            Url::parse(&request.url).map_err(|error| format!("the URL is invalid: {error}"))?;
        if url.scheme() != "http" && url.scheme() != "https" {
            return Err(format!(
                "the host fetches only http and https URLs, not {}:",
                shorten(url.scheme(), 32)
            ));
        }
        let method = Method::from_bytes(request.method.as_bytes())
            .map_err(|_| "the method is not a valid token".to_owned())?;
        if request.headers.len() > MAX_HEADERS {
            return Err(format!(
                "the request has {} headers, more than the {MAX_HEADERS} the host sends",
                request.headers.len()
            ));
        }
        let header_bytes: usize = request.headers.iter().map(|(n, v)| n.len() + v.len()).sum();
        if header_bytes > MAX_HEADER_BYTES {
            return Err(format!(
                "the request's headers are {header_bytes} bytes, more than the {MAX_HEADER_BYTES} \
                 the host sends"
            ));
        }
        let mut headers = Vec::with_capacity(request.headers.len());
        for (name, value) in request.headers {
            let name = HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| format!("'{}' is not a header name", shorten(&name, 64)))?;
            if HOST_HEADERS.contains(&name.as_str()) || name.as_str().starts_with("proxy-") {
                continue;
            }
            if value.chars().any(|c| u32::from(c) > 0xFF) {
                return Err(format!(
                    "the value of the header {name} is not a byte string"
                ));
            }
            headers.push((name, value));
        }
        if let Some(body) = &request.body
            && body.len() as u64 > policy.max_request_body_bytes
        {
            return Err(format!(
                "the request body is {} bytes, more than the network policy's \
                 maxRequestBodyBytes ({})",
                body.len(),
                policy.max_request_body_bytes
            ));
        }
        policy.allows(method.as_str(), &url)?;
        policy.reach.check_literal(&url)?;
        let body_bytes = request.body.map(Arc::<[u8]>::from);
        Ok(Self {
            method,
            url,
            headers,
            redirect: request.redirect,
            body_bytes,
        })
    }

    /// Sends it once it is its turn, within the policy's time; `cancel`
    /// ends it early (the program aborted it, or the run is over).
    pub(crate) async fn send(
        self,
        label: String,
        policy: Arc<Policy>,
        turns: Arc<Semaphore>,
        cancel: CancellationToken,
    ) -> Answer {
        let work = async {
            let turn = turns
                .acquire_owned()
                .await
                .map_err(|_| "the run is over".to_owned())?;
            match tokio::time::timeout(policy.timeout, self.exchange(&policy)).await {
                Ok(answer) => answer.map(|response| Response {
                    turn: Some(turn),
                    ..response
                }),
                Err(_) => Err(format!(
                    "no complete response within the network policy's timeoutMs ({} ms)",
                    policy.timeout.as_millis()
                )),
            }
        };
        let answer = tokio::select! {
            answer = work => answer,
            () = cancel.cancelled() => Err("the request was aborted".to_owned()),
        };
        answer.map_err(|why| format!("{label}: {why}"))
    }

    async fn exchange(self, policy: &Policy) -> Answer {
        let client = client(policy.reach)?;
        let Self {
            mut method,
            mut url,
            mut headers,
            redirect,
            mut body_bytes,
        } = self;
        let first_origin = url.origin();
        let mut used: Vec<&CompiledSecret> = Vec::new();
        let mut hops = 0u32;
        loop {
            let at = |why: String, url: &Url| {
                if hops == 0 {
                    why
                } else {
                    format!(
                        "at redirect {hops} (to {}): {why}",
                        shorten(url.as_str(), QUOTED_URL_BYTES)
                    )
                }
            };
            let added = policy
                .allows(method.as_str(), &url)
                .map_err(|why| at(why, &url))?;
            policy
                .reach
                .check_literal(&url)
                .map_err(|why| at(why, &url))?;
            let mut map = HeaderMap::new();
            let cross_origin = url.origin() != first_origin;
            for (name, value) in &headers {
                // The Fetch Standard drops credentials on a cross-origin redirect.
                if cross_origin && name == AUTHORIZATION {
                    continue;
                }
                let value = policy
                    .substitute(value, &url, &mut used)
                    .map_err(|why| at(why, &url))?;
                map.append(name.clone(), header_value(&value)?);
            }
            for (name, template) in added {
                let value = policy
                    .substitute(template, &url, &mut used)
                    .map_err(|why| at(why, &url))?;
                map.insert(name.clone(), header_value(&value)?);
            }
            let mut request = client.request(method.clone(), url.clone()).headers(map);
            if let Some(bytes) = &body_bytes {
                request = request.body(bytes.to_vec());
            }
            let response = request
                .send()
                .await
                .map_err(|error| at(network_error(&error), &url))?;
            let status = response.status();
            let location = response.headers().get(LOCATION).cloned();
            if let (true, Some(location)) = (is_redirect(status), location)
                && redirect != RedirectMode::Manual
            {
                let location = latin1(location.as_bytes());
                if redirect == RedirectMode::Error {
                    return Err(format!(
                        "the server redirected ({} to {}), and the request's redirect mode is 'error'",
                        status.as_u16(),
                        shorten(&scrub_text(location, &used), QUOTED_URL_BYTES)
                    ));
                }
                hops += 1;
                if hops > policy.max_redirects {
                    return Err(format!(
                        "more redirects than the network policy's maxRedirects ({})",
                        policy.max_redirects
                    ));
                }
                let next = url.join(&location).map_err(|error| {
                    format!(
                        "the redirect's Location '{}' is not a URL: {error}",
                        shorten(&scrub_text(location.clone(), &used), QUOTED_URL_BYTES)
                    )
                })?;
                let status = status.as_u16();
                let post = method == Method::POST;
                if (status == 303 && method != Method::GET && method != Method::HEAD)
                    || ((status == 301 || status == 302) && post)
                {
                    method = Method::GET;
                    body_bytes = None;
                    headers.retain(|(name, _)| !BODY_HEADERS.contains(&name.as_str()));
                }
                url = next;
                continue;
            }
            let head_only = method == Method::HEAD;
            return read(response, policy, (&url, head_only), hops, &used).await;
        }
    }
}

/// Reads a response to its end, within the policy's size.
async fn read(
    mut response: reqwest::Response,
    policy: &Policy,
    (url, head_only): (&Url, bool),
    hops: u32,
    secrets: &[&CompiledSecret],
) -> Answer {
    let cap = policy.max_response_bytes;
    let too_large = || {
        format!("the response body is larger than the network policy's maxResponseBytes ({cap})")
    };
    // A HEAD response's length is the resource's, not a body's.
    if !head_only && response.content_length().is_some_and(|length| length > cap) {
        return Err(too_large());
    }
    let status = response.status();
    tracing::Span::current().record("http.response.status_code", status.as_u16());
    let headers: Vec<Value> = response
        .headers()
        .iter()
        .map(|(name, value)| json!([name.as_str(), scrub_text(latin1(value.as_bytes()), secrets)]))
        .collect();
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|error| network_error(&error))?
    {
        if (body.len() + chunk.len()) as u64 > cap {
            return Err(too_large());
        }
        body.extend_from_slice(&chunk);
    }
    let head = json!({
        "status": status.as_u16(),
        "statusText": status.canonical_reason().unwrap_or(""),
        "url": scrub_text(without_fragment(url), secrets),
        "redirected": hops > 0,
        "headers": headers,
    });
    Ok(Response {
        head,
        body: scrub_bytes(body, secrets),
        turn: None,
    })
}

/// A response's URL, which the Fetch Standard serialises without its
/// fragment.
fn without_fragment(url: &Url) -> String {
    let mut url = url.clone();
    url.set_fragment(None);
    url.to_string()
}

fn is_redirect(status: StatusCode) -> bool {
    matches!(status.as_u16(), 301 | 302 | 303 | 307 | 308)
}

/// Bytes as a byte string: one character per byte.
fn latin1(bytes: &[u8]) -> String {
    bytes.iter().map(|&byte| char::from(byte)).collect()
}

fn header_value(value: &str) -> Result<HeaderValue, String> {
    let bytes: Vec<u8> = value.chars().map(|c| c as u8).collect();
    HeaderValue::from_bytes(&bytes)
        .map_err(|_| "a header value holds a byte a header cannot".into())
}

/// What a failed request says: the policy's refusal of an address, or the
/// network's error with its causes.
fn network_error(error: &reqwest::Error) -> String {
    let mut source = std::error::Error::source(error);
    let mut causes = Vec::new();
    while let Some(cause) = source {
        if let Some(refused) = cause.downcast_ref::<AddressRefused>() {
            return refused.to_string();
        }
        causes.push(cause.to_string());
        source = cause.source();
    }
    if error.is_timeout() {
        return "the request timed out".into();
    }
    if causes.is_empty() {
        return format!("the request failed: {error}");
    }
    format!("the request failed: {}", causes.join(": "))
}

impl Reach {
    /// Refuses a URL whose host is an address the policy refuses (names
    /// are checked by the resolver, after resolution).
    fn check_literal(self, url: &Url) -> Result<(), String> {
        let ip = match url.host() {
            Some(url::Host::Ipv4(ip)) => std::net::IpAddr::V4(ip),
            Some(url::Host::Ipv6(ip)) => std::net::IpAddr::V6(ip),
            _ => return Ok(()),
        };
        self.check(None, ip).map_err(|refused| refused.to_string())
    }
}

/// The HTTP client for requests that may reach `reach`: one per kind, so
/// that a pooled connection is only ever reused under the rules it was
/// made under. No proxy from the environment, no automatic redirects (the
/// host follows them itself, checking each), no cookies.
fn client(reach: Reach) -> Result<reqwest::Client, String> {
    static CLIENTS: [OnceLock<Result<reqwest::Client, String>>; 4] = [const { OnceLock::new() }; 4];
    let slot = &CLIENTS[usize::from(reach.loopback) | (usize::from(reach.private) << 1)];
    slot.get_or_init(|| {
        // rustls needs a provider; the embedder's, or else ring's.
        if rustls::crypto::CryptoProvider::get_default().is_none() {
            let _ = rustls::crypto::ring::default_provider().install_default();
        }
        reqwest::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .referer(false)
            .dns_resolver(Arc::new(GuardedResolver(reach)))
            .connect_timeout(Duration::from_secs(10))
            .pool_idle_timeout(Duration::from_secs(30))
            .user_agent(concat!("coderun/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|error| format!("the host's HTTP client could not be set up: {error}"))
    })
    .clone()
}
