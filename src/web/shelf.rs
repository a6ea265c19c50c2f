//! `folio browse --shelf DIR`: the web view of a shelf. `/` is an index of the libraries on the
//! shelf with their versions; `/<name>@<version>/…` is that catalog's own web view (the
//! catalog's router, `super::router`), its pages' site-absolute addresses (`href="/…"`, the
//! script's requests) put under the catalog's prefix, so its links stay inside it.
//!
//! Must not: open a catalog no request names, or change a page beyond its addresses.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware;
use axum::response::Response;
use tower::ServiceExt as _;

use super::WebOptions;
use super::html::{Shell, escape};
use crate::server::ShelfServer;

/// Largest page rewritten: a page is at most a few MiB (the largest doc, rendered).
const MAX_PAGE_BYTES: usize = 256 << 20;

struct ShelfWeb {
    shelf: ShelfServer,
    options: WebOptions,
    /// Each catalog's web view, by id and hash.
    views: Mutex<BTreeMap<(String, String), Router>>,
}

/// The web view of a shelf, behind the same Host and Origin checks as a catalog's.
pub fn shelf_router(shelf: ShelfServer, options: &WebOptions) -> Router {
    let mut hosts: Vec<String> = vec!["localhost".into(), "127.0.0.1".into(), "::1".into()];
    hosts.extend(options.allow_hosts.iter().cloned());
    let allowed = Arc::new(crate::server::http::guard::Allowed::new(hosts.iter().map(String::as_str), []));
    let state = Arc::new(ShelfWeb { shelf, options: options.clone(), views: Mutex::new(BTreeMap::new()) });
    Router::new()
        .fallback(answer)
        .with_state(state)
        .layer(middleware::from_fn_with_state(allowed, crate::server::http::guard::check_host_and_origin))
}

/// Serves the web view of a shelf until `shutdown` resolves.
///
/// Fails like [`super::serve_web`] (it does not today).
pub async fn serve_shelf_web(
    listener: tokio::net::TcpListener,
    shelf: ShelfServer,
    options: &WebOptions,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), crate::server::ServeError> {
    let app = shelf_router(shelf, options);
    crate::server::http::serve_router(listener, app, || {}, &options.limits, shutdown).await
}

async fn answer(State(web): State<Arc<ShelfWeb>>, mut request: Request) -> Response {
    let path = request.uri().path().to_owned();
    match path.as_str() {
        "/" => return page(StatusCode::OK, index(&web.shelf)),
        "/_/style.css" => return super::asset("text/css; charset=utf-8", super::STYLE),
        "/_/browse.js" => return super::asset("text/javascript; charset=utf-8", super::SCRIPT),
        _ => {}
    }
    let rest = path.trim_start_matches('/');
    let (id, inner) =
        rest.split_once('/').map_or((rest, "/".to_owned()), |(id, inner)| (id, format!("/{inner}")));
    let shelf = web.shelf.shelf();
    let Some(slot) = shelf.resolve(id) else {
        let body = format!(
            "<p>No catalog <code>{}</code> on this shelf. <a href=\"/\">The shelf</a></p>",
            escape(id)
        );
        return page(StatusCode::NOT_FOUND, shell("Not found").page(&body));
    };
    let server = match slot.server() {
        Ok(server) => server,
        Err(e) => {
            let body = format!("<p>{}</p>", escape(&format!("catalog `{}` cannot be opened: {e}", slot.id)));
            return page(StatusCode::INTERNAL_SERVER_ERROR, shell("Not opened").page(&body));
        }
    };
    let view = {
        let mut views = web.views.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        views
            .entry((slot.id.clone(), slot.peek.catalog_hash.clone()))
            .or_insert_with(|| super::router(server, &web.options).0)
            .clone()
    };
    let query = request.uri().query().map(|q| format!("?{q}")).unwrap_or_default();
    match format!("{inner}{query}").parse() {
        Ok(uri) => *request.uri_mut() = uri,
        Err(_) => {
            return page(StatusCode::BAD_REQUEST, shell("Bad address").page("<p>Not a valid address.</p>"));
        }
    }
    let Ok(response) = view.oneshot(request).await;
    under_prefix(response, &format!("/{}", slot.id)).await
}

/// A catalog's answer with its site-absolute addresses under `prefix`: HTML pages and the script.
async fn under_prefix(response: Response, prefix: &str) -> Response {
    let kind =
        response.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
    let html = kind.starts_with("text/html");
    if !html && !kind.starts_with("text/javascript") {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, MAX_PAGE_BYTES).await else {
        return page(
            StatusCode::INTERNAL_SERVER_ERROR,
            shell("Too large").page("<p>This page is too large.</p>"),
        );
    };
    let text = String::from_utf8_lossy(&bytes);
    let text = if html {
        text.replace("href=\"/", &format!("href=\"{prefix}/"))
            .replace("src=\"/", &format!("src=\"{prefix}/"))
            .replace("action=\"/", &format!("action=\"{prefix}/"))
    } else {
        text.replace("fetch(\"/", &format!("fetch(\"{prefix}/"))
    };
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(text))
}

fn shell(title: &str) -> Shell<'_> {
    Shell { site: "Folio shelf", title, query: "", live: false, version: "" }
}

/// `/`: every library, its versions (newest first) linking to their views.
fn index(shelf: &ShelfServer) -> String {
    let shelf = shelf.shelf();
    let mut body = format!("<h1>Folio shelf</h1>\n<p>{} catalogs.</p>\n<ul class=\"shelf\">\n", shelf.len());
    for versions in shelf.libraries() {
        let latest = &versions[0].peek;
        let _ = write!(body, "<li><a href=\"/{}/\">{}</a>", escape(&versions[0].id), escape(&latest.name));
        if !latest.title.is_empty() {
            let _ = write!(body, " — {}", escape(&latest.title));
        }
        let links: Vec<String> = versions
            .iter()
            .filter_map(|s| {
                s.peek.version.as_ref().map(|v| format!("<a href=\"/{}/\">{}</a>", escape(&s.id), escape(v)))
            })
            .collect();
        if !links.is_empty() {
            let _ = write!(body, " <small>{}</small>", links.join(", "));
        }
        if !latest.description.is_empty() {
            let _ = write!(body, "<br>{}", escape(&latest.description));
        }
        body.push_str("</li>\n");
    }
    body.push_str("</ul>\n");
    shell("Folio shelf").page(&body)
}

fn page(status: StatusCode, html: String) -> Response {
    super::respond(status, "text/html; charset=utf-8", html, super::PAGE_POLICY)
}
