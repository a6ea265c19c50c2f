//! The one rule for joining a scoped worker thread: a worker that panicked re-raises its own
//! panic on the joining thread, payload and message intact, so a bug in a worker reads the same
//! as a bug anywhere else (and `catch_unwind` around a compile or an open sees it).
//!
//! Std only (the compiler and the catalog join workers; the server's open does too).

use std::thread::ScopedJoinHandle;

/// The worker's result, or its panic resumed here.
pub fn join<T>(worker: ScopedJoinHandle<'_, T>) -> T {
    worker.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}
