//! The content walk: finds `folio.toml`, the docs and the skill files of a content root, and
//! reads their exact bytes. This is the only module of the compiler that touches the file system.
//!
//! The walk is sorted by file name (so output never depends on directory order) and skips hidden
//! files and directories; under `skills/` it reports each one it skips inside a skill
//! (`hidden-file`), since SEP-2640 wants a skill's manifest complete, and it reports a directory
//! that holds markdown but no `SKILL.md` (`missing-skill-md`). It never follows a symlink blindly: each link is resolved to its
//! canonical path first, and one that leaves the root is refused (`path-escape`) without being
//! opened, listed or read; a link to a directory inside the root is walked as that directory
//! (`symlink-loop` when it contains the link). Only regular files are read: a FIFO, socket or
//! device the walk finds is reported (`not-a-regular-file`) and never opened. A file is opened by
//! its resolved, link-free path without following a link there (one swapped in since the walk is
//! refused), its type and size are checked on the opened file before a byte is read
//! (`file-too-large`), and the read itself stops one byte past the limit.
//! Unreadable files are reported (`unreadable-file`) without losing the rest of the tree.
//! Nothing found is skipped silently.

use std::collections::BTreeSet;
use std::io::Read as _;
use std::path::{Path, PathBuf};

use walkdir::WalkDir;

use super::diagnostic::Diagnostic;

/// Largest file the compiler reads, in bytes (8 MiB). A skill may hold at most 16 MiB in total
/// (SEP-2640), and a doc larger than this is almost certainly generated output committed by
/// mistake; refusing it keeps memory bounded on hostile trees.
pub const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;

/// What a found file is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
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
pub struct Found {
    /// Path relative to the content root, `/`-separated (a symlink's own path, not its target's).
    pub path: String,
    /// Where to read it: its resolved path inside the root, with no symlink in it.
    pub abs: PathBuf,
    /// What it is.
    pub kind: Kind,
}

/// The outcome of a walk.
#[derive(Debug, Default)]
pub struct Walk {
    /// Every file to read that is not a doc (docs go to [`walk`]'s callback), in walk order
    /// ([`codec::source_order`](crate::catalog::codec::source_order) of `path`).
    pub files: Vec<Found>,
    /// Problems found while walking.
    pub diagnostics: Vec<Diagnostic>,
    /// Files under `docs/` that are not docs (images, downloads), sorted: not served, but
    /// valid link targets.
    pub unserved: Vec<String>,
}

/// Walks a content root: `folio.toml`, `docs/` and `skills/` (anything else in the root is not
/// content and is not read). Never fails: every problem is a diagnostic.
///
/// Each doc is handed to `doc` as soon as it is found, so a caller can read docs while the rest
/// of the tree is walked. Docs come in walk order, which is not path order (`docs/a/x.md` comes
/// before `docs/a-b.md`) but paths compared component by component (`codec::source_order`); the
/// returned [`Walk::files`] holds the other files (`folio.toml`, skill files) in the same order,
/// so the docs and then the files are one sequence in that order. Skill files wait for the end
/// of the walk: which directory is a skill is known only once every `SKILL.md` is found.
pub fn walk(root: &Path, mut doc: impl FnMut(Found)) -> Walk {
    let mut out = Walk::default();
    let canonical_root = match root.canonicalize() {
        Ok(p) => p,
        Err(e) => {
            out.diagnostics.push(Diagnostic::error(
                "unreadable-file",
                ".",
                1,
                1,
                format!("cannot read the content root `{}`: {e}", root.display()),
            ));
            return out;
        }
    };
    let mut files: Vec<(String, PathBuf)> = Vec::new();
    let settings = canonical_root.join("folio.toml");
    if let Ok(meta) = std::fs::symlink_metadata(&settings) {
        let target = if meta.file_type().is_symlink() {
            resolve_link(&settings, "folio.toml", &canonical_root)
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
        canonical_root: &canonical_root,
        diags: &mut out.diagnostics,
        links: Vec::new(),
        hidden: Vec::new(),
    };
    walker.top("docs", &mut |path, abs| {
        if super::is_markdown(&path) {
            doc(Found { path, abs, kind: Kind::Doc });
        } else {
            out.unserved.push(path);
        }
    });
    walker.hidden.clear();
    walker.top("skills", &mut |path, abs| files.push((path, abs)));
    let hidden = std::mem::take(&mut walker.hidden);
    // Pushed in walk order already; sorting states the order the compiler relies on.
    files.sort_by(|a, b| crate::catalog::codec::source_order(&a.0, &b.0));
    out.unserved.sort();
    out.files = classify(files, &hidden, &mut out.diagnostics);
    out
}

/// The skill directory a content-relative path under `skills/` belongs to: the deepest directory
/// above it that holds a `SKILL.md` (as the walk decides it), content-relative. `None` when none
/// does.
pub fn skill_dir_of(root: &Path, path: &str) -> Option<String> {
    let mut dir = path;
    while let Some((parent, _)) = dir.rsplit_once('/') {
        if parent == "skills" {
            return None;
        }
        if std::fs::symlink_metadata(root.join(parent).join("SKILL.md")).is_ok() {
            return Some(parent.to_owned());
        }
        dir = parent;
    }
    None
}

fn escape(path: &str) -> Diagnostic {
    Diagnostic::error("path-escape", path, 1, 1, format!("symlink `{path}` points outside the content root"))
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
    let what = type_name(file_type);
    let message = if what == "not a regular file" {
        format!("`{path}` is not a regular file; not read")
    } else {
        format!("`{path}` is {what}, not a regular file; not read")
    };
    Diagnostic::error("not-a-regular-file", path, 1, 1, message)
        .with_help("remove it from the content tree: Folio reads only regular files")
}

fn not_regular_dir(path: &str) -> Diagnostic {
    Diagnostic::error(
        "not-a-regular-file",
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
            return Target::Refused(Diagnostic::error("unreadable-file", path, 1, 1, message));
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
            "unreadable-file",
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

/// Content-relative `/` path of `abs`, and whether every component was UTF-8.
fn relative(root: &Path, abs: &Path) -> (String, bool) {
    // The walk's paths are the root joined with file names, so on a `/` platform the relative
    // path is the text after the root's, when all of it is UTF-8 and plain (no `.` component,
    // no doubled or trailing separator, which `components` below would drop). Splitting into
    // components and joining them again cost a dozen allocations per file.
    if let (Some(abs), Some(root)) = (abs.to_str(), root.to_str())
        && std::path::MAIN_SEPARATOR == '/'
        && let Some(rel) = abs.strip_prefix(root).and_then(|r| r.strip_prefix('/'))
        && !rel.is_empty()
        && rel.split('/').all(|part| !part.is_empty() && part != "." && part != "..")
    {
        return (rel.to_owned(), true);
    }
    let rel = abs.strip_prefix(root).unwrap_or(abs);
    let mut utf8 = true;
    let parts: Vec<String> = rel
        .components()
        .map(|c| {
            let s = c.as_os_str();
            s.to_str().map(str::to_owned).unwrap_or_else(|| {
                utf8 = false;
                s.to_string_lossy().into_owned()
            })
        })
        .collect();
    (parts.join("/"), utf8)
}

/// Walks `docs/` and `skills/` without following any symlink on its own: each link is resolved
/// by [`resolve_link`] and a directory inside the root is walked from its canonical path, so
/// every path the walk lists or opens is link-free and inside the root.
struct Walker<'a> {
    canonical_root: &'a Path,
    diags: &'a mut Vec<Diagnostic>,
    /// Per directory link being walked: the canonical directory its walk started from and the
    /// canonical directory holding the link. The directories on the way from the first to the
    /// second are the link's ancestors; a link to one of them is a loop.
    links: Vec<(PathBuf, PathBuf)>,
    /// Content-relative paths of the hidden files and directories skipped.
    hidden: Vec<String>,
}

impl Walker<'_> {
    /// Walks `root/top`, calling `file(content-relative path, path to read)` for each file.
    fn top(&mut self, top: &str, file: &mut dyn FnMut(String, PathBuf)) {
        let start = self.canonical_root.join(top);
        let Ok(meta) = std::fs::symlink_metadata(&start) else { return };
        if meta.file_type().is_symlink() {
            match resolve_link(&start, top, self.canonical_root) {
                Target::Dir(dir) => self.dir(top, &dir, file),
                // A `docs` or `skills` that is not a directory holds no content.
                Target::File(_) => {}
                Target::Refused(d) => self.diags.push(d),
            }
        } else if meta.is_dir() {
            self.dir(top, &start, file);
        }
    }

    /// Walks the link-free directory `dir`, whose content-relative path is `path`.
    fn dir(&mut self, path: &str, dir: &Path, file: &mut dyn FnMut(String, PathBuf)) {
        let skipped = std::cell::RefCell::new(Vec::new());
        let it = WalkDir::new(dir)
            .follow_links(false)
            .follow_root_links(false)
            .sort_by_file_name()
            .into_iter()
            .filter_entry(|e| {
                let keep = e.depth() == 0 || !is_hidden(e.file_name());
                if !keep {
                    skipped.borrow_mut().push(e.path().to_path_buf());
                }
                keep
            });
        for next in it {
            let entry = match next {
                Ok(entry) if entry.depth() == 0 => continue,
                Ok(entry) => entry,
                Err(err) => {
                    let at = err.path().map_or_else(|| path.to_owned(), |p| self.path_of(path, dir, p).0);
                    let why = err.io_error().map_or_else(|| err.to_string(), ToString::to_string);
                    self.diags.push(Diagnostic::error(
                        "unreadable-file",
                        &at,
                        1,
                        1,
                        format!("cannot read `{at}`: {why}"),
                    ));
                    continue;
                }
            };
            let (rel, utf8) = self.path_of(path, dir, entry.path());
            if !utf8 {
                self.diags.push(
                    Diagnostic::error(
                        "non-portable-name",
                        &rel,
                        1,
                        1,
                        format!("`{rel}` is not valid UTF-8 (shown with U+FFFD replacement characters)"),
                    )
                    .with_help("rename it using UTF-8 characters"),
                );
            }
            let file_type = entry.file_type();
            // Sizes are checked when the file is read (on all cores), not with a second stat here.
            if file_type.is_file() {
                file(rel, entry.into_path());
            } else if file_type.is_dir() {
                // Walked by `it`.
            } else if file_type.is_symlink() {
                match resolve_link(entry.path(), &rel, self.canonical_root) {
                    Target::File(abs) => file(rel, abs),
                    Target::Dir(target) => {
                        let holder = entry.path().parent().unwrap_or(dir).to_path_buf();
                        let walked = self.links.iter().map(|(s, h)| (s.as_path(), h.as_path()));
                        let on_the_way = |(start, holder): (&Path, &Path)| {
                            holder.starts_with(&target) && target.starts_with(start)
                        };
                        if walked.chain([(dir, holder.as_path())]).any(on_the_way) {
                            self.diags.push(
                                Diagnostic::warning(
                                    "symlink-loop",
                                    &rel,
                                    1,
                                    1,
                                    format!(
                                        "symlink `{rel}` points at a directory that contains it; skipped"
                                    ),
                                )
                                .with_help("remove the link or point it at a sibling directory"),
                            );
                        } else {
                            self.links.push((dir.to_path_buf(), holder));
                            self.dir(&rel, &target, file);
                            self.links.pop();
                        }
                    }
                    Target::Refused(d) => self.diags.push(d),
                }
            } else {
                self.diags.push(not_regular(&rel, file_type));
            }
        }
        for abs in skipped.into_inner() {
            let (rel, _) = self.path_of(path, dir, &abs);
            self.hidden.push(rel);
        }
    }

    /// The content-relative path of `abs`, found under the directory `dir` whose
    /// content-relative path is `path`, and whether it is all UTF-8.
    fn path_of(&self, path: &str, dir: &Path, abs: &Path) -> (String, bool) {
        let (rest, utf8) = relative(dir, abs);
        if rest.is_empty() { (path.to_owned(), utf8) } else { (format!("{path}/{rest}"), utf8) }
    }
}

/// Decides what each walked file outside `docs/` is. Skill directories are the directories under
/// `skills/` that hold `SKILL.md`; a file belongs to the deepest one above it, so a nested skill
/// owns its files. Reports the hidden entries skipped inside a skill (`hidden-file`) and the
/// directories that hold markdown but no `SKILL.md` and no skill below (`missing-skill-md`).
fn classify(files: Vec<(String, PathBuf)>, hidden: &[String], diags: &mut Vec<Diagnostic>) -> Vec<Found> {
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
    for path in hidden {
        if let Some(skill) = owner(path) {
            diags.push(
                Diagnostic::warning(
                    "hidden-file",
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
                    && super::is_markdown(&path)
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
        out.push(Found { path, abs, kind });
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
        Some(name) => Diagnostic::error("missing-skill-md", &format!("{dir}/{name}"), 1, 1, message)
            .with_help(format!(
                "did you mean `SKILL.md`? rename `{name}` to `SKILL.md` (the name is case-sensitive)"
            )),
        None => Diagnostic::warning("missing-skill-md", dir, 1, 1, message)
            .with_help("add a `SKILL.md` to make it a skill, or move the files under `docs/`"),
    }
}

fn too_large(path: &str, size: u64) -> Diagnostic {
    Diagnostic::error(
        "file-too-large",
        path,
        1,
        1,
        format!("`{path}` is {size} bytes, more than the {MAX_FILE_BYTES}-byte limit per file"),
    )
    .with_help("split it into smaller files, or keep generated output out of the content tree")
}

/// Reads a found file's exact bytes. Fails with `unreadable-file`, `not-a-regular-file`, or
/// `file-too-large` (without reading it, or when it grows past the limit while being read).
pub fn read(found: &Found) -> Result<Vec<u8>, Diagnostic> {
    read_regular(&found.abs).map_err(|e| match e {
        ReadError::TooLarge(size) => too_large(&found.path, size),
        ReadError::NotRegular(file_type) => not_regular(&found.path, file_type),
        ReadError::Io(e) => Diagnostic::error(
            "unreadable-file",
            &found.path,
            1,
            1,
            format!("cannot read `{}`: {e}", found.path),
        )
        .with_help("check the file's permissions"),
        ReadError::Changed => Diagnostic::error(
            "unreadable-file",
            &found.path,
            1,
            1,
            format!("`{}` changed while it was being read", found.path),
        )
        .with_help("run the command again once nothing writes to the content tree"),
    })
}

/// The bytes of the file at `path` (content-relative) under a content root, for showing
/// source lines: `None` unless it resolves to a regular file inside `canonical_root` no larger
/// than [`MAX_FILE_BYTES`]. The same checks as the compile's own reads, so a report never shows
/// a byte the compile would not read (a link out of the root, a device, a huge file).
pub fn read_inside(canonical_root: &Path, path: &str) -> Option<Vec<u8>> {
    let resolved = canonical_root.join(path).canonicalize().ok()?;
    if !resolved.starts_with(canonical_root) {
        return None;
    }
    read_regular(&resolved).ok()
}

/// True when `path` (content-relative), reported as unreadable, is gone now or opens: the tree
/// changed while it was being read (a file renamed or deleted between the walk and its read), so
/// the report describes a moment that has passed rather than a file that cannot be read. Opens
/// what it finds (a directory is listed), never reads it.
pub fn moved_since(root: &Path, path: &str) -> bool {
    let at = root.join(path);
    match std::fs::symlink_metadata(&at) {
        Err(e) => matches!(e.kind(), std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory),
        Ok(meta) if meta.is_dir() => std::fs::read_dir(&at).is_ok(),
        Ok(_) => open_nonblocking(&at).is_ok(),
    }
}

/// Why [`read_regular`] read nothing.
enum ReadError {
    Io(std::io::Error),
    TooLarge(u64),
    NotRegular(std::fs::FileType),
    /// The path holds a link now, where the walk found a file: the tree changed meanwhile.
    Changed,
}

/// Reads the regular file at the link-free path `path`: opened without following a link at its
/// end (one swapped in since the walk is refused as a change), checked on the opened file's own
/// metadata (a regular file, at most [`MAX_FILE_BYTES`]) before a byte is read, and read only up
/// to one byte past the limit whatever the file does meanwhile.
///
/// The walk found a regular file here, so the only check before the open is the open's own: a
/// second look at the path first (a `stat` by name) cost 2% of a large tree's build and closed
/// no gap, since the file can change between any look and the open. A FIFO swapped in since the
/// walk opens without blocking and is refused; a device swapped in is opened, then refused.
fn read_regular(path: &Path) -> Result<Vec<u8>, ReadError> {
    let file = open_unfollowed(path)?;
    let meta = file.metadata().map_err(ReadError::Io)?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular(meta.file_type()));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(ReadError::TooLarge(meta.len()));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0) + 1);
    file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes).map_err(ReadError::Io)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(ReadError::TooLarge(bytes.len() as u64));
    }
    Ok(bytes)
}

/// Opens `path` for reading, refusing a link at its end (`O_NOFOLLOW`, reported as
/// [`ReadError::Changed`]: the walk resolved every link), without blocking on a FIFO
/// (`O_NONBLOCK`, which changes nothing for a regular file) and without making a terminal the
/// process's own (`O_NOCTTY`).
#[cfg(unix)]
fn open_unfollowed(path: &Path) -> Result<std::fs::File, ReadError> {
    use std::os::unix::fs::OpenOptionsExt as _;
    let mut options = std::fs::OpenOptions::new();
    options.read(true).custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW | libc::O_NOCTTY);
    options.open(path).map_err(|e| match e.raw_os_error() {
        // Linux says ELOOP for a link refused by O_NOFOLLOW; FreeBSD says EMLINK.
        Some(libc::ELOOP | libc::EMLINK) => ReadError::Changed,
        _ => ReadError::Io(e),
    })
}

/// [`open_unfollowed`] where the open cannot refuse a link itself: the path is looked at first.
#[cfg(not(unix))]
fn open_unfollowed(path: &Path) -> Result<std::fs::File, ReadError> {
    let checked = std::fs::symlink_metadata(path).map_err(ReadError::Io)?;
    if checked.file_type().is_symlink() {
        return Err(ReadError::Changed);
    }
    if !checked.is_file() {
        return Err(ReadError::NotRegular(checked.file_type()));
    }
    std::fs::File::open(path).map_err(ReadError::Io)
}

/// Opens `path` for reading; on Unix with `O_NONBLOCK`, so that a FIFO cannot block the open
/// (the flag changes nothing for a regular file).
fn open_nonblocking(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.custom_flags(libc::O_NONBLOCK);
    }
    options.open(path)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::{moved_since, read_inside, relative};

    #[cfg(unix)]
    #[test]
    fn sources_are_shown_only_from_regular_files_inside_the_root() {
        let dir = std::env::temp_dir().join(format!("folio-source-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("root/docs")).unwrap();
        std::fs::write(dir.join("outside.md"), "secret\n").unwrap();
        std::fs::write(dir.join("root/docs/a.md"), "# A\n").unwrap();
        std::os::unix::fs::symlink("a.md", dir.join("root/docs/in.md")).unwrap();
        std::os::unix::fs::symlink("../../outside.md", dir.join("root/docs/out.md")).unwrap();
        std::os::unix::fs::symlink("/dev/zero", dir.join("root/docs/zero.md")).unwrap();
        let root = dir.join("root").canonicalize().unwrap();
        assert_eq!(read_inside(&root, "docs/a.md").as_deref(), Some(&b"# A\n"[..]));
        assert_eq!(read_inside(&root, "docs/in.md").as_deref(), Some(&b"# A\n"[..]));
        for refused in ["docs/out.md", "docs/zero.md", "docs", ".", "../outside.md", "docs/missing.md"] {
            assert_eq!(read_inside(&root, refused), None, "{refused}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_file_reported_unreadable_has_moved_when_it_is_gone_or_opens_now() {
        let dir = std::env::temp_dir().join(format!("folio-moved-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("docs")).unwrap();
        std::fs::write(dir.join("docs/a.md"), "# A\n").unwrap();
        std::os::unix::fs::symlink("nowhere.md", dir.join("docs/dangling.md")).unwrap();
        // Renamed or deleted after the walk saw it.
        assert!(moved_since(&dir, "docs/gone.md"));
        // Replaced by a save while it was read: it opens now.
        assert!(moved_since(&dir, "docs/a.md"));
        assert!(moved_since(&dir, "docs"));
        // Its directory became a file.
        assert!(moved_since(&dir, "docs/a.md/b.md"));
        // Still unreadable: a real error, not a moment that passed.
        assert!(!moved_since(&dir, "docs/dangling.md"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn relative_paths_are_the_components_after_the_root_joined_by_slashes() {
        // The text fast path and the components path agree, however the root was written.
        for (root, abs, expected) in [
            ("content", "content/docs/a.md", "docs/a.md"),
            ("content/", "content/docs/a.md", "docs/a.md"),
            (".", "./docs/guides/b.md", "docs/guides/b.md"),
            ("/srv/site", "/srv/site/skills/pdf/SKILL.md", "skills/pdf/SKILL.md"),
            ("a/../content", "a/../content/docs/x.md", "docs/x.md"),
            ("content", "content/docs/./a.md", "docs/a.md"),
            ("content", "content/docs//a.md", "docs/a.md"),
            ("content", "content/docs", "docs"),
            ("content", "content", ""),
        ] {
            assert_eq!(
                relative(Path::new(root), Path::new(abs)),
                (expected.to_owned(), true),
                "{root} {abs}"
            );
        }
    }
}
