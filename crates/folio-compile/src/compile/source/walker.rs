//! The directory walk under `docs/` and `skills/`: lists each directory through a handle
//! ([`DirHandle`]), in file-name order, and hands every file to a callback with its
//! content-relative path and its canonical, link-free path.
//!
//! Must not: open or read a file (the compile does, through `source::read`), or follow a link
//! without resolving it first: a link is resolved to its canonical path, one leaving the root is
//! refused (`path-escape`), and a directory inside the root is opened again below the root's own
//! handle with no link allowed on the way.

use std::path::{Path, PathBuf};

use super::beneath::{DirHandle, EntryKind, Root, is_link_refused};
use super::{Target, is_hidden, not_regular_named, resolve_link};
use crate::compile::diagnostic::{Code, Diagnostic};

/// How many directories deep the walk goes below `docs/` or `skills/`. A deeper tree is almost
/// certainly generated or hostile, and each level holds a handle open while its children are
/// walked.
pub(crate) const MAX_DEPTH: usize = 128;

/// Walks `docs/` and `skills/` without following any symlink on its own.
pub(super) struct Walker<'a> {
    pub(super) root: &'a Root,
    pub(super) diags: &'a mut Vec<Diagnostic>,
    /// Per directory link being walked: the canonical directory its walk started from and the
    /// canonical directory holding the link. The directories on the way from the first to the
    /// second are the link's ancestors; a link to one of them is a loop.
    pub(super) links: Vec<(PathBuf, PathBuf)>,
    /// Catalog paths of the hidden files and directories skipped, with the canonical path of
    /// each that is a regular file (a skill may still serve it: `source::classify`).
    pub(super) hidden: Vec<(String, Option<PathBuf>)>,
    /// Canonical directories not to walk: folders the layout reads as another part (a `skills/`
    /// inside a root read as `docs/`), and dependency folders (`node_modules`).
    pub(super) skip: Vec<PathBuf>,
    /// The folder being walked holds skills (see [`Top::collections`]).
    pub(super) collections: bool,
}

/// A folder of the tree to walk, and how.
pub(super) struct Top<'m> {
    /// Its path relative to the content root (`""` for the root itself).
    pub(super) dir: &'m str,
    /// The catalog path its files get (`docs`).
    pub(super) logical: &'m str,
    /// True for a skills folder: a hidden folder directly in it is a collection of skills
    /// (`skills/.curated/`) and is walked.
    pub(super) collections: bool,
}

/// One directory being walked: its content-relative path, its canonical path, the canonical
/// directory the current link-free walk started from, and how deep it is.
struct At<'p> {
    path: &'p str,
    canonical: &'p Path,
    start: &'p Path,
    depth: usize,
}

impl Walker<'_> {
    /// Walks `root/top.dir`, calling `file(catalog path, path to read)` for each file; the
    /// catalog path is the file's path below `top.dir`, under `top.logical`.
    pub(super) fn top(&mut self, top: &Top<'_>, file: &mut dyn FnMut(String, PathBuf)) {
        let start = self.root.path.join(top.dir);
        let shown = if top.dir.is_empty() { "." } else { top.dir };
        let Ok(meta) = std::fs::symlink_metadata(&start) else { return };
        let dir = if top.dir.is_empty() {
            start
        } else if meta.file_type().is_symlink() || top.dir.contains('/') {
            // A folder named by the layout may lie below a link (`site -> website`): resolved
            // to its canonical path, and refused when that leaves the root.
            match resolve_link(&start, shown, &self.root.path) {
                Target::Dir(dir) => dir,
                // A `docs` or `skills` that is not a directory holds no content.
                Target::File(_) => return,
                Target::Refused(d) => return self.diags.push(d),
            }
        } else if meta.is_dir() {
            start
        } else {
            return;
        };
        self.collections = top.collections;
        match self.root.open_dir(&dir) {
            Ok(handle) => {
                self.dir(&At { path: top.logical, canonical: &dir, start: &dir, depth: 0 }, &handle, file);
            }
            Err(e) => self.unreadable(shown, &e),
        }
    }

    /// Walks the directory `handle`, which is `at`.
    fn dir(&mut self, at: &At<'_>, handle: &DirHandle, file: &mut dyn FnMut(String, PathBuf)) {
        let entries = match handle.entries() {
            Ok(entries) => entries,
            Err(e) => return self.unreadable(at.path, &e),
        };
        for entry in entries {
            let (name, utf8) = match entry.name.to_str() {
                Some(name) => (std::borrow::Cow::Borrowed(name), true),
                None => (entry.name.to_string_lossy(), false),
            };
            let rel = format!("{}/{name}", at.path);
            let canonical = at.canonical.join(&entry.name);
            let collection =
                self.collections && at.depth == 0 && entry.kind == EntryKind::Dir && entry.name != ".git";
            if is_hidden(&entry.name) && !collection {
                let file = (entry.kind == EntryKind::File).then(|| canonical.clone());
                self.hidden.push((rel, file));
                continue;
            }
            if entry.kind == EntryKind::Dir
                && (entry.name == "node_modules" || self.skip.contains(&canonical))
            {
                continue;
            }
            if !utf8 {
                self.diags.push(
                    Diagnostic::error(
                        Code::NonPortableName,
                        &rel,
                        1,
                        1,
                        format!("`{rel}` is not valid UTF-8 (shown with U+FFFD replacement characters)"),
                    )
                    .with_help("rename it using UTF-8 characters"),
                );
            }
            match entry.kind {
                // Sizes are checked when the file is read (on all cores), not with a stat here.
                EntryKind::File => file(rel, canonical),
                EntryKind::Dir => {
                    if self.too_deep(at, &rel) {
                        continue;
                    }
                    match handle.child(&entry.name) {
                        Ok(child) => {
                            let next = At {
                                path: &rel,
                                canonical: &canonical,
                                start: at.start,
                                depth: at.depth + 1,
                            };
                            self.dir(&next, &child, file);
                        }
                        Err(e) => self.unreadable(&rel, &e),
                    }
                }
                EntryKind::Link => self.link(at, &rel, &canonical, file),
                EntryKind::Other(what) => self.diags.push(not_regular_named(&rel, what)),
            }
        }
    }

    /// The link `rel` (at `canonical`, in the directory `at`): a file or directory inside the root
    /// is walked as what it points at; anything else is reported.
    fn link(&mut self, at: &At<'_>, rel: &str, canonical: &Path, file: &mut dyn FnMut(String, PathBuf)) {
        match resolve_link(canonical, rel, &self.root.path) {
            Target::File(target) => file(rel.to_owned(), target),
            Target::Dir(target) => {
                let walked = self.links.iter().map(|(s, h)| (s.as_path(), h.as_path()));
                let on_the_way = |(start, holder): (&Path, &Path)| {
                    holder.starts_with(&target) && target.starts_with(start)
                };
                if walked.chain([(at.start, at.canonical)]).any(on_the_way) {
                    self.diags.push(
                        Diagnostic::warning(
                            Code::SymlinkLoop,
                            rel,
                            1,
                            1,
                            format!("symlink `{rel}` points at a directory that contains it; skipped"),
                        )
                        .with_help("remove the link or point it at a sibling directory"),
                    );
                    return;
                }
                if self.too_deep(at, rel) {
                    return;
                }
                // Opened again from the root, with no link allowed on the way: the path was
                // resolved by name, and the tree may have changed since.
                match self.root.open_dir(&target) {
                    Ok(handle) => {
                        self.links.push((at.start.to_path_buf(), at.canonical.to_path_buf()));
                        let next = At { path: rel, canonical: &target, start: &target, depth: at.depth + 1 };
                        self.dir(&next, &handle, file);
                        self.links.pop();
                    }
                    Err(e) => self.unreadable(rel, &e),
                }
            }
            Target::Refused(d) => self.diags.push(d),
        }
    }

    /// True (and reported) when a directory below `at` would be deeper than [`MAX_DEPTH`].
    fn too_deep(&mut self, at: &At<'_>, rel: &str) -> bool {
        if at.depth + 1 < MAX_DEPTH {
            return false;
        }
        self.diags.push(
            Diagnostic::error(
                Code::UnreadableFile,
                rel,
                1,
                1,
                format!("`{rel}` is more than {MAX_DEPTH} directories deep; not read"),
            )
            .with_help("flatten the tree: Folio walks at most 128 directories below `docs/` or `skills/`"),
        );
        true
    }

    fn unreadable(&mut self, rel: &str, e: &std::io::Error) {
        let message = if is_link_refused(e) {
            format!("`{rel}` was replaced by a symlink while it was being read; not followed")
        } else {
            format!("cannot read `{rel}`: {e}")
        };
        self.diags.push(Diagnostic::error(Code::UnreadableFile, rel, 1, 1, message));
    }
}
