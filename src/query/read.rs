//! `read` of every URI family (`content/docs/reference/uris.md`) with section and line selection and the bounded-read
//! rule (`uris.md`, "Bounded reads"), the generated catalog resources, and skill directory listings (SEP-2640).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use bytes::Bytes;

use super::Query;
use super::cursor::{self, Page, page_limit};
use super::detail::Detail;
use super::error::{QueryError, decoded, uri_error};
use super::kind::{Kind, Owner};
use super::resolve::{Located, nearest};
use super::semantic::SearchMode;
use crate::catalog::uri::{self, Target};
use crate::catalog::{Entry, Lazy, Section};

/// MIME type of a directory in `resources/directory/read` (SEP-2640).
pub const DIRECTORY_MIME: &str = "inode/directory";

/// Which part of a text to read. Empty means the whole text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    /// A section id (heading slug) of a doc or SKILL.md.
    pub section: Option<String>,
    /// First line, 1-based (default 1).
    pub start_line: Option<u32>,
    /// Last line, inclusive (default: the last line; values past the end are clamped).
    pub end_line: Option<u32>,
}

impl Selection {
    /// Parses a `lines` value: `A-B`, `A-` (to the end) or `A` (one line).
    ///
    /// Fails with [`QueryError::InvalidParams`] on anything else, a zero or a reversed range.
    pub fn from_lines(spec: &str) -> Result<Selection, QueryError> {
        let bad = || {
            QueryError::invalid(
                "lines",
                format!("`{spec}` is not a line range (expected A-B with 1 <= A <= B, e.g. 40-80)"),
            )
        };
        let number = |s: &str| s.trim().parse::<u32>().map_err(|_| bad());
        let (start, end) = match spec.split_once('-') {
            Some((a, "")) => (number(a)?, None),
            Some((a, b)) => (number(a)?, Some(number(b)?)),
            None => {
                let n = number(spec)?;
                (n, Some(n))
            }
        };
        let selection = Selection { section: None, start_line: Some(start), end_line: end };
        selection.check_order()?;
        Ok(selection)
    }

    fn is_empty(&self) -> bool {
        self.section.is_none() && self.start_line.is_none() && self.end_line.is_none()
    }

    fn has_lines(&self) -> bool {
        self.start_line.is_some() || self.end_line.is_some()
    }

    pub(super) fn check_order(&self) -> Result<(), QueryError> {
        if self.start_line == Some(0) || self.end_line == Some(0) {
            return Err(QueryError::invalid("lines", "line numbers start at 1"));
        }
        if let (Some(a), Some(b)) = (self.start_line, self.end_line)
            && a > b
        {
            return Err(QueryError::invalid("lines", format!("range {a}-{b} is reversed (start > end)")));
        }
        Ok(())
    }

    fn from_params(params: &[(String, String)]) -> Result<Selection, QueryError> {
        let mut selection = Selection::default();
        for (key, value) in params {
            match key.as_str() {
                "section" => selection.section = Some(value.clone()),
                "lines" => {
                    let lines = Selection::from_lines(value)?;
                    selection.start_line = lines.start_line;
                    selection.end_line = lines.end_line;
                }
                _ => {}
            }
        }
        Ok(selection)
    }
}

/// The bytes a read returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadContent {
    /// UTF-8 text (for a bounded read, the first part plus the marker line).
    Text(String),
    /// Binary bytes, served base64 by MCP.
    Blob(Bytes),
}

/// The answer to [`Query::read`]: what `resources/read` and `read_resource` both return.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadResult {
    /// The URI as requested (aliases keep the alias URI).
    pub uri: String,
    /// Canonical URI of the entry read (`None` for generated catalog resources).
    pub canonical_uri: Option<String>,
    /// The entry's path in the content tree (`docs/…`, `skills/…`; `None` for generated
    /// catalog resources).
    pub path: Option<String>,
    /// The ref id of a skill file other than SKILL.md.
    pub ref_id: Option<String>,
    /// What was read.
    pub kind: Kind,
    /// MIME type.
    pub mime: String,
    /// The text or blob.
    pub content: ReadContent,
    /// Size of the whole entry in bytes (of the generated text for catalog resources).
    pub size: u64,
    /// blake3 of the whole entry, hex (of the generated text for catalog resources).
    pub blake3: String,
    /// `sha256:<hex>` of the whole entry (skill files).
    pub sha256: Option<String>,
    /// Frontmatter date (`annotations.lastModified`).
    pub updated: Option<String>,
    /// Lines of the whole text (0 for blobs).
    pub total_lines: u32,
    /// Lines returned, 1-based inclusive (`None` for blobs, generated resources and empty texts).
    pub range: Option<(u32, u32)>,
    /// The selected section, if one was asked for.
    pub section: Option<String>,
    /// True when the bounded-read rule cut the text.
    pub truncated: bool,
    /// URI of the next part when truncated (`…?lines=A-B`).
    pub next: Option<String>,
    /// URIs of the doc's sections not (fully) shown, when truncated.
    pub sections: Vec<String>,
}

impl ReadResult {
    /// The text, or `None` for a blob.
    pub fn text(&self) -> Option<&str> {
        match &self.content {
            ReadContent::Text(text) => Some(text),
            ReadContent::Blob(_) => None,
        }
    }

    fn generated(uri: &str, mime: &str, text: String) -> ReadResult {
        ReadResult {
            uri: uri.to_owned(),
            canonical_uri: None,
            path: None,
            ref_id: None,
            kind: Kind::Catalog,
            mime: mime.to_owned(),
            size: text.len() as u64,
            blake3: blake3::hash(text.as_bytes()).to_hex().to_string(),
            sha256: None,
            updated: None,
            total_lines: line_starts(&text).len() as u32,
            range: None,
            section: None,
            truncated: false,
            next: None,
            sections: Vec::new(),
            content: ReadContent::Text(text),
        }
    }
}

/// One child of a skill directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirEntry {
    /// Its URI (`skill://…`, no trailing slash for directories).
    pub uri: String,
    /// Its last path segment.
    pub name: String,
    /// `inode/directory` for subdirectories, else the file's MIME type.
    pub mime: String,
    /// True for a subdirectory.
    pub is_directory: bool,
    /// Size of a file.
    pub size: Option<u64>,
    /// blake3 of a file.
    pub blake3: Option<String>,
    /// `sha256:` digest of a file.
    pub sha256: Option<String>,
}

fn json<T: serde::Serialize>(value: &T) -> String {
    let mut out = serde_json::to_string_pretty(value).expect("query records always serialize");
    out.push('\n');
    out
}

/// An index page as JSON, with `next_uri`: the same URI and filters with the next cursor, so a
/// client that only reads resources can follow the pages.
fn index_json<T: serde::Serialize>(base: &str, params: &[(String, String)], page: &Page<T>) -> String {
    let mut value = serde_json::to_value(page).expect("query records always serialize");
    if let Some(cursor) = &page.next_cursor {
        let mut pairs: Vec<(&str, &str)> =
            params.iter().filter(|(k, _)| k != "cursor").map(|(k, v)| (k.as_str(), v.as_str())).collect();
        pairs.push(("cursor", cursor));
        value["next_uri"] = serde_json::Value::String(format!("{base}{}", uri::query_string(&pairs)));
    }
    json(&value)
}

impl Query {
    /// Reads any URI of `content/docs/reference/uris.md` with an optional selection, applying the bounded-read rule
    /// (`uris.md`, "Bounded reads"). `selection` adds to the URI's own `?section=`/`?lines=` (giving both is an
    /// error). Catalog singletons and detail records are generated JSON or markdown.
    ///
    /// Fails with [`QueryError::NotFound`] for an unknown URI and [`QueryError::InvalidParams`]
    /// for traversal, an unknown section, a bad line range or a selection on a blob.
    pub fn read(&self, raw: &str, selection: &Selection) -> Result<ReadResult, QueryError> {
        self.read_named(raw, selection).map(|(read, _)| read)
    }

    /// [`Query::read`], with what the URI named: the entry read, or the detail record a detail
    /// URI generated; so that a caller who shows both looks nothing up twice.
    pub(super) fn read_named(
        &self,
        raw: &str,
        selection: &Selection,
    ) -> Result<(ReadResult, Named), QueryError> {
        let target = uri::parse(raw).map_err(uri_error)?;
        selection.check_order()?;
        // A `skill://` URI or a reference alias has its selection checked before it is looked
        // up, a doc or a skill document after (the order their errors have always come in).
        let early = match &target {
            Target::SkillReference { params, .. } | Target::Skill { params, .. } => {
                Some(merge(selection, params)?)
            }
            _ => None,
        };
        match self.locate(raw, target)? {
            Located::Entry { idx, params } => {
                let selection = match early {
                    Some(selection) => selection,
                    None => merge(selection, &params)?,
                };
                Ok((self.read_at(raw, idx, &selection)?, Named::Entry(idx)))
            }
            Located::Generated(target) => self.read_generated(raw, target, selection),
        }
    }

    /// Reads entry `idx`, named by `raw`: a doc with the bounded-read rule, a skill file whole
    /// (or the part `selection` names).
    pub(super) fn read_at(
        &self,
        raw: &str,
        idx: usize,
        selection: &Selection,
    ) -> Result<ReadResult, QueryError> {
        let entry = &self.catalog.entries[idx];
        let (outline, updated, bounded, ref_id) = match self.owner(idx) {
            Some(Owner::Doc(d)) => {
                let doc = &self.catalog.docs[d as usize];
                (Some(&doc.outline), doc.updated.clone(), true, None)
            }
            Some(Owner::Skill(s, file)) => {
                let skill = &self.catalog.skills[s as usize];
                let ref_id = file.map(|f| skill.files[f as usize].ref_id.clone());
                (file.is_none().then_some(&skill.outline), skill.updated.clone(), false, ref_id)
            }
            None => (None, None, false, None),
        };
        let mut result = read_entry(self, raw, entry, outline, selection, bounded, updated)?;
        result.ref_id = ref_id;
        Ok(result)
    }

    /// Reads a resource generated from the catalog: the about page, an index page or a detail
    /// record. A selection does not apply to them.
    fn read_generated(
        &self,
        raw: &str,
        target: Target,
        selection: &Selection,
    ) -> Result<(ReadResult, Named), QueryError> {
        if !selection.is_empty() {
            return Err(QueryError::invalid(
                "section",
                format!(
                    "`{raw}` is generated JSON or markdown; `section` and lines apply to docs and skill files"
                ),
            ));
        }
        let json = "application/json";
        let (text, detail) = match target {
            Target::SkillsIndex(params) => {
                let page = self.skills_index(&params)?;
                (index_json(uri::SKILLS_INDEX, &params, &page), None)
            }
            Target::DocsIndex(params) => {
                let page = self.docs_index(&params)?;
                (index_json(uri::DOCS_INDEX, &params, &page), None)
            }
            Target::SkillDetail { skill_id } => {
                let detail = Detail::Skill(Box::new(self.skill_detail(&skill_id)?));
                (detail.to_json(), Some(detail))
            }
            Target::DocDetail { path } => {
                let detail = Detail::Doc(Box::new(self.doc_detail(&path)?));
                (detail.to_json(), Some(detail))
            }
            // `locate` hands the about page and nothing else here.
            _ => {
                return Ok((
                    ReadResult::generated(raw, "text/markdown", self.about()),
                    Named::Generated(None),
                ));
            }
        };
        Ok((ReadResult::generated(raw, json, text), Named::Generated(detail)))
    }
}

/// What a read named, besides what it read.
pub(super) enum Named {
    /// The entry at this index of `Catalog::entries`.
    Entry(usize),
    /// A generated resource, with the detail record it is the JSON of (detail URIs only).
    Generated(Option<Detail>),
}

/// Combines the URI's own `?section=`/`?lines=` with an explicit selection; giving both is an error.
fn merge(selection: &Selection, params: &[(String, String)]) -> Result<Selection, QueryError> {
    let from_uri = Selection::from_params(params)?;
    match (from_uri.is_empty(), selection.is_empty()) {
        (true, _) => Ok(selection.clone()),
        (false, true) => Ok(from_uri),
        (false, false) => Err(QueryError::invalid(
            "section",
            "the selection is given twice (in the URI and as arguments); give it once",
        )),
    }
}

/// Byte offset of the start of every line. A final line without `\n` counts; an empty text has
/// no lines.
pub(super) fn line_starts(text: &str) -> Vec<usize> {
    let mut starts = Vec::new();
    if text.is_empty() {
        return starts;
    }
    starts.push(0);
    starts.extend(memchr_newlines(text.as_bytes()).filter(|&i| i + 1 < text.len()).map(|i| i + 1));
    starts
}

fn memchr_newlines(bytes: &[u8]) -> impl Iterator<Item = usize> + '_ {
    bytes.iter().enumerate().filter(|(_, b)| **b == b'\n').map(|(i, _)| i)
}

fn read_entry(
    query: &Query,
    raw: &str,
    entry: &Entry,
    outline: Option<&Lazy<Vec<Section>>>,
    selection: &Selection,
    bounded: bool,
    updated: Option<String>,
) -> Result<ReadResult, QueryError> {
    // Decoded only for a section read or a truncated one, the reads that need it.
    let outline = || match outline {
        Some(outline) => decoded(outline, &entry.uri, "outline").map(Vec::as_slice),
        None => Ok(&[][..]),
    };
    let mut result = ReadResult {
        uri: raw.to_owned(),
        canonical_uri: Some(entry.uri.clone()),
        path: Some(entry.path.clone()),
        ref_id: None,
        kind: Kind::of_entry(entry.kind),
        mime: entry.mime.clone(),
        content: ReadContent::Blob(super::error::verified_body(entry)?.clone()),
        size: entry.size,
        blake3: entry.blake3.clone(),
        sha256: entry.sha256.clone(),
        updated,
        total_lines: 0,
        range: None,
        section: None,
        truncated: false,
        next: None,
        sections: Vec::new(),
    };
    let Some(text) = entry.text() else {
        if !selection.is_empty() {
            return Err(QueryError::invalid(
                if selection.section.is_some() { "section" } else { "lines" },
                format!("`{}` is binary ({}); it can only be read whole", entry.uri, entry.mime),
            ));
        }
        return Ok(result);
    };
    let starts = line_starts(text);
    let total = starts.len() as u32;
    result.total_lines = total;
    let (first, last) = if let Some(id) = &selection.section {
        if selection.has_lines() {
            return Err(QueryError::invalid("section", "give either `section` or a line range, not both"));
        }
        let lines = section_lines(entry, outline()?, id, total)?;
        result.section = Some(id.clone());
        lines
    } else {
        let first = selection.start_line.unwrap_or(1);
        if total == 0 && !selection.has_lines() {
            result.content = ReadContent::Text(String::new());
            return Ok(result);
        }
        if first > total {
            return Err(QueryError::invalid(
                "lines",
                format!("line {first} is past the end of `{}`, which has {total} lines", entry.uri),
            ));
        }
        (first, selection.end_line.unwrap_or(total).min(total))
    };
    let byte_at = |line: u32| -> usize { starts.get(line as usize - 1).copied().unwrap_or(text.len()) };
    let end_byte = |line: u32| -> usize { starts.get(line as usize).copied().unwrap_or(text.len()) };
    let max = query.catalog.settings.max_read_bytes as usize;
    let (start, mut end) = (byte_at(first), end_byte(last));
    let mut shown_last = last;
    if bounded && end - start > max {
        // Cut on the last line boundary within the bound, but always return at least one line
        // so that following `next` makes progress.
        let cut = starts.partition_point(|&s| s <= start + max) as u32;
        shown_last = cut.saturating_sub(1).max(first).min(last);
        end = end_byte(shown_last);
        result.truncated = shown_last < last;
    }
    let mut out = text[start..end].to_owned();
    result.range = Some((first, shown_last));
    if result.truncated {
        let next = uri::with_lines(&entry.uri, shown_last + 1, last);
        let remaining: Vec<String> = outline()?
            .iter()
            .filter(|s| s.line_end > shown_last && s.line_start <= last)
            .map(|s| uri::with_section(&entry.uri, &s.id))
            .collect();
        let shown = format!("lines {first}-{shown_last} of {total} shown");
        push_truncation_notice(&mut out, entry, max, &shown, &next, &remaining);
        result.next = Some(next);
        result.sections = remaining;
    }
    result.content = ReadContent::Text(out);
    Ok(result)
}

/// Ends a truncated read's text `out` with the comment that says so: the bound, the lines
/// `shown`, the `next` range to read, and the sections still ahead (the first 40, then where the
/// rest are listed).
fn push_truncation_notice(
    out: &mut String,
    entry: &Entry,
    max: usize,
    shown: &str,
    next: &str,
    remaining: &[String],
) {
    const SHOWN: usize = 40;
    if !out.ends_with('\n') {
        out.push('\n');
    }
    let _ = write!(out, "<!-- folio: truncated at {max} bytes: {shown}; next: {next}");
    if !remaining.is_empty() {
        let _ = write!(out, "; sections: {}", remaining[..remaining.len().min(SHOWN)].join(" "));
        if remaining.len() > SHOWN {
            let detail = entry.path.strip_prefix("docs/").map(uri::doc_detail).unwrap_or_default();
            let _ = write!(out, " (and {} more, see {detail})", remaining.len() - SHOWN);
        }
    }
    out.push_str(" -->\n");
}

/// The lines `first..=last` of section `id` of `entry`, whose text has `total` lines, from its
/// outline: `invalid_params` naming the sections there are (and the nearest id) when it has no
/// such section, `Corrupt` when the outline's range cannot be the file's.
fn section_lines(entry: &Entry, outline: &[Section], id: &str, total: u32) -> Result<(u32, u32), QueryError> {
    let section = outline.iter().find(|s| s.id == id).ok_or_else(|| {
        let known: Vec<&str> = outline.iter().map(|s| s.id.as_str()).take(20).collect();
        let reason = if known.is_empty() {
            format!("`{}` has no sections", entry.uri)
        } else {
            format!("no section `{id}` in `{}` (sections: {})", entry.uri, known.join(", "))
        };
        let near = nearest(outline.iter().map(|s| s.id.as_str()), id);
        let repair = match near.first() {
            Some(best) => format!("read `{}`", uri::with_section(&entry.uri, best)),
            None => "read the detail record for the outline, or read the whole entry".to_owned(),
        };
        QueryError::invalid_with("section", reason, repair)
    })?;
    let (first, last) = (section.line_start, section.line_end);
    // Outlines are decoded on first use, not checked when the catalog is opened: a range
    // the compiler cannot have written (a forged catalog) is refused here.
    if first == 0 || first > last || last > total {
        return Err(QueryError::Corrupt {
            uri: entry.uri.clone(),
            reason: format!(
                "section `{id}` of `{}` spans lines {first}-{last}, but the file has {total} lines",
                entry.uri
            ),
        });
    }
    Ok((first, last))
}

impl Query {
    /// Summary of what this catalog serves (the markdown of `resource://catalog/about`).
    pub fn about(&self) -> String {
        let catalog = &self.catalog;
        let settings = &catalog.settings;
        let n_files =
            catalog.entries.iter().filter(|e| e.kind == crate::catalog::EntryKind::SkillFile).count();
        let bytes: u64 = catalog.entries.iter().map(|e| e.size).sum();
        let mut out = String::new();
        let _ = writeln!(out, "# {}\n", settings.title);
        if !settings.description.is_empty() {
            let _ = writeln!(out, "{}\n", settings.description);
        }
        let _ = writeln!(
            out,
            "This catalog (`{}`) serves {} docs and {} skills ({} more skill files), {} bytes in all.\n\
             Catalog hash: `{}`.\n",
            settings.name,
            catalog.docs.len(),
            catalog.skills.len(),
            n_files,
            bytes,
            self.catalog_hash
        );
        out.push_str(
            "## Discovery order\n\n\
             1. Index: `resource://catalog/skills_index` and `resource://catalog/docs_index` (filter with \
             `?q=`, `tag`, `capability`, `category`, `prefix`).\n\
             2. Detail: `resource://catalog/skills/{skill_id}` or `resource://catalog/docs/{+path}` (files, \
             outline with section URIs, links).\n\
             3. Document: `skill://{+skill_path}/SKILL.md` or `resource://docs/{+path}`; prefer \
             `?section=<id>` or `?lines=A-B` over whole large docs.\n\
             4. References (`skill://{+skill_path}/{+file}`) only when the document points to them.\n\n\
             Load at most two skill documents per step.\n\n\
             ## URIs\n\n\
             - `resource://docs/{+path}{?section,lines}`: a doc's exact bytes, a section or a line range\n\
             - `skill://{+skill_path}/SKILL.md`, `skill://{+skill_path}/{+file}`: skill files (SEP-2640)\n\
             - `resource://skills/{skill_id}/document`, `resource://skills/{skill_id}/references/{ref_id}`: \
             aliases (a `/` in a ref id is written `%2F`)\n\n\
             ## Tools (for clients without resources)\n\n\
             `list_resources`, `read_resource`, `search_patterns`, `get_pattern_by_id`, \
             `get_skill_document_by_id`.\n",
        );
        match self.search_mode() {
            SearchMode::Hybrid(model) => {
                let _ = writeln!(
                    out,
                    "\n## Search\n\nSearch ranks words and meaning together (hybrid): BM25 fused with the \
                     similarity of each section to the query, by model `{}` ({} dimensions, hash {}). Ask for \
                     `mode: semantic` to rank by meaning alone, `keyword` for words alone.",
                    model.name,
                    model.dims,
                    model.short_hash()
                );
            }
            SearchMode::Keyword(why) => {
                let _ = writeln!(out, "\n## Search\n\nSearch ranks by words alone (BM25): {why}.");
            }
        }
        if let Some(instructions) = &settings.instructions {
            let _ = writeln!(out, "\n## Notes from the authors\n\n{instructions}");
        }
        if !settings.left_out.is_empty() {
            let n = settings.left_out.len();
            let _ = writeln!(
                out,
                "\n## Left out\n\n{n} {} of the content tree {} not served: {} own content has errors \
                 (`folio check` reports them).\n",
                if n == 1 { "entry" } else { "entries" },
                if n == 1 { "is" } else { "are" },
                if n == 1 { "its" } else { "their" },
            );
            for entry in &settings.left_out {
                let _ = writeln!(out, "- `{}`", entry.path);
                for reason in &entry.reasons {
                    let _ = writeln!(out, "  - {reason}");
                }
            }
        }
        out
    }
}

impl Query {
    /// The direct children of a skill directory (`skill://acme/billing` or a subdirectory), for
    /// SEP-2640 `resources/directory/read`: files with their records, subdirectories with MIME
    /// `inode/directory`, sorted by URI, paginated.
    ///
    /// Fails with [`QueryError::InvalidParams`] when the URI is not a directory of a skill (a file,
    /// an unknown path, another scheme) or the cursor is bad.
    pub fn directory(
        &self,
        raw: &str,
        cursor_arg: Option<&str>,
        limit: Option<usize>,
    ) -> Result<Page<DirEntry>, QueryError> {
        let limit = page_limit(limit)?;
        let not_dir = |why: &str| {
            QueryError::invalid_with(
                "uri",
                format!("`{raw}` {why}"),
                "list skills with resources/list or read resource://catalog/skills_index; a skill's \
                 directory URI is `skill://{skill_path}`",
            )
        };
        let path = match uri::parse(raw).map_err(uri_error)? {
            Target::Skill { path, params } if params.is_empty() => path,
            _ => return Err(not_dir("is not a skill directory URI (`skill://{skill_path}[/{dir}]`)")),
        };
        // The owning skill is the one whose path is the longest prefix of `path` at a `/` boundary.
        let skill = std::iter::once(path.as_str())
            .chain(path.rmatch_indices('/').map(|(i, _)| &path[..i]))
            .find_map(|prefix| self.skill_by_path(prefix))
            .ok_or_else(|| not_dir("is not inside any skill"))?;
        let dir = path[skill.path.len()..].trim_start_matches('/');
        let mut files: Vec<(&str, &Entry)> =
            vec![("SKILL.md", &self.catalog.entries[skill.document as usize])];
        files.extend(
            skill.files.iter().map(|f| (f.rel_path.as_str(), &self.catalog.entries[f.entry as usize])),
        );
        if !dir.is_empty() && files.iter().any(|(rel, _)| *rel == dir) {
            return Err(not_dir("is a file, not a directory; read it with resources/read"));
        }
        // Children by name: `None` for a subdirectory, the entry for a file.
        let mut children: BTreeMap<&str, Option<&Entry>> = BTreeMap::new();
        for (rel, entry) in files {
            let rest = if dir.is_empty() {
                rel
            } else {
                match rel.strip_prefix(dir).and_then(|r| r.strip_prefix('/')) {
                    Some(rest) => rest,
                    None => continue,
                }
            };
            match rest.split_once('/') {
                Some((sub, _)) => {
                    children.entry(sub).or_insert(None);
                }
                None => {
                    children.insert(rest, Some(entry));
                }
            }
        }
        if children.is_empty() {
            return Err(not_dir("is not a directory of this skill"));
        }
        let base = if dir.is_empty() { skill.path.clone() } else { format!("{}/{dir}", skill.path) };
        let mut items: Vec<DirEntry> = children
            .into_iter()
            .map(|(name, entry)| match entry {
                Some(entry) => DirEntry {
                    uri: entry.uri.clone(),
                    name: name.to_owned(),
                    mime: entry.mime.clone(),
                    is_directory: false,
                    size: Some(entry.size),
                    blake3: Some(entry.blake3.clone()),
                    sha256: entry.sha256.clone(),
                },
                None => DirEntry {
                    uri: uri::skill_dir(&format!("{base}/{name}")),
                    name: name.to_owned(),
                    mime: DIRECTORY_MIME.to_owned(),
                    is_directory: true,
                    size: None,
                    blake3: None,
                    sha256: None,
                },
            })
            .collect();
        items.sort_by(|a, b| a.uri.cmp(&b.uri));
        let total = items.len();
        let offset = match cursor_arg {
            Some(c) => cursor::decode(c, &self.catalog_hash, "directory", raw, total)?,
            None => 0,
        };
        let (range, next_cursor) = cursor::page(&self.catalog_hash, "directory", raw, offset, limit, total);
        Ok(Page { items: items.drain(range).collect(), next_cursor, total })
    }
}
