//! A shelf over Streamable HTTP: `/mcp` serves the shelf ([`ShelfServer`]), `/mcp/<catalog>`
//! one catalog of it (`<name>` for its latest version, `<name>@<version>` for that one) with the
//! catalog's own URIs, for a client configured for one project; `GET /healthz` says how many
//! catalogs are on the shelf and how many are open. Every route passes the rules of
//! `server::http` (Host, Origin, token, rate, body limits).
//!
//! On a shelf that can change (`--watch`, SIGHUP), `/mcp/<catalog>` follows what its name
//! resolves to: a new latest version (or a file replaced under the same id) is swapped into
//! that endpoint's server, whose listen streams are told (`list_changed`, `resources/updated`),
//! as a single-catalog `serve --watch` tells them.
//!
//! Must not: open a catalog no request names.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{Path, Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse as _, Response};
use axum::routing::{any, get};
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::json;

use super::ShelfServer;
use crate::server::http::{self, HttpOptions, ServeError};
use crate::server::{FolioServer, SERVER_NAME, SERVER_VERSION};

type Service = StreamableHttpService<FolioServer, NeverSessionManager>;

/// The endpoints of the catalogs asked for by path, by the id the path wrote (`alpha`,
/// `alpha@2.9`).
struct Catalogs {
    shelf: ShelfServer,
    config: StreamableHttpServerConfig,
    endpoints: Mutex<BTreeMap<String, Endpoint>>,
}

/// One `/mcp/<catalog>`: the server it answers from and the catalog hash that server serves.
#[derive(Clone)]
struct Endpoint {
    server: FolioServer,
    service: Service,
    hash: String,
}

/// The router of a shelf (see the module doc), plus a function that ends every open stream.
pub fn shelf_router(server: ShelfServer, options: &HttpOptions) -> (Router, impl FnOnce() + Send + 'static) {
    let config = http::mcp_config(options);
    let factory = {
        let server = server.clone();
        move || Ok(server.clone())
    };
    let mcp = StreamableHttpService::new(factory, Arc::new(NeverSessionManager::default()), config.clone());
    let catalogs = Arc::new(Catalogs {
        shelf: server.clone(),
        config: config.clone(),
        endpoints: Mutex::new(BTreeMap::new()),
    });
    if server.live_mode().can_change()
        && let Ok(runtime) = tokio::runtime::Handle::try_current()
    {
        runtime.spawn(follow(Arc::clone(&catalogs)));
    }
    let routes = Router::new()
        .route_service("/mcp", mcp)
        .route("/mcp/{catalog}", any(one_catalog).with_state(catalogs));
    let public = Router::new().route(
        "/healthz",
        get(move || std::future::ready(([(header::CONTENT_TYPE, "application/json")], health_body(&server)))),
    );
    http::guarded(routes, public, config, options)
}

/// Serves a shelf over Streamable HTTP on a bound listener until `shutdown` resolves, as
/// [`crate::server::serve_http`] serves one catalog.
///
/// Fails like [`crate::server::serve_http`] (it does not today).
pub async fn serve_shelf_http(
    listener: tokio::net::TcpListener,
    server: ShelfServer,
    options: &HttpOptions,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    let (app, stop) = shelf_router(server, options);
    http::serve_router(listener, app, stop, &options.limits, shutdown).await
}

/// `/mcp/<catalog>`: the request served by that catalog's own server.
async fn one_catalog(
    State(catalogs): State<Arc<Catalogs>>,
    Path(id): Path<String>,
    request: Request,
) -> Response {
    let shelf = catalogs.shelf.shelf();
    let Some(slot) = shelf.resolve(&id) else {
        let body = json!({ "error": format!("no catalog `{id}` on this shelf"), "catalogs": shelf.ids() });
        return (StatusCode::NOT_FOUND, [(header::CONTENT_TYPE, "application/json")], format!("{body}\n"))
            .into_response();
    };
    let cannot_open = |e: String| {
        let body = json!({ "error": format!("catalog `{}` cannot be opened: {e}", slot.id) });
        (StatusCode::INTERNAL_SERVER_ERROR, [(header::CONTENT_TYPE, "application/json")], format!("{body}\n"))
            .into_response()
    };
    let known = catalogs.endpoint(&id);
    let service = match known {
        Some(endpoint) if endpoint.hash == slot.peek.catalog_hash => endpoint.service,
        // The shelf changed since: the follower has not caught up yet, or the shelf is fixed.
        Some(endpoint) => match slot.server() {
            Ok(current) => {
                catalogs.update(&id, &endpoint, current.query(), &slot.peek.catalog_hash);
                endpoint.service
            }
            Err(e) => return cannot_open(e),
        },
        None => match slot.server() {
            Ok(server) => match catalogs.add(&id, server, &slot.peek.catalog_hash) {
                Ok(service) => service,
                Err(e) => return cannot_open(e.to_string()),
            },
            Err(e) => return cannot_open(e),
        },
    };
    service.handle(request).await.into_response()
}

impl Catalogs {
    fn endpoint(&self, id: &str) -> Option<Endpoint> {
        self.endpoints.lock().unwrap_or_else(std::sync::PoisonError::into_inner).get(id).cloned()
    }

    /// A new endpoint for `id`, serving the slot's server; on a shelf that can change, in its
    /// own live server (the slot's stays the shelf's), so it can follow `id` later.
    fn add(&self, id: &str, server: FolioServer, hash: &str) -> Result<Service, crate::server::OpenError> {
        let mode = self.shelf.live_mode();
        let server = if mode.can_change() { server.with_live_mode(mode)? } else { server };
        let mut endpoints = self.endpoints.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let endpoint = endpoints.entry(id.to_owned()).or_insert_with(|| {
            let serving = server.clone();
            Endpoint {
                service: StreamableHttpService::new(
                    move || Ok(serving.clone()),
                    Arc::new(NeverSessionManager::default()),
                    self.config.clone(),
                ),
                server,
                hash: hash.to_owned(),
            }
        });
        Ok(endpoint.service.clone())
    }

    /// Serves `query` (of catalog `hash`) at `id` from now on: swapped into a live endpoint
    /// (its listen streams are told), or a fixed endpoint made anew.
    fn update(&self, id: &str, endpoint: &Endpoint, query: Arc<crate::query::Query>, hash: &str) {
        let mut endpoints = self.endpoints.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if endpoint.server.live_mode().can_change() {
            // A catalog that opened once swaps in; should it not, the endpoint keeps the old one.
            if endpoint.server.replace_shared(query).is_ok()
                && let Some(known) = endpoints.get_mut(id)
            {
                known.hash = hash.to_owned();
            }
        } else {
            endpoints.remove(id);
        }
    }
}

/// Follows the shelf: after each change, every endpoint asked for so far is pointed at what its
/// id resolves to now (opening that catalog off the async threads). An id no longer on the
/// shelf keeps its endpoint; its requests get the 404.
async fn follow(catalogs: Arc<Catalogs>) {
    let mut changes = catalogs.shelf.changes();
    while changes.changed().await.is_ok() {
        let shelf = Arc::clone(&changes.borrow_and_update());
        let known: Vec<(String, Endpoint)> = catalogs
            .endpoints
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .map(|(id, e)| (id.clone(), e.clone()))
            .collect();
        for (id, endpoint) in known {
            let Some(slot) = shelf.resolve(&id).cloned() else { continue };
            if slot.peek.catalog_hash == endpoint.hash {
                continue;
            }
            let hash = slot.peek.catalog_hash.clone();
            let opened = tokio::task::spawn_blocking(move || slot.server()).await;
            if let Ok(Ok(server)) = opened {
                catalogs.update(&id, &endpoint, server.query(), &hash);
            }
        }
    }
}

fn health_body(server: &ShelfServer) -> String {
    let shelf = server.shelf();
    let body = json!({
        "status": "ok",
        "name": SERVER_NAME,
        "version": SERVER_VERSION,
        "catalogs": shelf.len(),
        "open": shelf.slots().iter().filter(|s| s.is_open()).count(),
    });
    format!("{body}\n")
}
