//! Incremental compiles: what one compile keeps so the next one (`serve --watch`, SIGHUP) does
//! not read, parse and tokenize the files that did not change.
//!
//! A file is reused when its [`Stamp`] (size, modification time and, on Unix, device, inode and
//! change time, taken from the handle that was opened) is the one recorded, or, when they
//! differ, when its bytes hash to the recorded blake3 (a `touch`, a save without a change): it
//! is then read and hashed but not parsed or tokenized again. A file modified in the second
//! before a compile started may change again within the file system's timestamp granularity
//! without its size or time moving, so its time is not trusted next time (its bytes are hashed),
//! as git does with "racily clean" entries. Everything that looks at more than one file (links,
//! backlinks, names, the search index) runs again on every compile, so the result is the catalog
//! and diagnostics a full compile of the same tree gives, byte for byte. Once every file is read,
//! each is looked at again ([`Cache::changed_since_read`]): a file saved meanwhile means the
//! result mixes two moments of the tree, which the compile reports as unsettled.
//!
//! The reused per-file result is [`Processed`], its diagnostics and its search terms, re-interned
//! into the compile's own dictionaries. Must not: decide what a compile does with a file (that
//! is `compile::process`) or read anything but through `source`.

use std::collections::BTreeMap;
use std::time::{Duration, SystemTime};

use super::Diagnostic;
use super::index::{Indexer, TermDict};
use super::markdown::Render;
use super::processed::{Processed, WorkerResults};
use super::source::{self, Found, Stamp};

/// How close to a compile's start a modification time must be for it not to be trusted next time.
const RACY: Duration = Duration::from_secs(2);

/// One file as the last compile left it.
#[derive(Debug)]
struct Cached {
    stamp: Stamp,
    /// False when the file changed too close to the compile for its stamp to prove anything.
    trusted: bool,
    processed: Processed,
    diagnostics: Vec<Diagnostic>,
}

/// What a compile keeps for the next one: see [`compile_incremental`](super::compile_incremental).
#[derive(Debug, Default)]
pub struct Cache {
    files: BTreeMap<String, Cached>,
    /// The dictionaries the cached terms' ids belong to.
    dicts: Vec<TermDict>,
    /// Files the last compile reused (same bytes as before), and files it compiled anew.
    reused: usize,
    compiled: usize,
    /// How the cached files were rendered (heading-id rule, wiki links).
    render: Option<Render>,
}

/// What one file came to during an incremental compile, beside its [`Processed`].
#[derive(Debug, Default)]
pub(crate) struct Fresh {
    stamp: Option<Stamp>,
    diagnostics: Vec<Diagnostic>,
    /// True when the result is the cached one (moved back into the cache, not copied again).
    reused: bool,
}

impl Cache {
    /// Forgets every file when this compile renders pages by other rules than the ones that
    /// filled the cache (a `folio.toml` edit): their anchors and links would be the old rules'.
    pub(crate) fn use_render(&mut self, render: Render) {
        if self.render != Some(render) {
            self.files.clear();
            self.dicts.clear();
            self.render = Some(render);
        }
    }

    /// Files the last compile reused (same bytes as the compile before) and files it compiled
    /// anew (new or changed).
    pub fn counts(&self) -> (usize, usize) {
        (self.reused, self.compiled)
    }

    /// The cached result for `found` when its stamp proves it unchanged.
    fn unchanged(&self, found: &Found, stamp: Option<Stamp>) -> Option<&Cached> {
        let hit = self.files.get(&found.path)?;
        (hit.trusted && Some(hit.stamp) == stamp && same_file(&hit.processed.found, found)).then_some(hit)
    }

    /// `hit` again, for `found`, with its terms as ids of `indexer`.
    fn reuse(&self, hit: &Cached, found: Found, indexer: Option<&mut Indexer>) -> Processed {
        let mut p = hit.processed.clone();
        p.found = found;
        if let Some(indexer) = indexer {
            if let Some(body) = &p.body_terms {
                let from = &self.dicts[Indexer::dict_of_body(body)];
                p.body_terms = Some(indexer.reintern_body(body, from));
            }
            if let Some(small) = &p.small_terms {
                let from = &self.dicts[Indexer::dict_of_small(small)];
                p.small_terms = Some(indexer.reintern_small(small, from));
            }
        }
        p
    }

    /// Processes `found` (a catalog compile), reusing the cached result when the file is
    /// unchanged and calling `changed` (with the bytes read, the indexer and where its
    /// diagnostics go) when it is not; `fresh` receives its stamp and its own diagnostics, which
    /// are also added to `diags`.
    pub(crate) fn process(
        &self,
        found: Found,
        indexer: Option<&mut Indexer>,
        diags: &mut Vec<Diagnostic>,
        fresh: &mut Fresh,
        changed: impl FnOnce(Found, Vec<u8>, Option<&mut Indexer>, &mut Vec<Diagnostic>) -> Option<Processed>,
    ) -> Option<Processed> {
        if let Some(hit) = self.unchanged(&found, source::stamp_now(&found)) {
            diags.extend(hit.diagnostics.iter().cloned());
            fresh.stamp = Some(hit.stamp);
            fresh.reused = true;
            return Some(self.reuse(hit, found, indexer));
        }
        let bytes = match source::read_stamped(&found) {
            Ok((bytes, stamp)) => {
                fresh.stamp = Some(stamp);
                bytes
            }
            Err(d) => {
                diags.push(d);
                return None;
            }
        };
        let hash = blake3::hash(&bytes);
        if let Some(hit) = self.files.get(&found.path)
            && hit.processed.blake3 == Some(hash)
            && same_file(&hit.processed.found, &found)
        {
            diags.extend(hit.diagnostics.iter().cloned());
            fresh.reused = true;
            return Some(self.reuse(hit, found, indexer));
        }
        let processed = changed(found, bytes, indexer, &mut fresh.diagnostics);
        diags.extend(fresh.diagnostics.iter().cloned());
        processed
    }

    /// Keeps this compile's results for the next one: every file processed (in `results`, with
    /// what [`Cache::process`] said about it in `fresh`, by file number) and the dictionaries
    /// their terms belong to. Call before the results are consumed.
    pub(crate) fn refill(
        &mut self,
        results: &[WorkerResults],
        fresh: &mut BTreeMap<usize, Fresh>,
        dicts: &[TermDict],
        started: SystemTime,
    ) {
        let mut files = BTreeMap::new();
        let (mut reused, mut compiled) = (0, 0);
        for (number, processed) in results.iter().flatten() {
            let Some(processed) = processed else { continue };
            let Some(Fresh { stamp: Some(stamp), diagnostics, reused: was_reused }) = fresh.remove(number)
            else {
                continue;
            };
            // Modified in the racy window (or in the future): hash it next time.
            let trusted = stamp.modified().is_some_and(|m| m + RACY < started);
            let path = &processed.found.path;
            let kept = match self.files.remove(path).filter(|_| was_reused) {
                // The cached result again, with its terms as ids of this compile's dictionaries:
                // moved, not copied (a large tree's bodies are hundreds of megabytes).
                Some(mut cached) => {
                    reused += 1;
                    cached.processed.found = processed.found.clone();
                    cached.processed.body_terms.clone_from(&processed.body_terms);
                    cached.processed.small_terms.clone_from(&processed.small_terms);
                    Cached { stamp, trusted, ..cached }
                }
                None => {
                    compiled += 1;
                    Cached { stamp, trusted, processed: processed.clone(), diagnostics }
                }
            };
            files.insert(path.clone(), kept);
        }
        self.files = files;
        self.dicts = dicts.to_vec();
        (self.reused, self.compiled) = (reused, compiled);
    }

    /// True when a file the last compile read or reused has changed since (the file its path
    /// opens now, without following a link, has not the stamp of the one read, or it is gone): the
    /// tree changed while it was compiled, so the result may hold two moments of it, an edit's
    /// first file as it was and its second as it is now. One `stat` per file, on all cores.
    /// Call after `Cache::refill`.
    pub fn changed_since_read(&self) -> bool {
        let files: Vec<&Cached> = self.files.values().collect();
        let threads = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
        let changed =
            |files: &[&Cached]| files.iter().any(|c| source::stamp_now(&c.processed.found) != Some(c.stamp));
        if files.len() < CHANGED_PARALLEL_MIN || threads == 1 {
            return changed(&files);
        }
        std::thread::scope(|scope| {
            let workers: Vec<_> = files
                .chunks(files.len().div_ceil(threads))
                .map(|chunk| scope.spawn(move || changed(chunk)))
                .collect();
            // Every worker is joined (a panic in one is a bug here; re-raised on this thread).
            let changed: Vec<bool> = workers.into_iter().map(crate::parallel::join).collect();
            changed.contains(&true)
        })
    }
}

/// Below this many files, [`Cache::changed_since_read`] looks at them on one thread.
const CHANGED_PARALLEL_MIN: usize = 1024;

/// True when two finds are the same file in the same role.
fn same_file(a: &Found, b: &Found) -> bool {
    // A plugin's root changes how `${CLAUDE_PLUGIN_ROOT}` links of the same bytes resolve.
    a.kind == b.kind && a.abs == b.abs && a.plugin == b.plugin
}

#[cfg(test)]
mod tests {
    use super::Cache;
    use crate::compile::{Config, compile_incremental};

    #[test]
    fn a_file_changed_or_removed_since_it_was_read_is_seen() {
        let dir = std::env::temp_dir().join(format!("folio-cache-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("docs")).unwrap();
        std::fs::write(dir.join("docs/a.md"), "# A\n\nSee [b](b.md).\n").unwrap();
        std::fs::write(dir.join("docs/b.md"), "# B\n").unwrap();
        let config = Config::new(dir.clone());
        let mut cache = Cache::default();
        let first = compile_incremental(&config, &mut cache);
        assert!(first.catalog.is_some() && !first.unsettled, "{:?}", first.diagnostics);
        assert!(!cache.changed_since_read(), "nothing changed");
        // A save after the read (a different size, so no timestamp granularity can hide it).
        std::fs::write(dir.join("docs/b.md"), "# B, saved again\n").unwrap();
        assert!(cache.changed_since_read(), "b.md was saved after it was read");
        let second = compile_incremental(&config, &mut cache);
        assert!(!second.unsettled && !cache.changed_since_read(), "read again, it is settled");
        std::fs::remove_file(dir.join("docs/a.md")).unwrap();
        assert!(cache.changed_since_read(), "a.md is gone since it was read");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
