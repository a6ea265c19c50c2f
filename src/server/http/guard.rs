//! Who may talk to the HTTP transport: the `Host` (and request-target) allow-list against DNS
//! rebinding, the `Origin` allow-list against web pages, and the bearer token. Each refusal
//! says which flag would allow the request.
//!
//! rmcp validates `Host` too, with the same list; these checks run first because rmcp reads
//! only the first `Host` header, ignores an absolute-form request target
//! (`POST http://evil.example/mcp`), which RFC 9112 says takes precedence over `Host`, and
//! answers without naming the flag. `Origin` is checked here only: rmcp's list cannot say
//! "the server's own origin". Nothing here knows MCP.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// The allow-lists, normalised once.
#[derive(Debug)]
pub(crate) struct Allowed {
    hosts: Vec<Authority>,
    origins: Vec<AllowedOrigin>,
}

/// A host name (lowercase, IPv6 without brackets) and an optional port.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Authority {
    host: String,
    port: Option<u16>,
}

/// An allowed origin: scheme, host and port (`None`: any port, written `:*`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct AllowedOrigin {
    scheme: String,
    host: String,
    port: Option<u16>,
}

impl Allowed {
    /// `hosts`: `Host` values (a port in an entry must match; without one any port does).
    /// `origins`: `scheme://host[:port]`, with `:*` for any port; without a port the scheme's
    /// default port. Entries that do not parse allow nothing.
    pub(crate) fn new<'a>(
        hosts: impl IntoIterator<Item = &'a str>,
        origins: impl IntoIterator<Item = &'a str>,
    ) -> Allowed {
        Allowed {
            hosts: hosts.into_iter().filter_map(parse_allowed_host).collect(),
            origins: origins.into_iter().filter_map(parse_allowed_origin).collect(),
        }
    }

    fn host_allowed(&self, host: &Authority) -> bool {
        self.hosts.iter().any(|a| a.host == host.host && (a.port.is_none() || a.port == host.port))
    }

    fn origin_allowed(&self, origin: &str) -> bool {
        let Some(o) = parse_origin(origin) else { return false };
        self.origins.iter().any(|a| {
            a.scheme == o.scheme
                && a.host == o.host
                && (a.port.is_none() || a.port == o.port.or_else(|| default_port(&o.scheme)))
        })
    }
}

/// Middleware: 400 for a request without exactly one `Host` (or with an unreadable one), 403
/// for a `Host` or absolute-form target authority not on the list, 400 for several `Origin`
/// headers and 403 for an `Origin` not on the list and not the server's own (the allowed
/// `Host` the request came to: only a page this server served could have it, and it serves
/// none). Requests without `Origin` (every non-browser client) pass.
pub(crate) async fn check_host_and_origin(
    State(allowed): State<Arc<Allowed>>,
    request: Request,
    next: Next,
) -> Response {
    match refusal(&allowed, request.uri(), request.headers()) {
        Some(response) => response,
        None => next.run(request).await,
    }
}

fn refusal(allowed: &Allowed, uri: &Uri, headers: &HeaderMap) -> Option<Response> {
    let mut hosts = headers.get_all(header::HOST).iter();
    let (Some(host), None) = (hosts.next(), hosts.next()) else {
        return Some(bad_request("a request needs exactly one `Host` header"));
    };
    let Some(host_authority) = host.to_str().ok().and_then(parse_authority) else {
        return Some(bad_request("the `Host` header is not a valid host name"));
    };
    // An absolute-form target names the host the client means; RFC 9112 §3.2.2 says it wins
    // over `Host`, so it must pass the same list (and so must `Host`, which proxies may read).
    let mut named = vec![host_authority.clone()];
    if let Some(target) = uri.authority() {
        named.extend(parse_authority(target.as_str()));
    }
    if let Some(foreign) = named.iter().find(|a| !allowed.host_allowed(a)) {
        let shown = show_authority(foreign);
        return Some(forbidden(format!(
            "Forbidden: host `{shown}` is not allowed (DNS rebinding protection); start the server \
             with `--allow-host {shown}` if clients reach it under that name\n"
        )));
    }
    let mut origins = headers.get_all(header::ORIGIN).iter();
    match (origins.next(), origins.next()) {
        (None, _) => None,
        (Some(_), Some(_)) => Some(bad_request("a request may carry at most one `Origin` header")),
        (Some(origin), None) => {
            let text = String::from_utf8_lossy(origin.as_bytes());
            if allowed.origin_allowed(&text) || is_own_origin(&text, &host_authority) {
                return None;
            }
            // The header is the client's: echo a bounded, printable rendering of it.
            let shown: String = text.chars().filter(|c| !c.is_control()).take(200).collect();
            Some(forbidden(format!(
                "Forbidden: Origin `{shown}` is not allowed; start the server with \
                 `--allow-origin {shown}` to accept requests from pages of that origin\n"
            )))
        }
    }
}

/// True when `origin` is `http(s)://` plus the (allowed) `Host` the request came to.
fn is_own_origin(origin: &str, host: &Authority) -> bool {
    parse_origin(origin).is_some_and(|o| {
        let default = default_port(&o.scheme);
        o.host == host.host && o.port.or(default) == host.port.or(default)
    })
}

/// The authority as the client sent it, bounded (it is the client's text).
fn show_authority(a: &Authority) -> String {
    let host: String = a.host.chars().take(200).collect();
    let host = if host.contains(':') { format!("[{host}]") } else { host };
    match a.port {
        Some(port) => format!("{host}:{port}"),
        None => host,
    }
}

fn bad_request(why: &str) -> Response {
    (StatusCode::BAD_REQUEST, format!("Bad Request: {why}\n")).into_response()
}

fn forbidden(text: String) -> Response {
    (StatusCode::FORBIDDEN, text).into_response()
}

fn parse_authority(text: &str) -> Option<Authority> {
    let authority = axum::http::uri::Authority::try_from(text.trim()).ok()?;
    // No user info: `Host: user@localhost` is not a host.
    if authority.as_str().contains('@') || authority.host().is_empty() {
        return None;
    }
    Some(Authority { host: normalize_host(authority.host()), port: authority.port_u16() })
}

/// An allow-list entry: an authority, or a bare IPv6 address such as `::1` (which is not one).
fn parse_allowed_host(text: &str) -> Option<Authority> {
    parse_authority(text).or_else(|| {
        let ip: std::net::Ipv6Addr =
            text.trim().trim_start_matches('[').trim_end_matches(']').parse().ok()?;
        Some(Authority { host: ip.to_string(), port: None })
    })
}

fn normalize_host(host: &str) -> String {
    host.trim_start_matches('[').trim_end_matches(']').to_ascii_lowercase()
}

/// `scheme://host[:port]` of an `Origin` header (`null` and anything with a path: `None`).
fn parse_origin(text: &str) -> Option<AllowedOrigin> {
    let uri = Uri::try_from(text.trim()).ok()?;
    let scheme = uri.scheme_str()?.to_ascii_lowercase();
    let authority = uri.authority()?;
    if authority.as_str().contains('@') || !matches!(uri.path(), "" | "/") || uri.query().is_some() {
        return None;
    }
    Some(AllowedOrigin { scheme, host: normalize_host(authority.host()), port: authority.port_u16() })
}

fn parse_allowed_origin(text: &str) -> Option<AllowedOrigin> {
    let text = text.trim();
    if let Some(base) = text.strip_suffix(":*") {
        let origin = parse_origin(base)?;
        return origin.port.is_none().then_some(AllowedOrigin { port: None, ..origin });
    }
    let origin = parse_origin(text)?;
    let port = origin.port.or_else(|| default_port(&origin.scheme));
    Some(AllowedOrigin { port, ..origin })
}

fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    }
}

/// Middleware: 401 unless the request carries `Authorization: Bearer <token>`.
pub(crate) async fn require_bearer(
    State(token): State<Arc<String>>,
    request: Request,
    next: Next,
) -> Response {
    let presented = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer ").or_else(|| v.strip_prefix("bearer ")))
        .map(str::trim);
    match presented {
        // Without an early exit that would leak how much of the token matched: a hand-written
        // fold may be compiled into one; the crate keeps the optimiser from doing so.
        Some(p) if constant_time_eq::constant_time_eq(p.as_bytes(), token.as_bytes()) => {
            next.run(request).await
        }
        _ => (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, "Bearer")],
            "Unauthorized: send `Authorization: Bearer <token>`\n",
        )
            .into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_match_scheme_host_and_port() {
        let allowed =
            Allowed::new([], ["https://app.example.com", "http://localhost:3000", "http://[::1]:*", "bad"]);
        for ok in [
            "https://app.example.com",
            "https://APP.example.com:443",
            "http://localhost:3000",
            "http://[::1]:9",
        ] {
            assert!(allowed.origin_allowed(ok), "{ok}");
        }
        for refused in [
            "http://app.example.com",
            "https://app.example.com:8443",
            "http://localhost:3001",
            "http://localhost",
            "http://127.0.0.1:3000",
            "null",
            "https://app.example.com/path",
            "https://user@app.example.com",
            "",
        ] {
            assert!(!allowed.origin_allowed(refused), "{refused}");
        }
        // Nothing is allowed by default.
        assert!(!Allowed::new(["localhost"], []).origin_allowed("http://localhost:3000"));
        // The server's own origin is the Host the request came to, with its port.
        let host = parse_authority("127.0.0.1:8090").unwrap();
        assert!(
            is_own_origin("http://127.0.0.1:8090", &host) && is_own_origin("https://127.0.0.1:8090", &host)
        );
        assert!(
            !is_own_origin("http://127.0.0.1:3000", &host) && !is_own_origin("http://localhost:8090", &host)
        );
        assert!(is_own_origin("http://localhost", &parse_authority("localhost:80").unwrap()));
        assert!(!is_own_origin("null", &host));
    }

    #[test]
    fn hosts_match_by_name_and_optional_port() {
        let allowed = Allowed::new(["localhost", "::1", "docs.example.com:8443"], []);
        let ok = |h: &str| parse_authority(h).is_some_and(|a| allowed.host_allowed(&a));
        assert!(ok("localhost") && ok("LOCALHOST:8090") && ok("[::1]:1") && ok("docs.example.com:8443"));
        assert!(!ok("docs.example.com") && !ok("docs.example.com:443") && !ok("evil.example"));
        assert!(!ok("user@localhost") && !ok(""));
    }
}
