//! Where each entry of a catalog is in the web view: the page of a URI, the entry at a page's
//! address, and the entry a content path names (for links the compiler did not record, in skill
//! reference files).
//!
//! The view's addresses:
//! - `/docs/<path>`: a doc (`path` relative to `docs/`); `/docs/<folder>/`: a folder of docs.
//! - `/skills/<name>/`: a skill (its SKILL.md); `/skills/<name>/<file>`: one of its files.
//! - `/raw/…`: the same addresses after `/raw`, answered with the entry's exact bytes.
//!
//! Built once per catalog (a reload builds a new one). Reads the catalog only; must not render.

use rustc_hash::FxHashMap;

use crate::catalog::Catalog;
use crate::catalog::uri::encode_path;
use crate::query::Query;

/// The view's address of every entry, both ways.
pub(crate) struct Sitemap {
    /// Entry index → page address (without `/raw`).
    pages: Vec<String>,
    /// Content path (`docs/a.md`, `skills/pdf/SKILL.md`) → entry index.
    by_path: FxHashMap<String, u32>,
    /// Entry index → the skill it belongs to, for skill entries.
    skill_of: Vec<Option<u32>>,
}

/// What a page address names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place<'a> {
    /// The index of everything.
    Index,
    /// A folder of docs (relative to `docs/`, `""` for the root), listed.
    Folder(&'a str),
    /// An entry: a doc, a skill's SKILL.md or one of its files.
    Entry(u32),
}

impl Sitemap {
    pub(crate) fn new(catalog: &Catalog) -> Sitemap {
        let mut pages = vec![String::new(); catalog.entries.len()];
        let mut skill_of = vec![None; catalog.entries.len()];
        for doc in &catalog.docs {
            pages[doc.entry as usize] = format!("/docs/{}", encode_path(&doc.path));
        }
        for (i, skill) in catalog.skills.iter().enumerate() {
            let base = format!("/skills/{}/", encode_path(&skill.name));
            pages[skill.document as usize] = base.clone();
            skill_of[skill.document as usize] = Some(i as u32);
            for file in &skill.files {
                pages[file.entry as usize] = format!("{base}{}", encode_path(&file.rel_path));
                skill_of[file.entry as usize] = Some(i as u32);
            }
        }
        let by_path = catalog.entries.iter().enumerate().map(|(i, e)| (e.path.clone(), i as u32)).collect();
        Sitemap { pages, by_path, skill_of }
    }

    /// The page of entry `idx`.
    pub(crate) fn page(&self, idx: u32) -> &str {
        self.pages.get(idx as usize).map_or("/", String::as_str)
    }

    /// The entry with canonical `uri`.
    pub(crate) fn entry_of_uri(&self, catalog: &Catalog, uri: &str) -> Option<u32> {
        catalog.entries.binary_search_by(|e| e.uri.as_str().cmp(uri)).ok().map(|i| i as u32)
    }

    /// The page of the entry with canonical `uri`.
    pub(crate) fn page_of_uri(&self, catalog: &Catalog, uri: &str) -> Option<String> {
        self.entry_of_uri(catalog, uri).map(|idx| self.page(idx).to_owned())
    }

    /// The entry at content path `path` (`docs/a.md`).
    pub(crate) fn at_path(&self, path: &str) -> Option<u32> {
        self.by_path.get(path).copied()
    }

    /// The skill entry `idx` belongs to.
    pub(crate) fn skill_of(&self, idx: u32) -> Option<u32> {
        self.skill_of.get(idx as usize).copied().flatten()
    }

    /// What the (decoded) address `path` names, or `None` for an address that names nothing.
    ///
    /// Looks the address up once, through the query layer (so it counts as the request's one
    /// lookup).
    pub(crate) fn place<'p>(&self, query: &Query, path: &'p str) -> Option<Place<'p>> {
        let catalog = query.catalog();
        if path == "/" {
            return Some(Place::Index);
        }
        if let Some(rest) = path.strip_prefix("/docs/") {
            if rest.is_empty() || rest.ends_with('/') {
                let folder = rest.trim_end_matches('/');
                let prefix = format!("{folder}/");
                let any = catalog.docs.iter().any(|d| folder.is_empty() || d.path.starts_with(&prefix));
                return any.then_some(Place::Folder(folder));
            }
            // The exact path: `Query::doc` also takes one with `docs/` in front.
            return query.doc(rest).filter(|d| d.path == rest).map(|d| Place::Entry(d.entry));
        }
        let rest = path.strip_prefix("/skills/")?;
        let (name, file) = rest.split_once('/').unwrap_or((rest, ""));
        let skill = query.skill(name)?;
        if file.is_empty() || file == "SKILL.md" {
            return Some(Place::Entry(skill.document));
        }
        skill.files.iter().find(|f| f.rel_path == file).map(|f| Place::Entry(f.entry))
    }
}
