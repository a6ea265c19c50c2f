//! The global connection budget of the HTTP transport (`max_connections` slots) and who gives
//! a slot up when it is full.
//!
//! Every open connection is tracked with what it is doing: waiting on its client (no complete
//! request yet: the head or the body is still arriving, or it is idle between requests), or
//! working (a complete request is being answered). When every slot is taken and a new client
//! arrives, the connection that has been waiting on its client the longest is closed to make
//! room. That is the slowloris defence that works for loopback clients too, who have no
//! per-client cap (a reverse proxy on this machine speaks for many clients): holding a slot
//! costs an attacker nothing while it sends nothing, so a slot is only kept by a connection
//! that is being served. A connection with a request in hand is never closed for another, so
//! when all are working, new clients wait in the listen backlog as before.
//!
//! A connection works from the moment its request is complete until hyper has handed the whole
//! answer to the socket ([`Watched`] sees that flush), so a client that does not read its
//! answer keeps its slot while it is written; the shutdown deadline bounds that.
//!
//! A connection that becomes a `subscriptions/listen` stream leaves the budget ([`Tracked::detach`]):
//! the listen streams have their own cap (see `listen`). Nothing here reads or writes sockets
//! except through [`Watched`], which only passes bytes on.

use std::collections::BTreeMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

/// Waiting on the client: may be closed to make room.
const WAITING: u8 = 0;
/// Answering a complete request: kept.
const WORKING: u8 = 1;
/// Chosen to make room; the connection is being closed.
const EVICTED: u8 = 2;
/// A listen stream: outside the budget, never chosen.
const DETACHED: u8 = 3;

/// The `max_connections` slots and the connections holding them.
#[derive(Debug)]
pub(super) struct Budget {
    slots: Arc<Semaphore>,
    open: Mutex<BTreeMap<u64, Arc<Tracked>>>,
    next_id: AtomicU64,
    /// Signalled when a connection starts waiting on its client (it may be closed now).
    became_waiting: Notify,
}

/// One connection as the budget sees it; shared by the connection task and its requests
/// (as a request extension).
#[derive(Debug)]
pub(crate) struct Tracked {
    state: AtomicU8,
    /// Requests hyper has handed to the service whose answer's body it has not dropped yet
    /// (more than one only when a client pipelines).
    pending: AtomicUsize,
    /// An answer's body is done; the connection waits again once hyper has flushed it, unless
    /// a pipelined request has started meanwhile.
    answered: AtomicBool,
    /// When it last started waiting on its client.
    waiting_since: Mutex<Instant>,
    /// Its slot, given back when it closes or becomes a listen stream.
    slot: Mutex<Option<OwnedSemaphorePermit>>,
    evicted: Notify,
    budget: Arc<Budget>,
}

/// A connection's place in the budget; leaves the table when dropped.
#[derive(Debug)]
pub(super) struct Admitted {
    id: u64,
    tracked: Arc<Tracked>,
}

impl Budget {
    pub(super) fn new(max_connections: usize) -> Arc<Budget> {
        Arc::new(Budget {
            slots: Arc::new(Semaphore::new(max_connections.max(1))),
            open: Mutex::new(BTreeMap::new()),
            next_id: AtomicU64::new(0),
            became_waiting: Notify::new(),
        })
    }

    /// A slot for a connection just accepted. When none is free, closes the connection that
    /// has waited on its client the longest and takes its slot; when every connection is
    /// working, waits until one finishes its request or closes.
    pub(super) async fn admit(self: &Arc<Self>) -> Admitted {
        let slot = loop {
            if let Ok(slot) = Arc::clone(&self.slots).try_acquire_owned() {
                break slot;
            }
            // Registered before looking, so a connection that starts waiting meanwhile is seen.
            let became_waiting = self.became_waiting.notified();
            if self.evict_longest_waiting() {
                // Its slot comes back as soon as its task drops it.
                break Arc::clone(&self.slots).acquire_owned().await.expect("the semaphore is never closed");
            }
            tokio::select! {
                slot = Arc::clone(&self.slots).acquire_owned() => {
                    break slot.expect("the semaphore is never closed");
                }
                () = became_waiting => {}
            }
        };
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let tracked = Arc::new(Tracked {
            state: AtomicU8::new(WAITING),
            pending: AtomicUsize::new(0),
            answered: AtomicBool::new(false),
            waiting_since: Mutex::new(Instant::now()),
            slot: Mutex::new(Some(slot)),
            evicted: Notify::new(),
            budget: Arc::clone(self),
        });
        self.open.lock().unwrap_or_else(PoisonError::into_inner).insert(id, Arc::clone(&tracked));
        Admitted { id, tracked }
    }

    /// Closes every connection waiting on its client (at shutdown: they have no request in
    /// hand, so there is nothing to drain; a slow head would otherwise hold the drain).
    pub(super) fn close_waiting(&self) {
        let open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        for tracked in open.values() {
            if tracked.state.compare_exchange(WAITING, EVICTED, Ordering::AcqRel, Ordering::Acquire).is_ok() {
                tracked.evicted.notify_one();
            }
        }
    }

    /// Marks the connection that has waited on its client the longest as evicted and wakes
    /// its task; false when every connection is working.
    fn evict_longest_waiting(&self) -> bool {
        let open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        let mut waiting: Vec<(Instant, &Arc<Tracked>)> = open
            .values()
            .filter(|t| t.state.load(Ordering::Acquire) == WAITING)
            .map(|t| (*t.waiting_since.lock().unwrap_or_else(PoisonError::into_inner), t))
            .collect();
        waiting.sort_by_key(|(since, _)| *since);
        // A candidate may start working between the look and the swap: then the next one.
        for (_, tracked) in waiting {
            if tracked.state.compare_exchange(WAITING, EVICTED, Ordering::AcqRel, Ordering::Acquire).is_ok() {
                tracked.evicted.notify_one();
                return true;
            }
        }
        false
    }
}

impl Admitted {
    pub(super) fn tracked(&self) -> &Arc<Tracked> {
        &self.tracked
    }
}

impl Drop for Admitted {
    fn drop(&mut self) {
        self.tracked.budget.open.lock().unwrap_or_else(PoisonError::into_inner).remove(&self.id);
        self.tracked.slot.lock().unwrap_or_else(PoisonError::into_inner).take();
    }
}

impl Tracked {
    /// A complete request is in hand: the connection is kept until it is answered. False when
    /// the connection was chosen to make room just before (it is closing).
    pub(crate) fn start_working(&self) -> bool {
        match self.state.compare_exchange(WAITING, WORKING, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => true,
            Err(state) => state != EVICTED,
        }
    }

    /// hyper handed a request (its head) to the service.
    pub(crate) fn request_started(&self) {
        self.pending.fetch_add(1, Ordering::AcqRel);
    }

    /// The answer's body has ended (hyper dropped it): once hyper has written out what it
    /// still buffers, the connection waits on its client again.
    pub(crate) fn answered(&self) {
        self.pending.fetch_sub(1, Ordering::AcqRel);
        self.answered.store(true, Ordering::Release);
    }

    /// hyper's buffer is written out: if that ended an answer and no other request has begun,
    /// the connection waits on its client again.
    fn flushed(&self) {
        if self.pending.load(Ordering::Acquire) == 0 && self.answered.swap(false, Ordering::AcqRel) {
            self.finish_working();
        }
    }

    /// The answer is sent: the connection waits on its client again.
    fn finish_working(&self) {
        *self.waiting_since.lock().unwrap_or_else(PoisonError::into_inner) = Instant::now();
        if self.state.compare_exchange(WORKING, WAITING, Ordering::AcqRel, Ordering::Acquire).is_ok() {
            self.budget.became_waiting.notify_waiters();
        }
    }

    /// The connection became a listen stream: it gives its slot back and is never chosen to
    /// make room (it is counted among the listen streams instead).
    pub(crate) fn detach(&self) {
        self.state.store(DETACHED, Ordering::Release);
        self.slot.lock().unwrap_or_else(PoisonError::into_inner).take();
    }

    /// Resolves when the connection is chosen to make room for a new one.
    pub(super) async fn evicted(&self) {
        self.evicted.notified().await;
    }
}

/// The socket of a tracked connection: passes every call on, and marks the connection as
/// waiting on its client once an answer is completely written (hyper flushes the socket only
/// when its own buffer is empty).
pub(super) struct Watched {
    io: TcpStream,
    tracked: Arc<Tracked>,
}

impl Watched {
    pub(super) fn new(io: TcpStream, tracked: Arc<Tracked>) -> Watched {
        Watched { io, tracked }
    }
}

impl AsyncRead for Watched {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_read(cx, buf)
    }
}

impl AsyncWrite for Watched {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let flushed = Pin::new(&mut this.io).poll_flush(cx);
        if matches!(flushed, Poll::Ready(Ok(()))) {
            this.tracked.flushed();
        }
        flushed
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }
}

/// Middleware: the request's body is read (this runs inside `read_body_within`), so the
/// connection now has a complete request in hand and must not be closed to make room.
pub(crate) async fn mark_working(request: Request, next: Next) -> Response {
    if let Some(tracked) = request.extensions().get::<Arc<Tracked>>() {
        tracked.start_working();
    }
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_full_budget_closes_the_connection_waiting_longest_and_keeps_working_ones() {
        let budget = Budget::new(2);
        let oldest = budget.admit().await;
        let working = budget.admit().await;
        // The older one is working: the other is chosen although it came later.
        assert!(oldest.tracked().start_working());
        let third = tokio::spawn({
            let budget = Arc::clone(&budget);
            async move { budget.admit().await }
        });
        working.tracked().evicted().await;
        assert!(!working.tracked().start_working(), "an evicted connection does not start work");
        drop(working);
        let third = third.await.unwrap();
        // Everyone working: the next one waits until one finishes, then takes its place.
        assert!(third.tracked().start_working());
        let mut fourth = tokio::spawn({
            let budget = Arc::clone(&budget);
            async move { budget.admit().await }
        });
        assert!(tokio::time::timeout(std::time::Duration::from_millis(50), &mut fourth).await.is_err());
        oldest.tracked().request_started();
        oldest.tracked().answered();
        oldest.tracked().flushed();
        oldest.tracked().evicted().await;
        drop(oldest);
        let fourth = fourth.await.unwrap();
        // A listen stream gives its slot back and is never chosen.
        third.tracked().detach();
        let fifth = budget.admit().await;
        drop((third, fourth, fifth));
        assert!(budget.open.lock().unwrap().is_empty());
    }
}
