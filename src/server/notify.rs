//! Change notifications: what a catalog swap means to a client, and telling it.
//!
//! A swap is compared against what each listener last saw, never against a log of events, so a
//! listener that falls behind a burst of swaps still gets exactly one notification per kind of
//! change (and none for swaps that changed nothing it asked about):
//!
//! - `notifications/resources/list_changed` when the set of URIs changed (one added, removed or
//!   renamed), not when only bytes changed;
//! - `notifications/prompts/list_changed` when the set of skills changed (prompts are the
//!   skills), sent only where prompts declare `listChanged`;
//! - `notifications/resources/updated` for each subscribed URI whose version changed: the
//!   served bytes' blake3, and for a `SKILL.md` also every file of its manifest (an edit to any
//!   file of a skill changes the manifest `skills/list` serves with it). A URI that appears or
//!   disappears counts as changed.
//!
//! Two ways in: a `subscriptions/listen` stream (2026-07-28, stdio and HTTP; [`listen`]) and a
//! legacy (2025-11-25) stdio session's `resources/subscribe` set ([`Session`], [`push_legacy`]).
//! No IO beyond sending the notifications, and no decision about when to swap (that is the
//! caller of [`super::FolioServer::replace`]).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use rmcp::model::{ResourceUpdatedNotificationParam, SubscriptionFilter};
use rmcp::service::{Peer, SubscriptionContext, SubscriptionSendError};
use rmcp::{ErrorData as McpError, RoleServer};
use tokio::sync::watch;

use super::State;
use super::live::Live;
use crate::catalog::EntryKind;
use crate::query::Selection;

/// What one call of [`super::FolioServer::replace`] changed, for the status line a reload prints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Swapped {
    /// False when the new catalog was the served one (same hash): nothing was swapped.
    pub swapped: bool,
    /// Entries (served files) in the new catalog.
    pub entries: usize,
    /// Entries whose URI is new.
    pub added: usize,
    /// Entries whose URI is gone.
    pub removed: usize,
    /// Entries whose URI stayed and whose bytes changed.
    pub modified: usize,
}

impl Swapped {
    pub(crate) fn unchanged(state: &State) -> Swapped {
        let entries = state.query().catalog().entries.len();
        Swapped { swapped: false, entries, added: 0, removed: 0, modified: 0 }
    }

    /// Compares the entries of two catalogs (both sorted by URI) in one merge walk.
    pub(crate) fn between(old: &State, new: &State) -> Swapped {
        let (a, b) = (&old.query().catalog().entries, &new.query().catalog().entries);
        let (mut i, mut j) = (0, 0);
        let mut out = Swapped { swapped: true, entries: b.len(), added: 0, removed: 0, modified: 0 };
        while i < a.len() || j < b.len() {
            match (a.get(i), b.get(j)) {
                (Some(x), Some(y)) if x.uri == y.uri => {
                    out.modified += usize::from(x.blake3 != y.blake3);
                    i += 1;
                    j += 1;
                }
                (Some(x), Some(y)) if x.uri < y.uri => {
                    out.removed += 1;
                    i += 1;
                }
                (Some(_), None) => {
                    out.removed += 1;
                    i += 1;
                }
                _ => {
                    out.added += 1;
                    j += 1;
                }
            }
        }
        out
    }
}

/// The version of what `uri` serves in `state`: `None` when it serves nothing (or refuses).
fn version(state: &State, uri: &str) -> Option<String> {
    let query = state.query();
    let read = query.read(uri, &Selection::default()).ok()?;
    let document = read
        .canonical_uri
        .as_deref()
        .and_then(|u| query.entry(u))
        .filter(|e| e.kind == EntryKind::SkillDocument);
    let Some(document) = document else { return Some(read.blake3) };
    // A SKILL.md stands for its skill: its manifest lists every file with its digest.
    let catalog = query.catalog();
    let Some(skill) = catalog
        .skills
        .iter()
        .find(|s| catalog.entries.get(s.document as usize).is_some_and(|e| e.uri == document.uri))
    else {
        return Some(read.blake3);
    };
    let mut hasher = blake3::Hasher::new();
    hasher.update(read.blake3.as_bytes());
    for file in &skill.files {
        if let Some(entry) = catalog.entries.get(file.entry as usize) {
            hasher.update(b"\n").update(entry.uri.as_bytes()).update(b" ").update(entry.blake3.as_bytes());
        }
    }
    Some(hasher.finalize().to_hex().to_string())
}

/// What changed between two snapshots for one listener.
#[derive(Debug, Default, PartialEq, Eq)]
struct Notes {
    resources_list: bool,
    prompts_list: bool,
    /// Subscribed URIs whose version changed, sorted.
    updated: Vec<String>,
}

/// One listener's view: the snapshot it last saw and the version of each URI it watches.
struct Tracker {
    seen: Arc<State>,
    versions: BTreeMap<String, Option<String>>,
}

impl Tracker {
    fn new(seen: Arc<State>, uris: &[String]) -> Tracker {
        let versions = uris.iter().map(|u| (u.clone(), version(&seen, u))).collect();
        Tracker { seen, versions }
    }

    /// Moves to `next` and says what changed since the last snapshot.
    fn advance(&mut self, next: Arc<State>) -> Notes {
        let (old, new) = (&self.seen.versions, &next.versions);
        let mut notes = Notes {
            resources_list: old.uris != new.uris,
            prompts_list: old.skills != new.skills,
            updated: Vec::new(),
        };
        for (uri, seen) in &mut self.versions {
            let now = version(&next, uri);
            if now != *seen {
                *seen = now;
                notes.updated.push(uri.clone());
            }
        }
        self.seen = next;
        notes
    }
}

/// Runs one `subscriptions/listen` stream: after the acknowledgement (sent by rmcp), every swap
/// sends the notifications the accepted filter asks for, until the client cancels or the
/// server shuts down.
pub(crate) async fn listen(live: &Live, context: SubscriptionContext) -> Result<(), McpError> {
    let mut swaps = live.subscribe();
    let accepted = context.accepted().clone();
    let uris = accepted.resource_subscriptions.clone().unwrap_or_default();
    let mut tracker = Tracker::new(swaps.borrow_and_update().clone(), &uris);
    loop {
        tokio::select! {
            () = context.cancelled() => return Ok(()),
            changed = swaps.changed() => {
                if changed.is_err() {
                    return Ok(());
                }
                let next = swaps.borrow_and_update().clone();
                let notes = tracker.advance(next);
                if let Err(SubscriptionSendError::SubscriptionClosed) = send_listen(&context, &accepted, &notes).await {
                    return Ok(());
                }
            }
        }
    }
}

/// A listen stream over a set of catalogs (a shelf): `resources/list_changed` and
/// `prompts/list_changed` (as accepted) each time `changes` sees a new value, until the stream
/// is cancelled. What changed inside a catalog is not tracked: a shelf's catalogs are files that
/// come and go whole.
pub(crate) async fn listen_changes<T>(
    mut changes: watch::Receiver<T>,
    context: SubscriptionContext,
) -> Result<(), McpError> {
    let accepted = context.accepted().clone();
    changes.borrow_and_update();
    let notes = Notes { resources_list: true, prompts_list: true, updated: Vec::new() };
    loop {
        tokio::select! {
            () = context.cancelled() => return Ok(()),
            changed = changes.changed() => {
                if changed.is_err() {
                    return Ok(());
                }
                changes.borrow_and_update();
                if let Err(SubscriptionSendError::SubscriptionClosed) = send_listen(&context, &accepted, &notes).await {
                    return Ok(());
                }
            }
        }
    }
}

async fn send_listen(
    context: &SubscriptionContext,
    accepted: &SubscriptionFilter,
    notes: &Notes,
) -> Result<(), SubscriptionSendError> {
    let sink = context.sink();
    let result = async {
        if notes.resources_list && accepted.resources_list_changed == Some(true) {
            sink.notify_resource_list_changed().await?;
        }
        if notes.prompts_list && accepted.prompts_list_changed == Some(true) {
            sink.notify_prompt_list_changed().await?;
        }
        for uri in &notes.updated {
            sink.notify_resource_updated(uri.clone()).await?;
        }
        Ok(())
    }
    .await;
    if let Err(e) = &result {
        tracing::debug!(error = %e, "a listen stream could not take a notification");
    }
    result
}

/// Most URIs one session watches: a legacy session's `resources/subscribe` set, and the
/// `resourceSubscriptions` a listen stream accepts (its acknowledgement names the first this many
/// distinct URIs asked for). Each costs its URI and a version per session, compared on every
/// swap; a client watching more is better served by `list_changed`.
pub(crate) const MAX_SUBSCRIPTIONS: usize = 1024;

/// `filter` with at most [`MAX_SUBSCRIPTIONS`] distinct `resourceSubscriptions`, the first
/// asked for (what a listen stream accepts).
pub(crate) fn capped(mut filter: SubscriptionFilter) -> SubscriptionFilter {
    if let Some(uris) = filter.resource_subscriptions.as_mut() {
        let mut seen = std::collections::BTreeSet::new();
        uris.retain(|uri| seen.len() < MAX_SUBSCRIPTIONS && seen.insert(uri.clone()));
    }
    filter
}

/// The `resources/subscribe` set of one legacy session: each URI with the version last
/// notified.
#[derive(Default)]
pub(crate) struct Session {
    subscribed: Mutex<BTreeMap<String, Option<String>>>,
}

impl Session {
    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Option<String>>> {
        self.subscribed.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Adds `uri`, at its version in `state` (subscribing again changes nothing). False, with
    /// nothing added, when the set already holds [`MAX_SUBSCRIPTIONS`] other URIs.
    pub(crate) fn subscribe(&self, state: &State, uri: &str) -> bool {
        let mut set = self.lock();
        if set.len() >= MAX_SUBSCRIPTIONS && !set.contains_key(uri) {
            return false;
        }
        set.entry(uri.to_owned()).or_insert_with(|| version(state, uri));
        true
    }

    pub(crate) fn unsubscribe(&self, uri: &str) {
        self.lock().remove(uri);
    }

    /// The subscribed URIs whose version in `state` differs from the last one notified.
    fn updated(&self, state: &State) -> Vec<String> {
        let mut out = Vec::new();
        for (uri, seen) in self.lock().iter_mut() {
            let now = version(state, uri);
            if now != *seen {
                *seen = now;
                out.push(uri.clone());
            }
        }
        out
    }
}

/// Pushes notifications to a legacy (2025-11-25) session on every swap until the session ends:
/// `list_changed` as declared at `initialize`, `updated` for its `resources/subscribe` set. A
/// session that did not start with `initialize` (a 2026-07-28 peer) gets nothing here: its
/// notifications go through `subscriptions/listen`.
pub(crate) async fn push_legacy(live: Arc<Live>, session: Arc<Session>, peer: Peer<RoleServer>) {
    let mut swaps: watch::Receiver<Arc<State>> = live.subscribe();
    let mut seen = swaps.borrow_and_update().clone();
    while swaps.changed().await.is_ok() {
        let next = swaps.borrow_and_update().clone();
        if peer.peer_info().is_none() {
            seen = next;
            continue;
        }
        let caps = &next.info.capabilities;
        let resources_list = seen.versions.uris != next.versions.uris
            && caps.resources.as_ref().is_some_and(|r| r.list_changed == Some(true));
        let prompts_list = seen.versions.skills != next.versions.skills
            && caps.prompts.as_ref().is_some_and(|p| p.list_changed == Some(true));
        let updated = session.updated(&next);
        seen = next;
        let sent = async {
            if resources_list {
                peer.notify_resource_list_changed().await?;
            }
            if prompts_list {
                peer.notify_prompt_list_changed().await?;
            }
            for uri in updated {
                peer.notify_resource_updated(ResourceUpdatedNotificationParam::new(uri)).await?;
            }
            Ok::<(), rmcp::service::ServiceError>(())
        }
        .await;
        if let Err(e) = sent {
            tracing::debug!(error = %e, "the session is gone; no more notifications");
            return;
        }
    }
}
