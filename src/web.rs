//! `folio browse`: a read-only web view of a catalog for a person, on loopback. An index of
//! skills and docs, a page per doc, skill and skill file (markdown rendered, scripts
//! highlighted), links between entries as links between pages, backlinks, and search with
//! snippets: the same query layer as the MCP server and the CLI, so a page shows what an agent
//! would read.
//!
//! The rules are the MCP server's: nothing outside the catalog is reachable (every address is
//! looked up in the catalog, never on disk), the Host allow-list (DNS rebinding) and Origin
//! check of the HTTP transport run before every request, and the accept loop is the
//! transport's (connection budget, header read timeout, shutdown drain). Every value from the
//! tree is escaped, raw HTML in markdown is shown as text, and a Content-Security-Policy lets a
//! page load only this server's stylesheet, script and images.
//!
//! Pages work with JavaScript off; `assets/browse.js` only adds search as you type and a reload
//! when the catalog changes. Nothing is fetched from elsewhere. `/llms.txt` and `/llms-full.txt`
//! answer the catalog in the llmstxt.org format (`crate::llms`), linking to the `/raw` addresses.
//!
//! This module owns the routes and the answers' headers; the pages are its children's. It must
//! not write to the catalog, read the content tree, or print.

mod cache;
mod highlight;
mod html;
mod markdown;
mod pages;
mod search_page;
mod shelf;
mod sitemap;
mod skill_pages;

use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware;
use axum::response::Response;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::catalog::{Catalog, EntryKind};
use crate::query::{Owner, Query};
use crate::server::{FolioServer, HttpLimits, ServeError};
use html::{Shell, escape};
pub use shelf::{serve_shelf_web, shelf_router};
use sitemap::{Place, Sitemap};

/// Options of the web view. [`Default`] is what `folio browse` runs with.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct WebOptions {
    /// `Host` values accepted besides `localhost`, `127.0.0.1` and `::1`.
    pub allow_hosts: Vec<String>,
    /// Connections, header read timeout and shutdown drain (the HTTP transport's).
    pub limits: HttpLimits,
    /// `/_/version?after=` requests held open at once, waiting for a reload (one per open
    /// page), and never more than half of `limits.max_connections`: a held request keeps its
    /// connection, so without a cap of their own they could take every connection pages need.
    /// One over the cap is answered at once with the current version and `Retry-After`.
    pub max_held_polls: usize,
}

impl Default for WebOptions {
    fn default() -> Self {
        WebOptions { allow_hosts: Vec::new(), limits: HttpLimits::default(), max_held_polls: 64 }
    }
}

impl WebOptions {
    /// `self` with [`WebOptions::allow_hosts`] set to `value`.
    #[must_use]
    pub fn with_allow_hosts(mut self, value: Vec<String>) -> Self {
        self.allow_hosts = value;
        self
    }
}

/// The stylesheet and the script every page uses, from this server only.
const STYLE: &str = include_str!("web/assets/style.css");
const SCRIPT: &str = include_str!("web/assets/browse.js");

/// What a page may load: this server's stylesheet, script and images, and nothing else (no
/// inline script, no frames, no form posted elsewhere). Raw HTML in a doc is shown as text; this
/// is the second wall.
const PAGE_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; \
     connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";
/// A raw entry opened on its own (an SVG, say) runs nothing.
const RAW_POLICY: &str = "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; sandbox";

/// One catalog as the view reads it: the query, where each entry's page is, and (built on
/// first use) the entries linking to each skill file.
struct Snapshot {
    query: Arc<Query>,
    sitemap: Sitemap,
    file_backlinks: OnceLock<FxHashMap<String, Vec<String>>>,
    /// The entry pages rendered from this catalog.
    pages: cache::PageCache,
}

/// What a page is rendered from.
pub(crate) struct View<'a> {
    catalog: &'a Catalog,
    query: &'a Query,
    sitemap: &'a Sitemap,
    file_backlinks: &'a OnceLock<FxHashMap<String, Vec<String>>>,
}

impl View<'_> {
    /// The title a person knows an entry by: a doc's title, a skill's name, a file's title or
    /// path.
    pub(crate) fn title_of_uri(&self, uri: &str) -> String {
        let Ok(idx) = self.catalog.entries.binary_search_by(|e| e.uri.as_str().cmp(uri)) else {
            return uri.to_owned();
        };
        let entry = &self.catalog.entries[idx];
        match entry.kind {
            EntryKind::Doc => entry
                .path
                .strip_prefix("docs/")
                .and_then(|p| self.catalog.doc(p))
                .map_or_else(|| entry.path.clone(), |d| d.title.clone()),
            EntryKind::SkillDocument | EntryKind::SkillFile => {
                let Some(skill) =
                    self.sitemap.skill_of(idx as u32).and_then(|s| self.catalog.skills.get(s as usize))
                else {
                    return entry.path.clone();
                };
                match skill.files.iter().find(|f| f.entry == idx as u32) {
                    None => skill.name.clone(),
                    Some(file) => {
                        format!("{} · {}", skill.name, file.title.as_deref().unwrap_or(&file.rel_path))
                    }
                }
            }
        }
    }

    /// The entries whose links lead to the skill file at entry `idx` (the catalog records
    /// backlinks for docs and SKILL.md only).
    pub(crate) fn backlinks_of(&self, idx: u32) -> Vec<String> {
        let map = self.file_backlinks.get_or_init(|| {
            let mut map: FxHashMap<String, Vec<String>> = FxHashMap::default();
            let docs = self.catalog.docs.iter().map(|d| (d.entry, d.links.get()));
            let skills = self.catalog.skills.iter().map(|s| (s.document, s.links.get()));
            for (source, links) in docs.chain(skills) {
                let (Ok(links), Some(from)) = (links, self.catalog.entries.get(source as usize)) else {
                    continue;
                };
                // Each entry it leads to once, however many links lead there.
                let targets: FxHashSet<&str> = links.iter().filter_map(|l| l.resolved.as_deref()).collect();
                for resolved in targets {
                    map.entry(resolved.to_owned()).or_default().push(from.uri.clone());
                }
            }
            for sources in map.values_mut() {
                sources.sort();
                sources.dedup();
            }
            map
        });
        let uri = self.catalog.entries.get(idx as usize).map(|e| e.uri.as_str()).unwrap_or("");
        map.get(uri).cloned().unwrap_or_default()
    }
}

/// The server's state: the catalog it serves (which a reload replaces) and the snapshot of the
/// last one it rendered from.
struct WebState {
    server: FolioServer,
    current: Mutex<Option<Arc<Snapshot>>>,
    /// Turns true when shutdown begins: waiting `/_/version` answers end then.
    stopping: tokio::sync::watch::Receiver<bool>,
    /// `/_/version` requests waiting now, and how many may ([`WebOptions::max_held_polls`]).
    held: AtomicUsize,
    max_held: usize,
    /// Entry pages rendered so far (each one a markdown pass): what tests read to show that a
    /// page asked for again is not rendered again.
    #[cfg(test)]
    renders: std::sync::atomic::AtomicU64,
}

/// One held `/_/version` request, counted until it is answered or dropped (its client gone).
struct Held<'a>(&'a AtomicUsize);

impl<'a> Held<'a> {
    /// A place among the `max` held requests, if one is free.
    fn take(held: &'a AtomicUsize, max: usize) -> Option<Held<'a>> {
        held.fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| (n < max).then_some(n + 1)).ok()?;
        Some(Held(held))
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl WebState {
    /// The snapshot of the catalog served now, built again after a reload.
    fn snapshot(&self) -> Arc<Snapshot> {
        let query = self.server.query();
        let mut current = self.current.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(snapshot) = current.as_ref().filter(|s| Arc::ptr_eq(&s.query, &query)) {
            return Arc::clone(snapshot);
        }
        let sitemap = Sitemap::new(query.catalog());
        let snapshot = Arc::new(Snapshot {
            query,
            sitemap,
            file_backlinks: OnceLock::new(),
            pages: cache::PageCache::default(),
        });
        *current = Some(Arc::clone(&snapshot));
        snapshot
    }
}

/// How long `/_/version?after=…` waits for a change before answering the same version (the
/// page asks again): below common proxy and browser timeouts.
const VERSION_WAIT: Duration = Duration::from_secs(25);

/// `Retry-After` (seconds) of a `/_/version` answered at once because every place to wait was
/// taken; the page's script waits that long before it asks again.
const POLL_RETRY_AFTER: &str = "5";

/// The web view's router: every address answered by one handler, behind the transport's Host
/// and Origin checks; and a function that ends the answers waiting for a change (call it when
/// shutting down, or they hold the drain).
pub fn router(server: FolioServer, options: &WebOptions) -> (Router, impl FnOnce() + Send + 'static) {
    let mut hosts: Vec<String> = vec!["localhost".into(), "127.0.0.1".into(), "::1".into()];
    hosts.extend(options.allow_hosts.iter().cloned());
    let allowed = Arc::new(crate::server::http::guard::Allowed::new(hosts.iter().map(String::as_str), []));
    let (stop, stopping) = tokio::sync::watch::channel(false);
    let max_held = options.max_held_polls.min(options.limits.max_connections / 2);
    let state = Arc::new(WebState {
        server,
        current: Mutex::new(None),
        stopping,
        held: AtomicUsize::new(0),
        max_held,
        #[cfg(test)]
        renders: Default::default(),
    });
    let app = Router::new()
        .fallback(answer)
        .with_state(state)
        .layer(middleware::from_fn_with_state(allowed, crate::server::http::guard::check_host_and_origin));
    (app, move || {
        let _ = stop.send(true);
    })
}

/// Serves the web view on an already bound listener until `shutdown` resolves (then drains as
/// the HTTP transport does).
pub async fn serve_web(
    listener: tokio::net::TcpListener,
    server: FolioServer,
    options: &WebOptions,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    let (app, stop) = router(server, options);
    crate::server::http::serve_router(listener, app, stop, &options.limits, shutdown).await
}

/// Answers one request. Pages are rendered on tokio's blocking pool, never on the async
/// workers: a page costs time in proportion to its size (a 4 MB doc of links, a search), and
/// the workers answer every other request (assets, `/_/version`, other pages) meanwhile.
async fn answer(State(state): State<Arc<WebState>>, request: Request) -> Response {
    if request.method() != Method::GET && request.method() != Method::HEAD {
        let mut response =
            plain(StatusCode::METHOD_NOT_ALLOWED, "This view is read-only: GET and HEAD only.\n");
        response.headers_mut().insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        return response;
    }
    let uri = request.uri();
    let Ok(path) = crate::catalog::uri::percent_decode(uri.path()) else {
        return plain(StatusCode::BAD_REQUEST, "The address is not valid percent-encoded UTF-8.\n");
    };
    match path.as_str() {
        "/_/style.css" => return asset("text/css; charset=utf-8", STYLE),
        "/_/browse.js" => return asset("text/javascript; charset=utf-8", SCRIPT),
        _ => {}
    }
    let query = uri.query().unwrap_or("").to_owned();
    if path == "/_/version" {
        let after = query.split('&').find_map(|p| p.strip_prefix("after=")).unwrap_or("");
        let (version, held) = version_after(&state, after).await;
        let mut response = respond(StatusCode::OK, "text/plain; charset=utf-8", version, PAGE_POLICY);
        if !held {
            // Every place to wait was taken: ask again later rather than at once.
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static(POLL_RETRY_AFTER));
        }
        return response;
    }
    match tokio::task::spawn_blocking(move || render(&state, &path, &query)).await {
        Ok(response) => response,
        Err(_) => plain(StatusCode::INTERNAL_SERVER_ERROR, "This page could not be rendered.\n"),
    }
}

/// The answer for the page at the decoded address `path` with the query string `query`: run on
/// the blocking pool ([`answer`]).
fn render(state: &WebState, path: &str, query: &str) -> Response {
    let snapshot = state.snapshot();
    let view = View {
        catalog: snapshot.query.catalog(),
        query: &snapshot.query,
        sitemap: &snapshot.sitemap,
        file_backlinks: &snapshot.file_backlinks,
    };
    if path == "/search" {
        let asked = search_page::Asked::parse(query);
        if query.split('&').any(|p| p == "partial=1") {
            return respond(
                StatusCode::OK,
                "text/html; charset=utf-8",
                search_page::results(&view, &asked),
                PAGE_POLICY,
            );
        }
        let (title, body) = search_page::page(&view, &asked);
        return page(state, &view, &snapshot, StatusCode::OK, &title, &asked.q, &body);
    }
    // The catalog in the llmstxt.org format; its links are the `/raw` addresses below.
    let llms = match path {
        "/llms.txt" => Some(crate::llms::llms_txt(view.catalog)),
        "/llms-full.txt" => Some(crate::llms::llms_full_txt(view.catalog)),
        _ => None,
    };
    if let Some(text) = llms {
        return respond(StatusCode::OK, "text/plain; charset=utf-8", Body::from(text), RAW_POLICY);
    }
    if let Some(rest) = path.strip_prefix("/raw") {
        return raw(&view, rest);
    }
    // The address is looked up once; the entry page found is rendered once per catalog.
    let found = match view.sitemap.place(view.query, path) {
        Some(Place::Index) => Some(Arc::new(pages::index(&view))),
        Some(Place::Folder(folder)) => Some(Arc::new(pages::folder(&view, folder))),
        Some(Place::Entry(idx)) => snapshot.pages.page(idx, || {
            #[cfg(test)]
            state.renders.fetch_add(1, Ordering::Relaxed);
            entry_page(&view, idx)
        }),
        None => None,
    };
    match found.as_deref() {
        Some((title, body)) => page(state, &view, &snapshot, StatusCode::OK, title, "", body),
        None => {
            let body = format!(
                "<h1>Not in this catalog</h1>\n<p><code>{}</code> is no page of this catalog.</p>\n\
                 <p><a href=\"/\">Back to the index</a></p>\n",
                escape(path)
            );
            page(state, &view, &snapshot, StatusCode::NOT_FOUND, "Not found", "", &body)
        }
    }
}

/// The hash of the catalog served now, once it differs from `after` (at once when it does, or
/// when `after` is empty); after [`VERSION_WAIT`] or at shutdown, the same one. A page waits
/// here to learn that the catalog changed, so that it reloads without polling. At most
/// [`WebState::max_held`] wait at once: past that, the same version is answered at once, and the
/// second value is false (the answer says when to ask again).
async fn version_after(state: &WebState, after: &str) -> (String, bool) {
    let mut swaps = state.server.swaps();
    let mut stopping = state.stopping.clone();
    let current = || state.server.query().catalog_hash().to_owned();
    let now = current();
    if after.is_empty() || now != after {
        return (now, true);
    }
    let Some(_held) = Held::take(&state.held, state.max_held) else { return (now, false) };
    let wait = async {
        loop {
            let now = current();
            if now != after {
                return now;
            }
            tokio::select! {
                changed = swaps.changed() => if changed.is_err() { return now },
                _ = stopping.wait_for(|s| *s) => return now,
            }
        }
    };
    (tokio::time::timeout(VERSION_WAIT, wait).await.unwrap_or_else(|_| current()), true)
}

/// The page of entry `idx`: a doc, a skill or a skill file, found by the entry's owner (the
/// address was looked up already).
fn entry_page(view: &View<'_>, idx: u32) -> Option<(String, String)> {
    match view.query.owner(idx as usize)? {
        Owner::Doc(d) => Some(pages::doc(view, view.catalog.docs.get(d as usize)?)),
        Owner::Skill(s, file) => {
            let skill = view.catalog.skills.get(s as usize)?;
            match file {
                None => Some(skill_pages::skill(view, skill)),
                Some(f) => Some(skill_pages::file(view, skill, skill.files.get(f as usize)?)),
            }
        }
    }
}

/// An entry's exact bytes at `/raw<page address>`: images with their type (to be shown in
/// pages), other text as plain text, other bytes as a download; never rendered as HTML.
fn raw(view: &View<'_>, page_path: &str) -> Response {
    let entry = match view.sitemap.place(view.query, page_path) {
        Some(Place::Entry(idx)) => view.catalog.entries.get(idx as usize),
        _ => None,
    };
    let Some(entry) = entry else {
        return plain(StatusCode::NOT_FOUND, "No entry of this catalog has that address.\n");
    };
    // Checked against the entry's blake3 before the first byte goes out; a damaged file's
    // bytes are never served.
    let Ok(bytes) = entry.body() else {
        return plain(
            StatusCode::INTERNAL_SERVER_ERROR,
            "This entry of the catalog is corrupt; rebuild it with `folio build`.\n",
        );
    };
    let content_type = if entry.mime.starts_with("image/") {
        entry.mime.clone()
    } else if entry.is_text {
        "text/plain; charset=utf-8".to_owned()
    } else {
        "application/octet-stream".to_owned()
    };
    let mut response = respond(StatusCode::OK, &content_type, Body::from(bytes.clone()), RAW_POLICY);
    if let Ok(etag) = HeaderValue::from_str(&format!("\"{}\"", entry.blake3)) {
        response.headers_mut().insert(header::ETAG, etag);
    }
    if !entry.is_text && !entry.mime.starts_with("image/") {
        response.headers_mut().insert(header::CONTENT_DISPOSITION, HeaderValue::from_static("attachment"));
    }
    response
}

/// A page in the frame.
fn page(
    state: &WebState,
    view: &View<'_>,
    snapshot: &Snapshot,
    status: StatusCode,
    title: &str,
    query: &str,
    body: &str,
) -> Response {
    let shell = Shell {
        site: &view.catalog.settings.title,
        title,
        query,
        live: state.server.live_mode().can_change(),
        version: snapshot.query.catalog_hash(),
    };
    respond(status, "text/html; charset=utf-8", shell.page(body), PAGE_POLICY)
}

fn asset(content_type: &'static str, text: &'static str) -> Response {
    respond(StatusCode::OK, content_type, text, PAGE_POLICY)
}

fn plain(status: StatusCode, text: &'static str) -> Response {
    respond(status, "text/plain; charset=utf-8", text, PAGE_POLICY)
}

/// An answer with the headers every answer carries: its type, no sniffing, no referrer, no
/// framing, the content policy, and no caching (a reload changes pages under the same address).
fn respond(status: StatusCode, content_type: &str, body: impl Into<Body>, policy: &'static str) -> Response {
    let mut response = Response::new(body.into());
    *response.status_mut() = status;
    let headers = response.headers_mut();
    if let Ok(value) = HeaderValue::from_str(content_type) {
        headers.insert(header::CONTENT_TYPE, value);
    }
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(policy));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;

    use axum::http::StatusCode;
    use axum::response::Response;

    use super::{FolioServer, Mutex, WebState, render};
    use crate::query::{Query, fixture_query};
    use crate::server::LiveMode;

    fn state() -> WebState {
        let server = FolioServer::from_query(fixture_query())
            .and_then(|s| s.with_live_mode(LiveMode::Reloadable))
            .expect("the fixture catalog serves");
        WebState {
            server,
            current: Mutex::new(None),
            stopping: tokio::sync::watch::channel(false).1,
            held: Default::default(),
            max_held: 1,
            renders: Default::default(),
        }
    }

    fn body(response: Response) -> String {
        let runtime = tokio::runtime::Builder::new_current_thread().build().expect("a runtime");
        let bytes = runtime.block_on(axum::body::to_bytes(response.into_body(), usize::MAX)).expect("a body");
        String::from_utf8(bytes.to_vec()).expect("HTML is UTF-8")
    }

    /// (status, body, lookups, renders) of one page request.
    fn get(state: &WebState, path: &str) -> (StatusCode, String, u64, u64) {
        let query = state.server.query();
        let (lookups, renders) = (query.lookups(), state.renders.load(Ordering::Relaxed));
        let response = render(state, path, "");
        let status = response.status();
        let lookups = query.lookups() - lookups;
        (status, body(response), lookups, state.renders.load(Ordering::Relaxed) - renders)
    }

    /// Every entry page looks its address up once and is rendered once per catalog: the second
    /// request of a page serves the same HTML without rendering it, and after a reload that
    /// changed the entry the new text is rendered and served.
    #[test]
    fn a_page_is_looked_up_once_and_rendered_once_per_catalog() {
        let state = state();
        for path in ["/docs/guides/install.md", "/skills/pdf/", "/skills/pdf/references/api.md"] {
            let (status, first, lookups, renders) = get(&state, path);
            assert_eq!((status, lookups, renders), (StatusCode::OK, 1, 1), "first request of {path}");
            let (status, again, lookups, renders) = get(&state, path);
            assert_eq!((status, lookups, renders), (StatusCode::OK, 1, 0), "second request of {path}");
            assert_eq!(first, again, "{path}");
        }
        let (_, before, ..) = get(&state, "/docs/guides/install.md");
        assert!(!before.contains("Changed after the reload"));

        let mut catalog = state.server.query().catalog().clone();
        let idx = catalog.entries.iter().position(|e| e.path == "docs/guides/install.md").expect("the doc");
        let text = format!("{}\nChanged after the reload.\n", catalog.entries[idx].text().expect("text"));
        let entry = &mut catalog.entries[idx];
        entry.bytes = text.clone().into_bytes().into();
        entry.size = text.len() as u64;
        entry.blake3 = blake3::hash(text.as_bytes()).to_hex().to_string();
        state.server.replace(Query::from_catalog(catalog)).expect("the changed catalog serves");

        let (status, after, lookups, renders) = get(&state, "/docs/guides/install.md");
        assert_eq!((status, lookups, renders), (StatusCode::OK, 1, 1));
        assert!(after.contains("Changed after the reload"), "{after}");
        let (.., renders) = get(&state, "/docs/guides/install.md");
        assert_eq!(renders, 0);
    }
}
