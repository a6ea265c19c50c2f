//! The versions `folio build --versions` and `folio check --versions` compile: one compile per
//! version of a tree that keeps versions, each exactly the compile a single `folio build` of
//! that version's tree runs, named by its version ([`compile::Config::version`]). Three sources,
//! first to last: git tags given on the command line (`--git-tag`, the tree as it was at each,
//! see `git`), folders named on the command line (`--version-dir`), the versions the site keeps
//! (Docusaurus's `versions.json`, [`compile::Config::site_versions`]), and sibling folders named
//! like versions (`v1/`, `2.x/`) at the content root or in `docs/`, when that is unambiguous.
//!
//! Plans the compiles and reads names in the tree; must not compile or write (that is `build`).

mod git;

use std::path::{Path, PathBuf};

use anyhow::bail;

use super::{LayoutArgs, LintArgs, VersionArgs};
use folio::compile::{self, Config};

/// One version to compile.
pub(super) struct Job {
    /// Its name: the catalog's `version`, the `<version>` of `<name>@<version>`.
    pub(super) version: String,
    /// Where it comes from, for messages: `versioned_docs/version-2.0/`, `git tag v2.0.0`.
    pub(super) from: String,
    /// The compile.
    pub(super) config: Config,
    /// The content root as diagnostics show it (the path given on the command line, so they
    /// name the files a user opens; for a git tag, the files as they are in the repository).
    pub(super) shown: PathBuf,
    /// The tree of a git tag, checked out into a temporary folder removed with the job.
    _tree: Option<git::Tree>,
}

impl Job {
    /// The catalog's name, as `folio.toml` `[catalog] name` of the version's tree sets it;
    /// refused when it cannot name a folder of a shelf.
    pub(super) fn name(&self) -> anyhow::Result<String> {
        let root = self.config.root.canonicalize().unwrap_or_else(|_| self.config.root.clone());
        let name = compile::catalog_name(&root);
        if !is_path_safe(&name) {
            bail!(
                "the catalog name `{name}` of version `{}` cannot name a folder `<name>@<version>`; \
                 set `[catalog] name` in folio.toml to a name without `/`, `\\`, `@` or a leading `.`",
                self.version
            );
        }
        Ok(name)
    }
}

/// The versions the command line asks for, in the order they are compiled: as the source
/// lists them (git tags and folders as given, a site's versions newest first, detected folders
/// by name). Fails, saying what to do, when the tree keeps no versions the flags can find, a
/// `--version` names none of them, a folder or tag does not exist, or two versions share a name.
pub(super) fn plan(
    content: &Path,
    lints: &LintArgs,
    layout: &LayoutArgs,
    args: &VersionArgs,
) -> anyhow::Result<Vec<Job>> {
    let base = super::config(content, lints, layout)?;
    let mut jobs = Vec::new();
    if !args.git_tag.is_empty() {
        for tag in &args.git_tag {
            let tree = git::Tree::at_tag(content, tag)?;
            let config = super::config(tree.path(), lints, layout)?.with_version(Some(tag_version(tag)));
            jobs.push(Job {
                version: tag_version(tag),
                from: format!("git tag `{tag}`"),
                config,
                shown: content.to_owned(),
                _tree: Some(tree),
            });
        }
    } else if !args.version_dir.is_empty() {
        for dir in &args.version_dir {
            let dir = dir.trim_end_matches('/');
            let Some(version) = dir.rsplit('/').next().map(folder_version) else { continue };
            jobs.push(folder_job(content, dir, version, lints, layout)?);
        }
    } else {
        let site = base.site_versions();
        if site.is_empty() {
            for (dir, version) in detect_folders(content)? {
                jobs.push(folder_job(content, &dir, version, lints, layout)?);
            }
        } else {
            for v in site {
                let mut config = base.clone().with_version(Some(v.name.clone()));
                config.layout.version = Some(v.name.clone());
                let from = if v.label == v.name {
                    format!("{}/", v.dir)
                } else {
                    format!("{}/, labelled `{}`", v.dir, v.label)
                };
                jobs.push(Job { version: v.name, from, config, shown: content.to_owned(), _tree: None });
            }
        }
    }
    for job in &jobs {
        if !is_path_safe(&job.version) {
            bail!(
                "the version `{}` ({}) cannot name a folder `<name>@<version>`: it holds `/`, `\\` or `@`, or starts with `.`",
                job.version,
                job.from
            );
        }
        if let Some(twin) = jobs.iter().find(|j| j.version == job.version && !std::ptr::eq(*j, job)) {
            bail!(
                "two versions are named `{}`: {} and {}; name the folders with `--version-dir` one version each",
                job.version,
                job.from,
                twin.from
            );
        }
    }
    if !args.only.is_empty() {
        for name in &args.only {
            if !jobs.iter().any(|j| &j.version == name) {
                let known: Vec<String> = jobs.iter().map(|j| format!("`{}`", j.version)).collect();
                bail!(
                    "--version `{name}`: `{}` keeps no such version; its versions are {}",
                    content.display(),
                    known.join(", ")
                );
            }
        }
        jobs.retain(|j| args.only.contains(&j.version));
    }
    Ok(jobs)
}

/// The compile of the version in the folder `dir` (content-relative): the folder as a content
/// root when it is laid out as one (it holds `docs/`, `skills/` or `folio.toml`), else the
/// content root with the folder as its pages (`--docs DIR`).
fn folder_job(
    content: &Path,
    dir: &str,
    version: String,
    lints: &LintArgs,
    layout: &LayoutArgs,
) -> anyhow::Result<Job> {
    let path = content.join(dir);
    if !path.is_dir() {
        bail!(
            "--version-dir `{dir}`: `{}` is not a folder; name a folder of the content root holding one version",
            path.display()
        );
    }
    let is_root =
        ["docs", "skills"].iter().any(|d| path.join(d).is_dir()) || path.join("folio.toml").is_file();
    let (config, shown) = if is_root {
        (super::config(&path, lints, layout)?, path)
    } else {
        let layout = LayoutArgs { docs: Some(dir.to_owned()), ..layout.clone() };
        (super::config(content, lints, &layout)?, content.to_owned())
    };
    Ok(Job {
        config: config.with_version(Some(version.clone())),
        version,
        from: format!("{dir}/"),
        shown,
        _tree: None,
    })
}

/// The folders of the tree named like versions, each with its version: those of the content
/// root, or else those of its `docs/`. Fails when there are none, or when both places hold some
/// (which are the versions is then the user's to say).
fn detect_folders(content: &Path) -> anyhow::Result<Vec<(String, String)>> {
    let versioned = |rel: &str| -> Vec<(String, String)> {
        let Ok(entries) = std::fs::read_dir(content.join(rel)) else { return Vec::new() };
        let mut out: Vec<(String, String)> = entries
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|name| is_version(name))
            .map(|name| {
                let version = folder_version(&name);
                (if rel.is_empty() { name } else { format!("{rel}/{name}") }, version)
            })
            .collect();
        out.sort();
        out
    };
    let (at_root, in_docs) = (versioned(""), versioned("docs"));
    let shown = |found: &[(String, String)]| {
        found.iter().map(|(dir, _)| format!("`{dir}/`")).collect::<Vec<_>>().join(", ")
    };
    match (at_root.is_empty(), in_docs.is_empty()) {
        (false, true) => Ok(at_root),
        (true, false) => Ok(in_docs),
        (false, false) => bail!(
            "`{}` has folders named like versions both at its root ({}) and in `docs/` ({}); name the versions with `--version-dir DIR` (repeatable)",
            content.display(),
            shown(&at_root),
            shown(&in_docs)
        ),
        (true, true) => bail!(
            "`{}` keeps no versions: no Docusaurus `versions.json`, and no folder named like a version (`v2/`, `2.x/`, `3.0/`) at its root or in `docs/`; \
             name version folders with `--version-dir DIR`, or build git tags with `--git-tag TAG`",
            content.display()
        ),
    }
}

/// True for a folder name that reads as a version: digits, then dot-separated numbers or `x`,
/// with an optional leading `v` (`v1`, `2.x`, `3.0`, `v1.2.3`).
fn is_version(name: &str) -> bool {
    let rest = name.strip_prefix(['v', 'V']).unwrap_or(name);
    let mut parts = rest.split('.');
    let first_ok = parts.next().is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    first_ok && parts.all(|p| p == "x" || (!p.is_empty() && p.bytes().all(|b| b.is_ascii_digit())))
}

/// The version a folder names: its name, without a `v` before a digit (`v2` is `2`).
fn folder_version(name: &str) -> String {
    tag_version(name)
}

/// The version a git tag names: the tag, without a `v` before a digit (`v2.0.0` is `2.0.0`), as
/// package registries write versions.
fn tag_version(tag: &str) -> String {
    match tag.strip_prefix(['v', 'V']) {
        Some(rest) if rest.starts_with(|c: char| c.is_ascii_digit()) => rest.to_owned(),
        _ => tag.to_owned(),
    }
}

/// True for a name that can be one half of a folder name `<name>@<version>`.
fn is_path_safe(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && !name.chars().any(|c| matches!(c, '/' | '\\' | '@' | ':') || c.is_control())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folder_names_that_read_as_versions() {
        for name in ["v1", "V2", "2.x", "3.0", "v1.2.3", "10"] {
            assert!(is_version(name), "{name}");
        }
        for name in ["docs", "v", "version-1", "1.", "x.1", "2.0-beta", ""] {
            assert!(!is_version(name), "{name}");
        }
    }

    #[test]
    fn a_leading_v_before_a_digit_is_dropped() {
        assert_eq!(tag_version("v2.0.0"), "2.0.0");
        assert_eq!(tag_version("2.x"), "2.x");
        assert_eq!(tag_version("vnext"), "vnext");
        assert_eq!(folder_version("v3"), "3");
    }

    #[test]
    fn names_that_cannot_name_a_shelf_folder() {
        assert!(is_path_safe("mylib"));
        assert!(is_path_safe("2.0.0"));
        for name in ["", ".hidden", "a/b", "a\\b", "a@b", "c:d"] {
            assert!(!is_path_safe(name), "{name}");
        }
    }
}
