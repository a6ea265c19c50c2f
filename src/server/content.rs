//! The one builder of every payload an agent reads, shared by the resource handlers and the tools:
//! URI resolution (traversal rejected before any lookup), exact-bytes reads with section and line
//! selection and the bounded-read marker, detail records, the filtered indexes, and search.
//!
//! `resources/read` and the `read_resource` / `get_pattern_by_id` / `get_skill_document_by_id`
//! tools all go through [`Content::read`], so the same URI read both ways returns identical text.
//! No IO, no protocol types beyond the final `ResourceContents` conversion.

use std::sync::Arc;

use base64::Engine as _;
use rmcp::model::{MetaObject, ResourceContents};
use serde_json::{Value, json};

use super::errors;
use crate::catalog::{Catalog, Doc, Entry, EntryKind, Section, Skill, uri};

/// Default and largest page of the index resources and of `list_resources`.
const INDEX_PAGE: usize = 50;
const INDEX_PAGE_MAX: usize = 500;
/// Default and largest page of `search_patterns`.
const SEARCH_PAGE: usize = 10;
const SEARCH_PAGE_MAX: usize = 50;
/// Longest query string worth tokenizing.
const MAX_QUERY: usize = 1000;

/// The opened catalog with the lookups reads need.
pub(crate) struct Content {
    catalog: Arc<Catalog>,
    tag: String,
}

/// The body of a read: text (UTF-8 without NUL) or raw bytes sent as a base64 blob.
pub(crate) enum Body {
    Text(String),
    Blob(Vec<u8>),
}

/// One read: what `resources/read` returns as its single content, and what `read_resource` adds.
pub(crate) struct Read {
    /// The requested URI, echoed exactly.
    pub(crate) uri: String,
    pub(crate) mime: String,
    pub(crate) body: Body,
    /// blake3 of the whole entry (the version of what was read), for entry-backed reads.
    pub(crate) blake3: Option<String>,
    /// Content-relative path of the entry.
    pub(crate) path: Option<String>,
    /// Reference id, for skill files.
    pub(crate) ref_id: Option<String>,
    /// Lines of the whole entry (text entries).
    pub(crate) total_lines: Option<u32>,
    /// First and last line returned (1-based, inclusive; text entries).
    pub(crate) range: Option<(u32, u32)>,
    /// True when the bound cut the read short (the text then ends with the marker).
    pub(crate) truncated: bool,
    /// The URI that continues a truncated read.
    pub(crate) next: Option<String>,
}

/// Why a read failed.
pub(crate) enum ReadError {
    /// Well-formed, but nothing is served there.
    NotFound { suggestion: Option<String> },
    /// Malformed, traversal, or a parameter this URI family does not take.
    BadUri(String),
    /// A section or line range that does not exist in the entry.
    BadSelection { message: String, detail_uri: String },
}

impl ReadError {
    /// The protocol error for `resources/read`.
    pub(crate) fn into_mcp(self, uri: &str) -> rmcp::ErrorData {
        match self {
            ReadError::NotFound { suggestion } => errors::resource_not_found(uri, suggestion.as_deref()),
            ReadError::BadUri(why) => errors::bad_uri(uri, &why),
            ReadError::BadSelection { message, detail_uri } => rmcp::ErrorData::invalid_params(
                message,
                Some(json!({
                    "uri": uri,
                    "repair": errors::repair(
                        "resources/read",
                        json!({ "uri": detail_uri }),
                        "the detail record lists the section ids and line ranges",
                    ),
                })),
            ),
        }
    }
}

impl Read {
    /// The text of a text read.
    pub(crate) fn text(&self) -> Option<&str> {
        match &self.body {
            Body::Text(t) => Some(t),
            Body::Blob(_) => None,
        }
    }

    /// The MCP content item, with `_meta` under our prefix.
    pub(crate) fn to_contents(&self) -> ResourceContents {
        let contents = match &self.body {
            Body::Text(t) => ResourceContents::text(t.clone(), self.uri.clone()),
            Body::Blob(b) => {
                ResourceContents::blob(base64::engine::general_purpose::STANDARD.encode(b), self.uri.clone())
            }
        }
        .with_mime_type(self.mime.clone());
        let mut meta = MetaObject::new();
        if let Some(b) = &self.blake3 {
            meta.insert("dev.folio/blake3".to_owned(), json!(b));
        }
        if let Some(p) = &self.path {
            meta.insert("dev.folio/path".to_owned(), json!(p));
        }
        if let Some(r) = &self.ref_id {
            meta.insert("dev.folio/ref_id".to_owned(), json!(r));
        }
        if let Some(n) = self.total_lines {
            meta.insert("dev.folio/total_lines".to_owned(), json!(n));
        }
        if self.truncated {
            meta.insert("dev.folio/truncated".to_owned(), json!(true));
            if let Some(next) = &self.next {
                meta.insert("dev.folio/next".to_owned(), json!(next));
            }
        }
        if meta.is_empty() { contents } else { contents.with_meta(meta) }
    }
}

/// Filters of `list_resources`.
#[derive(Default)]
pub(crate) struct ListFilter {
    pub(crate) kind: Option<String>,
    pub(crate) prefix: Option<String>,
    pub(crate) tag: Option<String>,
    pub(crate) category: Option<String>,
    pub(crate) updated_since: Option<String>,
    pub(crate) sort: Option<String>,
    pub(crate) cursor: Option<String>,
    pub(crate) limit: Option<u32>,
}

/// One page of `list_resources`.
pub(crate) struct Listing {
    pub(crate) uris: Vec<String>,
    pub(crate) next_cursor: Option<String>,
}

/// Arguments of `search_patterns`.
pub(crate) struct SearchFilter {
    pub(crate) query: String,
    pub(crate) kind: Option<String>,
    pub(crate) tag: Option<String>,
    pub(crate) capability: Option<String>,
    pub(crate) category: Option<String>,
    pub(crate) limit: Option<u32>,
    pub(crate) cursor: Option<String>,
}

/// One page of search hits.
pub(crate) struct Found {
    pub(crate) hits: Vec<Value>,
    pub(crate) next_cursor: Option<String>,
}

/// Query-string parameters of a URI, decoded once.
struct Params(Vec<(String, String)>);

impl Params {
    fn parse(query: Option<&str>, allowed: &[&str]) -> Result<Params, ReadError> {
        let mut out = Vec::new();
        for pair in query.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            let k = uri::percent_decode(k).map_err(|e| ReadError::BadUri(e.to_string()))?;
            let v =
                uri::percent_decode(&v.replace('+', " ")).map_err(|e| ReadError::BadUri(e.to_string()))?;
            if !allowed.contains(&k.as_str()) {
                return Err(ReadError::BadUri(if allowed.is_empty() {
                    "this URI takes no query parameters".to_owned()
                } else {
                    format!("unknown parameter `{}` (allowed: {})", errors::printable(&k), allowed.join(", "))
                }));
            }
            if out.iter().any(|(seen, _)| *seen == k) {
                return Err(ReadError::BadUri(format!("parameter `{k}` given twice")));
            }
            out.push((k, v));
        }
        Ok(Params(out))
    }

    fn get(&self, key: &str) -> Option<&str> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str()).filter(|v| !v.is_empty())
    }
}

impl Content {
    pub(crate) fn new(catalog: Arc<Catalog>) -> Self {
        let tag = catalog.source_fingerprint.chars().take(16).collect();
        Content { catalog, tag }
    }

    pub(crate) fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// Reads any catalog URI (concrete, or an expansion of a listed template).
    pub(crate) fn read(&self, request: &str) -> Result<Read, ReadError> {
        if request.len() > 8192 {
            return Err(ReadError::BadUri("URI longer than 8192 bytes".to_owned()));
        }
        if request.chars().any(|c| c.is_control() || c == '\\') {
            return Err(ReadError::BadUri("URI contains a control character or a backslash".to_owned()));
        }
        if request.contains('#') {
            return Err(ReadError::BadUri("resource URIs take no `#fragment`".to_owned()));
        }
        let (base, query) = match request.split_once('?') {
            Some((b, q)) => (b, Some(q)),
            None => (request, None),
        };
        let cat = &*self.catalog;
        if base == uri::ABOUT {
            Params::parse(query, &[])?;
            return Ok(self.json_or_text(request, "text/markdown", self.about()));
        }
        if base == uri::SKILLS_INDEX {
            let p = Params::parse(query, &["q", "tag", "capability", "cursor", "limit"])?;
            let body = self.skills_index(&p)?;
            return Ok(self.json_or_text(request, "application/json", to_json(&body)));
        }
        if base == uri::DOCS_INDEX {
            let p = Params::parse(
                query,
                &["q", "tag", "category", "prefix", "updated_since", "cursor", "limit"],
            )?;
            let body = self.docs_index(&p)?;
            return Ok(self.json_or_text(request, "application/json", to_json(&body)));
        }
        if let Some(raw) = base.strip_prefix(uri::SKILL_DETAIL_PREFIX) {
            Params::parse(query, &[])?;
            let id = decode_component(raw)?;
            let Some(skill) = cat.skill(&id) else {
                return Err(ReadError::NotFound {
                    suggestion: self.suggest_skill(&id).map(|s| uri::skill_detail(&s)),
                });
            };
            return Ok(self.json_or_text(request, "application/json", to_json(&self.skill_detail(skill))));
        }
        if let Some(raw) = base.strip_prefix(uri::DOC_DETAIL_PREFIX) {
            Params::parse(query, &[])?;
            let path = uri::decode_path(raw).map_err(|e| ReadError::BadUri(e.to_string()))?;
            let Some(doc) = cat.doc(&path) else {
                return Err(ReadError::NotFound {
                    suggestion: self.suggest_doc(&path).map(|p| uri::doc_detail(&p)),
                });
            };
            return Ok(self.json_or_text(request, "application/json", to_json(&self.doc_detail(doc))));
        }
        if let Some(raw) = base.strip_prefix(uri::DOCS_PREFIX) {
            let p = Params::parse(query, &["section", "lines"])?;
            let path = uri::decode_path(raw).map_err(|e| ReadError::BadUri(e.to_string()))?;
            let Some(doc) = cat.doc(&path) else {
                return Err(ReadError::NotFound {
                    suggestion: self.suggest_doc(&path).map(|p| uri::doc(&p)),
                });
            };
            let lines = p.get("lines").map(parse_lines).transpose()?;
            return self.read_entry(
                request,
                doc.entry,
                Some((&doc.outline, uri::doc_detail(&doc.path))),
                p.get("section"),
                lines,
                true,
            );
        }
        if let Some(raw) = base.strip_prefix(uri::SKILL_PREFIX) {
            Params::parse(query, &[])?;
            let path = uri::decode_path(raw).map_err(|e| ReadError::BadUri(e.to_string()))?;
            let canonical = format!("{}{}", uri::SKILL_PREFIX, uri::encode_path(&path));
            let Some(idx) = cat.entries.binary_search_by(|e| e.uri.as_str().cmp(&canonical)).ok() else {
                return Err(ReadError::NotFound { suggestion: None });
            };
            return self.read_entry(request, idx as u32, None, None, None, false);
        }
        if let Some(rest) = base.strip_prefix(uri::SKILL_ALIAS_PREFIX) {
            Params::parse(query, &[])?;
            let (raw_id, tail) = rest.split_once('/').ok_or(ReadError::NotFound { suggestion: None })?;
            let id = decode_component(raw_id)?;
            let skill = cat.skill(&id).ok_or_else(|| ReadError::NotFound {
                suggestion: self.suggest_skill(&id).map(|s| format!("{}{s}/{tail}", uri::SKILL_ALIAS_PREFIX)),
            })?;
            if tail == "document" {
                return self.read_entry(request, skill.document, None, None, None, false);
            }
            if let Some(raw_ref) = tail.strip_prefix("references/") {
                let ref_id = decode_component(raw_ref)
                    .or_else(|_| uri::decode_path(raw_ref).map_err(|e| ReadError::BadUri(e.to_string())))?;
                let Some(file) = skill.files.iter().find(|f| f.ref_id == ref_id) else {
                    return Err(ReadError::NotFound { suggestion: None });
                };
                return self.read_entry(request, file.entry, None, None, None, false);
            }
            return Err(ReadError::NotFound { suggestion: None });
        }
        Err(ReadError::NotFound { suggestion: None })
    }

    /// A read with an explicit section or line range (the `read_resource` tool): for a doc URI this
    /// is exactly the read of `…?section=` / `…?lines=`; for skill files the same selection rules
    /// apply to the whole file.
    pub(crate) fn read_selected(
        &self,
        request: &str,
        section: Option<&str>,
        lines: Option<(u32, u32)>,
    ) -> Result<Read, ReadError> {
        if section.is_none() && lines.is_none() {
            return self.read(request);
        }
        if section.is_some() && lines.is_some() {
            return Err(ReadError::BadUri("give either a section or a line range, not both".to_owned()));
        }
        if request.starts_with(uri::DOCS_PREFIX) && !request.contains('?') {
            let query = match (section, lines) {
                (Some(s), _) => format!("section={}", uri::encode_component(s)),
                (_, Some((a, b))) if b == u32::MAX => format!("lines={a}-"),
                (_, Some((a, b))) => format!("lines={a}-{b}"),
                _ => unreachable!("checked above"),
            };
            return self.read(&format!("{request}?{query}"));
        }
        // Skill files: resolve the whole entry first, then select inside it.
        let whole = self.read(request)?;
        let Some(idx) =
            whole.path.as_deref().and_then(|p| self.catalog.entries.iter().position(|e| e.path == p))
        else {
            return Err(ReadError::BadUri(
                "only docs and skill files support section or line selection".to_owned(),
            ));
        };
        let outline = self
            .catalog
            .skills
            .iter()
            .find(|s| s.document as usize == idx)
            .map(|s| (&s.outline, uri::skill_detail(&s.name)));
        let detail = outline.as_ref().map(|(o, d)| (*o, d.clone()));
        self.read_entry(
            request,
            idx as u32,
            detail,
            section,
            lines.map(|(a, b)| (a, if b == u32::MAX { None } else { Some(b) })),
            false,
        )
    }

    fn json_or_text(&self, request: &str, mime: &str, text: String) -> Read {
        let total = count_lines(&text);
        Read {
            uri: request.to_owned(),
            mime: mime.to_owned(),
            body: Body::Text(text),
            blake3: None,
            path: None,
            ref_id: None,
            total_lines: Some(total),
            range: (total > 0).then_some((1, total)),
            truncated: false,
            next: None,
        }
    }

    /// Reads an entry's bytes, selecting a section or a line range, bounding doc reads.
    fn read_entry(
        &self,
        request: &str,
        idx: u32,
        outline: Option<(&Vec<Section>, String)>,
        section: Option<&str>,
        lines: Option<(u32, Option<u32>)>,
        bounded: bool,
    ) -> Result<Read, ReadError> {
        let entry = self.catalog.entries.get(idx as usize).ok_or(ReadError::NotFound { suggestion: None })?;
        let ref_id = self.ref_id_of(idx);
        let mut read = Read {
            uri: request.to_owned(),
            mime: entry.mime.clone(),
            body: Body::Blob(Vec::new()),
            blake3: Some(entry.blake3.clone()),
            path: Some(entry.path.clone()),
            ref_id,
            total_lines: None,
            range: None,
            truncated: false,
            next: None,
        };
        let Some(text) = entry_text(entry) else {
            if section.is_some() || lines.is_some() {
                return Err(ReadError::BadUri("a binary file has no sections or lines".to_owned()));
            }
            read.body = Body::Blob(entry.bytes.to_vec());
            return Ok(read);
        };
        let total = entry.total_lines.max(count_lines(text));
        read.total_lines = Some(total);
        let detail_uri = outline.as_ref().map(|(_, d)| d.clone()).unwrap_or_default();
        let (start, end) = match (section, lines) {
            (Some(id), _) => {
                let Some(s) = outline.as_ref().and_then(|(o, _)| o.iter().find(|s| s.id == id)) else {
                    let known: Vec<&str> = outline
                        .as_ref()
                        .map(|(o, _)| o.iter().map(|s| s.id.as_str()).take(20).collect())
                        .unwrap_or_default();
                    return Err(ReadError::BadSelection {
                        message: format!(
                            "no section `{}` in `{}`; sections: {}",
                            errors::printable(id),
                            entry.path,
                            if known.is_empty() { "none".to_owned() } else { known.join(", ") }
                        ),
                        detail_uri,
                    });
                };
                (s.line_start, s.line_end.min(total))
            }
            (None, Some((a, b))) => {
                let b = b.unwrap_or(total).min(total);
                if a == 0 || a > total || a > b {
                    return Err(ReadError::BadSelection {
                        message: format!("line range {a}-{b} is outside `{}` (lines 1-{total})", entry.path),
                        detail_uri,
                    });
                }
                (a, b)
            }
            (None, None) => (1, total),
        };
        let selected =
            if start <= 1 && end >= total { text.to_owned() } else { slice_lines(text, start, end) };
        read.range = (total > 0).then_some((start.max(1), end));
        let bound = self.catalog.settings.max_read_bytes as usize;
        if bounded && selected.len() > bound {
            let (kept, last_line) = cut_at_line(&selected, bound, start.max(1));
            let base = request.split_once('?').map_or(request, |(b, _)| b);
            let next = format!("{base}?lines={}-{end}", last_line + 1);
            let mut out = kept.to_owned();
            if !out.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(&self.marker(
                base,
                outline.as_ref().map(|(o, _)| o.as_slice()).unwrap_or(&[]),
                last_line,
                end,
                total,
                &next,
            ));
            read.range = Some((start.max(1), last_line));
            read.truncated = true;
            read.next = Some(next);
            read.body = Body::Text(out);
        } else {
            read.body = Body::Text(selected);
        }
        Ok(read)
    }

    /// The marker line ending a bounded read: where to continue, and the sections after the cut.
    fn marker(&self, base: &str, outline: &[Section], last: u32, end: u32, total: u32, next: &str) -> String {
        let sections: Vec<String> = outline
            .iter()
            .filter(|s| s.line_start > last && s.line_start <= end)
            .take(20)
            .map(|s| format!("{base}?section={}", uri::encode_component(&s.id)))
            .collect();
        let mut m = format!(
            "[folio: truncated at line {last} of {total} (max_read_bytes {}). Continue with {next}",
            self.catalog.settings.max_read_bytes
        );
        if !sections.is_empty() {
            m.push_str(" or a section: ");
            m.push_str(&sections.join(" "));
        }
        m.push_str("]\n");
        m
    }

    fn ref_id_of(&self, idx: u32) -> Option<String> {
        let entry = self.catalog.entries.get(idx as usize)?;
        if entry.kind != EntryKind::SkillFile {
            return None;
        }
        self.catalog.skills.iter().flat_map(|s| &s.files).find(|f| f.entry == idx).map(|f| f.ref_id.clone())
    }

    /// The served skill with this id (its name).
    pub(crate) fn skill(&self, id: &str) -> Option<&Skill> {
        self.catalog.skill(id)
    }

    /// Canonical SKILL.md URI of a skill.
    pub(crate) fn skill_document_uri(&self, skill: &Skill) -> String {
        self.catalog
            .entries
            .get(skill.document as usize)
            .map_or_else(|| uri::skill_file(&skill.path, "SKILL.md"), |e| e.uri.clone())
    }

    /// The file list of a skill (SKILL.md first), as the detail record and the tool show it.
    pub(crate) fn skill_files(&self, skill: &Skill) -> Vec<Value> {
        let mut out = Vec::with_capacity(skill.files.len() + 1);
        if let Some(e) = self.catalog.entries.get(skill.document as usize) {
            out.push(file_record(e, "SKILL.md", None, None));
        }
        for f in &skill.files {
            if let Some(e) = self.catalog.entries.get(f.entry as usize) {
                out.push(file_record(e, &f.ref_id, f.title.as_deref(), f.description.as_deref()));
            }
        }
        out
    }

    /// The detail URI for an id (skill id, doc path, or any catalog URI), or a suggestion.
    pub(crate) fn resolve_detail(&self, id: &str) -> Result<String, Option<String>> {
        let cat = &*self.catalog;
        let id = id.trim();
        if cat.skill(id).is_some() {
            return Ok(uri::skill_detail(id));
        }
        if cat.doc(id).is_some() {
            return Ok(uri::doc_detail(id));
        }
        if id.starts_with(uri::SKILL_DETAIL_PREFIX) || id.starts_with(uri::DOC_DETAIL_PREFIX) {
            return match self.read(id) {
                Ok(_) => Ok(id.split('?').next().unwrap_or(id).to_owned()),
                Err(_) => Err(None),
            };
        }
        if let Some(raw) = id.strip_prefix(uri::DOCS_PREFIX) {
            let raw = raw.split('?').next().unwrap_or(raw);
            if let Ok(path) = uri::decode_path(raw) {
                if cat.doc(&path).is_some() {
                    return Ok(uri::doc_detail(&path));
                }
                return Err(self.suggest_doc(&path));
            }
            return Err(None);
        }
        if id.starts_with(uri::SKILL_PREFIX) || id.starts_with(uri::SKILL_ALIAS_PREFIX) {
            if let Ok(read) = self.read(id)
                && let Some(path) = read.path
                && let Some(skill) = cat.skills.iter().find(|s| {
                    cat.entries.get(s.document as usize).is_some_and(|e| e.path == path)
                        || s.files
                            .iter()
                            .any(|f| cat.entries.get(f.entry as usize).is_some_and(|e| e.path == path))
                })
            {
                return Ok(uri::skill_detail(&skill.name));
            }
            return Err(None);
        }
        // A doc path without its extension, as people type it.
        for ext in [".md", ".mdx"] {
            let with = format!("{}{ext}", id.trim_end_matches('/'));
            if cat.doc(&with).is_some() {
                return Ok(uri::doc_detail(&with));
            }
        }
        Err(self.suggest_skill(id).or_else(|| self.suggest_doc(id)))
    }

    /// The closest skill name, for "did you mean".
    pub(crate) fn suggest_skill(&self, id: &str) -> Option<String> {
        let id = id.to_lowercase();
        self.catalog
            .skills
            .iter()
            .map(|s| (edit_distance(&id, &s.name), &s.name))
            .filter(|(d, n)| *d <= (n.len() / 3).max(2))
            .min()
            .map(|(_, n)| n.clone())
    }

    /// The closest doc path, for "did you mean".
    pub(crate) fn suggest_doc(&self, path: &str) -> Option<String> {
        let path = path.to_lowercase();
        if self.catalog.docs.len() > 50_000 {
            return None;
        }
        self.catalog
            .docs
            .iter()
            .map(|d| (edit_distance(&path, &d.path.to_lowercase()), &d.path))
            .filter(|(d, p)| *d <= (p.len() / 4).max(2))
            .min()
            .map(|(_, p)| p.clone())
    }

    /// `resource://catalog/about`: what this server serves and how to use it.
    fn about(&self) -> String {
        let cat = &*self.catalog;
        let s = &cat.settings;
        let n_files = cat.entries.iter().filter(|e| e.kind == EntryKind::SkillFile).count();
        let bytes: u64 = cat.entries.iter().map(|e| e.size).sum();
        let mut out = format!("# {}\n\n", if s.title.is_empty() { "Folio catalog" } else { &s.title });
        if !s.description.is_empty() {
            out.push_str(&s.description);
            out.push_str("\n\n");
        }
        out.push_str(&format!(
            "Served by folio {} (read-only). {} skills ({} skill files), {} docs, {} bytes. \
             Source fingerprint `{}`.\n\n",
            super::SERVER_VERSION,
            cat.skills.len(),
            n_files,
            cat.docs.len(),
            bytes,
            if cat.source_fingerprint.is_empty() { "-" } else { &cat.source_fingerprint },
        ));
        out.push_str(
            "## Discovery order\n\n\
             1. Index: `resource://catalog/skills_index` or `resource://catalog/docs_index` \
             (`?q=`, `tag=`, `category=`, `prefix=`, `cursor=`, `limit=`).\n\
             2. Detail: `resource://catalog/skills/{skill_id}` or `resource://catalog/docs/{+path}`.\n\
             3. Document: `skill://{+skill_path}/SKILL.md` or `resource://docs/{+path}`.\n\
             4. References: a skill's other files, only when its SKILL.md asks for them.\n\n\
             Load at most two skill documents per step. For large docs prefer \
             `resource://docs/{+path}?section=ID` or `?lines=A-B`.\n\n\
             ## Fallback tools\n\n\
             - `search_patterns`: ranked full-text search.\n\
             - `list_resources`: URIs with filters and templates.\n\
             - `get_pattern_by_id`: the detail record of a skill or doc.\n\
             - `get_skill_document_by_id`: a SKILL.md and its file list.\n\
             - `read_resource`: any URI, with section or line selection.\n",
        );
        if let Some(extra) = s.instructions.as_deref().filter(|t| !t.trim().is_empty()) {
            out.push_str("\n## Instructions\n\n");
            out.push_str(extra.trim());
            out.push('\n');
        }
        out
    }

    fn skill_detail(&self, skill: &Skill) -> Value {
        let document_uri = self.skill_document_uri(skill);
        json!({
            "kind": "skill",
            "uri": uri::skill_detail(&skill.name),
            "id": skill.name,
            "name": skill.name,
            "path": skill.path,
            "title": skill.title,
            "description": skill.description,
            "document_uri": document_uri,
            "directory_uri": uri::skill_dir(&skill.path),
            "tags": skill.tags,
            "capabilities": skill.capabilities,
            "version": skill.version,
            "updated": skill.updated,
            "frontmatter": skill.frontmatter,
            "files": self.skill_files(skill),
            "outline": outline_json(&skill.outline, None),
            "links": skill.links,
            "backlinks": skill.backlinks,
        })
    }

    fn doc_detail(&self, doc: &Doc) -> Value {
        let entry = self.catalog.entries.get(doc.entry as usize);
        let doc_uri = uri::doc(&doc.path);
        json!({
            "kind": "doc",
            "uri": uri::doc_detail(&doc.path),
            "path": doc.path,
            "document_uri": doc_uri,
            "title": doc.title,
            "description": doc.description,
            "tags": doc.tags,
            "category": doc.category,
            "updated": doc.updated,
            "aliases": doc.aliases,
            "extra": doc.extra,
            "size": entry.map(|e| e.size),
            "blake3": entry.map(|e| e.blake3.clone()),
            "total_lines": entry.map(|e| e.total_lines),
            "outline": outline_json(&doc.outline, Some(&doc_uri)),
            "links": doc.links,
            "backlinks": doc.backlinks,
        })
    }

    fn skills_index(&self, p: &Params) -> Result<Value, ReadError> {
        let cat = &*self.catalog;
        let mut skills: Vec<&Skill> = cat
            .skills
            .iter()
            .filter(|s| p.get("tag").is_none_or(|t| s.tags.iter().any(|x| x == t)))
            .filter(|s| p.get("capability").is_none_or(|c| s.capabilities.iter().any(|x| x == c)))
            .collect();
        if let Some(q) = p.get("q") {
            let ranked = self.rank(q, |e| e.kind == EntryKind::SkillDocument);
            let order: Vec<&str> = ranked.iter().map(|(_, e)| e.path.as_str()).collect();
            skills.retain(|s| {
                cat.entries.get(s.document as usize).is_some_and(|e| order.contains(&e.path.as_str()))
            });
            skills.sort_by_key(|s| {
                let path = cat.entries.get(s.document as usize).map_or("", |e| e.path.as_str());
                order.iter().position(|o| *o == path)
            });
        }
        let (start, limit) = self.window(p, skills.len())?;
        let items: Vec<Value> = skills[start..(start + limit).min(skills.len())]
            .iter()
            .map(|s| {
                let size: u64 = std::iter::once(s.document)
                    .chain(s.files.iter().map(|f| f.entry))
                    .filter_map(|i| cat.entries.get(i as usize))
                    .map(|e| e.size)
                    .sum();
                json!({
                    "id": s.name,
                    "name": s.name,
                    "description": s.description,
                    "tags": s.tags,
                    "capabilities": s.capabilities,
                    "version": s.version,
                    "size": size,
                    "files": s.files.len() + 1,
                    "uri": self.skill_document_uri(s),
                    "detail_uri": uri::skill_detail(&s.name),
                })
            })
            .collect();
        Ok(self.index_page("skills", items, skills.len(), start, limit))
    }

    fn docs_index(&self, p: &Params) -> Result<Value, ReadError> {
        let cat = &*self.catalog;
        let mut docs: Vec<&Doc> = cat
            .docs
            .iter()
            .filter(|d| p.get("tag").is_none_or(|t| d.tags.iter().any(|x| x == t)))
            .filter(|d| p.get("category").is_none_or(|c| d.category.as_deref() == Some(c)))
            .filter(|d| p.get("prefix").is_none_or(|x| d.path.starts_with(x)))
            .filter(|d| {
                p.get("updated_since").is_none_or(|since| d.updated.as_deref().is_some_and(|u| u >= since))
            })
            .collect();
        if let Some(q) = p.get("q") {
            let ranked = self.rank(q, |e| e.kind == EntryKind::Doc);
            let order: Vec<&str> = ranked.iter().map(|(_, e)| e.path.as_str()).collect();
            docs.retain(|d| {
                cat.entries.get(d.entry as usize).is_some_and(|e| order.contains(&e.path.as_str()))
            });
            docs.sort_by_key(|d| {
                let path = cat.entries.get(d.entry as usize).map_or("", |e| e.path.as_str());
                order.iter().position(|o| *o == path)
            });
        }
        let (start, limit) = self.window(p, docs.len())?;
        let items: Vec<Value> = docs[start..(start + limit).min(docs.len())]
            .iter()
            .map(|d| {
                json!({
                    "path": d.path,
                    "title": d.title,
                    "description": d.description,
                    "tags": d.tags,
                    "category": d.category,
                    "updated": d.updated,
                    "size": cat.entries.get(d.entry as usize).map(|e| e.size),
                    "uri": uri::doc(&d.path),
                    "detail_uri": uri::doc_detail(&d.path),
                })
            })
            .collect();
        Ok(self.index_page("docs", items, docs.len(), start, limit))
    }

    fn window(&self, p: &Params, len: usize) -> Result<(usize, usize), ReadError> {
        let limit = match p.get("limit") {
            None => INDEX_PAGE,
            Some(l) => {
                l.parse::<usize>().ok().filter(|n| (1..=INDEX_PAGE_MAX).contains(n)).ok_or_else(|| {
                    ReadError::BadUri(format!("limit must be an integer from 1 to {INDEX_PAGE_MAX}"))
                })?
            }
        };
        let start = match p.get("cursor") {
            None => 0,
            Some(c) => super::resources::decode_cursor(&self.tag, c, len).ok_or_else(|| {
                ReadError::BadUri("invalid cursor: omit it to start from the first page".to_owned())
            })?,
        };
        Ok((start, limit))
    }

    fn index_page(&self, key: &str, items: Vec<Value>, total: usize, start: usize, limit: usize) -> Value {
        let mut out = json!({ "total": total });
        out[key] = Value::Array(items);
        if start + limit < total {
            out["next_cursor"] = json!(super::resources::encode_cursor(&self.tag, start + limit));
        }
        out
    }

    /// `list_resources`: listed URIs, filtered, sorted and paginated.
    pub(crate) fn list(&self, f: &ListFilter) -> Result<Listing, String> {
        let cat = &*self.catalog;
        let kind = f.kind.as_deref().unwrap_or("all");
        if !matches!(kind, "skill" | "doc" | "catalog" | "all") {
            return Err(format!("unknown kind `{}` (skill, doc, catalog, all)", errors::printable(kind)));
        }
        let sort = f.sort.as_deref().unwrap_or("path");
        if !matches!(sort, "path" | "updated") {
            return Err(format!("unknown sort `{}` (path, updated)", errors::printable(sort)));
        }
        let limit = f.limit.map_or(INDEX_PAGE, |l| l as usize);
        if !(1..=INDEX_PAGE_MAX).contains(&limit) {
            return Err(format!("limit must be from 1 to {INDEX_PAGE_MAX}"));
        }
        let mut rows: Vec<(Option<&str>, String)> = Vec::new();
        if matches!(kind, "catalog" | "all")
            && f.prefix.is_none()
            && f.tag.is_none()
            && f.category.is_none()
            && f.updated_since.is_none()
        {
            rows.extend([uri::ABOUT, uri::SKILLS_INDEX, uri::DOCS_INDEX].map(|u| (None, u.to_owned())));
        }
        if matches!(kind, "doc" | "all") {
            for d in &cat.docs {
                let keep = f.prefix.as_deref().is_none_or(|x| d.path.starts_with(x))
                    && f.tag.as_deref().is_none_or(|t| d.tags.iter().any(|x| x == t))
                    && f.category.as_deref().is_none_or(|c| d.category.as_deref() == Some(c))
                    && f.updated_since
                        .as_deref()
                        .is_none_or(|s| d.updated.as_deref().is_some_and(|u| u >= s));
                if keep && let Some(e) = cat.entries.get(d.entry as usize) {
                    rows.push((d.updated.as_deref(), e.uri.clone()));
                }
            }
        }
        if matches!(kind, "skill" | "all") && f.category.is_none() {
            for s in &cat.skills {
                let keep = f.prefix.as_deref().is_none_or(|x| s.path.starts_with(x))
                    && f.tag.as_deref().is_none_or(|t| s.tags.iter().any(|x| x == t))
                    && f.updated_since
                        .as_deref()
                        .is_none_or(|x| s.updated.as_deref().is_some_and(|u| u >= x));
                if !keep {
                    continue;
                }
                for i in std::iter::once(s.document).chain(s.files.iter().map(|f| f.entry)) {
                    if let Some(e) = cat.entries.get(i as usize) {
                        rows.push((s.updated.as_deref(), e.uri.clone()));
                    }
                }
            }
        }
        if sort == "updated" {
            // Newest first; undated last; ties by URI so the order is total.
            rows.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        } else {
            rows.sort_by(|a, b| a.1.cmp(&b.1));
        }
        let start = match &f.cursor {
            None => 0,
            Some(c) => super::resources::decode_cursor(&self.tag, c, rows.len())
                .ok_or_else(|| "invalid cursor: omit it to start from the first page".to_owned())?,
        };
        let end = (start + limit).min(rows.len());
        let next_cursor = (end < rows.len()).then(|| super::resources::encode_cursor(&self.tag, end));
        Ok(Listing { uris: rows[start..end].iter().map(|(_, u)| u.clone()).collect(), next_cursor })
    }

    /// `search_patterns`: ranked hits.
    pub(crate) fn search(&self, f: &SearchFilter) -> Result<Found, String> {
        let cat = &*self.catalog;
        if f.query.trim().is_empty() {
            return Err("the query is empty: give a few words".to_owned());
        }
        let kind = f.kind.as_deref().unwrap_or("all");
        if !matches!(kind, "skill" | "doc" | "all") {
            return Err(format!("unknown kind `{}` (skill, doc, all)", errors::printable(kind)));
        }
        let limit = f.limit.map_or(SEARCH_PAGE, |l| l as usize);
        if !(1..=SEARCH_PAGE_MAX).contains(&limit) {
            return Err(format!("limit must be from 1 to {SEARCH_PAGE_MAX}"));
        }
        let ranked = self.rank(&f.query, |e| {
            matches!(
                (kind, e.kind),
                ("all", _)
                    | ("doc", EntryKind::Doc)
                    | ("skill", EntryKind::SkillDocument | EntryKind::SkillFile)
            )
        });
        let hits: Vec<Value> = ranked
            .into_iter()
            .filter_map(|(score, e)| {
                let doc = cat
                    .docs
                    .iter()
                    .find(|d| cat.entries.get(d.entry as usize).is_some_and(|x| x.uri == e.uri));
                let skill = cat
                    .skills
                    .iter()
                    .find(|s| cat.entries.get(s.document as usize).is_some_and(|x| x.uri == e.uri));
                let tags: &[String] =
                    doc.map(|d| d.tags.as_slice()).or(skill.map(|s| s.tags.as_slice())).unwrap_or(&[]);
                if f.tag.as_deref().is_some_and(|t| !tags.iter().any(|x| x == t)) {
                    return None;
                }
                if f.capability
                    .as_deref()
                    .is_some_and(|c| !skill.is_some_and(|s| s.capabilities.iter().any(|x| x == c)))
                {
                    return None;
                }
                if f.category.as_deref().is_some_and(|c| doc.is_none_or(|d| d.category.as_deref() != Some(c)))
                {
                    return None;
                }
                let title = doc
                    .map(|d| d.title.clone())
                    .or(skill.map(|s| s.title.clone()))
                    .unwrap_or_else(|| e.path.clone());
                Some(json!({
                    "uri": e.uri,
                    "kind": e.kind.as_str(),
                    "title": title,
                    "snippet": snippet(entry_text(e).unwrap_or(""), &f.query),
                    "score": (score * 1000.0).round() / 1000.0,
                    "size": e.size,
                }))
            })
            .collect();
        let start = match &f.cursor {
            None => 0,
            Some(c) => super::resources::decode_cursor(&self.tag, c, hits.len())
                .ok_or_else(|| "invalid cursor: omit it to start from the first page".to_owned())?,
        };
        let end = (start + limit).min(hits.len());
        let next_cursor = (end < hits.len()).then(|| super::resources::encode_cursor(&self.tag, end));
        Ok(Found { hits: hits[start..end].to_vec(), next_cursor })
    }

    /// Term-frequency ranking over titles, descriptions, tags and bodies (highest first, ties by URI).
    fn rank(&self, query: &str, keep: impl Fn(&Entry) -> bool) -> Vec<(f64, &Entry)> {
        let terms = tokens(&query.chars().take(MAX_QUERY).collect::<String>());
        if terms.is_empty() {
            return Vec::new();
        }
        let cat = &*self.catalog;
        let mut meta: Vec<String> = vec![String::new(); cat.entries.len()];
        for d in &cat.docs {
            if let Some(m) = meta.get_mut(d.entry as usize) {
                *m = format!("{} {} {}", d.title, d.description, d.tags.join(" ")).to_lowercase();
            }
        }
        for s in &cat.skills {
            if let Some(m) = meta.get_mut(s.document as usize) {
                *m = format!("{} {} {} {}", s.name, s.title, s.description, s.tags.join(" ")).to_lowercase();
            }
        }
        let mut out: Vec<(f64, &Entry)> = cat
            .entries
            .iter()
            .zip(&meta)
            .filter(|(e, _)| keep(e))
            .filter_map(|(e, m)| {
                let body = entry_text(e)?.to_lowercase();
                let mut score = 0.0;
                for t in &terms {
                    let in_meta = m.matches(t.as_str()).count() as f64;
                    let in_body = body.matches(t.as_str()).count() as f64;
                    if in_meta + in_body == 0.0 {
                        return None;
                    }
                    score += 3.0 * in_meta.min(3.0) + (1.0 + in_body).ln();
                }
                Some((score, e))
            })
            .collect();
        out.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.uri.cmp(&b.1.uri)));
        out
    }
}

fn file_record(e: &Entry, ref_id: &str, title: Option<&str>, description: Option<&str>) -> Value {
    let mut v = json!({
        "uri": e.uri,
        "ref_id": ref_id,
        "path": e.path,
        "size": e.size,
        "blake3": e.blake3,
        "sha256": e.sha256,
        "mime": e.mime,
    });
    if let Some(t) = title {
        v["title"] = json!(t);
    }
    if let Some(d) = description {
        v["description"] = json!(d);
    }
    v
}

fn outline_json(outline: &[Section], doc_uri: Option<&str>) -> Value {
    Value::Array(
        outline
            .iter()
            .map(|s| {
                let mut v = json!({
                    "id": s.id, "title": s.title, "level": s.level,
                    "line_start": s.line_start, "line_end": s.line_end,
                });
                if let Some(d) = doc_uri {
                    v["uri"] = json!(format!("{d}?section={}", uri::encode_component(&s.id)));
                }
                v
            })
            .collect(),
    )
}

fn to_json(v: &Value) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_default();
    s.push('\n');
    s
}

fn entry_text(e: &Entry) -> Option<&str> {
    if e.is_text { std::str::from_utf8(&e.bytes).ok() } else { None }
}

/// Decodes one `{var}` component: one percent-decoding, and no traversal in what it names.
fn decode_component(raw: &str) -> Result<String, ReadError> {
    if raw.is_empty() || raw.contains('/') {
        return Err(ReadError::NotFound { suggestion: None });
    }
    let id = uri::percent_decode(raw).map_err(|e| ReadError::BadUri(e.to_string()))?;
    uri::check_path(&id).map_err(|e| ReadError::BadUri(e.to_string()))?;
    Ok(id)
}

/// `lines=A-B`, `lines=A-` or `lines=A` (1-based, inclusive).
fn parse_lines(v: &str) -> Result<(u32, Option<u32>), ReadError> {
    let bad = || ReadError::BadUri(format!("lines must look like 40-80, got `{}`", errors::printable(v)));
    let (a, b) = v.split_once('-').unwrap_or((v, v));
    let a: u32 = a.trim().parse().map_err(|_| bad())?;
    let b = if b.trim().is_empty() { None } else { Some(b.trim().parse::<u32>().map_err(|_| bad())?) };
    Ok((a, b))
}

/// Lines as the catalog counts them: a final line without `\n` still counts.
fn count_lines(text: &str) -> u32 {
    u32::try_from(text.split_inclusive('\n').count()).unwrap_or(u32::MAX)
}

/// Lines `start..=end` (1-based) with their terminators.
fn slice_lines(text: &str, start: u32, end: u32) -> String {
    text.split_inclusive('\n')
        .skip(start.saturating_sub(1) as usize)
        .take((end.saturating_sub(start.max(1)) + 1) as usize)
        .collect()
}

/// The longest prefix of whole lines within `bound` bytes (at least one line), and the number of
/// the last line kept, counting from `first`.
fn cut_at_line(text: &str, bound: usize, first: u32) -> (&str, u32) {
    let mut end = 0;
    let mut last = first.saturating_sub(1);
    for line in text.split_inclusive('\n') {
        if end + line.len() > bound && end > 0 {
            break;
        }
        end += line.len();
        last += 1;
        if end >= bound {
            break;
        }
    }
    (&text[..end], last)
}

/// Lowercased alphanumeric words; each CJK character is its own token so CJK text is findable.
fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    for c in text.chars().flat_map(char::to_lowercase) {
        if is_cjk(c) {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            out.push(c.to_string());
        } else if c.is_alphanumeric() {
            word.push(c);
        } else if !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out.sort();
    out.dedup();
    out
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32, 0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF)
}

/// About 160 characters of `text` around the first query term, on one line.
fn snippet(text: &str, query: &str) -> String {
    let lower = text.to_lowercase();
    let at = tokens(query).iter().filter_map(|t| lower.find(t.as_str())).min().unwrap_or(0);
    // `lower` can differ in length from `text` for some scripts; clamp onto a char boundary of `text`.
    let mut start = at.saturating_sub(60).min(text.len());
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let piece: String = text[start..].chars().take(160).collect();
    let one_line = piece.split_whitespace().collect::<Vec<_>>().join(" ");
    if start > 0 { format!("…{one_line}") } else { one_line }
}

/// Levenshtein distance over chars, for "did you mean" (inputs are short ids and paths).
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().take(256).collect();
    let b: Vec<char> = b.chars().take(256).collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb)).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_helpers_count_and_slice_like_the_catalog() {
        assert_eq!(count_lines(""), 0);
        assert_eq!(count_lines("a"), 1);
        assert_eq!(count_lines("a\nb\n"), 2);
        assert_eq!(slice_lines("a\nb\nc\n", 2, 3), "b\nc\n");
        assert_eq!(slice_lines("a\nb\nc", 3, 3), "c");
        assert_eq!(cut_at_line("aaaa\nbbbb\ncccc\n", 11, 1), ("aaaa\nbbbb\n", 2));
        assert_eq!(cut_at_line("a-very-long-line\n", 4, 7), ("a-very-long-line\n", 7), "one line at least");
    }

    #[test]
    fn lines_parameter_forms() {
        assert!(matches!(parse_lines("40-80"), Ok((40, Some(80)))));
        assert!(matches!(parse_lines("40-"), Ok((40, None))));
        assert!(matches!(parse_lines("7"), Ok((7, Some(7)))));
        assert!(parse_lines("x-1").is_err());
        assert!(parse_lines("-5").is_err());
    }

    #[test]
    fn tokens_fold_case_and_split_cjk() {
        assert_eq!(tokens("Hugo HUGO templates"), ["hugo", "templates"]);
        assert_eq!(tokens("日本語"), ["日", "本", "語"]);
        assert!(tokens("!!! ???").is_empty());
    }

    #[test]
    fn edit_distance_is_levenshtein() {
        assert_eq!(edit_distance("pdff", "pdf"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
