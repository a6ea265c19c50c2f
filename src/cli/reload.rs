//! Live reload for `folio serve`: SIGHUP and `--watch` load the catalog again from where it came
//! from (`--catalog FILE` or `--content DIR`) and hand it to the server, which swaps it in
//! (`content/docs/guides/serving.md`, "Live reload").
//!
//! One thread does every reload, one at a time: triggers (a signal, file events) queue on a
//! channel, and a burst of them costs one reload: file events start a reload only once the
//! whole tree has been quiet for [`QUIET`] (a per-path debouncer would let a burst of 500 saves
//! through in pieces, each reload serving some files from before it and some from after), and a
//! compile is served only once every file it read is still as read [`QUIET`] after it ended
//! (see [`compile_content`]: events can arrive late, the files cannot lie). A catalog that
//! fails (a file that does not verify, a tree with errors) is refused: the server keeps the last
//! good one, and the reason is printed on stderr once (the same failure again prints nothing);
//! the next good one resumes updates with a line saying so. Status goes to stderr only: in stdio
//! mode stdout is the protocol.
//!
//! A content root is resolved by its path at each reload, and its own entry is watched in its
//! parent folder: a link flipped to another release, or a root deleted and made again, is
//! watched again and reloaded (or said, once, to be gone). This module must not follow or open
//! anything below the root itself: the compile does, by its rules.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher as _};

use folio::catalog::{Catalog, LeftOut};
use folio::compile;
use folio::query::Query;
use folio::server::FolioServer;

/// How long the whole tree must be quiet (no file event anywhere in it) before file events
/// trigger a reload: long enough to coalesce an editor's write-rename-chmod of one save, or a
/// formatter's or `git checkout`'s burst of them, short next to the time a person takes to look
/// at the result.
pub(crate) const QUIET: Duration = Duration::from_millis(50);

/// The longest a reload waits for the tree to be quiet: a tree written without a pause (a
/// generator in a loop) is still recompiled this long after it began to change, and served at
/// most [`SETTLE_WITHIN`] later.
pub(crate) const QUIET_AT_MOST: Duration = Duration::from_secs(2);

/// Where the served catalog comes from.
#[derive(Debug, Clone)]
pub(crate) enum Source {
    /// A `catalog.msgpack` file, verified on every load; `mapped`: opened as a read-only memory
    /// map (`--mmap`) rather than read.
    Catalog { path: PathBuf, mapped: bool },
    /// A content tree, compiled on every load: leaving out the entries with errors of their
    /// own, or with `strict`, refusing the tree on any error (as `serve --content` does).
    Content { config: compile::Config, strict: bool },
}

impl Source {
    fn describe(&self) -> String {
        match self {
            Source::Catalog { path, .. } => path.display().to_string(),
            Source::Content { config, .. } => config.root.display().to_string(),
        }
    }
}

/// A failed load: the lines to print (once).
struct Failure(Vec<String>);

/// Loads a catalog from `source`: a verified file, or a tree compiled without errors (reading
/// only the files changed since the compile that filled `cache`). With it, the lines naming the
/// entries a lenient compile left out (the caller prints them when they change).
fn load_inner(
    source: &Source,
    cache: &mut compile::Cache,
    burst: Instant,
) -> Result<(Query, Vec<String>), Failure> {
    match source {
        Source::Catalog { path, mapped } => {
            let opened = if *mapped { Query::open_file_mapped(path) } else { Query::open_file(path) };
            let opened = opened.map_err(anyhow::Error::from).and_then(super::semantic::searchable);
            opened.map(|q| (q, Vec::new())).map_err(|e| Failure(vec![format!("folio: {e:#}")]))
        }
        Source::Content { config, strict } => {
            let root = &config.root;
            if !root.is_dir() {
                return Err(Failure(vec![format!(
                    "folio: {}: not a directory (expected a content root holding `docs/` and/or `skills/`)",
                    root.display()
                )]));
            }
            match compile_content(config, *strict, cache, Some(burst)) {
                Ok((catalog, left_out)) => match super::semantic::query_of_compiled(catalog) {
                    Ok(query) => Ok((query, left_out_lines(root, &left_out))),
                    Err(e) => Err(Failure(vec![format!("folio: {e:#}")])),
                },
                Err(mut lines) => {
                    let n = lines.len();
                    lines.push(format!(
                        "{} has {n} error{}; run `folio check {}` for details",
                        root.display(),
                        if n == 1 { "" } else { "s" },
                        root.display()
                    ));
                    Err(Failure(lines))
                }
            }
        }
    }
}

/// How long a tree that changed while it was being compiled is compiled again, at [`QUIET`]
/// intervals, before what the last compile found is taken as it is: at least this long after
/// the compiles began, and this long after a burst could have ended unpaused ([`QUIET_AT_MOST`]
/// after its first event). A bound in time, not in tries: one incremental compile of a large
/// tree takes most of a second.
pub(crate) const SETTLE_WITHIN: Duration = Duration::from_secs(1);

/// Compiles a content tree as `serve --content` serves it (reading only the files changed since
/// the compile that filled `cache`): leniently, leaving out entries with errors of their own, or
/// with `strict` refusing every error. The catalog and the entries left out; or the errors that
/// keep it from being served, as `file:line:column: error[code]: message` lines.
///
/// A compile during which the tree changed (`Compilation::unsettled`: a file vanished or was
/// replaced, or a file read has changed since) is done again: served, it would leave out for a
/// moment a file or a whole skill that was only being renamed, or mix the files of one save as
/// they were before it with others as they are after.
///
/// A reload (`burst`: when the first event of the changes it answers came) also waits for the
/// tree to stay quiet after a compile: every file read is looked at again [`QUIET`] later, and
/// one changed meanwhile means a burst of saves is still going on (its events can reach the
/// watcher late on a busy machine, and the reload start early), so the tree is compiled again.
/// This is decided on the files themselves, not on events. Compiles go on until
/// [`SETTLE_WITHIN`] after they began and after [`QUIET_AT_MOST`] from the burst's first event;
/// then what the last one found is served.
pub(crate) fn compile_content(
    config: &compile::Config,
    strict: bool,
    cache: &mut compile::Cache,
    burst: Option<Instant>,
) -> Result<(Catalog, Vec<LeftOut>), Vec<String>> {
    let started = Instant::now();
    let settle_until = burst.map_or(started, |first| started.max(first + QUIET_AT_MOST)) + SETTLE_WITHIN;
    let mut tries = 0u32;
    let (compilation, left_out) = loop {
        let (mut compilation, left_out) = if strict {
            (compile::compile_incremental(config, cache), Vec::new())
        } else {
            let lenient = compile::lenient_incremental(config, cache);
            (lenient.compilation, lenient.left_out)
        };
        if burst.is_some() && !compilation.unsettled {
            std::thread::sleep(QUIET);
            compilation.unsettled = cache.changed_since_read();
        }
        if !compilation.unsettled || Instant::now() >= settle_until {
            break (compilation, left_out);
        }
        tries += 1;
        tracing::debug!(tries, "the tree changed while it was compiled; compiling it again");
        std::thread::sleep(QUIET);
    };
    match compilation.catalog {
        Some(catalog) => Ok((catalog, left_out)),
        None => {
            let gate = if strict { compile::lints::Gate::Strict } else { compile::lints::Gate::Lenient };
            Err(compilation
                .diagnostics
                .iter()
                .filter(|d| gate.blocks(d))
                .map(|d| format!("{}:{}:{}: error[{}]: {}", d.path, d.line, d.column, d.code, d.message))
                .collect())
        }
    }
}

/// What a lenient compile of `root` left out, as a reload reports it: the
/// [`left_out_summary`] lines, after one naming the tree.
pub(crate) fn left_out_lines(root: &Path, left_out: &[LeftOut]) -> Vec<String> {
    if left_out.is_empty() {
        return Vec::new();
    }
    let n = left_out.len();
    let mut lines = vec![format!(
        "folio: {}: left out {n} {} with errors of {} own:",
        root.display(),
        if n == 1 { "entry" } else { "entries" },
        if n == 1 { "its" } else { "their" }
    )];
    lines.extend(left_out_summary(left_out).into_iter().map(|line| format!("  {line}")));
    lines
}

/// One line per reason entries were left out (a diagnostic code), not one per entry: a
/// collection with hundreds of skills that break one rule is one line. Each says how many
/// entries, names the first three, and quotes the first error; `folio check` reports each.
pub(crate) fn left_out_summary(left_out: &[LeftOut]) -> Vec<String> {
    let mut by_code: std::collections::BTreeMap<&str, (Vec<&str>, &str)> = std::collections::BTreeMap::new();
    for entry in left_out {
        for reason in &entry.reasons {
            let code = reason.split(": ").nth(1).unwrap_or("error");
            let (paths, _) = by_code.entry(code).or_insert_with(|| (Vec::new(), reason.as_str()));
            if paths.last() != Some(&entry.path.as_str()) {
                paths.push(&entry.path);
            }
        }
    }
    let mut codes: Vec<(&str, (Vec<&str>, &str))> = by_code.into_iter().collect();
    codes.sort_by(|a, b| b.1.0.len().cmp(&a.1.0.len()).then(a.0.cmp(b.0)));
    codes
        .into_iter()
        .map(|(code, (paths, first))| {
            let n = paths.len();
            let named = paths.iter().take(3).copied().collect::<Vec<_>>().join(", ");
            let more = if n > 3 { format!(" and {} more", n - 3) } else { String::new() };
            let first = first.replacen(&format!(" {code}:"), "", 1);
            format!(
                "{code}, {n} {}: {named}{more} (first: {first})",
                if n == 1 { "entry" } else { "entries" }
            )
        })
        .collect()
}

/// Why a reload was asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Trigger {
    /// SIGHUP.
    Signal,
    /// A file event in the watched tree.
    Files,
    /// The content root's own entry changed (the folder deleted, recreated or renamed over, a
    /// link flipped to another release): the watch follows the path again, then the tree is
    /// reloaded.
    Root,
}

/// The file watcher, shared by the reloader (which keeps it alive: dropping it stops watching)
/// and the reload thread (which watches the content root again when its entry changes).
type SharedWatcher = std::sync::Arc<std::sync::Mutex<RecommendedWatcher>>;

/// The running reloader: its trigger channel and, with `--watch`, the watcher (dropping it stops
/// watching).
pub(crate) struct Reloader {
    triggers: mpsc::Sender<Trigger>,
    _watcher: Option<SharedWatcher>,
}

impl Reloader {
    /// Starts the reload thread for `server`, and with `watch` the file watcher. The watch is in
    /// place when this returns, so an edit made after it is seen. `left_out` names the entries
    /// the first load left out (already reported), so a reload repeats them only if they change.
    pub(crate) fn start(
        server: FolioServer,
        source: Source,
        cache: compile::Cache,
        watch: bool,
        left_out: Vec<String>,
    ) -> anyhow::Result<Reloader> {
        let (triggers, queue) = mpsc::channel();
        let watcher = if watch {
            Some(std::sync::Arc::new(std::sync::Mutex::new(watch_source(&source, triggers.clone())?)))
        } else {
            None
        };
        // The reload thread holds the watcher weakly: it ends when the reloader is dropped.
        let rewatch = match (&source, &watcher) {
            (Source::Content { config, .. }, Some(watcher)) => {
                Some((std::sync::Arc::downgrade(watcher), watched_root(&config.root)))
            }
            _ => None,
        };
        let worker_source = source.clone();
        std::thread::Builder::new()
            .name("folio-reload".into())
            .spawn(move || run(&server, &worker_source, cache, left_out, &queue, rewatch.as_ref()))
            .context("cannot start the reload thread")?;
        Ok(Reloader { triggers, _watcher: watcher })
    }

    /// Asks for a reload (SIGHUP's handler calls this).
    pub(crate) fn trigger(&self, why: Trigger) {
        let _ = self.triggers.send(why);
    }
}

/// The reload loop: one reload per batch of queued triggers, until every sender is gone.
fn run(
    server: &FolioServer,
    source: &Source,
    mut cache: compile::Cache,
    mut last_left_out: Vec<String>,
    queue: &mpsc::Receiver<Trigger>,
    rewatch: Option<&(std::sync::Weak<std::sync::Mutex<RecommendedWatcher>>, PathBuf)>,
) {
    let mut last_failure: Option<Vec<String>> = None;
    // The content root could not be watched again (it is gone): said once, tried again at the
    // next change of its entry.
    let mut root_unwatched = false;
    // `last_left_out`: the entries left out by the last lenient load, printed when they change,
    // not on every save (an edit elsewhere leaves them as they were).
    while let Ok(first) = queue.recv() {
        let burst = Instant::now();
        let mut root_changed = first == Trigger::Root;
        let mut why = if first == Trigger::Signal { first } else { wait_for_quiet(queue, &mut root_changed) };
        // Everything queued meanwhile is answered by this one reload.
        while let Ok(next) = queue.try_recv() {
            match next {
                Trigger::Signal => why = Trigger::Signal,
                Trigger::Root => root_changed = true,
                Trigger::Files => {}
            }
        }
        if root_changed && let Some((watcher, root)) = rewatch {
            watch_root_again(watcher, root, &mut root_unwatched);
        }
        let started = std::time::Instant::now();
        match load_inner(source, &mut cache, burst).map_err(|Failure(lines)| lines).and_then(
            |(query, left_out)| {
                let swapped =
                    server.replace(query).map_err(|e| vec![format!("folio: {}: {e}", source.describe())])?;
                Ok((swapped, left_out))
            },
        ) {
            Ok((swapped, left_out)) => {
                if left_out != last_left_out {
                    for line in &left_out {
                        eprintln!("{line}");
                    }
                    last_left_out = left_out;
                }
                let recovered = last_failure.take().is_some();
                if swapped.swapped || recovered || why == Trigger::Signal {
                    let files = match source {
                        Source::Content { .. } => {
                            let (reused, compiled) = cache.counts();
                            format!("; {compiled} files compiled, {reused} reused")
                        }
                        Source::Catalog { .. } => String::new(),
                    };
                    eprintln!(
                        "folio: {} {}: {} entries ({} added, {} removed, {} changed{files}) in {} ms",
                        if swapped.swapped { "reloaded" } else { "unchanged" },
                        source.describe(),
                        swapped.entries,
                        swapped.added,
                        swapped.removed,
                        swapped.modified,
                        started.elapsed().as_millis()
                    );
                }
            }
            Err(lines) => {
                // Printed once: an unrelated save that leaves the same error says nothing new.
                if last_failure.as_ref() != Some(&lines) {
                    for line in &lines {
                        eprintln!("{line}");
                    }
                    eprintln!(
                        "folio: not reloading {}; still serving the previous catalog",
                        source.describe()
                    );
                }
                last_failure = Some(lines);
            }
        }
    }
}

/// Waits, after a file event, until no other has come for [`QUIET`] (the whole tree is quiet),
/// or for [`QUIET_AT_MOST`] in all, or until a signal asks for a reload at once. What the reload
/// is for: [`Trigger::Signal`] when one came. `root_changed` turns true when a
/// [`Trigger::Root`] came meanwhile.
fn wait_for_quiet(queue: &mpsc::Receiver<Trigger>, root_changed: &mut bool) -> Trigger {
    let started = Instant::now();
    loop {
        let left = QUIET_AT_MOST.saturating_sub(started.elapsed());
        if left.is_zero() {
            return Trigger::Files;
        }
        match queue.recv_timeout(QUIET.min(left)) {
            Ok(Trigger::Files) => {}
            Ok(Trigger::Root) => *root_changed = true,
            Ok(Trigger::Signal) => return Trigger::Signal,
            Err(_) => return Trigger::Files,
        }
    }
}

/// The content root as the watcher names it: absolute, its links not resolved (`current`, not
/// `releases/7`), so that its entry in its parent folder is the one watched.
fn watched_root(root: &Path) -> PathBuf {
    std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf())
}

/// Watches the content root again after its entry changed: the recursive watch followed the
/// folder it found at the start (through a link given as the root, to that link's target), so a
/// root deleted and recreated, renamed over, or a link flipped to another folder, would
/// otherwise go unwatched. When the root cannot be watched (it is gone), says so once; the
/// watch on its parent folder tries again when the root comes back.
fn watch_root_again(
    watcher: &std::sync::Weak<std::sync::Mutex<RecommendedWatcher>>,
    root: &Path,
    unwatched: &mut bool,
) {
    let Some(watcher) = watcher.upgrade() else { return };
    let mut watcher = watcher.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    // The old watch may be gone with the folder it watched.
    let _ = watcher.unwatch(root);
    match watcher.watch(root, RecursiveMode::Recursive) {
        Ok(()) => {
            if std::mem::take(unwatched) {
                eprintln!("folio: watching {} again", root.display());
            }
        }
        Err(e) => {
            if !*unwatched {
                eprintln!(
                    "folio: cannot watch {} ({e}); it is watched again when it comes back (or send SIGHUP)",
                    root.display()
                );
            }
            *unwatched = true;
        }
    }
}

/// True for a file event that may change what the compile reads: not an access (the compile's
/// own reads open every file, and would otherwise trigger the next reload, forever).
fn changes_content(kind: &EventKind) -> bool {
    !matches!(kind, EventKind::Access(_))
}

/// Watches the content tree (recursively), or the directory holding the catalog file (a file
/// replaced by a rename is a new file: watching the old one would miss it).
///
/// A content root is watched twice: recursively, as the folder it is when the watch starts
/// (through a link given as the root, its target), and as an entry of its parent folder, so
/// that a root deleted and recreated, renamed over, or a link flipped to another folder
/// ([`Trigger::Root`]) is watched again and reloaded: the root path is resolved again at each
/// reload, as a deploy that flips `current -> releases/7` expects. Below the root, the compile
/// follows no link out of it.
fn watch_source(source: &Source, triggers: mpsc::Sender<Trigger>) -> anyhow::Result<RecommendedWatcher> {
    let (target, mode, only) = match source {
        Source::Content { config, .. } => (watched_root(&config.root), RecursiveMode::Recursive, None),
        Source::Catalog { path: file, .. } => {
            let dir = file.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
            (dir.to_path_buf(), RecursiveMode::NonRecursive, file.file_name().map(ToOwned::to_owned))
        }
    };
    let root = target.clone();
    // The folder holding the content root, watched for the root's own entry.
    let parent = match source {
        Source::Content { .. } => root.parent().filter(|_| root.file_name().is_some()).map(Path::to_path_buf),
        Source::Catalog { .. } => None,
    };
    let handler = move |event: notify::Result<notify::Event>| match event {
        Ok(event) => {
            if only.is_none() && event.paths.iter().any(|path| path == &root) {
                let _ = triggers.send(Trigger::Root);
                return;
            }
            // An event without paths (an overflowed queue) may hide anything: reload.
            let relevant = changes_content(&event.kind)
                && (event.paths.is_empty()
                    || event.paths.iter().any(|path| match &only {
                        Some(name) => path.file_name() == Some(name.as_os_str()),
                        None => path.starts_with(&root) && !is_hidden(&root, path),
                    }));
            if relevant {
                let _ = triggers.send(Trigger::Files);
            }
        }
        Err(e) => {
            tracing::warn!(error = %e, "file watcher error");
            let _ = triggers.send(Trigger::Files);
        }
    };
    let mut watcher =
        notify::recommended_watcher(handler).with_context(|| format!("cannot watch {}", target.display()))?;
    watcher.watch(&target, mode).with_context(|| format!("cannot watch {}", target.display()))?;
    // Without it the tree is still watched; only a replaced root goes unseen until SIGHUP.
    if let Some(parent) = parent
        && let Err(e) = watcher.watch(&parent, RecursiveMode::NonRecursive)
    {
        eprintln!(
            "folio: cannot watch {} ({e}): a content root replaced or made again there is reloaded on SIGHUP only",
            parent.display()
        );
    }
    Ok(watcher)
}

/// True for a path the compile never reads: one with a hidden component below the root (editor
/// swap files, `.git`).
fn is_hidden(root: &Path, path: &Path) -> bool {
    let relative = path.strip_prefix(root).unwrap_or(path);
    relative.components().any(|c| c.as_os_str().to_str().is_some_and(|s| s.starts_with('.')))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_means_below_the_root() {
        let root = Path::new("/tmp/.cache/content");
        assert!(!is_hidden(root, Path::new("/tmp/.cache/content/docs/a.md")));
        assert!(is_hidden(root, Path::new("/tmp/.cache/content/docs/.a.md.swp")));
        assert!(is_hidden(root, Path::new("/tmp/.cache/content/.git/index")));
    }
}
