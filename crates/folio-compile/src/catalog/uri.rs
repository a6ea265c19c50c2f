//! Every URI family Folio serves (`content/docs/reference/uris.md`): building canonical URIs, and (at run time)
//! parsing request URIs with traversal rejected before any lookup. This is the only URI code.
//!
//! Performs no IO and knows nothing of MCP.

/// Scheme and authority of docs: `resource://docs/{+path}`.
pub const DOCS_PREFIX: &str = "resource://docs/";
/// Scheme of skill files: `skill://{+skill_path}/{+file}`.
pub const SKILL_PREFIX: &str = "skill://";
/// `resource://catalog/about`.
pub const ABOUT: &str = "resource://catalog/about";
/// `resource://catalog/skills_index`.
pub const SKILLS_INDEX: &str = "resource://catalog/skills_index";
/// `resource://catalog/docs_index`.
pub const DOCS_INDEX: &str = "resource://catalog/docs_index";
/// Prefix of skill detail records: `resource://catalog/skills/{skill_id}`.
pub const SKILL_DETAIL_PREFIX: &str = "resource://catalog/skills/";
/// Prefix of doc detail records: `resource://catalog/docs/{+path}`.
pub const DOC_DETAIL_PREFIX: &str = "resource://catalog/docs/";
/// Prefix of the skill alias families: `resource://skills/{skill_id}/…`.
pub const SKILL_ALIAS_PREFIX: &str = "resource://skills/";

/// Longest request URI parsed, in bytes: a catalog path is at most a few KiB even fully
/// percent-encoded, and refusing longer input up front keeps lookups and "did you mean"
/// suggestions cheap.
pub(crate) const MAX_URI_BYTES: usize = 32 * 1024;

/// Bytes of client input an error message or error data echoes back; the rest is summarized.
pub const ECHO_BYTES: usize = 256;

/// Client input as an error may echo it: whole when it is at most [`ECHO_BYTES`] bytes, else its
/// first bytes (cut on a character boundary) followed by `…(N bytes)`, so a huge request never
/// comes back whole.
///
/// Capping twice changes nothing: an echo (at most 32 bytes longer than the cap, ending in
/// `…(N bytes)`) comes back as it is, so layers may cap what another layer capped.
pub fn echo(input: &str) -> std::borrow::Cow<'_, str> {
    let capped_already = input.len() <= ECHO_BYTES + 32 && input.ends_with(" bytes)") && input.contains("…(");
    if input.len() <= ECHO_BYTES || capped_already {
        return std::borrow::Cow::Borrowed(input);
    }
    let mut end = ECHO_BYTES;
    while !input.is_char_boundary(end) {
        end -= 1;
    }
    std::borrow::Cow::Owned(format!("{}…({} bytes)", &input[..end], input.len()))
}

/// Canonical URI of a doc, from its path relative to `docs/`.
pub fn doc(path: &str) -> String {
    format!("{DOCS_PREFIX}{}", encode_path(path))
}

/// Canonical URI of a file of a skill (`rel_path` is `SKILL.md` for the skill document).
pub fn skill_file(skill_path: &str, rel_path: &str) -> String {
    format!("{SKILL_PREFIX}{}/{}", encode_path(skill_path), encode_path(rel_path))
}

/// URI of a skill directory (`skill://acme/billing`, no trailing slash, SEP-2640).
pub fn skill_dir(skill_path: &str) -> String {
    format!("{SKILL_PREFIX}{}", encode_path(skill_path))
}

/// Detail record of a doc.
pub fn doc_detail(path: &str) -> String {
    format!("{DOC_DETAIL_PREFIX}{}", encode_path(path))
}

/// Detail record of a skill.
pub fn skill_detail(skill_id: &str) -> String {
    format!("{SKILL_DETAIL_PREFIX}{}", encode_component(skill_id))
}

/// Percent-encodes a `/`-separated path: every byte but RFC 3986 unreserved characters, `/`
/// and a few sub-delimiters safe in paths is written as `%XX`.
pub fn encode_path(path: &str) -> String {
    encode(path, true, false)
}

/// Percent-encodes one component: like [`encode_path`], but `/` becomes `%2F`.
pub(crate) fn encode_component(component: &str) -> String {
    encode(component, false, false)
}

/// Percent-encodes a query-string value: like `encode_component` (a path segment), and `&`, `=` and `+` (which
/// the query parser reads as separators and a space) are encoded too.
pub fn encode_query_value(value: &str) -> String {
    encode(value, false, true)
}

fn encode(s: &str, keep_slash: bool, in_query: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for &b in s.as_bytes() {
        let keep = b.is_ascii_alphanumeric()
            || matches!(b, b'-' | b'.' | b'_' | b'~' | b'!' | b'$' | b'\'' | b'(' | b')')
            || matches!(b, b'*' | b',' | b';' | b':' | b'@')
            || (!in_query && matches!(b, b'&' | b'+' | b'='))
            || (keep_slash && b == b'/');
        if keep {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Decodes `%XX` escapes once. Fails on a malformed escape (a `%` not followed by two hex
/// digits: `%+2`, `%g0`, a trailing `%`) or bytes that are not UTF-8.
pub fn percent_decode(s: &str) -> Result<String, UriError> {
    // percent-encoding keeps a malformed escape as written; a request URI holding one is refused.
    let bytes = s.as_bytes();
    let well_formed = memchr::memchr_iter(b'%', bytes).all(
        |i| matches!(bytes.get(i + 1..i + 3), Some([a, b]) if a.is_ascii_hexdigit() && b.is_ascii_hexdigit()),
    );
    if !well_formed {
        return Err(UriError::BadEscape);
    }
    match percent_encoding::percent_decode_str(s).decode_utf8() {
        Ok(decoded) => Ok(decoded.into_owned()),
        Err(_) => Err(UriError::NotUtf8),
    }
}

/// Why a request URI or path was refused before any lookup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UriError {
    /// A `%` not followed by two hex digits.
    BadEscape,
    /// Decoded bytes are not UTF-8.
    NotUtf8,
    /// A `..` or `.` segment, an empty segment or a backslash (possibly percent-encoded).
    Traversal,
    /// A control character (CR, LF, NUL, …), raw or percent-encoded.
    ControlCharacter,
    /// Longer than 32 KiB (its length in bytes).
    TooLong(usize),
    /// Not a URI of any family this catalog serves (`content/docs/reference/uris.md`).
    UnknownScheme,
    /// A query string that is malformed, repeats a parameter, or names one the family lacks.
    BadQuery(String),
}

impl std::fmt::Display for UriError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UriError::BadEscape => f.write_str("malformed percent-escape"),
            UriError::NotUtf8 => f.write_str("percent-escapes decode to bytes that are not UTF-8"),
            UriError::Traversal => {
                f.write_str("path has a `.` or `..` segment, an empty segment or a backslash")
            }
            UriError::ControlCharacter => {
                f.write_str("contains a control character (such as CR, LF or NUL), raw or percent-encoded")
            }
            UriError::TooLong(len) => {
                write!(f, "is {len} bytes long; catalog URIs are at most {MAX_URI_BYTES} bytes")
            }
            UriError::UnknownScheme => f.write_str(
                "not a catalog URI (expected `resource://catalog/…`, `resource://docs/…`, \
                 `resource://skills/…` or `skill://…`)",
            ),
            UriError::BadQuery(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for UriError {}

/// Decodes a raw (still percent-encoded) path once and checks that it is a clean relative path:
/// no `.`/`..`/empty segments, no backslash, no control characters (NUL included).
pub(crate) fn decode_path(raw: &str) -> Result<String, UriError> {
    let path = percent_decode(raw)?;
    check_path(&path)?;
    Ok(path)
}

/// Checks an already decoded relative path (`decode_path` decodes one).
///
/// A segment that still holds `%` escapes after the one decoding is decoded again only to look
/// for traversal: `%252e%252e` is an encoded `..` and is refused like it, rather than reaching a
/// lookup that some other layer might decode a second time.
pub fn check_path(path: &str) -> Result<(), UriError> {
    if path.chars().any(char::is_control) {
        return Err(UriError::ControlCharacter);
    }
    if path.is_empty() || path.contains('\\') {
        return Err(UriError::Traversal);
    }
    for seg in path.split('/') {
        if seg.is_empty() || seg == "." || seg == ".." {
            return Err(UriError::Traversal);
        }
        if seg.contains('%')
            && let Ok(again) = percent_decode(seg)
        {
            if again.chars().any(char::is_control) {
                return Err(UriError::ControlCharacter);
            }
            if again == "." || again == ".." || again.contains(['/', '\\']) {
                return Err(UriError::Traversal);
            }
        }
    }
    Ok(())
}

/// Checks one decoded component (a skill id or ref id): like [`check_path`], and `/` is allowed
/// only where the family allows it (`ref_id` may hold `/`, encoded as `%2F` in the URI).
fn check_component(component: &str, allow_slash: bool) -> Result<(), UriError> {
    if !allow_slash && component.contains('/') {
        return Err(UriError::Traversal);
    }
    check_path(component)
}

/// The query parameters of a request URI, decoded once, in the order given.
pub type Params = Vec<(String, String)>;

/// A request URI, parsed and checked, but not yet looked up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// `resource://catalog/about`.
    About,
    /// `resource://catalog/skills_index{?q,tag,capability,cursor,limit}`.
    SkillsIndex(Params),
    /// `resource://catalog/docs_index{?q,tag,category,lang,prefix,updated_since,cursor,limit}`.
    DocsIndex(Params),
    /// `resource://catalog/skills/{skill_id}`.
    SkillDetail {
        /// The decoded skill id (a skill name).
        skill_id: String,
    },
    /// `resource://catalog/docs/{+path}`.
    DocDetail {
        /// The decoded doc path, relative to `docs/`.
        path: String,
    },
    /// `resource://docs/{+path}{?section,lines}`.
    Doc {
        /// The decoded doc path, relative to `docs/`.
        path: String,
        /// `section` and `lines`, if given.
        params: Params,
    },
    /// `skill://{+skill_path}/{+file}` or a skill directory `skill://{+skill_path}[/{+dir}]`:
    /// which one is decided by the lookup, since skill paths nest.
    Skill {
        /// The decoded path after `skill://` (`acme/billing/references/api.md`).
        path: String,
        /// `section` and `lines`, if given.
        params: Params,
    },
    /// `resource://skills/{skill_id}/document`.
    SkillDocument {
        /// The decoded skill id.
        skill_id: String,
        /// `section` and `lines`, if given.
        params: Params,
    },
    /// `resource://skills/{skill_id}/references/{ref_id}` (`/` in a ref id encoded as `%2F`).
    SkillReference {
        /// The decoded skill id.
        skill_id: String,
        /// The decoded ref id (may hold `/`).
        ref_id: String,
        /// `section` and `lines`, if given.
        params: Params,
    },
}

/// Parses a request URI of any family of `content/docs/reference/uris.md`.
///
/// Every path is percent-decoded exactly once and checked before it is returned, so no lookup
/// ever sees `..`, `.`, empty segments, backslashes, control characters or an encoded variant
/// of them. Fails with [`UriError`] on any of those, on a URI over 32 KiB, on an
/// unknown scheme and on a malformed query string.
pub fn parse(uri: &str) -> Result<Target, UriError> {
    if uri.len() > MAX_URI_BYTES {
        return Err(UriError::TooLong(uri.len()));
    }
    if uri.chars().any(char::is_control) {
        return Err(UriError::ControlCharacter);
    }
    if uri.contains('#') {
        return Err(UriError::BadQuery("catalog URIs have no `#fragment`; use `?section=<id>`".to_owned()));
    }
    if uri.contains('\\') {
        return Err(UriError::Traversal);
    }
    let (base, query) = match uri.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (uri, None),
    };
    let params = parse_query(query)?;
    let no_params = |target: Target| {
        if params.is_empty() {
            Ok(target)
        } else {
            Err(UriError::BadQuery("this URI takes no query parameters".to_owned()))
        }
    };
    if base == ABOUT {
        return no_params(Target::About);
    }
    if base == SKILLS_INDEX {
        allow_params(&params, &["q", "tag", "capability", "cursor", "limit"])?;
        return Ok(Target::SkillsIndex(params));
    }
    if base == DOCS_INDEX {
        allow_params(
            &params,
            &["q", "tag", "category", "lang", "prefix", "updated_since", "cursor", "limit"],
        )?;
        return Ok(Target::DocsIndex(params));
    }
    if let Some(raw) = base.strip_prefix(SKILL_DETAIL_PREFIX) {
        let skill_id = percent_decode(raw)?;
        check_component(&skill_id, false)?;
        return no_params(Target::SkillDetail { skill_id });
    }
    if let Some(raw) = base.strip_prefix(DOC_DETAIL_PREFIX) {
        return no_params(Target::DocDetail { path: decode_path(raw)? });
    }
    if let Some(raw) = base.strip_prefix(DOCS_PREFIX) {
        allow_params(&params, &["section", "lines"])?;
        return Ok(Target::Doc { path: decode_path(raw)?, params });
    }
    if let Some(raw) = base.strip_prefix(SKILL_PREFIX) {
        allow_params(&params, &["section", "lines"])?;
        return Ok(Target::Skill { path: decode_path(raw)?, params });
    }
    if let Some(rest) = base.strip_prefix(SKILL_ALIAS_PREFIX) {
        allow_params(&params, &["section", "lines"])?;
        // Split before decoding: the skill id and ref id are single components, and a `/` inside
        // a ref id arrives as `%2F`.
        let (raw_id, tail) = rest.split_once('/').ok_or(UriError::UnknownScheme)?;
        let skill_id = percent_decode(raw_id)?;
        check_component(&skill_id, false)?;
        if tail == "document" {
            return Ok(Target::SkillDocument { skill_id, params });
        }
        if let Some(raw_ref) = tail.strip_prefix("references/") {
            let ref_id = percent_decode(raw_ref)?;
            check_component(&ref_id, true)?;
            return Ok(Target::SkillReference { skill_id, ref_id, params });
        }
        return Err(UriError::UnknownScheme);
    }
    Err(UriError::UnknownScheme)
}

fn parse_query(query: Option<&str>) -> Result<Params, UriError> {
    let mut params: Params = Vec::new();
    let Some(query) = query else { return Ok(params) };
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        // `+` is a space in form encoding, which clients use for `q=`.
        let key = percent_decode(&key.replace('+', " "))?;
        let value = percent_decode(&value.replace('+', " "))?;
        if key.contains('\0') || value.contains('\0') {
            return Err(UriError::ControlCharacter);
        }
        if params.iter().any(|(k, _)| *k == key) {
            return Err(UriError::BadQuery(format!("query parameter `{}` is given twice", echo(&key))));
        }
        params.push((key, value));
    }
    Ok(params)
}

fn allow_params(params: &Params, allowed: &[&str]) -> Result<(), UriError> {
    match params.iter().find(|(k, _)| !allowed.contains(&k.as_str())) {
        None => Ok(()),
        Some((key, _)) => Err(UriError::BadQuery(format!(
            "unknown query parameter `{}` (this URI accepts {})",
            echo(key),
            allowed.iter().map(|a| format!("`{a}`")).collect::<Vec<_>>().join(", ")
        ))),
    }
}

/// Builds a query string (`?a=1&b=2`) from pairs, percent-encoding each value; empty when no pair.
pub fn query_string(pairs: &[(&str, &str)]) -> String {
    let mut out = String::new();
    for (key, value) in pairs {
        out.push(if out.is_empty() { '?' } else { '&' });
        out.push_str(key);
        out.push('=');
        out.push_str(&encode_query_value(value));
    }
    out
}

/// URI of the SKILL.md alias family: `resource://skills/{skill_id}/document`.
pub fn skill_document_alias(skill_id: &str) -> String {
    format!("{SKILL_ALIAS_PREFIX}{}/document", encode_component(skill_id))
}

/// URI of the reference alias family: `resource://skills/{skill_id}/references/{ref_id}`.
pub fn skill_reference_alias(skill_id: &str, ref_id: &str) -> String {
    format!("{SKILL_ALIAS_PREFIX}{}/references/{}", encode_component(skill_id), encode_component(ref_id))
}

/// A section of a doc or skill file: `<uri>?section=<id>`.
pub fn with_section(uri: &str, section: &str) -> String {
    format!("{uri}{}", query_string(&[("section", section)]))
}

/// A line range of a doc or skill file: `<uri>?lines=<start>-<end>`.
pub fn with_lines(uri: &str, start: u32, end: u32) -> String {
    format!("{uri}?lines={start}-{end}")
}

pub mod shelf;

#[cfg(test)]
mod tests;
