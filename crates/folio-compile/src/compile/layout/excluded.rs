//! Pages a generator's config leaves out of the site: MkDocs's `exclude_docs` (gitignore
//! patterns, <https://www.mkdocs.org/user-guide/configuration/#exclude_docs>, with its built-in
//! `/templates/`) and the `exclude` plugin's `glob` list (mkdocs-exclude: Python's `fnmatch`
//! on the path below `docs_dir`), VitePress's `srcExclude` (globs below `srcDir`,
//! <https://vitepress.dev/reference/site-config#srcexclude>). Such a file is not a page: the
//! compile leaves it out and the summary counts it with the pattern that left it out; a link to
//! it matches no page, as on the site.
//!
//! Holds the patterns as the presets read them and matches paths below the pages folder;
//! reads nothing.

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};

/// A pattern of pages the site leaves out, as a preset read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Excluded {
    /// A glob below the pages folder (`snippets/*`, `**/_template.md`).
    pub glob: String,
    /// `*` and `?` stop at `/` (gitignore and fast-glob), or match it too (`fnmatch`).
    pub separator: bool,
    /// Where the pattern comes from, for the summary (`` `exclude_docs` of `mkdocs.yml` ``).
    pub why: String,
}

impl Excluded {
    /// The globs a gitignore pattern (MkDocs's `exclude_docs`) stands for: a pattern without a
    /// `/` before its end matches at any depth, a leading `/` anchors it to the pages folder,
    /// and a pattern matches a folder's files too. `None` for a negation (`!x`), which only the
    /// whole pattern list tells the meaning of: the caller then excludes nothing.
    pub(crate) fn from_gitignore(line: &str, why: &str) -> Option<Vec<Excluded>> {
        let line = line.trim_end();
        if line.is_empty() || line.starts_with('#') {
            return Some(Vec::new());
        }
        if line.starts_with('!') {
            return None;
        }
        let dir_only = line.ends_with('/');
        let body = line.trim_end_matches('/');
        let anchored = body.starts_with('/') || body.contains('/');
        let body = body.trim_start_matches('/');
        if body.is_empty() {
            return Some(Vec::new());
        }
        let base = if anchored { body.to_owned() } else { format!("**/{body}") };
        let mut globs = vec![format!("{base}/**")];
        if !dir_only {
            globs.push(base);
        }
        Some(globs.into_iter().map(|glob| Excluded { glob, separator: true, why: why.to_owned() }).collect())
    }
}

/// [`Excluded`] patterns compiled once for a walk.
#[derive(Debug)]
pub(crate) struct ExcludedSet {
    set: GlobSet,
    why: Vec<String>,
}

impl ExcludedSet {
    /// Compiles `patterns`; one that does not parse as a glob is left out (it excludes nothing,
    /// so its pages are read).
    pub(crate) fn new(patterns: &[Excluded]) -> ExcludedSet {
        let mut builder = GlobSetBuilder::new();
        let mut why = Vec::new();
        for pattern in patterns {
            let glob: Result<Glob, _> =
                GlobBuilder::new(&pattern.glob).literal_separator(pattern.separator).build();
            if let Ok(glob) = glob {
                builder.add(glob);
                why.push(pattern.why.clone());
            }
        }
        let set = builder.build().unwrap_or_else(|_| GlobSet::empty());
        ExcludedSet { set, why }
    }

    /// Why the file at `rel` (below the pages folder) is left out, when a pattern matches it.
    pub(crate) fn why(&self, rel: &str) -> Option<&str> {
        if self.why.is_empty() {
            return None;
        }
        let first = self.set.matches(rel).into_iter().min()?;
        self.why.get(first).map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(patterns: Vec<Excluded>) -> ExcludedSet {
        ExcludedSet::new(&patterns)
    }

    #[test]
    fn gitignore_patterns_match_as_mkdocs_reads_exclude_docs() {
        let why = "`exclude_docs` of `mkdocs.yml`";
        let mut patterns = Vec::new();
        for line in ["drafts/", "/templates/", "*.tmp.md", "api/private.md", "# a comment", ""] {
            patterns.extend(Excluded::from_gitignore(line, why).expect("no negation"));
        }
        let set = set(patterns);
        for (rel, excluded) in [
            ("drafts/a.md", true),
            ("guide/drafts/b.md", true),
            ("templates/page.md", true),
            ("guide/templates/page.md", false),
            ("notes.tmp.md", true),
            ("guide/notes.tmp.md", true),
            ("api/private.md", true),
            ("guide/api/private.md", false),
            ("guide/intro.md", false),
        ] {
            assert_eq!(set.why(rel).is_some(), excluded, "{rel}");
        }
        assert_eq!(set.why("drafts/a.md"), Some(why));
        assert!(Excluded::from_gitignore("!keep.md", why).is_none());
    }

    #[test]
    fn fnmatch_stars_cross_folders_and_fast_glob_stars_do_not() {
        let fnmatch =
            |glob: &str| Excluded { glob: glob.to_owned(), separator: false, why: "fnmatch".into() };
        let fast = |glob: &str| Excluded { glob: glob.to_owned(), separator: true, why: "fast".into() };
        let set = set(vec![fnmatch("snippets/*"), fast("drafts/*")]);
        assert_eq!(set.why("snippets/a.md"), Some("fnmatch"));
        assert_eq!(set.why("snippets/deep/a.md"), Some("fnmatch"));
        assert_eq!(set.why("drafts/a.md"), Some("fast"));
        assert_eq!(set.why("drafts/deep/a.md"), None);
        assert_eq!(set.why("guide/a.md"), None);
    }
}
