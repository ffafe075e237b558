//! WHATWG URL (https://url.spec.whatwg.org/) through the `url` crate, whose
//! `quirks` module is the standard's API: one parse, then the getters and
//! setters `URL` exposes. A URL crosses to JavaScript as its components, in
//! the order of `COMPONENTS` in `web/url.js`.

use rquickjs::function::Opt;
use url::{Url, form_urlencoded, quirks};

/// `href, origin, protocol, username, password, host, hostname, port,
/// pathname, search, hash`.
fn components(url: &Url) -> Vec<String> {
    vec![
        quirks::href(url).to_owned(),
        origin(url),
        quirks::protocol(url).to_owned(),
        quirks::username(url).to_owned(),
        quirks::password(url).to_owned(),
        quirks::host(url).to_owned(),
        quirks::hostname(url).to_owned(),
        quirks::port(url).to_owned(),
        quirks::pathname(url).to_owned(),
        quirks::search(url).to_owned(),
        quirks::hash(url).to_owned(),
    ]
}

/// The URL's origin. A `blob:` URL has its inner URL's origin only when
/// that URL is `http` or `https` (the standard's origin steps; the crate
/// gives any inner URL's).
fn origin(url: &Url) -> String {
    if url.scheme() == "blob" {
        return match Url::parse(url.path()) {
            Ok(inner) if matches!(inner.scheme(), "http" | "https") => quirks::origin(&inner),
            _ => "null".to_owned(),
        };
    }
    quirks::origin(url)
}

/// The components of `input` parsed against `base`, or `None` when either
/// fails to parse (the module throws the `TypeError`).
pub fn parse(input: String, base: Opt<String>) -> Option<Vec<String>> {
    let base = match base.0 {
        Some(base) => Some(Url::parse(&base).ok()?),
        None => None,
    };
    let url = Url::options().base_url(base.as_ref()).parse(&input).ok()?;
    Some(components(&url))
}

/// The components of `href` after setting its `which` to `value`. A setter
/// the standard makes a no-op for this URL leaves it as it was; `None` only
/// when `which` is `href` and `value` does not parse.
pub fn set(href: String, which: String, value: String) -> Option<Vec<String>> {
    let mut url = Url::parse(&href).ok()?;
    let changed = match which.as_str() {
        "href" => quirks::set_href(&mut url, &value).map_err(|_| ()),
        "protocol" => quirks::set_protocol(&mut url, &value),
        "username" => quirks::set_username(&mut url, &value),
        "password" => quirks::set_password(&mut url, &value),
        "host" => quirks::set_host(&mut url, &value),
        "hostname" => quirks::set_hostname(&mut url, &value),
        "port" => quirks::set_port(&mut url, &value),
        "pathname" => {
            quirks::set_pathname(&mut url, &value);
            Ok(())
        }
        "search" => {
            quirks::set_search(&mut url, &value);
            Ok(())
        }
        "hash" => {
            quirks::set_hash(&mut url, &value);
            Ok(())
        }
        _ => Err(()),
    };
    // The other setters fail silently: their `Err` is "nothing changed".
    if which == "href" && changed.is_err() {
        return None;
    }
    Some(components(&url))
}

/// `application/x-www-form-urlencoded` parsing: names and values, flat.
pub fn form_parse(input: String) -> Vec<String> {
    form_urlencoded::parse(input.as_bytes())
        .flat_map(|(name, value)| [name.into_owned(), value.into_owned()])
        .collect()
}

/// `application/x-www-form-urlencoded` serialising of flat names and values.
pub fn form_serialize(pairs: Vec<String>) -> String {
    let mut serializer = form_urlencoded::Serializer::new(String::new());
    for pair in pairs.chunks(2) {
        if let [name, value] = pair {
            serializer.append_pair(name, value);
        }
    }
    serializer.finish()
}
