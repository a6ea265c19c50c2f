//! The content walk: finds `folio.toml`, the docs and the skill files of a content root, and
//! reads their exact bytes. This is the only module of the compiler that touches the file system.
//!
//! The walk is sorted by file name (so output never depends on directory order), skips hidden
//! files and directories, follows symlinks only while they stay inside the root (`path-escape`
//! otherwise), survives symlink loops (`symlink-loop`) and reports unreadable (`unreadable-file`)
//! and oversize (`file-too-large`) files without losing the rest of the tree.

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
    /// Path relative to the content root, `/`-separated.
    pub path: String,
    /// Where to read it.
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
    let settings = root.join("folio.toml");
    if let Ok(meta) = std::fs::symlink_metadata(&settings) {
        if meta.file_type().is_symlink() && !inside(&settings, &canonical_root) {
            out.diagnostics.push(escape("folio.toml"));
        } else if let Ok(meta) = std::fs::metadata(&settings)
            && meta.is_file()
        {
            files.push(("folio.toml".to_owned(), settings));
        }
    }
    walk_dir(root, &canonical_root, "docs", &mut out.diagnostics, |path, abs| {
        if super::is_markdown(&path) {
            doc(Found { path, abs, kind: Kind::Doc });
        } else {
            out.unserved.push(path);
        }
    });
    walk_dir(root, &canonical_root, "skills", &mut out.diagnostics, |path, abs| files.push((path, abs)));
    // Pushed in walk order already; sorting states the order the compiler relies on.
    files.sort_by(|a, b| crate::catalog::codec::source_order(&a.0, &b.0));
    out.unserved.sort();
    out.files = classify(files);
    out
}

fn escape(path: &str) -> Diagnostic {
    Diagnostic::error("path-escape", path, 1, 1, format!("symlink `{path}` points outside the content root"))
        .with_help("copy the file into the content tree, or point the link at a file inside it")
}

fn inside(path: &Path, canonical_root: &Path) -> bool {
    path.canonicalize().is_ok_and(|p| p.starts_with(canonical_root))
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

/// Walks `root/top`, calling `file(content-relative path, absolute path)` for each file.
fn walk_dir(
    root: &Path,
    canonical_root: &Path,
    top: &str,
    diags: &mut Vec<Diagnostic>,
    mut file: impl FnMut(String, PathBuf),
) {
    let start = root.join(top);
    if std::fs::symlink_metadata(&start).is_err() {
        return;
    }
    let mut it = WalkDir::new(&start)
        .follow_links(true)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !is_hidden(e.file_name()));
    while let Some(next) = it.next() {
        let entry = match next {
            Ok(entry) => entry,
            Err(err) => {
                let (path, _) = relative(root, err.path().unwrap_or(&start));
                let escapes = err.path().is_some_and(|p| {
                    p.is_symlink() && p.canonicalize().is_ok_and(|c| !c.starts_with(canonical_root))
                });
                if escapes {
                    // A link to an ancestor of the root is a loop too, but the escape is the problem.
                    diags.push(escape(&path));
                } else if err.loop_ancestor().is_some() {
                    diags.push(
                        Diagnostic::warning(
                            "symlink-loop",
                            &path,
                            1,
                            1,
                            format!("symlink `{path}` points at a directory that contains it; skipped"),
                        )
                        .with_help("remove the link or point it at a sibling directory"),
                    );
                } else {
                    let why = err.io_error().map_or_else(|| err.to_string(), ToString::to_string);
                    let target_exists = err.path().is_some_and(|p| p.exists());
                    let message = if target_exists {
                        format!("cannot read `{path}`: {why}")
                    } else {
                        format!("cannot follow `{path}` (a dangling symlink?): {why}")
                    };
                    diags.push(Diagnostic::error("unreadable-file", &path, 1, 1, message));
                }
                continue;
            }
        };
        let (path, utf8) = relative(root, entry.path());
        if entry.path_is_symlink() && !inside(entry.path(), canonical_root) {
            diags.push(escape(&path));
            if entry.file_type().is_dir() {
                it.skip_current_dir();
            }
            continue;
        }
        if !utf8 {
            diags.push(
                Diagnostic::error(
                    "non-portable-name",
                    &path,
                    1,
                    1,
                    format!("`{path}` is not valid UTF-8 (shown with U+FFFD replacement characters)"),
                )
                .with_help("rename it using UTF-8 characters"),
            );
        }
        // Sizes are checked when the file is read (on all cores), not with a second stat here.
        if entry.file_type().is_file() {
            file(path, entry.into_path());
        }
    }
}

/// Decides what each walked file outside `docs/` is. Skill directories are the directories under
/// `skills/` that hold `SKILL.md`; a file belongs to the deepest one above it, so a nested skill
/// owns its files.
fn classify(files: Vec<(String, PathBuf)>) -> Vec<Found> {
    let skill_dirs: BTreeSet<String> = files
        .iter()
        .filter_map(|(p, ..)| p.strip_suffix("/SKILL.md"))
        .filter(|d| d.starts_with("skills/"))
        .map(str::to_owned)
        .collect();
    let mut out = Vec::with_capacity(files.len());
    for (path, abs) in files {
        let kind = if path == "folio.toml" {
            Kind::Settings
        } else {
            let mut dir = path.as_str();
            let skill_dir = loop {
                match dir.rfind('/') {
                    Some(i) => dir = &dir[..i],
                    None => break None,
                }
                if skill_dirs.contains(dir) {
                    break Some(dir.to_owned());
                }
            };
            let Some(skill_dir) = skill_dir else { continue };
            if path.len() == skill_dir.len() + "/SKILL.md".len() && path.ends_with("/SKILL.md") {
                Kind::SkillDocument { skill_dir }
            } else {
                Kind::SkillFile { skill_dir }
            }
        };
        out.push(Found { path, abs, kind });
    }
    out
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

/// Reads a found file's exact bytes. Fails with `unreadable-file`, or `file-too-large` (without
/// reading it, or when it grows past the limit while being read).
pub fn read(found: &Found) -> Result<Vec<u8>, Diagnostic> {
    let unreadable = |e: std::io::Error| {
        Diagnostic::error("unreadable-file", &found.path, 1, 1, format!("cannot read `{}`: {e}", found.path))
            .with_help("check the file's permissions")
    };
    let file = std::fs::File::open(&found.abs).map_err(unreadable)?;
    let size = file.metadata().map_err(unreadable)?.len();
    if size > MAX_FILE_BYTES {
        return Err(too_large(&found.path, size));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0) + 1);
    file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes).map_err(unreadable)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(too_large(&found.path, bytes.len() as u64));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::relative;

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
