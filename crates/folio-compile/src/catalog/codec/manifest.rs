//! `manifest.json`: the human-readable summary written beside `catalog.msgpack` (what a PR
//! diff shows): format, counts, and one line of facts per entry, keyed to the catalog by its
//! hash.
//!
//! Must not: hold anything the catalog does not (it is derived, never read back), or depend on
//! map order (its bytes are part of the build's determinism).

use serde::Serialize;

use super::FORMAT_NAME;
use crate::catalog::{Catalog, EntryKind, FORMAT_VERSION};

#[derive(Serialize)]
struct Manifest<'a> {
    format: &'static str,
    format_version: u32,
    name: &'a str,
    /// `[catalog] version` (or the version `folio build --versions` built): which version of
    /// the project a shelf serves it as.
    #[serde(skip_serializing_if = "Option::is_none")]
    version: Option<&'a str>,
    source_fingerprint: &'a str,
    catalog_hash: &'a str,
    counts: Counts,
    #[serde(skip_serializing_if = "Option::is_none")]
    vectors: Option<VectorFacts<'a>>,
    entries: Vec<ManifestEntry<'a>>,
}

/// The model and count of a catalog built with vectors (a rebuild with another model shows
/// in the diff).
#[derive(Serialize)]
struct VectorFacts<'a> {
    dims: u32,
    max_tokens: u32,
    model: &'a str,
    model_hash: &'a str,
    units: usize,
}

#[derive(Serialize)]
struct Counts {
    docs: usize,
    skills: usize,
    skill_files: usize,
    entries: usize,
    bytes: u64,
}

#[derive(Serialize)]
struct ManifestEntry<'a> {
    uri: &'a str,
    kind: &'static str,
    path: &'a str,
    size: u64,
    blake3: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    sha256: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    tags: &'a [String],
}

/// `manifest.json` (pretty, trailing newline) for a catalog whose `catalog.msgpack` has
/// `catalog_hash`.
pub fn manifest(catalog: &Catalog, catalog_hash: &str) -> String {
    let mut titles: Vec<(Option<&str>, &[String])> = vec![(None, &[]); catalog.entries.len()];
    for doc in &catalog.docs {
        titles[doc.entry as usize] = (Some(&doc.title), &doc.tags);
    }
    for skill in &catalog.skills {
        titles[skill.document as usize] = (Some(&skill.title), &skill.tags);
        for file in &skill.files {
            titles[file.entry as usize].0 = file.title.as_deref();
        }
    }
    let entries = catalog
        .entries
        .iter()
        .zip(titles)
        .map(|(e, (title, tags))| ManifestEntry {
            uri: &e.uri,
            kind: e.kind.as_str(),
            path: &e.path,
            size: e.size,
            blake3: &e.blake3,
            sha256: e.sha256.as_deref(),
            title,
            tags,
        })
        .collect();
    let manifest = Manifest {
        format: FORMAT_NAME,
        format_version: FORMAT_VERSION,
        name: &catalog.settings.name,
        version: catalog.settings.version.as_deref(),
        source_fingerprint: &catalog.source_fingerprint,
        catalog_hash,
        counts: Counts {
            docs: catalog.docs.len(),
            skills: catalog.skills.len(),
            skill_files: catalog.entries.iter().filter(|e| e.kind == EntryKind::SkillFile).count(),
            entries: catalog.entries.len(),
            bytes: catalog.entries.iter().map(|e| e.size).sum(),
        },
        vectors: catalog.vectors.as_ref().map(|v| VectorFacts {
            dims: v.model.dims,
            max_tokens: v.model.max_tokens,
            model: &v.model.name,
            model_hash: &v.model.hash,
            units: v.units.len(),
        }),
        entries,
    };
    let mut out = serde_json::to_string_pretty(&manifest).expect("manifest always serializes");
    out.push('\n');
    out
}
