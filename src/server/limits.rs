//! What one HTTP client may hold of the server, so that a slow or greedy client cannot starve
//! the others: [`HttpLimits`] (time to send a request head and body, connections at once and
//! per remote client, requests per second per remote client, listen streams, the shutdown
//! deadline), the per-client tables ([`RateLimiter`], [`ConnectionCounts`]) and the two axum
//! middlewares that enforce the per-request limits. The accept loop in `http` enforces the
//! per-connection ones.
//!
//! Nothing here knows MCP: these are HTTP rules, answered with plain HTTP statuses (408, 413,
//! 429) before a request reaches rmcp.

use std::collections::BTreeMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use tokio::time::Instant;

/// Bounds on what each client of the Streamable HTTP transport may use. [`Default`] gives the
/// values `folio serve --http` runs with; the `with_` methods change one each. (It will gain
/// fields: build it from [`Default`], not with a struct literal.)
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct HttpLimits {
    /// Time a client has to send a request's head: from the moment its connection opens, or
    /// the previous response on a kept-alive connection ends. Past it the connection is
    /// closed, so an idle or trickling connection (slowloris) does not hold a slot.
    pub header_read_timeout: Duration,
    /// Time a client has to send a request's body once its head is read; 408 past it.
    pub body_read_timeout: Duration,
    /// Connections served at once (listen streams not counted: see `max_listen_streams`).
    /// When all are taken, a new client takes the place of the connection that has waited
    /// on its own client the longest (no request head yet, a body still arriving, or idle
    /// between requests), which is closed; only when every connection has a request in hand
    /// does a new client wait in the listen backlog.
    pub max_connections: usize,
    /// Connections one remote client may hold at once (counted like the request rate; loopback
    /// clients are not counted), so that one client cannot take every slot. A connection over
    /// it is answered 429 and closed.
    pub max_connections_per_client: usize,
    /// Requests per second each remote client may make to `/mcp`, on average; twice as many
    /// may come in a burst. Past it: 429 with `Retry-After`. Clients on loopback (the local
    /// user, or a reverse proxy on this machine, which limits its own clients) are not
    /// limited. `None`: no limit.
    pub requests_per_second: Option<u32>,
    /// `subscriptions/listen` streams open at once, from all clients. They hold their
    /// connection for as long as they last, so they have their own budget instead of
    /// `max_connections`: past it a new one is answered 503 with `Retry-After`.
    pub max_listen_streams: usize,
    /// A listen stream that has sent no event (keep-alive comments aside) for this long is
    /// ended; the client may open a new one.
    pub listen_idle_timeout: Duration,
    /// Time the graceful shutdown gives open requests to finish; the connections still open
    /// past it are dropped, so a client that stops reading cannot keep the process alive.
    pub shutdown_timeout: Duration,
}

impl Default for HttpLimits {
    fn default() -> Self {
        HttpLimits {
            header_read_timeout: Duration::from_secs(10),
            body_read_timeout: Duration::from_secs(30),
            max_connections: 512,
            max_connections_per_client: 64,
            requests_per_second: Some(50),
            max_listen_streams: 128,
            listen_idle_timeout: Duration::from_secs(300),
            shutdown_timeout: Duration::from_secs(5),
        }
    }
}

impl HttpLimits {
    /// `self` with [`HttpLimits::header_read_timeout`] set to `value`.
    #[must_use]
    pub fn with_header_read_timeout(mut self, value: Duration) -> Self {
        self.header_read_timeout = value;
        self
    }

    /// `self` with [`HttpLimits::body_read_timeout`] set to `value`.
    #[must_use]
    pub fn with_body_read_timeout(mut self, value: Duration) -> Self {
        self.body_read_timeout = value;
        self
    }

    /// `self` with [`HttpLimits::max_connections`] set to `value`.
    #[must_use]
    pub fn with_max_connections(mut self, value: usize) -> Self {
        self.max_connections = value;
        self
    }

    /// `self` with [`HttpLimits::max_connections_per_client`] set to `value`.
    #[must_use]
    pub fn with_max_connections_per_client(mut self, value: usize) -> Self {
        self.max_connections_per_client = value;
        self
    }

    /// `self` with [`HttpLimits::requests_per_second`] set to `value`.
    #[must_use]
    pub fn with_requests_per_second(mut self, value: Option<u32>) -> Self {
        self.requests_per_second = value;
        self
    }

    /// `self` with [`HttpLimits::max_listen_streams`] set to `value`.
    #[must_use]
    pub fn with_max_listen_streams(mut self, value: usize) -> Self {
        self.max_listen_streams = value;
        self
    }

    /// `self` with [`HttpLimits::listen_idle_timeout`] set to `value`.
    #[must_use]
    pub fn with_listen_idle_timeout(mut self, value: Duration) -> Self {
        self.listen_idle_timeout = value;
        self
    }

    /// `self` with [`HttpLimits::shutdown_timeout`] set to `value`.
    #[must_use]
    pub fn with_shutdown_timeout(mut self, value: Duration) -> Self {
        self.shutdown_timeout = value;
        self
    }
}

/// Remote clients tracked before idle ones are forgotten (each costs a few dozen bytes).
const MAX_TRACKED_CLIENTS: usize = 10_000;

/// Per remote client, a token bucket of requests. Shared by every connection.
#[derive(Debug)]
pub(crate) struct RateLimiter {
    /// Tokens added per second.
    rate: f64,
    /// Bucket size: the largest burst.
    burst: f64,
    buckets: Mutex<BTreeMap<IpAddr, Bucket>>,
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    updated: Instant,
}

impl RateLimiter {
    pub(crate) fn new(requests_per_second: u32) -> RateLimiter {
        let rate = f64::from(requests_per_second.max(1));
        RateLimiter { rate, burst: 2.0 * rate, buckets: Mutex::new(BTreeMap::new()) }
    }

    /// Takes a token for a request from `peer` at `now`: `Ok` when allowed, or how long to wait
    /// for the next token.
    pub(crate) fn take(&self, peer: IpAddr, now: Instant) -> Result<(), Duration> {
        let Some(key) = client_key(peer) else { return Ok(()) };
        // A panic while the lock was held left the map consistent (each update is one store).
        let mut buckets = self.buckets.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if buckets.len() >= MAX_TRACKED_CLIENTS && !buckets.contains_key(&key) {
            // Forget the clients whose bucket has refilled: they are idle, and a new bucket
            // is full anyway, so forgetting them changes nothing they can do.
            let (rate, burst) = (self.rate, self.burst);
            buckets.retain(|_, b| b.tokens + now.duration_since(b.updated).as_secs_f64() * rate < burst);
            if buckets.len() >= MAX_TRACKED_CLIENTS {
                // Every tracked client is busy (a flood from many addresses): refuse newcomers
                // rather than grow without bound.
                return Err(Duration::from_secs(1));
            }
        }
        let bucket = buckets.entry(key).or_insert(Bucket { tokens: self.burst, updated: now });
        bucket.tokens =
            (bucket.tokens + now.duration_since(bucket.updated).as_secs_f64() * self.rate).min(self.burst);
        bucket.updated = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64((1.0 - bucket.tokens) / self.rate))
        }
    }
}

/// Per remote client, the connections it holds. Entries exist only while a connection does, so
/// the table never outgrows the connection limit.
#[derive(Debug)]
pub(crate) struct ConnectionCounts {
    max: usize,
    held: Mutex<BTreeMap<IpAddr, usize>>,
}

/// A connection counted against its client until dropped.
#[derive(Debug)]
pub(crate) struct ClientSlot {
    counts: Arc<ConnectionCounts>,
    /// `None` for a loopback client (not counted).
    key: Option<IpAddr>,
}

impl ConnectionCounts {
    pub(crate) fn new(max_per_client: usize) -> Arc<ConnectionCounts> {
        Arc::new(ConnectionCounts { max: max_per_client.max(1), held: Mutex::new(BTreeMap::new()) })
    }

    /// A slot for a new connection from `peer`, or `None` when it holds the maximum already.
    pub(crate) fn open(self: &Arc<Self>, peer: IpAddr) -> Option<ClientSlot> {
        let Some(key) = client_key(peer) else {
            return Some(ClientSlot { counts: Arc::clone(self), key: None });
        };
        let mut held = self.held.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let count = held.entry(key).or_insert(0);
        if *count >= self.max {
            return None;
        }
        *count += 1;
        Some(ClientSlot { counts: Arc::clone(self), key: Some(key) })
    }
}

impl Drop for ClientSlot {
    fn drop(&mut self) {
        let Some(key) = self.key else { return };
        let mut held = self.counts.held.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(count) = held.get_mut(&key) {
            *count -= 1;
            if *count == 0 {
                held.remove(&key);
            }
        }
    }
}

/// The address a client is counted under: its IPv4 address (an IPv4-mapped IPv6 one counts as
/// IPv4), or the /64 network of an IPv6 one (one host usually holds a whole /64, so counting
/// single addresses would not limit it). `None` for loopback, which is never limited.
fn client_key(peer: IpAddr) -> Option<IpAddr> {
    match peer.to_canonical() {
        ip if ip.is_loopback() => None,
        IpAddr::V4(v4) => Some(IpAddr::V4(v4)),
        IpAddr::V6(v6) => Some(IpAddr::V6((u128::from(v6) & !u128::from(u64::MAX)).into())),
    }
}

/// Middleware: 429 with `Retry-After` (whole seconds, at least 1) when the client is over its
/// rate. Requests without a peer address (not from the transport's accept loop) pass.
pub(crate) async fn limit_rate(
    State(limiter): State<Arc<RateLimiter>>,
    request: Request,
    next: Next,
) -> Response {
    let peer = request.extensions().get::<ConnectInfo<SocketAddr>>().map(|c| c.0.ip());
    match peer.map_or(Ok(()), |ip| limiter.take(ip, Instant::now())) {
        Ok(()) => next.run(request).await,
        Err(wait) => {
            let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
            (
                StatusCode::TOO_MANY_REQUESTS,
                [(header::RETRY_AFTER, seconds.max(1).to_string())],
                format!("Too Many Requests: over {} requests per second; retry later\n", limiter.rate),
            )
                .into_response()
        }
    }
}

/// The body of a request as [`read_body_within`] read it, also kept in the request's
/// extensions for the layers inside it (a cheap, shared handle on the same bytes).
#[derive(Debug, Clone)]
pub(crate) struct ReadBody(pub(crate) axum::body::Bytes);

/// Middleware: reads the whole body within `limits` (time, bytes) before the request goes on,
/// answering 408 when the client is too slow and 413 when the body is too large. rmcp would
/// wait for a trickling body as long as the client keeps the connection open. A declared
/// `Content-Length` over the limit is refused before any of the body is read: waiting for
/// bytes that will be refused anyway only holds the connection.
pub(crate) async fn read_body_within(
    State((timeout, max_bytes)): State<(Duration, usize)>,
    request: Request,
    next: Next,
) -> Response {
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > max_bytes as u64) {
        // The unread body is not drained: the connection closes after this answer.
        return too_large(max_bytes, true);
    }
    let (mut parts, body) = request.into_parts();
    match tokio::time::timeout(timeout, axum::body::to_bytes(body, max_bytes)).await {
        Ok(Ok(bytes)) => {
            parts.extensions.insert(ReadBody(bytes.clone()));
            next.run(Request::from_parts(parts, Body::from(bytes))).await
        }
        Ok(Err(e)) if is_length_limit(&e) => too_large(max_bytes, false),
        // The client broke off the body: nobody reads this answer, but the request ends here.
        Ok(Err(_)) => (StatusCode::BAD_REQUEST, "Bad Request: the body could not be read\n").into_response(),
        Err(_) => (
            StatusCode::REQUEST_TIMEOUT,
            [(header::CONNECTION, "close")],
            format!("Request Timeout: the body did not arrive within {} s\n", timeout.as_secs_f64()),
        )
            .into_response(),
    }
}

/// 413, closing the connection when the rest of the body is left unread.
fn too_large(max_bytes: usize, close: bool) -> Response {
    let text = format!("Payload Too Large: request bodies are limited to {max_bytes} bytes\n");
    if close {
        (StatusCode::PAYLOAD_TOO_LARGE, [(header::CONNECTION, "close")], text).into_response()
    } else {
        (StatusCode::PAYLOAD_TOO_LARGE, text).into_response()
    }
}

/// True when `to_bytes` stopped at the byte limit (rather than on a broken connection).
fn is_length_limit(e: &axum::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = source {
        if err.is::<http_body_util::LengthLimitError>() {
            return true;
        }
        source = err.source();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bursts_pass_then_each_client_waits_for_its_own_tokens() {
        let limiter = RateLimiter::new(5);
        let start = Instant::now();
        let a: IpAddr = "203.0.113.7".parse().unwrap();
        let b: IpAddr = "198.51.100.1".parse().unwrap();
        for _ in 0..10 {
            assert_eq!(limiter.take(a, start), Ok(()));
        }
        let wait = limiter.take(a, start).unwrap_err();
        assert_eq!(wait, Duration::from_millis(200));
        // Another client has its own bucket.
        assert_eq!(limiter.take(b, start), Ok(()));
        // A fifth of a second later, one more token.
        let later = start + Duration::from_millis(200);
        assert_eq!(limiter.take(a, later), Ok(()));
        assert!(limiter.take(a, later).is_err());
    }

    #[test]
    fn loopback_is_not_limited_and_ipv6_counts_by_network() {
        let limiter = RateLimiter::new(1);
        let now = Instant::now();
        for ip in ["127.0.0.1", "::1", "::ffff:127.0.0.1"] {
            let ip: IpAddr = ip.parse().unwrap();
            assert!((0..100).all(|_| limiter.take(ip, now).is_ok()), "{ip}");
        }
        // Two addresses of one /64 share a bucket of 2.
        let x: IpAddr = "2001:db8:1:2::1".parse().unwrap();
        let y: IpAddr = "2001:db8:1:2:ffff::9".parse().unwrap();
        assert!(limiter.take(x, now).is_ok() && limiter.take(y, now).is_ok());
        assert!(limiter.take(x, now).is_err());
        // Another /64 does not.
        assert!(limiter.take("2001:db8:1:3::1".parse().unwrap(), now).is_ok());
        // An IPv4-mapped address is its IPv4 client.
        let v4: IpAddr = "192.0.2.1".parse().unwrap();
        let mapped: IpAddr = "::ffff:192.0.2.1".parse().unwrap();
        assert!(limiter.take(v4, now).is_ok() && limiter.take(mapped, now).is_ok());
        assert!(limiter.take(v4, now).is_err());
    }

    #[test]
    fn each_remote_client_holds_at_most_its_share_of_connections() {
        let counts = ConnectionCounts::new(2);
        let a: IpAddr = "203.0.113.7".parse().unwrap();
        let (first, second) = (counts.open(a).unwrap(), counts.open(a).unwrap());
        assert!(counts.open(a).is_none(), "a third connection from one client");
        // Other clients, an address of the same IPv6 /64 counted together, and loopback.
        assert!(counts.open("198.51.100.1".parse().unwrap()).is_some());
        let v6: Vec<_> =
            ["2001:db8::1", "2001:db8::2"].iter().map(|ip| counts.open(ip.parse().unwrap())).collect();
        assert!(v6.iter().all(Option::is_some));
        assert!(counts.open("2001:db8::3".parse().unwrap()).is_none());
        let local: Vec<_> = (0..10).map(|_| counts.open("127.0.0.1".parse().unwrap())).collect();
        assert!(local.iter().all(Option::is_some));
        // A closed connection frees its slot, and a client with none leaves the table.
        drop(first);
        let third = counts.open(a).unwrap();
        drop((second, third, v6));
        assert!(counts.held.lock().unwrap().is_empty());
    }

    #[test]
    fn idle_clients_are_forgotten_when_the_table_is_full() {
        let limiter = RateLimiter::new(1);
        let now = Instant::now();
        for i in 0..MAX_TRACKED_CLIENTS as u32 {
            assert!(limiter.take(IpAddr::V4((0x0A00_0000 + i).into()), now).is_ok());
        }
        // All busy: a newcomer is refused rather than tracked.
        let newcomer: IpAddr = "192.0.2.99".parse().unwrap();
        assert_eq!(limiter.take(newcomer, now), Err(Duration::from_secs(1)));
        // Once their buckets refill they are forgotten, and the newcomer is served.
        let later = now + Duration::from_secs(2);
        assert!(limiter.take(newcomer, later).is_ok());
        assert_eq!(limiter.buckets.lock().unwrap().len(), 1);
    }
}
