//! What a link that matches no file of the catalog is: an include the generator finds, a host
//! command, a route the site answers without a page, a link above a pages folder given as the
//! root, a file of the repository outside the pages, a page a mounted folder serves, or a miss
//! the site's config leaves unverified; and links through an import alias (`@assets/x.png`).
//!
//! `impl` blocks of [`Index`]: the rules are `links::proof`'s and the layout's; this module must
//! not add its own.

use super::super::forms::percent_decode;
use super::super::{LinkSource, Miss, Origin, Outcome, Problem};
use super::Index;
use crate::catalog::LinkKind;
use crate::compile::diagnostic::Code;
use crate::compile::markdown::RawLink;

impl<'t> Index<'t> {
    /// `outcome`, the result of resolving `raw` of `source` by path, with a miss explained.
    pub(super) fn explain_miss(
        &self,
        source: &LinkSource<'t>,
        raw: &RawLink,
        outcome: Outcome<'t>,
    ) -> Outcome<'t> {
        match outcome {
            // An include of a file outside the folders Folio reads (mdBook's
            // `{{#include ../../examples/x.rs}}`, a snippet from the repository root)
            // is the generator's to find.
            Outcome::Problem(_) if raw.include && self.leaves_the_catalog(source, raw) => {
                Outcome::Unchecked
            }
            // An include of a file on disk that is not a page (a snippet folder the site's
            // config excludes from its pages): the generator reads the file all the same.
            Outcome::Problem(_) if raw.include && self.include_on_disk(source, raw) => Outcome::Unchecked,
            // An include the site's own template resolves, unless a mounted folder
            // serves the file (Hugo's `readfile` of a mounted `README.md`).
            Outcome::Problem(_)
                if raw.include
                    && let Some(why) = &self.targets.site.unverifiable.includes =>
            {
                match self.targets.site.unverifiable.why(&self.site, source, raw, None) {
                    Some(Miss::Served) => Outcome::Unchecked,
                    _ => Outcome::Unverified(why.clone()),
                }
            }
            // `/name` that matches no file but names a skill is a host command.
            Outcome::Problem(_)
                if raw.kind == LinkKind::SiteAbsolute
                    && self.targets.skill_names.contains(raw.target.trim_start_matches('/')) =>
            {
                Outcome::Unchecked
            }
            Outcome::Problem(_)
                if raw.kind == LinkKind::SiteAbsolute
                    && source.origin == Origin::Doc
                    && self.is_extra_route(raw) =>
            {
                Outcome::Unchecked
            }
            // A page file the tree lacks at a route the site answers or redirects to a page.
            Outcome::Problem(problem)
                if problem.code == Code::BrokenLink
                    && raw.kind == LinkKind::Relative
                    && source.origin == Origin::Doc
                    && let Some(outcome) = self.redirected_page(source, raw) =>
            {
                outcome
            }
            // A page of a pages folder given as the content root linking above it:
            // say that the link leaves the root, not that a file of it is missing.
            Outcome::Problem(problem)
                if problem.code == Code::BrokenLink
                    && raw.kind == LinkKind::Relative
                    && source.origin == Origin::Doc
                    && self.targets.site.pages_at_root
                    && !raw.target.starts_with("{{")
                    && self.leaves_the_catalog(source, raw) =>
            {
                Outcome::Problem(Problem {
                    code: Code::BrokenLink,
                    message: format!(
                        "link `{}` leaves the content root: the pages folder is the root Folio was given, and the link names a file above it",
                        raw.target
                    ),
                    help: Some(
                        "check from the folder that holds both (the repository root), naming the pages with `--docs DIR`"
                            .to_owned(),
                    ),
                })
            }
            // A file of the repository the site's build takes from outside its pages
            // (an image beside the pages folder).
            Outcome::Problem(problem)
                if problem.code == Code::BrokenLink
                    && (source.origin == Origin::Doc || raw.plugin_root)
                    && self.targets.site.unverifiable.exists_on_disk(source, raw) =>
            {
                Outcome::Unchecked
            }
            Outcome::Problem(problem)
                if problem.code == Code::BrokenLink && source.origin == Origin::Doc =>
            {
                // The site path as the pages folder serves it (`/docs/x` of a site whose
                // pages are at `/docs` names `docs/x`), for asking the disk.
                let rerouted = (raw.kind == LinkKind::SiteAbsolute)
                    .then(|| {
                        let decoded = percent_decode(raw.path());
                        self.site_route(decoded.split('?').next().unwrap_or(""))
                    })
                    .flatten();
                match self.targets.site.unverifiable.why(&self.site, source, raw, rerouted.as_deref())
                {
                    Some(Miss::Unverified(why)) => Outcome::Unverified(why),
                    Some(Miss::Served) => Outcome::Unchecked,
                    None => Outcome::Problem(problem),
                }
            }
            outcome => outcome,
        }
    }

    /// True when the include `raw` of `source` names a file of the tree on disk: relative to
    /// the page, or (a snippet's path, written from the repository root) to the content root.
    fn include_on_disk(&self, source: &LinkSource<'t>, raw: &RawLink) -> bool {
        let Some(disk) = &self.targets.site.unverifiable.disk else { return false };
        match raw.kind {
            LinkKind::Relative => self.targets.site.unverifiable.exists_on_disk(source, raw),
            LinkKind::SiteAbsolute => {
                let decoded = percent_decode(raw.path());
                let path = decoded.split('?').next().unwrap_or("").trim_start_matches('/');
                !path.is_empty() && !path.split('/').any(|s| s == "..") && disk.0.exists(path)
            }
            _ => false,
        }
    }

    /// A link through an import alias (`@assets/x.svg`, `@assets/*` standing for `src/assets/*`):
    /// the file it names is on disk, or the link is broken.
    pub(super) fn resolve_alias(&self, raw: &RawLink, prefix: &str, dir: &str) -> Outcome<'t> {
        let Some(disk) = &self.targets.site.unverifiable.disk else { return Outcome::Unchecked };
        let decoded = percent_decode(raw.path());
        let rest = decoded.split('?').next().unwrap_or("").strip_prefix(prefix).unwrap_or("");
        let real = format!("{dir}{rest}");
        if disk.0.exists(&real) {
            return Outcome::Unchecked;
        }
        // The alias's whole folder is missing: a git submodule, or a folder a build step writes.
        if !disk.0.exists(dir.trim_end_matches('/')) {
            return Outcome::Unverified(format!(
                "`{prefix}*` stands for `{dir}*` (`compilerOptions.paths` of `tsconfig.json`), which is not in this checkout (a git submodule, or a folder a build step writes?)"
            ));
        }
        Outcome::Problem(Problem {
            code: Code::BrokenLink,
            message: format!(
                "link `{}` matches no file: `{prefix}*` stands for `{dir}*` (`compilerOptions.paths` of `tsconfig.json`), and there is no `{real}`",
                raw.target
            ),
            help: None,
        })
    }
}
