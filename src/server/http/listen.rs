//! `subscriptions/listen` streams over HTTP: a POST answered with a Server-Sent Events stream
//! that stays open (after the acknowledgement, change notifications when the catalog is
//! reloaded, keep-alive comments otherwise). Each one holds a connection for as long as it lasts, so they
//! get their own budget instead of the connection slots ordinary requests use:
//! `max_listen_streams` at once (past it: 503 with `Retry-After` and a JSON-RPC error), each
//! ended after `listen_idle_timeout` without an event. A connection carrying one leaves the
//! connection budget and closes when its stream ends.
//!
//! Nothing here writes to the socket; the stream itself is rmcp's.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes, HttpBody};
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::budget::Tracked;
use super::rpc_errors::{error_response, request_id};
use crate::server::limits::ReadBody;

/// The method whose answer is a long-lived stream.
const LISTEN: &str = "subscriptions/listen";

/// JSON-RPC code of the refusal: implementation-defined server error (JSON-RPC 2.0 reserves
/// -32000 to -32099 for them).
const SERVER_BUSY: i64 = -32000;

/// Seconds a refused client is told to wait before trying again.
const RETRY_AFTER_SECONDS: u64 = 5;

/// The listen-stream budget shared by every connection.
#[derive(Debug)]
pub(crate) struct ListenBudget {
    slots: Arc<Semaphore>,
    max: usize,
    idle: Duration,
}

impl ListenBudget {
    pub(crate) fn new(max: usize, idle: Duration) -> Arc<ListenBudget> {
        Arc::new(ListenBudget { slots: Arc::new(Semaphore::new(max)), max, idle })
    }
}

/// True when the request asks for a listen stream: by its `Mcp-Method` header (which rmcp
/// requires to match the body), or by its body when the header is missing.
fn is_listen(request: &Request) -> bool {
    if request.headers().get("mcp-method").is_some_and(|v| v.as_bytes() == LISTEN.as_bytes()) {
        return true;
    }
    let Some(ReadBody(body)) = request.extensions().get::<ReadBody>() else { return false };
    // Parsed only when the name appears at all, so other requests pay one substring search.
    if memchr::memmem::find(body, LISTEN.as_bytes()).is_none() {
        return false;
    }
    #[derive(serde::Deserialize)]
    struct MethodOnly {
        method: Option<String>,
    }
    serde_json::from_slice::<MethodOnly>(body).is_ok_and(|m| m.method.as_deref() == Some(LISTEN))
}

/// Middleware (inside `read_body_within`): admits a listen request only with a free listen
/// slot; when rmcp opens its stream, moves the connection out of the connection budget,
/// bounds the stream's idle time and closes the connection when it ends.
pub(crate) async fn gate_listen_streams(
    State(budget): State<Arc<ListenBudget>>,
    request: Request,
    next: Next,
) -> Response {
    if !is_listen(&request) {
        return next.run(request).await;
    }
    let Ok(permit) = Arc::clone(&budget.slots).try_acquire_owned() else {
        let id = request.extensions().get::<ReadBody>().map_or(serde_json::Value::Null, |b| request_id(&b.0));
        let message = format!(
            "too many `{LISTEN}` streams are open (at most {}); retry in {RETRY_AFTER_SECONDS} s",
            budget.max
        );
        let retry = (header::RETRY_AFTER, HeaderValue::from(RETRY_AFTER_SECONDS));
        return error_response(StatusCode::SERVICE_UNAVAILABLE, &[retry], id, SERVER_BUSY, &message);
    };
    let tracked = request.extensions().get::<Arc<Tracked>>().cloned();
    let response = next.run(request).await;
    let is_stream = response.status() == StatusCode::OK
        && response
            .headers()
            .get(header::CONTENT_TYPE)
            .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"));
    if !is_stream {
        // Refused or answered at once: the listen slot was not used.
        return response;
    }
    if let Some(tracked) = tracked {
        tracked.detach();
    }
    let (mut parts, body) = response.into_parts();
    // The connection was counted as a listen stream, not a connection slot: it must not go on
    // to serve other requests once the stream ends.
    parts.headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
    let idle = budget.idle;
    let body = IdleLimited { inner: body, idle, deadline: Box::pin(tokio::time::sleep(idle)), _slot: permit };
    Response::from_parts(parts, Body::new(body))
}

/// A stream body that ends once no event (a frame not starting with `:`, which marks an SSE
/// comment such as a keep-alive) has passed for `idle`. Holds its listen slot until dropped.
struct IdleLimited {
    inner: Body,
    idle: Duration,
    deadline: Pin<Box<tokio::time::Sleep>>,
    _slot: OwnedSemaphorePermit,
}

impl HttpBody for IdleLimited {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<hyper::body::Frame<Bytes>, axum::Error>>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                if frame.data_ref().is_some_and(|d| !d.starts_with(b":")) {
                    let next = tokio::time::Instant::now() + this.idle;
                    this.deadline.as_mut().reset(next);
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Pending => match this.deadline.as_mut().poll(cx) {
                Poll::Ready(()) => Poll::Ready(None),
                Poll::Pending => Poll::Pending,
            },
            other => other,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }
}
