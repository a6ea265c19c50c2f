//! The parallel stage of a compile: every file the walk finds is read, hashed and (for markdown)
//! parsed on all cores, one file at a time, and tokenized for the search index while its bytes are
//! in cache ([`Processed`]). When a catalog is streamed, each entry's bytes go to the caller in
//! the order the files were numbered.
//!
//! Must not: decide what a file's problems mean for the tree (validation and the gate are the
//! stage runner's, `compile.rs`), or let scheduling reach the output (results carry their file's
//! number, and the index is rebuilt by term).

use super::markdown::lines::count_newlines;
use super::processed::{Parsed, Processed, WorkerResults};
use super::source::{Found, Kind};
use super::{
    BodySink, Cache, Diagnostic, Mode, assemble, cache, frontmatter, index, markdown, source, validate,
};
use crate::catalog::{is_markdown, mdx, search};

/// Reads and parses every file `found` yields, on all cores, until it is closed. Work is handed
/// out one file at a time (sizes vary from bytes to megabytes, so fixed chunks would leave a core
/// idle); each result comes with its file's number, in no particular order, in one list per
/// worker. Unless `mode` is a check, each worker also tokenizes bodies for the search index into
/// its own dictionary; the dictionaries are returned in worker order (which worker saw which
/// file does not reach the index: it is rebuilt by term). When streaming, each entry's bytes go
/// to the callback through a [`Sequencer`], in the order the files were numbered.
pub(super) fn process_all(
    found: std::sync::mpsc::Receiver<(usize, Found)>,
    mode: &mut Mode<'_>,
    diagnostics: &mut Vec<Diagnostic>,
    cache: Option<&Cache>,
    render: markdown::Render,
) -> (Vec<WorkerResults>, Vec<index::TermDict>, std::collections::BTreeMap<usize, cache::Fresh>) {
    // A catalog needs its bodies hashed, tokenized and kept (in the catalog, or until streamed).
    let catalog = mode.assembles();
    let sequencer = match mode {
        Mode::Streaming(body) => {
            Some(Sequencer { queue: Default::default(), body: std::sync::Mutex::new(&mut **body) })
        }
        _ => None,
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 16);
    let found = std::sync::Mutex::new(found);
    let (results, dicts, fresh) = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|worker| {
                let (found, sequencer) = (&found, &sequencer);
                scope.spawn(move || {
                    let mut indexer = catalog.then(|| index::Indexer::new(worker as u32));
                    let mut out = Vec::new();
                    let mut diags = Vec::new();
                    let mut freshes = Vec::new();
                    loop {
                        // The lock is held only to take the next file. A worker that panicked
                        // held no file half-taken, so a poisoned lock is still consistent.
                        let next = found.lock().unwrap_or_else(std::sync::PoisonError::into_inner).recv();
                        let Ok((seq, f)) = next else { break };
                        let mut processed = match cache {
                            Some(cache) => {
                                let mut fresh = cache::Fresh::default();
                                // The cache reads the file; only a file that changed is
                                // processed here (the cache keeps no processing of its own).
                                let changed =
                                    |found: Found,
                                     bytes: Vec<u8>,
                                     indexer: Option<&mut index::Indexer>,
                                     own: &mut Vec<Diagnostic>| {
                                        process_bytes(found, bytes, true, indexer, own, render)
                                    };
                                let p = cache.process(f, indexer.as_mut(), &mut diags, &mut fresh, changed);
                                freshes.push((seq, fresh));
                                p
                            }
                            None => process(f, catalog, indexer.as_mut(), &mut diags, render),
                        };
                        if let Some(sequencer) = sequencer {
                            let body = processed
                                .as_mut()
                                .filter(|p| p.found.kind != Kind::Settings)
                                .map(|p| (p.found.path.clone(), std::mem::take(&mut p.bytes)));
                            sequencer.arrive(seq, body);
                        }
                        // In an `Option`, so that it can be taken out in path order.
                        out.extend(processed.map(|p| (seq, Some(p))));
                    }
                    (out, diags, indexer.map(index::Indexer::into_dict).unwrap_or_default(), freshes)
                })
            })
            .collect();
        let mut results = Vec::with_capacity(threads);
        let mut dicts = Vec::with_capacity(threads);
        let mut fresh = std::collections::BTreeMap::new();
        for w in workers {
            let (out, diags, dict, freshes) = crate::parallel::join(w);
            results.push(out);
            diagnostics.extend(diags);
            dicts.push(dict);
            fresh.extend(freshes);
        }
        (results, dicts, fresh)
    });
    // Every worker left its file in the queue before looking for a holder of `body`, and the
    // holder looked again after letting go: nothing is left behind.
    debug_assert!(sequencer.is_none_or(|s| s.queue.into_inner().is_ok_and(|q| q.done.is_empty())));
    (results, dicts, fresh)
}

/// Puts streamed bodies back in the order their files were numbered, without making a worker
/// wait for another's writes: a worker leaves its file in the queue and, unless another worker
/// is handing files over already, hands over every file that is next in order (its own and any
/// later ones already done). Waiting for the writes was a tenth of each worker's time on a large
/// tree. No thread of its own: a writer thread woken once per file cost more than the writes.
struct Sequencer<'a> {
    queue: std::sync::Mutex<Queue>,
    /// Whoever holds it is handing files over.
    body: std::sync::Mutex<BodySink<'a>>,
}

/// Files finished but not yet handed over.
#[derive(Default)]
struct Queue {
    /// Number of the next file to hand over.
    next: usize,
    /// Files finished, by number: their path and bytes, or nothing (not an entry).
    done: std::collections::BTreeMap<usize, Option<(String, Vec<u8>)>>,
}

impl Queue {
    /// True when the next file in order is done.
    fn has_next(&self) -> bool {
        self.done.contains_key(&self.next)
    }

    /// The next file in order, if it is done.
    fn take_next(&mut self) -> Option<Option<(String, Vec<u8>)>> {
        let file = self.done.remove(&self.next)?;
        self.next += 1;
        Some(file)
    }
}

impl Sequencer<'_> {
    /// Takes file `seq` (every numbered file arrives once, with or without a body).
    fn arrive(&self, seq: usize, file: Option<(String, Vec<u8>)>) {
        // Neither lock is held across a panic but in `body`; a panic there is re-raised when
        // that worker is joined, and the files after it no longer matter.
        let queue = || self.queue.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        queue().done.insert(seq, file);
        loop {
            let mut body = match self.body.try_lock() {
                Ok(body) => body,
                Err(std::sync::TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
                // The worker handing files over takes this one too (see below).
                Err(std::sync::TryLockError::WouldBlock) => return,
            };
            loop {
                // Taken in a statement of its own, so the queue is not locked during the write.
                let next = queue().take_next();
                let Some(file) = next else { break };
                if let Some((path, bytes)) = file {
                    (*body)(&path, &bytes);
                }
            }
            drop(body);
            // A worker that left its file after the last look, while this one still held
            // `body`, found it taken and returned: look once more.
            if !queue().has_next() {
                return;
            }
        }
    }
}

/// Reads one file and does all the per-file work: hashes (for a catalog), text detection,
/// frontmatter, markdown. The bytes are kept for a catalog, and for `folio.toml` (parsed later).
fn process(
    found: Found,
    catalog: bool,
    indexer: Option<&mut index::Indexer>,
    diags: &mut Vec<Diagnostic>,
    render: markdown::Render,
) -> Option<Processed> {
    let bytes = match source::read(&found) {
        Ok(bytes) => bytes,
        Err(d) => {
            diags.push(d);
            return None;
        }
    };
    process_bytes(found, bytes, catalog, indexer, diags, render)
}

/// [`process`] once the bytes are read.
fn process_bytes(
    found: Found,
    bytes: Vec<u8>,
    catalog: bool,
    mut indexer: Option<&mut index::Indexer>,
    diags: &mut Vec<Diagnostic>,
    render: markdown::Render,
) -> Option<Processed> {
    let blake3 = catalog.then(|| blake3::hash(&bytes));
    let in_skill = matches!(found.kind, Kind::SkillDocument { .. } | Kind::SkillFile { .. });
    let sha256 = (catalog && in_skill).then(|| {
        use sha2::Digest as _;
        use std::fmt::Write as _;
        let mut digest = String::with_capacity(7 + 64);
        digest.push_str("sha256:");
        for byte in sha2::Sha256::digest(&bytes) {
            // Writing to a `String` does not fail.
            let _ = write!(digest, "{byte:02x}");
        }
        digest
    });
    let text = std::str::from_utf8(&bytes).ok();
    let is_text = text.is_some_and(|t| memchr::memchr(0, t.as_bytes()).is_none());
    let total_lines = match text {
        Some(t) if is_text && !t.is_empty() => {
            let newlines = count_newlines(t.as_bytes());
            u32::try_from(newlines + usize::from(!t.ends_with('\n'))).unwrap_or(u32::MAX)
        }
        _ => 0,
    };
    // The body exactly as `index::build` would read it from the catalog, tokenized first,
    // while the bytes are in cache and before parsing fills the cache with its own data.
    let body_terms = match (indexer.as_deref_mut(), text, &found.kind) {
        (Some(indexer), Some(text), Kind::Doc | Kind::SkillDocument { .. }) if is_text => {
            Some(indexer.body(&search::body_of(&found.path, text)))
        }
        (Some(indexer), Some(text), Kind::SkillFile { .. }) if is_text => Some(indexer.body(text)),
        _ => None,
    };
    let parsed = match (&found.kind, text) {
        (Kind::Doc | Kind::SkillDocument { .. }, None) => {
            diags.extend(validate::utf8(&found.path, &bytes));
            Parsed::None
        }
        (Kind::Doc, Some(text)) => {
            let p = frontmatter::parse_doc(&found.path, text, render.open_frontmatter, diags);
            // MDX module statements at the top are code, not prose: not the description, no links.
            let (body, body_line) = if mdx::is_mdx(&found.path) {
                let body = mdx::skip_esm(p.body);
                let skipped = &p.body[..p.body.len() - body.len()];
                (body, p.body_line.saturating_add(count_newlines(skipped.as_bytes()) as u32))
            } else {
                (p.body, p.body_line)
            };
            // A page's ids are its site's; skills are rendered by their hosts (GitHub's rule).
            let mut md =
                markdown::analyze_site(body, body_line, markdown::Dialect::of(&found.path), render, false);
            let doc = assemble::doc_record(&found.path, p.meta, &mut md);
            Parsed::Doc(Box::new(doc), md)
        }
        (Kind::SkillDocument { skill_dir }, Some(text)) => {
            let dir_name = skill_dir.rsplit('/').next().unwrap_or(skill_dir);
            let p = frontmatter::parse_skill(&found.path, dir_name, text, diags);
            let mut md = markdown::analyze_with_mentions(p.body, p.body_line, markdown::Dialect::Markdown);
            skill_root_placeholders(&mut md, &found.path, skill_dir, found.plugin.as_deref());
            Parsed::Skill(Box::new(p.meta), md)
        }
        (Kind::SkillFile { skill_dir }, Some(text))
            if is_text && is_markdown(&found.path) && !is_skill_asset(&found.path, skill_dir) =>
        {
            // Reference files have no schema: their frontmatter is read leniently, as a doc's, for
            // a title and a description, and its problems are not the skill's.
            let p = frontmatter::parse_doc(&found.path, text, false, &mut Vec::new());
            let mut md =
                markdown::analyze_with_mentions(p.body, p.body_line, markdown::Dialect::of(&found.path));
            skill_root_placeholders(&mut md, &found.path, skill_dir, found.plugin.as_deref());
            let title = p.meta.title.or_else(|| md.title.clone());
            let description = p
                .meta
                .description
                .or_else(|| md.first_paragraph.take().as_deref().map(assemble::first_sentences));
            Parsed::SkillMarkdown(md, title, description)
        }
        _ => Parsed::None,
    };
    // A doc's small fields, from its record.
    let small_terms = match (indexer, &parsed) {
        (Some(indexer), Parsed::Doc(doc, _)) if body_terms.is_some() => Some(indexer.doc(doc)),
        _ => None,
    };
    let size = bytes.len() as u64;
    let bytes = if catalog || found.kind == Kind::Settings { bytes } else { Vec::new() };
    let entry = assemble::entry_record(&found, size, blake3, sha256, is_text, total_lines);
    Some(Processed { found, bytes, size, blake3, entry, parsed, body_terms, small_terms })
}

/// Links written with a placeholder a host fills in, read as the host reads them: from the
/// skill's root (`{baseDir}/references/x.md`, which some collections require of their authors,
/// and Claude Code's `${CLAUDE_SKILL_DIR}/…`) as the path from the linking file's folder to that
/// file; from the plugin's root (`${CLAUDE_PLUGIN_ROOT}/…`, in a Claude Code plugin's skills) as
/// the path to that file of the plugin. Outside a plugin, `${CLAUDE_PLUGIN_ROOT}` stands for
/// nothing and the link is checked as written.
fn skill_root_placeholders(
    md: &mut markdown::Markdown,
    path: &str,
    skill_dir: &str,
    plugin: Option<&crate::compile::layout::PluginRoot>,
) {
    const SKILL_ROOT: [&str; 2] = ["{baseDir}/", "${CLAUDE_SKILL_DIR}/"];
    const PLUGIN_ROOT: &str = "${CLAUDE_PLUGIN_ROOT}/";
    let below = path.strip_prefix(skill_dir).unwrap_or(path).trim_start_matches('/');
    let depth = below.matches('/').count();
    for link in &mut md.links {
        if let Some(rest) = SKILL_ROOT.iter().find_map(|p| link.target.strip_prefix(p)) {
            let target = format!("{}{rest}", "../".repeat(depth));
            *link = link.retarget(target);
        } else if let Some(rest) = link.target.strip_prefix(PLUGIN_ROOT)
            && let Some(target) = plugin.and_then(|p| p.link(path, rest))
        {
            *link = link.retarget(target);
            link.plugin_root = true;
        } else if let Some(plugin) = plugin
            && link.kind == crate::catalog::LinkKind::Relative
            && !link.path().is_empty()
            && let Some(target) = plugin.rebase(path, link.path())
        {
            let anchor = link.anchor().map(|a| format!("#{a}")).unwrap_or_default();
            *link = link.retarget(format!("{target}{anchor}"));
            link.plugin_root = true;
        }
    }
}

/// True for a file under the skill's `assets/`: templates and data the skill copies into its
/// output (Agent Skills specification), so their links are not meant to resolve in place.
fn is_skill_asset(path: &str, skill_dir: &str) -> bool {
    path.strip_prefix(skill_dir).is_some_and(|rest| rest.starts_with("/assets/"))
}
