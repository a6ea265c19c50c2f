//! The content walk: finds `folio.toml`, the docs and the skill files of a content root, and
//! reads their exact bytes. This is the only module of the compiler that touches the file system.
//!
//! The walk is sorted by file name (so output never depends on directory order) and skips hidden
//! files and directories; under `skills/` it reports each one it skips inside a skill
//! (`hidden-file`), since SEP-2640 wants a skill's manifest complete, and it reports a directory
//! that holds markdown but no `SKILL.md` (`missing-skill-md`).
//!
//! No byte from outside the root is ever read, whatever changes in the tree while it is walked
//! (`source/beneath.rs` says how): every directory is listed through a handle opened below its
//! parent's without following a link, and every file is opened below the root's handle by its
//! link-free path, refusing a link on any component. A link the walk finds is resolved to its canonical
//! path first, and one that leaves the root is refused (`path-escape`) without being opened,
//! listed or read; a link to a directory inside the root is walked as that directory
//! (`symlink-loop` when it contains the link). Only regular files are read: a FIFO, socket or
//! device the walk finds is reported (`not-a-regular-file`) and never opened. A file's type and
//! size are checked on the opened file before a byte is read (`file-too-large`), and the read
//! itself stops one byte past the limit. Unreadable files are reported (`unreadable-file`)
//! without losing the rest of the tree. Nothing found is skipped silently.

mod beneath;
pub(crate) mod bounded;
mod walker;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub(crate) use beneath::{Root, Stamp};
use beneath::{is_link_refused, open_file};
pub use bounded::{InsideError, MAX_FILE_BYTES, read_inside, read_inside_bounded};
use bounded::{ReadError, read_regular};
use walker::{Top, Walker};

use super::diagnostic::{Code, Diagnostic};
use super::layout::{Layout, Part};

/// What a found file is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `folio.toml` at the root.
    Settings,
    /// A doc: `docs/**/*.md` or `*.mdx`.
    Doc,
    /// A skill's `SKILL.md`.
    SkillDocument {
        /// Content-relative skill directory (`skills/acme/billing`).
        skill_dir: String,
    },
    /// Any other file inside a skill directory.
    SkillFile {
        /// Content-relative skill directory.
        skill_dir: String,
    },
}

/// A file the compiler will read.
#[derive(Debug, Clone)]
pub(crate) struct Found {
    /// Path relative to the content root, `/`-separated (a symlink's own path, not its target's).
    pub path: String,
    /// Where to read it: its resolved path inside the root, with no symlink in it.
    pub abs: PathBuf,
    /// What it is.
    pub kind: Kind,
    /// The root it was found under: `abs` is opened below this handle, never by path alone.
    pub root: Arc<Root>,
    /// The Claude Code plugin whose skills folder holds it, when one does: what
    /// `${CLAUDE_PLUGIN_ROOT}` stands for in its links.
    pub plugin: Option<Arc<super::layout::PluginRoot>>,
}

/// The outcome of a walk.
#[derive(Debug, Default)]
pub(crate) struct Walk {
    /// Every file to read that is not a doc (docs go to [`walk`]'s callback), in walk order
    /// ([`codec::source_order`](crate::catalog::codec::source_order) of `path`).
    pub files: Vec<Found>,
    /// Problems found while walking.
    pub diagnostics: Vec<Diagnostic>,
    /// Files under `docs/` that are not docs (images, downloads), sorted: not served, but
    /// valid link targets.
    pub unserved: Vec<String>,
}

/// Walks a content root: `folio.toml` and the folders `layout` reads (its docs folder, its skills
/// folders, its static folders; anything else in the root is not content and is not read).
/// Never fails: every problem is a diagnostic.
///
/// Each doc is handed to `doc` as soon as it is found, so a caller can read docs while the rest
/// of the tree is walked. Docs come in walk order, which is not path order (`docs/a/x.md` comes
/// before `docs/a-b.md`) but paths compared component by component (`codec::source_order`); the
/// returned [`Walk::files`] holds the other files (`folio.toml`, skill files) in the same order,
/// so the docs and then the files are one sequence in that order. Skill files wait for the end
/// of the walk: which directory is a skill is known only once every `SKILL.md` is found. Paths
/// are catalog paths (`docs/…`, `skills/…`, `static/…`): see [`Layout`].
pub(crate) fn walk(root: &Path, layout: &Layout, mut doc: impl FnMut(Found)) -> Walk {
    let mut out = Walk::default();
    // The root path is the one path resolved by name, once per walk: a link given as the root,
    // or swapped in for it since the last walk (a deploy's `current -> releases/7`), is
    // followed here. Below it, nothing is opened by name.
    let opened = root.canonicalize().and_then(Root::open);
    let root = match opened {
        Ok(root) => Arc::new(root),
        Err(e) => {
            out.diagnostics.push(Diagnostic::error(
                Code::UnreadableFile,
                ".",
                1,
                1,
                format!("cannot read the content root `{}`: {e}", root.display()),
            ));
            return out;
        }
    };
    let canonical_root = &root.path;
    let mut files: Vec<(String, PathBuf)> = Vec::new();
    let settings = canonical_root.join("folio.toml");
    if let Ok(meta) = std::fs::symlink_metadata(&settings) {
        let target = if meta.file_type().is_symlink() {
            resolve_link(&settings, "folio.toml", canonical_root)
        } else if meta.is_file() {
            Target::File(settings)
        } else {
            Target::Refused(not_regular("folio.toml", meta.file_type()))
        };
        match target {
            Target::File(abs) => files.push(("folio.toml".to_owned(), abs)),
            Target::Dir(_) => out.diagnostics.push(not_regular_dir("folio.toml")),
            Target::Refused(d) => out.diagnostics.push(d),
        }
    }
    let mut walker = Walker {
        root: &root,
        diags: &mut out.diagnostics,
        links: Vec::new(),
        hidden: Vec::new(),
        skip: Vec::new(),
        collections: false,
    };
    let mut hidden = Vec::new();
    // Pages the site's config leaves out are not docs (the account of left-out files names them).
    let excluded = super::layout::excluded::ExcludedSet::new(&layout.site.excluded);
    for mount in &layout.mounts {
        // A folder read as one part is not walked again as part of another that holds it.
        walker.skip = layout
            .mounts
            .iter()
            .filter(|other| other.dir != mount.dir && other.dir.starts_with(mount.dir.as_str()))
            .map(|other| other.dir.as_str())
            // A skill folder an earlier host folder holds too is read from that one.
            .chain(layout.shadowed.iter().map(|(dir, _)| dir.as_str()))
            .filter_map(|dir| canonical_root.join(dir).canonicalize().ok())
            .collect();
        let logical = mount.logical();
        let top = Top {
            dir: &mount.dir,
            logical: &logical,
            collections: mount.part == Part::Skills && !mount.dir.is_empty(),
        };
        walker.hidden.clear();
        match mount.part {
            Part::Docs => walker.top(&top, &mut |path, abs| {
                if crate::catalog::is_markdown(&path) {
                    if path.strip_prefix("docs/").is_some_and(|rel| excluded.why(rel).is_some()) {
                        return;
                    }
                    doc(Found { path, abs, kind: Kind::Doc, root: Arc::clone(&root), plugin: None });
                } else {
                    out.unserved.push(path);
                }
            }),
            Part::Skills => {
                walker.top(&top, &mut |path, abs| files.push((path, abs)));
                hidden.append(&mut walker.hidden);
            }
            Part::Assets => walker.top(&top, &mut |path, _| out.unserved.push(path)),
        }
    }
    // Two skills folders may hold one path: the first folder keeps it, and the other is named.
    let mut seen = BTreeSet::new();
    files.retain(|(path, _)| {
        let first = seen.insert(path.clone());
        if !first {
            out.diagnostics.push(
                Diagnostic::error(
                    Code::DuplicateUri,
                    path,
                    1,
                    1,
                    format!("two skills folders hold `{path}`; only the first folder's file is read"),
                )
                .with_help("rename one of the skills, or list only one of the folders in `[skills] dirs`"),
            );
        }
        first
    });
    // Pushed in walk order already; sorting states the order the compiler relies on.
    files.sort_by(|a, b| crate::catalog::codec::source_order(&a.0, &b.0));
    out.unserved.sort();
    out.unserved.dedup();
    out.files = classify(files, &hidden, &root, &mut out.diagnostics);
    if !layout.hosts.is_empty() {
        let mut roots: std::collections::BTreeMap<String, Option<Arc<super::layout::PluginRoot>>> =
            std::collections::BTreeMap::new();
        for found in &mut out.files {
            let (Kind::SkillDocument { skill_dir } | Kind::SkillFile { skill_dir }) = &found.kind else {
                continue;
            };
            found.plugin = roots
                .entry(skill_dir.clone())
                .or_insert_with(|| layout.plugin_root(skill_dir).map(Arc::new))
                .clone();
        }
    }
    out
}

/// The skill directory a catalog path under `skills/` belongs to: the deepest directory
/// above it that holds a `SKILL.md` (as the walk decides it), content-relative. `None` when none
/// does.
pub(crate) fn skill_dir_of(root: &Path, layout: &Layout, path: &str) -> Option<String> {
    let mut dir = path;
    while let Some((parent, _)) = dir.rsplit_once('/') {
        if parent == "skills" {
            return None;
        }
        if std::fs::symlink_metadata(root.join(layout.real(root, parent)).join("SKILL.md")).is_ok() {
            return Some(parent.to_owned());
        }
        dir = parent;
    }
    None
}

fn escape(path: &str) -> Diagnostic {
    Diagnostic::error(
        Code::PathEscape,
        path,
        1,
        1,
        format!("symlink `{path}` points outside the content root"),
    )
    .with_help("copy the file into the content tree, or point the link at a file inside it")
}

/// What a file type is called in a message.
fn type_name(file_type: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        if file_type.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if file_type.is_socket() {
            return "a socket";
        }
        if file_type.is_char_device() {
            return "a character device";
        }
        if file_type.is_block_device() {
            return "a block device";
        }
    }
    if file_type.is_dir() { "a directory" } else { "not a regular file" }
}

fn not_regular(path: &str, file_type: std::fs::FileType) -> Diagnostic {
    not_regular_named(path, type_name(file_type))
}

/// `not-a-regular-file` for `path`, which is `what` ("a socket").
fn not_regular_named(path: &str, what: &str) -> Diagnostic {
    let message = if what == "not a regular file" {
        format!("`{path}` is not a regular file; not read")
    } else {
        format!("`{path}` is {what}, not a regular file; not read")
    };
    Diagnostic::error(Code::NotARegularFile, path, 1, 1, message)
        .with_help("remove it from the content tree: Folio reads only regular files")
}

fn not_regular_dir(path: &str) -> Diagnostic {
    Diagnostic::error(
        Code::NotARegularFile,
        path,
        1,
        1,
        format!("`{path}` is a directory, not a regular file"),
    )
    .with_help("remove it from the content tree: Folio reads only regular files")
}

/// Where a symlink leads, decided on its canonical path before anything is opened.
enum Target {
    /// A regular file inside the root, by its canonical path.
    File(PathBuf),
    /// A directory inside the root, by its canonical path.
    Dir(PathBuf),
    /// Outside the root, dangling, or not a file or directory.
    Refused(Diagnostic),
}

/// Resolves the symlink `link` (content-relative `path`). Only its canonical path is looked at
/// (`lstat`, never `open`), and only once that path is known to be inside the root.
fn resolve_link(link: &Path, path: &str, canonical_root: &Path) -> Target {
    let resolved = match link.canonicalize() {
        Ok(resolved) => resolved,
        Err(e) => {
            let message = format!("cannot follow `{path}` (a dangling symlink?): {e}");
            return Target::Refused(Diagnostic::error(Code::UnreadableFile, path, 1, 1, message));
        }
    };
    if !resolved.starts_with(canonical_root) {
        return Target::Refused(escape(path));
    }
    // The canonical path has no symlink in it, so this describes the target itself.
    match std::fs::symlink_metadata(&resolved) {
        Ok(meta) if meta.is_file() => Target::File(resolved),
        Ok(meta) if meta.is_dir() => Target::Dir(resolved),
        Ok(meta) => Target::Refused(not_regular(path, meta.file_type())),
        Err(e) => Target::Refused(Diagnostic::error(
            Code::UnreadableFile,
            path,
            1,
            1,
            format!("cannot read `{path}`: {e}"),
        )),
    }
}

fn is_hidden(name: &std::ffi::OsStr) -> bool {
    name.as_encoded_bytes().first() == Some(&b'.')
}

/// Decides what each walked file outside `docs/` is. Skill directories are the directories under
/// `skills/` that hold `SKILL.md`; a file belongs to the deepest one above it, so a nested skill
/// owns its files. Reports the hidden entries skipped inside a skill (`hidden-file`) and the
/// directories that hold markdown but no `SKILL.md` and no skill below (`missing-skill-md`).
fn classify(
    mut files: Vec<(String, PathBuf)>,
    hidden: &[(String, Option<PathBuf>)],
    root: &Arc<Root>,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Found> {
    let skill_dirs: BTreeSet<String> = files
        .iter()
        .filter_map(|(p, ..)| p.strip_suffix("/SKILL.md"))
        .filter(|d| d.starts_with("skills/"))
        .map(str::to_owned)
        .collect();
    let owner = |path: &str| {
        let mut dir = path;
        loop {
            dir = &dir[..dir.rfind('/')?];
            if skill_dirs.contains(dir) {
                return Some(dir.to_owned());
            }
        }
    };
    // A hidden file the skill's SKILL.md names (`assets/.env.example`) is one the agent is told
    // to use: it is served. SKILL.md is small; it is read here, once more, to decide that.
    let mut named_hidden = Vec::new();
    let mut skill_texts: std::collections::BTreeMap<String, String> = std::collections::BTreeMap::new();
    for (path, file) in hidden {
        if let Some(skill) = owner(path) {
            if let Some(abs) = file {
                let text = skill_texts.entry(skill.clone()).or_insert_with(|| {
                    let document = format!("{skill}/SKILL.md");
                    files
                        .iter()
                        .find(|(p, _)| *p == document)
                        .and_then(|(_, abs)| read_regular(root, abs, MAX_FILE_BYTES).ok())
                        .map(|(bytes, _)| String::from_utf8_lossy(&bytes).into_owned())
                        .unwrap_or_default()
                });
                let rel = &path[skill.len() + 1..];
                if text.contains(rel) {
                    named_hidden.push((path.clone(), abs.clone()));
                    continue;
                }
            }

            diags.push(
                Diagnostic::warning(
                    Code::HiddenFile,
                    path,
                    1,
                    1,
                    format!(
                        "`{path}` is hidden, so it is not served and not in the manifest of skill `{skill}`"
                    ),
                )
                .with_help("rename it without the leading dot to serve it, or delete it"),
            );
        }
    }
    if !named_hidden.is_empty() {
        files.extend(named_hidden);
        files.sort_by(|a, b| crate::catalog::codec::source_order(&a.0, &b.0));
    }
    // Directories holding markdown outside every skill, with a file named like `SKILL.md` in
    // another case if they have one.
    let mut outside: std::collections::BTreeMap<String, Option<String>> = std::collections::BTreeMap::new();
    let mut out = Vec::with_capacity(files.len());
    for (path, abs) in files {
        let kind = if path == "folio.toml" {
            Kind::Settings
        } else {
            let Some(skill_dir) = owner(&path) else {
                if let Some((dir, name)) = path.rsplit_once('/')
                    && dir != "skills"
                    && crate::catalog::is_markdown(&path)
                {
                    let lookalike = outside.entry(dir.to_owned()).or_default();
                    if name.eq_ignore_ascii_case("SKILL.md") {
                        *lookalike = Some(name.to_owned());
                    }
                }
                continue;
            };
            if path.len() == skill_dir.len() + "/SKILL.md".len() && path.ends_with("/SKILL.md") {
                Kind::SkillDocument { skill_dir }
            } else {
                Kind::SkillFile { skill_dir }
            }
        };
        out.push(Found { path, abs, kind, root: Arc::clone(root), plugin: None });
    }
    for (dir, lookalike) in outside {
        // A folder that groups skills may hold a README of its own.
        let prefix = format!("{dir}/");
        if lookalike.is_none() && skill_dirs.iter().any(|d| d.starts_with(&prefix)) {
            continue;
        }
        diags.push(missing_skill_md(&dir, lookalike.as_deref()));
    }
    out
}

/// `missing-skill-md` for a directory under `skills/` that holds markdown but no `SKILL.md`: an
/// error when it holds `SKILL.md` in another case (it was meant to be a skill, and SEP-2640 URIs
/// end in `/SKILL.md`), else a warning.
fn missing_skill_md(dir: &str, lookalike: Option<&str>) -> Diagnostic {
    let message = format!(
        "`{dir}` holds markdown but no `SKILL.md`, so it is not a skill and none of its files is served"
    );
    match lookalike {
        Some(name) => Diagnostic::error(Code::MissingSkillMd, &format!("{dir}/{name}"), 1, 1, message)
            .with_help(format!(
                "did you mean `SKILL.md`? rename `{name}` to `SKILL.md` (the name is case-sensitive)"
            )),
        None => Diagnostic::warning(Code::MissingSkillMd, dir, 1, 1, message)
            .with_help("add a `SKILL.md` to make it a skill, or move the files under `docs/`"),
    }
}

fn too_large(path: &str, size: u64) -> Diagnostic {
    Diagnostic::error(
        Code::FileTooLarge,
        path,
        1,
        1,
        format!("`{path}` is {size} bytes, more than the {MAX_FILE_BYTES}-byte limit per file"),
    )
    .with_help("split it into smaller files, or keep generated output out of the content tree")
}

/// Reads a found file's exact bytes. Fails with `unreadable-file`, `not-a-regular-file`, or
/// `file-too-large` (without reading it, or when it grows past the limit while being read).
pub(crate) fn read(found: &Found) -> Result<Vec<u8>, Diagnostic> {
    read_stamped(found).map(|(bytes, _)| bytes)
}

/// [`read`], with the [`Stamp`] of the file that was opened, taken before a byte was read.
pub(crate) fn read_stamped(found: &Found) -> Result<(Vec<u8>, Stamp), Diagnostic> {
    read_regular(&found.root, &found.abs, MAX_FILE_BYTES).map_err(|e| match e {
        ReadError::TooLarge(size) => too_large(&found.path, size),
        ReadError::NotRegular(file_type) => not_regular(&found.path, file_type),
        ReadError::Io(e) if is_link_refused(&e) => Diagnostic::error(
            Code::UnreadableFile,
            &found.path,
            1,
            1,
            format!("`{}` changed while it was being read (a symlink on its path; not followed)", found.path),
        )
        .with_help("run the command again once nothing writes to the content tree"),
        ReadError::Io(e) => Diagnostic::error(
            Code::UnreadableFile,
            &found.path,
            1,
            1,
            format!("cannot read `{}`: {e}", found.path),
        )
        .with_help("check the file's permissions"),
    })
}

/// The stamp of the file `found` names as it is now, opened the way [`read`] opens it: `None`
/// when it cannot be opened (gone, or a link swapped in on its path).
pub(crate) fn stamp_now(found: &Found) -> Option<Stamp> {
    Stamp::of(&open_file(&found.root, &found.abs).ok()?).ok()
}

/// True when `path` (content-relative), reported as unreadable, is gone now or opens: the tree
/// changed while it was being read (a file renamed or deleted between the walk and its read), so
/// the report describes a moment that has passed rather than a file that cannot be read. Opens
/// what it finds (a directory is listed), never reads it.
pub(crate) fn moved_since(root: &Path, path: &str) -> bool {
    let at = root.join(path);
    match std::fs::symlink_metadata(&at) {
        Err(e) => matches!(e.kind(), std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory),
        Ok(meta) if meta.is_dir() => std::fs::read_dir(&at).is_ok(),
        Ok(_) => open_nonblocking(&at).is_ok(),
    }
}

/// Opens `path` for reading; on Unix with `O_NONBLOCK`, so that a FIFO cannot block the open
/// (the flag changes nothing for a regular file).
pub fn open_nonblocking(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32);
    }
    options.open(path)
}

#[cfg(test)]
mod tests;
