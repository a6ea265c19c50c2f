//! The catalog records made from one file: its [`Entry`] (on the parallel stage, while its path
//! is in cache), its [`Doc`] or [`Skill`] record with the defaults taken from its file name and
//! first paragraph, and its MIME type.
//!
//! Pure: no IO, no cross-file rules (those are `assemble`'s and `validate`'s).

use crate::catalog::{self, Doc, Entry, EntryKind, Skill, SkillFile, uri};
use crate::compile::frontmatter::SkillMeta;
use crate::compile::markdown::{self, Markdown};
use crate::compile::source::{Found, Kind};

/// A file's catalog entry but for its bytes (the caller moves them in), made on the parallel
/// stage (`process`) while its path is in cache; `None` for `folio.toml`, which is not served.
pub(in crate::compile) fn entry_record(
    found: &Found,
    size: u64,
    blake3: Option<blake3::Hash>,
    sha256: Option<String>,
    is_text: bool,
    total_lines: u32,
) -> Option<Entry> {
    let (uri, kind) = match &found.kind {
        Kind::Settings => return None,
        Kind::Doc => (uri::doc(doc_path(&found.path)), EntryKind::Doc),
        Kind::SkillDocument { skill_dir } => {
            (uri::skill_file(&skill_path(skill_dir.as_str()), "SKILL.md"), EntryKind::SkillDocument)
        }
        Kind::SkillFile { skill_dir } => (
            uri::skill_file(&skill_path(skill_dir.as_str()), &found.path[skill_dir.len() + 1..]),
            EntryKind::SkillFile,
        ),
    };
    Some(Entry {
        uri,
        kind,
        mime: mime_for(&found.path, is_text).to_owned(),
        size,
        blake3: blake3.map_or_else(String::new, |h| h.to_hex().to_string()),
        sha256,
        is_text,
        total_lines,
        bytes: Default::default(),
        verdict: Default::default(),
        path: found.path.clone(),
    })
}

/// The record of the doc at `file_path` (its entry and links are filled in later), made on the
/// parallel stage (`process`) while its text is in cache. The first paragraph and the title are
/// taken out of `markdown`, and its sections moved into the outline: what stays behind is only
/// what link resolution reads (links and anchors).
pub(in crate::compile) fn doc_record(
    file_path: &str,
    meta: crate::compile::DocMeta,
    markdown: &mut Markdown,
) -> Doc {
    let path = doc_path(file_path).to_owned();
    let first_paragraph = markdown.first_paragraph.take();
    let description =
        meta.description.or_else(|| first_paragraph.as_deref().map(first_sentences)).unwrap_or_default();
    Doc {
        title: meta.title.or_else(|| markdown.title.take()).unwrap_or_else(|| stem_title(&path)),
        path,
        entry: 0,
        description,
        tags: meta.tags,
        category: meta.category,
        updated: meta.updated,
        aliases: meta.aliases,
        // Set once every doc is known (`locales`), unless the doc declares it.
        locale: meta.lang.unwrap_or_default(),
        translation_key: meta.translation_key.unwrap_or_default(),
        extra: meta.extra.into(),
        // Moved, not cloned: link resolution reads the anchors from the outline.
        outline: std::mem::take(&mut markdown.sections).into(),
        links: Default::default(),
        backlinks: Default::default(),
    }
}

/// The record of the skill in `dir` (links and backlinks are filled in later).
pub(super) fn skill_record(
    dir: &str,
    meta: SkillMeta,
    title: Option<String>,
    sections: Vec<catalog::Section>,
    document: u32,
    files: Vec<SkillFile>,
) -> Skill {
    let path = skill_path(dir).into_owned();
    let name = meta.name.map_or_else(|| path.rsplit('/').next().unwrap_or(&path).to_owned(), |n| n.value);
    Skill {
        title: title.unwrap_or_else(|| name.clone()),
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
        document,
        files,
        outline: sections.into(),
        links: Default::default(),
        backlinks: Default::default(),
    }
}

/// `docs/guides/install.md` → `guides/install.md`.
fn doc_path(path: &str) -> &str {
    path.strip_prefix("docs/").unwrap_or(path)
}

/// `skills/acme/billing` → `acme/billing`. A hidden folder that groups skills
/// (`skills/.curated/gh-fix-ci`) is not part of the path: the skill is `gh-fix-ci`, as the
/// hosts that install from such a collection name it.
fn skill_path(dir: &str) -> std::borrow::Cow<'_, str> {
    let path = dir.strip_prefix("skills/").unwrap_or(dir);
    if !path.split('/').any(|s| s.starts_with('.')) {
        return std::borrow::Cow::Borrowed(path);
    }
    std::borrow::Cow::Owned(path.split('/').filter(|s| !s.starts_with('.')).collect::<Vec<_>>().join("/"))
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
pub(crate) fn first_sentences(paragraph: &str) -> String {
    let text = markdown::collapse_whitespace(paragraph);
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
pub(crate) fn mime_for(path: &str, is_text: bool) -> &'static str {
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
    fn mime_by_extension() {
        assert_eq!(mime_for("skills/a/x.PNG", false), "image/png");
        assert_eq!(mime_for("skills/a/Makefile", true), "text/plain");
        assert_eq!(mime_for("skills/a/blob", false), "application/octet-stream");
    }
}
