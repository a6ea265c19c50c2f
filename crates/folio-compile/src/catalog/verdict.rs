//! [`Verdict`]: whether a region of an opened catalog (an entry's bytes, the search index) is
//! the one the verified metadata names, decided the first time the region is used and then
//! remembered.
//!
//! Opening a catalog verifies only its header and metadata (`codec`): the metadata holds each
//! entry's blake3 and the search index's, so the one hash checked at open commits to every
//! byte of the file, and each region is hashed against its own recorded hash when it is first
//! served. A region that does not match is refused every time it is asked for, never served.
//!
//! Must not: do IO, or take part in a catalog's equality (a verdict is a cache, not content).

use std::sync::OnceLock;

/// The remembered outcome of checking one region: `Err` says what is wrong (a sentence fragment,
/// lowercase, no trailing period).
#[derive(Default)]
pub struct Verdict(OnceLock<Result<(), String>>);

impl Verdict {
    /// The verdict, deciding it with `check` the first time (threads that race run `check` once).
    pub fn get_or_check(&self, check: impl FnOnce() -> Result<(), String>) -> Result<(), String> {
        self.0.get_or_init(check).clone()
    }

    /// True once a check has run (for tests of when regions are hashed).
    pub fn is_decided(&self) -> bool {
        self.0.get().is_some()
    }
}

/// Whether `bytes` hash to `recorded` (lowercase blake3 hex), as a verdict's check: `Err` names
/// `what` and both hashes.
pub(crate) fn blake3_matches(bytes: &[u8], recorded: &str, what: &str) -> Result<(), String> {
    let actual = blake3::hash(bytes);
    if actual.to_hex().as_str() == recorded {
        return Ok(());
    }
    Err(format!(
        "{what} hash to {}, but the catalog records {}",
        actual.to_hex(),
        super::consistency::shown(recorded)
    ))
}

impl Clone for Verdict {
    /// A clone holds the same bytes, so it keeps the verdict.
    fn clone(&self) -> Verdict {
        let cell = OnceLock::new();
        if let Some(verdict) = self.0.get() {
            let _ = cell.set(verdict.clone());
        }
        Verdict(cell)
    }
}

impl PartialEq for Verdict {
    /// Always equal: two records are equal by their content, whether or not it was checked yet.
    fn eq(&self, _: &Verdict) -> bool {
        true
    }
}

impl Eq for Verdict {}

impl std::fmt::Debug for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0.get() {
            None => f.write_str("unchecked"),
            Some(Ok(())) => f.write_str("verified"),
            Some(Err(why)) => write!(f, "refused ({why})"),
        }
    }
}
