//! A shelf over Streamable HTTP: `/mcp` serves the shelf ([`ShelfServer`]), `/mcp/<catalog>`
//! one catalog of it (`<name>` for its latest version, `<name>@<version>` for that one) with the
//! catalog's own URIs, for a client configured for one project; `GET /healthz` says how many
//! catalogs are on the shelf and how many are open. Every route passes the rules of
//! `server::http` (Host, Origin, token, rate, body limits).
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

/// The services of the catalogs asked for by path, by catalog id and hash (a catalog replaced on
/// the shelf gets a new one).
struct Catalogs {
    shelf: ShelfServer,
    config: StreamableHttpServerConfig,
    services: Mutex<BTreeMap<(String, String), Service>>,
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
        services: Mutex::new(BTreeMap::new()),
    });
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
    let server = match slot.server() {
        Ok(server) => server,
        Err(e) => {
            let body = json!({ "error": format!("catalog `{}` cannot be opened: {e}", slot.id) });
            return (
                StatusCode::INTERNAL_SERVER_ERROR,
                [(header::CONTENT_TYPE, "application/json")],
                format!("{body}\n"),
            )
                .into_response();
        }
    };
    let key = (slot.id.clone(), slot.peek.catalog_hash.clone());
    let service = {
        let mut services = catalogs.services.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if !services.contains_key(&key) {
            // Services of catalogs no longer on the shelf go with the first new one.
            services.retain(|(id, hash), _| shelf.resolve(id).is_some_and(|s| s.peek.catalog_hash == *hash));
        }
        services
            .entry(key)
            .or_insert_with(|| {
                StreamableHttpService::new(
                    move || Ok(server.clone()),
                    Arc::new(NeverSessionManager::default()),
                    catalogs.config.clone(),
                )
            })
            .clone()
    };
    service.handle(request).await.into_response()
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
