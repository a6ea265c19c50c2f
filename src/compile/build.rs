//! Assembles the [`Catalog`] from the processed files: settings, entries (the exact bytes are
//! moved, never copied), docs and skills with their defaults, reference ids, links and
//! backlinks, the source fingerprint and the search index. Runs the cross-file rules of
//! `validate` and the link resolution of `links` on the way.
//!
//! Pure: no IO. Deterministic: every collection is sorted by an explicit key.

use std::collections::BTreeMap;

use super::diagnostic::Diagnostic;
use super::frontmatter::SkillMeta;
use super::links::{self, LinkSource, Origin, Targets};
use super::markdown::Markdown;
use super::source::Kind;
use super::{Parsed, Processed, settings, validate};
use crate::catalog::{self, Catalog, Doc, Entry, EntryKind, Link, Settings, Skill, SkillFile, uri};

/// What [`build`] produced.
#[derive(Debug)]
pub struct Built {
    /// The catalog (the caller drops it when there are errors).
    pub catalog: Option<Catalog>,
    /// `[check] deny_warnings` from `folio.toml`.
    pub deny_warnings: bool,
}

/// A doc or skill waiting for its entry index and links.
struct Pending {
    path: String,
    uri: String,
    markdown: Markdown,
}

/// Builds the catalog from processed files (sorted by path), adding every cross-file diagnostic.
/// Returns no catalog when errors were found before the (costly) search index build.
/// `unserved` are the files under `docs/` that are not docs: valid link targets without a URI.
/// With `assemble` false, it stops once every diagnostic is known (what `folio check` needs).
pub fn build(
    files: Vec<Processed>,
    dicts: Vec<catalog::search::TermDict>,
    unserved: &[String],
    assemble: bool,
    diags: &mut Vec<Diagnostic>,
) -> Built {
    let mut parsed_settings = settings::Parsed::default();
    let mut fingerprint = blake3::Hasher::new();
    let mut entries: Vec<Entry> = Vec::with_capacity(files.len());
    // Tokenized bodies by URI, matched to entry indices once entries are sorted.
    let mut body_terms: Vec<(String, catalog::search::BodyTerms)> = Vec::new();
    let mut docs: Vec<(Doc, Pending)> = Vec::new();
    let mut skills: BTreeMap<String, SkillParts> = BTreeMap::new();

    let paths: Vec<&str> = files.iter().map(|f| f.found.path.as_str()).collect();
    validate::portable_names(&paths, diags);

    for file in files {
        // The fingerprint covers every input, folio.toml included, in path order. Each file is
        // framed by its path, length and blake3 (computed in parallel), which identifies its bytes
        // as well as hashing them again would.
        let Processed { found, bytes, size, blake3, sha256, is_text, total_lines, parsed, body_terms: terms } =
            file;
        fingerprint.update(&(found.path.len() as u64).to_le_bytes());
        fingerprint.update(found.path.as_bytes());
        fingerprint.update(&size.to_le_bytes());
        fingerprint.update(blake3.as_bytes());
        let (uri, kind) = match &found.kind {
            Kind::Settings => {
                parsed_settings = settings::parse(&found.path, &bytes, diags);
                continue;
            }
            Kind::Doc => (uri::doc(doc_path(&found.path)), EntryKind::Doc),
            Kind::SkillDocument { skill_dir } => {
                (uri::skill_file(skill_path(skill_dir), "SKILL.md"), EntryKind::SkillDocument)
            }
            Kind::SkillFile { skill_dir } => (
                uri::skill_file(skill_path(skill_dir), &found.path[skill_dir.len() + 1..]),
                EntryKind::SkillFile,
            ),
        };
        if let Some(terms) = terms {
            body_terms.push((uri.clone(), terms));
        }
        let entry = Entry {
            uri: uri.clone(),
            kind,
            mime: mime_for(&found.path, is_text).to_owned(),
            size,
            blake3: blake3.to_hex().to_string(),
            sha256,
            is_text,
            total_lines,
            bytes: bytes.into(),
            path: found.path.clone(),
        };
        match (found.kind, parsed) {
            (Kind::Doc, parsed) => {
                let (meta, mut markdown) = match parsed {
                    Parsed::Doc(meta, markdown) => (meta, markdown),
                    _ => Default::default(),
                };
                let path = doc_path(&found.path).to_owned();
                let description = meta
                    .description
                    .or_else(|| markdown.first_paragraph.as_deref().map(first_sentences))
                    .unwrap_or_default();
                let doc = Doc {
                    title: meta.title.or_else(|| markdown.title.clone()).unwrap_or_else(|| stem_title(&path)),
                    path,
                    entry: 0,
                    description,
                    tags: meta.tags,
                    category: meta.category,
                    updated: meta.updated,
                    aliases: meta.aliases,
                    extra: meta.extra.into(),
                    // Moved, not cloned: the anchors below are read from the outline.
                    outline: std::mem::take(&mut markdown.sections).into(),
                    links: Vec::new().into(),
                    backlinks: Vec::new().into(),
                };
                docs.push((doc, Pending { path: found.path, uri, markdown }));
            }
            (Kind::SkillDocument { skill_dir }, parsed) => {
                let parts = skills.entry(skill_dir).or_default();
                parts.document_lines = entry.total_lines;
                parts.document_size = entry.size;
                parts.document = Some((found.path, uri));
                if let Parsed::Skill(meta, markdown) = parsed {
                    parts.meta = Some(meta);
                    parts.markdown = markdown;
                }
            }
            (Kind::SkillFile { skill_dir }, parsed) => {
                let rel = found.path[skill_dir.len() + 1..].to_owned();
                let parts = skills.entry(skill_dir).or_default();
                if let Parsed::SkillMarkdown(markdown) = parsed {
                    parts.markdown_files.push((found.path.clone(), markdown));
                }
                parts.files.push((rel, entry.size, uri));
            }
            (Kind::Settings, _) => unreachable!("settings were handled above"),
        }
        entries.push(entry);
    }

    let mut uris: Vec<(String, &str)> = entries.iter().map(|e| (e.uri.clone(), e.path.as_str())).collect();
    uris.sort();
    validate::unique_uris(&uris, diags);

    // Per-skill rules and reference ids.
    let mut names = Vec::new();
    let mut ref_ids: BTreeMap<String, validate::RefIds> = BTreeMap::new();
    for (dir, parts) in &skills {
        let Some((document, _)) = &parts.document else { continue };
        let mut files: Vec<(&str, u64)> =
            parts.files.iter().map(|(rel, size, _)| (rel.as_str(), *size)).collect();
        files.push(("SKILL.md", parts.document_size));
        files.sort();
        let shape = validate::SkillShape {
            document,
            dir,
            files,
            document_lines: parts.document_lines,
            references: parts
                .meta
                .as_ref()
                .and_then(|m| m.references.as_ref())
                .map(|(d, l, c)| (d.as_slice(), *l, *c)),
        };
        ref_ids.insert(dir.clone(), validate::skill(&shape, diags));
        if let Some(name) = parts.meta.as_ref().and_then(|m| m.name.as_ref()) {
            names.push((document.as_str(), name));
        }
    }
    validate::skill_names(&names, diags);

    // Links: every doc and SKILL.md against every served file and heading.
    let mut targets = Targets {
        ignore: parsed_settings.ignore_links.clone(),
        other_files: unserved.iter().cloned().collect(),
        ..Targets::default()
    };
    for e in &entries {
        targets.uri_by_path.insert(e.path.clone(), e.uri.clone());
    }
    for (doc, p) in &docs {
        // The outline was moved out of the markdown; the other anchors are still there.
        let anchors = doc.outline.iter().map(|s| s.id.as_str());
        let anchors = anchors.chain(p.markdown.term_ids.iter().map(String::as_str));
        let anchors = anchors.chain(p.markdown.html_ids.iter().map(String::as_str));
        targets.anchors_by_path.insert(p.path.clone(), anchors.map(str::to_owned).collect());
        for alias in &doc.aliases {
            targets.add_alias(alias, &p.path);
        }
    }
    for parts in skills.values() {
        if let Some((path, _)) = &parts.document {
            targets
                .anchors_by_path
                .insert(path.clone(), parts.markdown.anchors().map(str::to_owned).collect());
        }
        for (path, markdown) in &parts.markdown_files {
            targets.anchors_by_path.insert(path.clone(), markdown.anchors().map(str::to_owned).collect());
        }
    }
    let skill_list: Vec<(&String, &SkillParts)> =
        skills.iter().filter(|(_, p)| p.document.is_some()).collect();
    let mut sources: Vec<LinkSource<'_>> = Vec::with_capacity(docs.len() + skill_list.len());
    for (_, p) in &docs {
        sources.push(LinkSource { path: &p.path, origin: Origin::Doc, links: &p.markdown.links });
    }
    for (dir, parts) in &skill_list {
        let (path, _) = parts.document.as_ref().expect("filtered on document");
        sources.push(LinkSource {
            path,
            origin: Origin::SkillDocument { skill_dir: (*dir).clone() },
            links: &parts.markdown.links,
        });
    }
    // A skill's other markdown files last: their links are checked but not stored.
    for (dir, parts) in &skill_list {
        for (path, markdown) in &parts.markdown_files {
            sources.push(LinkSource {
                path,
                origin: Origin::SkillFile { skill_dir: (*dir).clone() },
                links: &markdown.links,
            });
        }
    }
    let resolution = links::resolve(&sources, &targets);
    diags.extend(resolution.diagnostics);
    drop(sources);
    drop(targets);
    // The raw links are resolved now; free them before the search index is built (on large trees
    // they weigh as much as the outlines).
    for (_, p) in &mut docs {
        p.markdown.links = Vec::new();
    }

    let mut resolved = resolution.links.into_iter();
    let mut doc_links: Vec<Vec<Link>> = docs.iter().map(|_| resolved.next().unwrap_or_default()).collect();
    let mut skill_links: BTreeMap<String, Vec<Link>> =
        skill_list.iter().map(|(dir, _)| ((*dir).clone(), resolved.next().unwrap_or_default())).collect();
    for parts in skills.values_mut() {
        parts.markdown.links = Vec::new();
    }

    // Backlinks: target URI -> linking URIs, sorted and deduplicated (self-links are not
    // backlinks). Large trees have millions of links, so they become (target, source) index
    // pairs sorted once, instead of string-keyed set inserts; indices into sorted URI lists keep
    // the order by URI.
    let own_uri = |dir: &String| skills[dir].document.as_ref().map_or("", |(_, uri)| uri.as_str());
    let linking: Vec<(&str, &Vec<Link>)> = docs
        .iter()
        .zip(&doc_links)
        .map(|((_, p), links)| (p.uri.as_str(), links))
        .chain(skill_links.iter().map(|(dir, links)| (own_uri(dir), links)))
        .collect();
    let mut linker_uris: Vec<&str> = linking.iter().map(|(uri, _)| *uri).collect();
    linker_uris.sort_unstable();
    let target_uris = UriTable::new(entries.iter().map(|e| e.uri.as_str()));
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    for (own, links) in &linking {
        let source = linker_uris.binary_search(own).unwrap_or_default() as u32;
        for target in links.iter().filter_map(|l| l.resolved.as_deref()).filter(|t| t != own) {
            if let Some(target) = target_uris.find(target) {
                pairs.push((target as u32, source));
            }
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
    let mut backlinks: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for group in pairs.chunk_by(|a, b| a.0 == b.0) {
        let sources = group.iter().map(|&(_, s)| linker_uris[s as usize].to_owned()).collect();
        backlinks.insert(target_uris.get(group[0].0 as usize).to_owned(), sources);
    }
    drop(linking);

    if !assemble || diags.iter().any(Diagnostic::is_error) {
        return Built { catalog: None, deny_warnings: parsed_settings.deny_warnings };
    }

    // Entries sorted by URI; docs and skills point into them by index.
    entries.sort_by(|a, b| a.uri.cmp(&b.uri));
    let index: BTreeMap<&str, u32> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.uri.as_str(), u32::try_from(i).expect("fewer than 2^32 entries")))
        .collect();
    let mut bodies: Vec<Option<catalog::search::BodyTerms>> = entries.iter().map(|_| None).collect();
    for (uri, terms) in body_terms {
        if let Some(&i) = index.get(uri.as_str()) {
            bodies[i as usize] = Some(terms);
        }
    }

    let mut out_docs = Vec::with_capacity(docs.len());
    for ((mut doc, p), links) in docs.into_iter().zip(doc_links.iter_mut()) {
        doc.entry = index[p.uri.as_str()];
        doc.links = std::mem::take(links).into();
        doc.backlinks = backlinks.get(&p.uri).cloned().unwrap_or_default().into();
        out_docs.push(doc);
    }
    out_docs.sort_by(|a, b| a.path.cmp(&b.path));

    let mut mimes: BTreeMap<u32, String> = BTreeMap::new();
    let mut out_skills = Vec::with_capacity(skills.len());
    for (dir, parts) in skills {
        let SkillParts { document: Some((_, doc_uri)), meta: Some(meta), markdown, files, .. } = parts else {
            continue;
        };
        let declared = ref_ids.remove(&dir).unwrap_or_default();
        let decls = meta.references.as_ref().map(|(d, ..)| d.as_slice()).unwrap_or_default();
        let mut skill_files = Vec::with_capacity(files.len());
        for (rel, _, file_uri) in files {
            let entry = index[file_uri.as_str()];
            let decl = declared.declared.get(&rel).map(|&i| &decls[i]);
            if let Some(mime) = decl.and_then(|d| d.mime_type.clone()) {
                mimes.insert(entry, mime);
            }
            skill_files.push(SkillFile {
                ref_id: decl.map_or_else(|| rel.clone(), |d| d.id.value.clone()),
                rel_path: rel,
                entry,
                title: decl.and_then(|d| d.title.clone()),
                description: decl.and_then(|d| d.description.clone()),
            });
        }
        skill_files.sort_by(|a, b| a.rel_path.cmp(&b.rel_path));
        let skill =
            skill_record(&dir, *meta, markdown, &doc_uri, &index, skill_files, &mut skill_links, &backlinks);
        out_skills.push(skill);
    }
    for (entry, mime) in mimes {
        entries[entry as usize].mime = mime;
    }
    out_skills.sort_by(|a, b| a.path.cmp(&b.path));

    let pre = catalog::search::Pretokenized { dicts, bodies };
    let search = catalog::search::build_with(&entries, &out_docs, &out_skills, pre);
    let settings: Settings = parsed_settings.settings;
    let catalog = Catalog {
        settings,
        source_fingerprint: fingerprint.finalize().to_hex().to_string(),
        entries,
        docs: out_docs,
        skills: out_skills,
        search,
    };
    Built { catalog: Some(catalog), deny_warnings: parsed_settings.deny_warnings }
}

#[expect(clippy::too_many_arguments, reason = "one call site assembling one record from its parts")]
fn skill_record(
    dir: &str,
    meta: SkillMeta,
    markdown: Markdown,
    doc_uri: &str,
    index: &BTreeMap<&str, u32>,
    files: Vec<SkillFile>,
    skill_links: &mut BTreeMap<String, Vec<Link>>,
    backlinks: &BTreeMap<String, Vec<String>>,
) -> Skill {
    let path = skill_path(dir).to_owned();
    let name = meta.name.map_or_else(|| path.rsplit('/').next().unwrap_or(&path).to_owned(), |n| n.value);
    Skill {
        title: markdown.title.clone().unwrap_or_else(|| name.clone()),
        name,
        path,
        description: meta.description.unwrap_or_default(),
        license: meta.license,
        compatibility: meta.compatibility,
        metadata: meta.metadata,
        allowed_tools: meta.allowed_tools,
        tags: meta.tags,
        capabilities: meta.capabilities,
        version: meta.version,
        updated: meta.updated,
        frontmatter: meta.frontmatter.into(),
        document: index[doc_uri],
        files,
        outline: markdown.sections.into(),
        links: skill_links.remove(dir).unwrap_or_default().into(),
        backlinks: backlinks.get(doc_uri).cloned().unwrap_or_default().into(),
    }
}

/// Sorted URIs packed into one buffer. Looking up every resolved link (millions on large trees) by
/// binary search over separately allocated strings is dominated by cache misses; in one buffer
/// the upper levels of the search stay in cache.
struct UriTable {
    text: String,
    ends: Vec<usize>,
}

impl UriTable {
    fn new<'a>(uris: impl Iterator<Item = &'a str>) -> UriTable {
        let mut sorted: Vec<&str> = uris.collect();
        sorted.sort_unstable();
        sorted.dedup();
        let mut text = String::with_capacity(sorted.iter().map(|u| u.len()).sum());
        let mut ends = Vec::with_capacity(sorted.len());
        for uri in sorted {
            text.push_str(uri);
            ends.push(text.len());
        }
        UriTable { text, ends }
    }

    fn get(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.text[start..self.ends[i]]
    }

    fn find(&self, uri: &str) -> Option<usize> {
        let (mut lo, mut hi) = (0, self.ends.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.get(mid).cmp(uri) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid),
            }
        }
        None
    }
}

/// A skill's SKILL.md, other files and parsed frontmatter, gathered while walking entries.
#[derive(Default)]
struct SkillParts {
    /// Content-relative path and URI of SKILL.md.
    document: Option<(String, String)>,
    document_lines: u32,
    document_size: u64,
    meta: Option<Box<SkillMeta>>,
    markdown: Markdown,
    /// (path relative to the skill dir, size, URI) of every other file.
    files: Vec<(String, u64, String)>,
    /// Content-relative path and analysis of every other markdown file (link checking only).
    markdown_files: Vec<(String, Markdown)>,
}

/// `docs/guides/install.md` → `guides/install.md`.
fn doc_path(path: &str) -> &str {
    path.strip_prefix("docs/").unwrap_or(path)
}

/// `skills/acme/billing` → `acme/billing`.
fn skill_path(dir: &str) -> &str {
    dir.strip_prefix("skills/").unwrap_or(dir)
}

/// A title from a doc's file name: `getting-started.md` → `getting-started`; an index page
/// (`index.md`, `_index.md`) is named after its directory.
fn stem_title(path: &str) -> String {
    let mut parts = path.rsplit('/');
    let file = parts.next().unwrap_or(path);
    let stem = file.rsplit_once('.').map_or(file, |(s, _)| s);
    match (stem, parts.next()) {
        ("index" | "_index", Some(dir)) => dir.to_owned(),
        _ => stem.to_owned(),
    }
}

/// At most the first three sentences of a paragraph. A sentence ends at `.`, `!` or `?` followed
/// by whitespace; whitespace runs (soft line breaks) become single spaces.
pub fn first_sentences(paragraph: &str) -> String {
    let text = paragraph.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut sentences = 0;
    let bytes = text.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if matches!(b, b'.' | b'!' | b'?') && bytes.get(i + 1).is_none_or(|&n| n == b' ') {
            sentences += 1;
            if sentences == 3 {
                return text[..=i].to_owned();
            }
        }
    }
    text
}

/// MIME type by extension; unknown extensions are `text/plain` for text and
/// `application/octet-stream` for binary files.
pub fn mime_for(path: &str, is_text: bool) -> &'static str {
    let name = path.rsplit('/').next().unwrap_or(path);
    let ext = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    match ext.as_str() {
        "md" | "mdx" | "markdown" => "text/markdown",
        "txt" | "text" => "text/plain",
        "json" => "application/json",
        "yaml" | "yml" => "application/yaml",
        "toml" => "application/toml",
        "xml" | "xsd" | "xsl" => "application/xml",
        "html" | "htm" => "text/html",
        "css" => "text/css",
        "csv" => "text/csv",
        "js" | "mjs" | "cjs" => "text/javascript",
        "ts" | "tsx" => "text/x-typescript",
        "py" => "text/x-python",
        "sh" | "bash" => "text/x-shellscript",
        "rs" => "text/x-rust",
        "go" => "text/x-go",
        "java" => "text/x-java",
        "rb" => "text/x-ruby",
        "c" | "h" => "text/x-c",
        "cpp" | "hpp" | "cc" => "text/x-c++",
        "sql" => "application/sql",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "ico" => "image/vnd.microsoft.icon",
        "pdf" => "application/pdf",
        "zip" => "application/zip",
        "gz" | "tgz" => "application/gzip",
        "tar" => "application/x-tar",
        "ttf" => "font/ttf",
        "otf" => "font/otf",
        "woff" => "font/woff",
        "woff2" => "font/woff2",
        "wasm" => "application/wasm",
        "docx" => "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xlsx" => "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "pptx" => "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        _ if is_text => "text/plain",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_keep_three_sentences() {
        assert_eq!(first_sentences("One. Two!  Three?\nFour. Five."), "One. Two! Three?");
        assert_eq!(first_sentences("Version 1.2 is out. Yes"), "Version 1.2 is out. Yes");
    }

    #[test]
    fn titles_fall_back_to_the_file_stem() {
        assert_eq!(stem_title("guides/getting-started.md"), "getting-started");
        assert_eq!(stem_title("guides/_index.md"), "guides");
        assert_eq!(stem_title("index.mdx"), "index");
    }

    #[test]
    fn uri_table_finds_every_uri_and_nothing_else() {
        let table = UriTable::new(
            ["skill://b/SKILL.md", "resource://docs/a.md", "resource://docs/a.md/x"].into_iter(),
        );
        assert_eq!(table.find("resource://docs/a.md"), Some(0));
        assert_eq!(table.get(1), "resource://docs/a.md/x");
        assert_eq!(table.find("skill://b/SKILL.md"), Some(2));
        assert_eq!(table.find("resource://docs/a"), None);
        assert_eq!(table.find("zzz"), None);
    }

    #[test]
    fn mime_by_extension() {
        assert_eq!(mime_for("skills/a/x.PNG", false), "image/png");
        assert_eq!(mime_for("skills/a/Makefile", true), "text/plain");
        assert_eq!(mime_for("skills/a/blob", false), "application/octet-stream");
    }
}
