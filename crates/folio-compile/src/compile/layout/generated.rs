//! Whether a file the tree lacks would be there when the site is built: a path git ignores
//! (`/docs/reference/cli.md` in `.gitignore`) is the output of a build step, and a page of a
//! folder the site mounts among its pages (Docusaurus's newest archived version at the docs'
//! routes, a Hugo module mount) is served. The answer is asked only for links that match nothing, and each
//! `.gitignore` is read once.
//!
//! Reads `.gitignore` files inside the content root (bounded like config files) and looks at
//! names under the mounted folders; must not read anything else.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use ignore::gitignore::{Gitignore, GitignoreBuilder};

use super::site::{Disk, DiskRef, Miss};
use super::{Layout, Part};

/// What the disk tells about the links of a tree laid out as `layout`.
pub(super) fn hook(root: &Path, layout: &Layout) -> DiskRef {
    DiskRef(Arc::new(State {
        root: root.to_owned(),
        layout: layout.clone(),
        ignores: Mutex::new(BTreeMap::new()),
    }))
}

struct State {
    root: PathBuf,
    layout: Layout,
    /// The `.gitignore` of each folder asked about (content-relative), parsed, if it has one.
    ignores: Mutex<BTreeMap<String, Option<Arc<Gitignore>>>>,
}

impl Disk for State {
    fn generated(&self, logical: &str, route: bool) -> Option<Miss> {
        self.why(logical, route)
    }

    fn exists_beside(&self, from: &str, written: &str) -> bool {
        let real = self.layout.real(&self.root, from);
        let dir = real.rsplit_once('/').map_or("", |(d, _)| d);
        let Some(target) = super::generators::beside(dir, written) else { return false };
        // Only outside the folders read: inside them the catalog knows every file, and a link
        // its rules cannot resolve is not saved by the file being there in another form.
        if self.layout.logical(&target).is_some()
            || self.layout.mounts.iter().any(|m| super::strip_dir(&target, &m.dir).is_some())
        {
            return false;
        }
        self.exists(&target)
    }

    /// Inside the root, by a path with no link that leaves it.
    fn exists(&self, real: &str) -> bool {
        self.root.join(real).canonicalize().is_ok_and(|resolved| resolved.starts_with(&self.root))
    }
}

impl State {
    fn why(&self, logical: &str, route: bool) -> Option<Miss> {
        // A route names a page by any of the forms a generator gives it a file by.
        let forms = |stem: &str| -> Vec<String> {
            if !route {
                return vec![stem.to_owned()];
            }
            let stem = stem.trim_end_matches('/');
            ["", ".md", ".mdx", "/index.md", "/index.mdx", "/_index.md", "/README.md"]
                .iter()
                .map(|ext| format!("{stem}{ext}"))
                .collect()
        };
        if let Some(rest) = logical.strip_prefix("docs/") {
            for mount in self.layout.site.mounts.iter().filter(|m| route || m.files) {
                let below = if mount.route.is_empty() {
                    Some(rest)
                } else {
                    rest.strip_prefix(mount.route.as_str())
                        .and_then(|r| if r.is_empty() { Some(r) } else { r.strip_prefix('/') })
                };
                let Some(below) = below else { continue };
                if forms(&super::join(&mount.dir, below)).iter().any(|f| self.root.join(f).is_file()) {
                    return Some(Miss::Served);
                }
            }
        }
        // One reason per `.gitignore`, not per path: the warning names the first link and counts
        // the others. A site path may also name a file of a folder served at `/` (`public/`),
        // written there by a build step (`public/rss.xml` from a package script).
        let real = self.layout.real(&self.root, logical);
        let served = logical.strip_prefix("docs/").into_iter().flat_map(|rest| {
            self.layout
                .mounts
                .iter()
                .filter(|m| m.part == Part::Assets)
                .map(move |m| super::join(&m.dir, rest))
        });
        forms(&real).into_iter().chain(served).find_map(|form| self.ignored(&form)).map(|file| {
            Miss::Unverified(format!("a path `{file}` ignores: a file made when the site is built"))
        })
    }

    /// The `.gitignore` (content-relative) that ignores `real`, if one does: the deepest file
    /// with a rule that matches decides, as git decides.
    fn ignored(&self, real: &str) -> Option<String> {
        let mut dirs = vec![String::new()];
        let parts: Vec<&str> = real.split('/').collect();
        for i in 1..parts.len() {
            dirs.push(parts[..i].join("/"));
        }
        for dir in dirs.iter().rev() {
            let Some(gitignore) = self.gitignore(dir) else { continue };
            let matched = gitignore.matched_path_or_any_parents(self.root.join(real), false);
            if matched.is_ignore() {
                return Some(super::join(dir, ".gitignore"));
            }
            if matched.is_whitelist() {
                return None;
            }
        }
        None
    }

    fn gitignore(&self, dir: &str) -> Option<Arc<Gitignore>> {
        let mut cache = self.ignores.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        cache
            .entry(dir.to_owned())
            .or_insert_with(|| {
                let rel = super::join(dir, ".gitignore");
                let text = super::config::read_text(&self.root, &rel).ok()?;
                let mut builder = GitignoreBuilder::new(self.root.join(dir));
                for line in text.lines() {
                    // A line git would reject is skipped, as git skips it.
                    let _ = builder.add_line(None, line);
                }
                builder.build().ok().map(Arc::new)
            })
            .clone()
    }
}
