//! The catalog holder: which opened catalog (its precomputed [`State`]) the server answers from,
//! swapped atomically when `serve --watch` recompiles or SIGHUP reloads
//! (`content/docs/guides/serving.md`, "Live reload").
//!
//! Every request takes one snapshot (`Arc<State>`) when it starts and answers from it to the end,
//! so a request in flight during a swap finishes on the old catalog and every request after it
//! sees the new one, never a mix. The holder is a Tokio `watch` channel: the current value is the
//! snapshot (a read lock held only to clone an `Arc`), and its receivers are how listen streams
//! and legacy sessions learn that a swap happened (`notify` decides what to tell them).
//!
//! It also remembers the cursor tags of the catalogs it replaced, so a cursor from before a swap
//! gets a clear "restart the listing" instead of "not a cursor". It must not compile, read files
//! or know who is listening.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use tokio::sync::watch;

use super::{Identity, LiveMode, State};

/// How many replaced catalogs' cursor tags are remembered for the "restart the listing" message.
const RETIRED_TAGS: usize = 64;

/// The holder of the current catalog.
pub(crate) struct Live {
    current: watch::Sender<Arc<State>>,
    mode: LiveMode,
    /// The identity the server was given instead of its catalog's, kept across swaps.
    identity: Option<Identity>,
    /// Cursor tags of the catalogs replaced so far, oldest first.
    retired: Mutex<VecDeque<String>>,
}

impl Live {
    pub(crate) fn new(state: State, mode: LiveMode, identity: Option<Identity>) -> Live {
        Live {
            current: watch::Sender::new(Arc::new(state)),
            mode,
            identity,
            retired: Mutex::new(VecDeque::new()),
        }
    }

    /// The identity given with `with_identity`, if any.
    pub(crate) fn identity(&self) -> Option<&Identity> {
        self.identity.as_ref()
    }

    pub(crate) fn mode(&self) -> LiveMode {
        self.mode
    }

    /// The catalog new requests answer from.
    pub(crate) fn load(&self) -> Arc<State> {
        Arc::clone(&self.current.borrow())
    }

    /// A receiver that wakes on every swap after this call.
    pub(crate) fn subscribe(&self) -> watch::Receiver<Arc<State>> {
        self.current.subscribe()
    }

    /// Makes `state` the catalog of every request from now on and returns the one it replaced
    /// (requests in flight still hold it; it is freed when the last one ends).
    pub(crate) fn swap(&self, state: State) -> Arc<State> {
        // The replaced catalog's tag is retired before the new catalog answers: a request whose
        // cursor the new catalog refuses must find that tag here ("stale", restart the listing),
        // not miss it in the moment between the swap and the bookkeeping ("not a cursor").
        let mut retired = self.retired.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let tag = tag_of(&self.load());
        if !retired.contains(&tag) {
            if retired.len() == RETIRED_TAGS {
                retired.pop_front();
            }
            retired.push_back(tag);
        }
        self.current.send_replace(Arc::new(state))
    }

    /// True when `cursor` was issued by a catalog this holder has since replaced.
    pub(crate) fn is_stale(&self, cursor: &str) -> bool {
        let Some(tag) = cursor_tag(cursor) else { return false };
        let current = self.load();
        if tag == tag_of(&current) {
            return false;
        }
        self.retired.lock().unwrap_or_else(std::sync::PoisonError::into_inner).iter().any(|t| *t == tag)
    }
}

/// The catalog tag the query layer's cursors (`c1.<tag>.<scope>.…`) carry: the first 16 hex
/// digits of the catalog hash.
fn tag_of(state: &State) -> String {
    state.query().catalog_hash().chars().take(16).collect()
}

/// The catalog tag a cursor carries; `None` for anything that is not a cursor's shape.
fn cursor_tag(cursor: &str) -> Option<String> {
    if cursor.len() > 256 {
        return None;
    }
    cursor.strip_prefix("c1.")?.split('.').next().map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_cursor_shapes_name_their_catalog() {
        assert_eq!(cursor_tag("c1.0123456789abcdef.list.deadbeef.100").as_deref(), Some("0123456789abcdef"));
        assert_eq!(cursor_tag("!!garbage"), None);
        assert_eq!(cursor_tag(&"c1.".repeat(200)), None, "absurd input is not parsed");
    }
}
