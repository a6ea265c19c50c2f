//! The compiled catalog: every type that is serialized into `catalog/catalog.msgpack`.
//!
//! This module owns the data model shared by the compiler (which builds a [`Catalog`]), the
//! codec (which writes and verifies it) and the runtime (which answers every question from it).
//! It performs no IO. Everything here is deterministic: vectors are sorted, maps are `BTreeMap`.

pub mod codec;
pub(crate) mod consistency;
pub mod fence;
pub mod mdx;
pub mod search;
pub mod uri;
pub mod vectors;
pub mod verdict;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use codec::lazy::Lazy;
use search::SearchIndex;
use verdict::Verdict;

/// Version of the catalog layout; bump it whenever a serialized type changes shape.
pub const FORMAT_VERSION: u32 = 11;

/// Default time-to-live of cacheable MCP results, in milliseconds (`content/docs/reference/mcp.md`, "Caching").
pub(crate) const DEFAULT_TTL_MS: u64 = 300_000;

/// Default bound on a single text read, in bytes (`content/docs/reference/uris.md`, "Bounded reads").
pub(crate) const DEFAULT_MAX_READ_BYTES: u64 = 256 * 1024;

/// A compiled, self-contained catalog of docs and skills.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Catalog {
    /// Catalog-wide settings from `folio.toml` (or their defaults).
    pub settings: Settings,
    /// blake3 over the sorted (path, bytes) pairs of every input file, hex.
    pub source_fingerprint: String,
    /// Every served file, sorted by `uri`.
    pub entries: Vec<Entry>,
    /// Every doc, sorted by `path`.
    pub docs: Vec<Doc>,
    /// Every skill, sorted by `path`.
    pub skills: Vec<Skill>,
    /// The full-text index, built at compile time.
    pub search: SearchIndex,
    /// Section vectors for semantic search, when the catalog was built with a model.
    pub vectors: Option<vectors::Vectors>,
}

/// Settings read from `folio.toml`; every field has a default.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    /// Short machine name of the catalog (`[catalog] name`).
    pub name: String,
    /// Human title (`[catalog] title`).
    pub title: String,
    /// One-paragraph description (`[catalog] description`).
    pub description: String,
    /// Extra instructions appended to the server's model-facing instructions.
    pub instructions: Option<String>,
    /// `ttlMs` on every cacheable result (`[server] ttl_ms`).
    pub ttl_ms: u64,
    /// Bound on one text read (`[server] max_read_bytes`).
    pub max_read_bytes: u64,
    /// The project's version (`[catalog] version`), which a server reports as its own.
    pub version: Option<String>,
    /// The tree's default locale, lowercase (`[docs] default_locale`, else the locale folder
    /// with the most docs, else `en`): the language search prefers for a query in Latin script.
    pub default_locale: String,
    /// Entries `folio serve --content` left out because their own content has errors, sorted by
    /// path (empty in any catalog `folio build` writes).
    pub left_out: Vec<LeftOut>,
}

/// An entry left out of a leniently compiled catalog, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeftOut {
    /// Content-relative path: a skill's directory (`skills/pdf`) or a doc (`docs/a.md`).
    pub path: String,
    /// Each error that left it out: `file:line:column: code: message`.
    pub reasons: Vec<String>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            name: "folio".to_owned(),
            title: "Folio catalog".to_owned(),
            description: String::new(),
            instructions: None,
            ttl_ms: DEFAULT_TTL_MS,
            max_read_bytes: DEFAULT_MAX_READ_BYTES,
            version: None,
            default_locale: "en".to_owned(),
            left_out: Vec::new(),
        }
    }
}

/// True for the files read as markdown: `.md` and `.mdx` ([`mdx::is_mdx`]), in any case. The one
/// answer to "is this markdown?": the compiler parses these (outline, links, search body), and
/// every reader of a catalog (the web view, semantic search, `folio build`) treats the same
/// files as markdown. A `.markdown` file is served as a plain file.
pub fn is_markdown(path: &str) -> bool {
    mdx::is_mdx(path) || (path.len() >= 3 && path.as_bytes()[path.len() - 3..].eq_ignore_ascii_case(b".md"))
}

/// What kind of file an [`Entry`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    /// A markdown doc under `docs/`.
    Doc,
    /// A skill's `SKILL.md`.
    SkillDocument,
    /// Any other file in a skill directory.
    SkillFile,
}

impl EntryKind {
    /// The stable lowercase name used in manifests, JSON output and filters.
    pub fn as_str(self) -> &'static str {
        match self {
            EntryKind::Doc => "doc",
            EntryKind::SkillDocument => "skill_document",
            EntryKind::SkillFile => "skill_file",
        }
    }
}

/// One served file: its canonical URI and its exact bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// Canonical URI (`resource://docs/{path}` or `skill://{skill_path}/{file}`).
    pub uri: String,
    /// What the file is.
    pub kind: EntryKind,
    /// Path relative to the content root, `/`-separated (`docs/guides/install.md`).
    pub path: String,
    /// MIME type, from the extension.
    pub mime: String,
    /// Length of `bytes`.
    pub size: u64,
    /// blake3 of `bytes`, lowercase hex: the entry's version and ETag.
    pub blake3: String,
    /// `sha256:` + lowercase hex of `bytes`; set for skill files (SEP-2640 digest).
    pub sha256: Option<String>,
    /// True when `bytes` is UTF-8 without NUL, so it is served as text rather than a blob.
    pub is_text: bool,
    /// Number of lines of a text entry (0 for blobs and empty files).
    pub total_lines: u32,
    /// The exact file bytes: no BOM stripping, newline normalisation or frontmatter removal.
    /// Stored in the catalog's blob area rather than in the msgpack metadata (see `codec`), so
    /// an opened catalog shares one buffer instead of copying every body. Not yet checked
    /// against `blake3` in an opened catalog: serve them through [`Entry::body`].
    #[serde(skip)]
    pub bytes: bytes::Bytes,
    /// Whether `bytes` hash to `blake3`, decided on the first [`Entry::body`].
    #[serde(skip)]
    pub verdict: Verdict,
}

impl Entry {
    /// The bytes, once they are checked against the entry's `blake3` (hashed on the first call,
    /// remembered after). `Err` says they do not match (a damaged or edited catalog file): they
    /// are never to be served.
    pub fn body(&self) -> Result<&bytes::Bytes, String> {
        self.verdict
            .get_or_check(|| {
                let what = format!("the bytes of `{}`", consistency::shown(&self.uri));
                verdict::blake3_matches(&self.bytes, &self.blake3, &what)
            })
            .map(|()| &self.bytes)
    }

    /// The checked bytes as text, or `None` for a blob and for bytes that fail their check
    /// ([`Entry::body`] says why).
    pub fn text(&self) -> Option<&str> {
        if self.is_text { std::str::from_utf8(self.body().ok()?).ok() } else { None }
    }
}

/// A heading of a doc or SKILL.md and the lines it spans.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Section {
    /// GitHub-style slug, deduplicated with `-1`, `-2` (the `?section=` value).
    pub id: String,
    /// Heading text.
    pub title: String,
    /// Heading level, 1 to 6.
    pub level: u8,
    /// First line of the section (the heading line), 1-based.
    pub line_start: u32,
    /// Last line of the section, inclusive: the line before the next heading of the same or a
    /// higher level, or the last line of the file.
    pub line_end: u32,
}

/// How a link was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LinkKind {
    /// `../x.md#anchor`, resolved against the linking file's directory.
    Relative,
    /// `/guides/install/`, resolved against `docs/`.
    SiteAbsolute,
    /// `[[Target]]` or `[[Target|label]]`.
    Wiki,
    /// `#anchor` within the same file.
    Anchor,
    /// `https://…`, `mailto:…`: recorded, never fetched.
    External,
}

/// A link found in a doc or SKILL.md.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Link {
    /// The target as written.
    pub target: String,
    /// How it was written.
    pub kind: LinkKind,
    /// Canonical URI of the entry it resolves to, when it resolves inside the catalog.
    pub resolved: Option<String>,
    /// The `#fragment`, if any.
    pub anchor: Option<String>,
    /// 1-based line of the link in the source file.
    pub line: u32,
}

/// A markdown doc under `docs/`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Doc {
    /// Path relative to `docs/` (`guides/install.md`): the `{+path}` of its URIs.
    pub path: String,
    /// Index into [`Catalog::entries`] of the doc's bytes.
    pub entry: u32,
    /// Frontmatter `title`, else the first H1, else the file stem.
    pub title: String,
    /// Frontmatter `description`, else the first paragraph (at most 3 sentences).
    pub description: String,
    /// Frontmatter `tags`, in authored order.
    pub tags: Vec<String>,
    /// Frontmatter `category`.
    pub category: Option<String>,
    /// Frontmatter `updated` (or `last_updated`), normalised to `YYYY-MM-DD` or RFC 3339.
    pub updated: Option<String>,
    /// Frontmatter `aliases`.
    pub aliases: Vec<String>,
    /// Its locale, a lowercase BCP 47 tag (`en`, `zh-cn`): the `docs/<locale>/` folder it is in,
    /// else the tree's default locale (`[docs] default_locale`, `en` unless set).
    pub locale: String,
    /// Which page it is across locales: frontmatter `translationKey`, else its path below its
    /// locale folder without the extension (`guides/deploy`). Docs sharing it are
    /// translations of one page, which search shows as one hit.
    pub translation_key: String,
    /// Every other frontmatter key, as JSON.
    pub extra: Lazy<BTreeMap<String, serde_json::Value>>,
    /// Headings with ids and line ranges.
    pub outline: Lazy<Vec<Section>>,
    /// Links out, in source order.
    pub links: Lazy<Vec<Link>>,
    /// Canonical URIs of the entries that link here, sorted and deduplicated.
    pub backlinks: Lazy<Vec<String>>,
}

/// A file of a skill, with its reference id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillFile {
    /// The path relative to the skill directory (the `{ref_id}` of its alias URI).
    pub ref_id: String,
    /// Path relative to the skill directory (`references/api.md`).
    pub rel_path: String,
    /// Index into [`Catalog::entries`].
    pub entry: u32,
    /// A markdown file's title: its frontmatter `title`, else its first heading.
    pub title: Option<String>,
    /// A markdown file's description: its frontmatter `description`, else its first paragraph.
    pub description: Option<String>,
}

/// An Agent Skill: a directory holding `SKILL.md`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Skill {
    /// Frontmatter `name`, unique in the catalog: the `{skill_id}` of its URIs.
    pub name: String,
    /// Directory path under `skills/` (`acme/billing`): the `{+skill_path}` of its URIs.
    pub path: String,
    /// Frontmatter `description`.
    pub description: String,
    /// Title for listings: the first H1 of SKILL.md, else the name.
    pub title: String,
    /// Frontmatter `license`.
    pub license: Option<String>,
    /// Frontmatter `compatibility`.
    pub compatibility: Option<String>,
    /// Frontmatter `metadata` (string → string).
    pub metadata: BTreeMap<String, String>,
    /// Frontmatter `allowed-tools` (space-separated, grants nothing).
    pub allowed_tools: Option<String>,
    /// Folio catalog field `tags`.
    pub tags: Vec<String>,
    /// Folio catalog field `capabilities`.
    pub capabilities: Vec<String>,
    /// Folio catalog field `version`.
    pub version: Option<String>,
    /// Frontmatter `updated`/`last_updated` or `metadata.updated`, normalised like docs.
    pub updated: Option<String>,
    /// The whole frontmatter rendered as a JSON object, keys sorted (SEP-2640 `frontmatter`).
    pub frontmatter: Lazy<serde_json::Value>,
    /// Index into [`Catalog::entries`] of SKILL.md.
    pub document: u32,
    /// Every other file of the skill, sorted by `rel_path`.
    pub files: Vec<SkillFile>,
    /// Headings of SKILL.md.
    pub outline: Lazy<Vec<Section>>,
    /// Links out of SKILL.md.
    pub links: Lazy<Vec<Link>>,
    /// Canonical URIs of the entries that link to this skill's SKILL.md.
    pub backlinks: Lazy<Vec<String>>,
}

impl Catalog {
    /// The entry with this canonical URI, by binary search.
    pub fn entry(&self, uri: &str) -> Option<&Entry> {
        self.entries.binary_search_by(|e| e.uri.as_str().cmp(uri)).ok().map(|i| &self.entries[i])
    }

    /// The doc with this path (relative to `docs/`), by binary search.
    pub fn doc(&self, path: &str) -> Option<&Doc> {
        self.docs.binary_search_by(|d| d.path.as_str().cmp(path)).ok().map(|i| &self.docs[i])
    }

    /// The skill with this skill path, by binary search.
    pub fn skill_by_path(&self, path: &str) -> Option<&Skill> {
        self.skills.binary_search_by(|s| s.path.as_str().cmp(path)).ok().map(|i| &self.skills[i])
    }

    /// The skill with this name (its `skill_id`).
    pub fn skill(&self, name: &str) -> Option<&Skill> {
        self.skills.iter().find(|s| s.name == name)
    }
}
