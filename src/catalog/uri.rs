//! Every URI family Folio serves (DESIGN §5): building canonical URIs, and (at run time)
//! parsing request URIs with traversal rejected before any lookup. This is the only URI code.
//!
//! Performs no IO and knows nothing of MCP; it is mounted by `build.rs`.

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
    encode(path, true)
}

/// Percent-encodes one component: like [`encode_path`], but `/` becomes `%2F`.
pub fn encode_component(component: &str) -> String {
    encode(component, false)
}

fn encode(s: &str, keep_slash: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for &b in s.as_bytes() {
        let keep = b.is_ascii_alphanumeric()
            || matches!(b, b'-' | b'.' | b'_' | b'~' | b'!' | b'$' | b'&' | b'\'' | b'(' | b')')
            || matches!(b, b'*' | b'+' | b',' | b';' | b'=' | b':' | b'@')
            || (keep_slash && b == b'/');
        if keep {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Decodes `%XX` escapes once. Fails on a malformed escape or bytes that are not UTF-8.
pub fn percent_decode(s: &str) -> Result<String, UriError> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3).ok_or(UriError::BadEscape)?;
            let hex = std::str::from_utf8(hex).map_err(|_| UriError::BadEscape)?;
            out.push(u8::from_str_radix(hex, 16).map_err(|_| UriError::BadEscape)?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| UriError::NotUtf8)
}

/// Why a request URI or path was refused before any lookup.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UriError {
    /// A `%` not followed by two hex digits.
    BadEscape,
    /// Decoded bytes are not UTF-8.
    NotUtf8,
    /// A `..` or `.` segment, an empty segment, a backslash or a NUL.
    Traversal,
}

impl std::fmt::Display for UriError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            UriError::BadEscape => "malformed percent-escape",
            UriError::NotUtf8 => "percent-escapes decode to bytes that are not UTF-8",
            UriError::Traversal => "path has a `.` or `..` segment, an empty segment, a backslash or a NUL",
        })
    }
}

impl std::error::Error for UriError {}

/// Decodes a raw (still percent-encoded) path once and checks that it is a clean relative path:
/// no `.`/`..`/empty segments, no backslash, no NUL, no control characters.
pub fn decode_path(raw: &str) -> Result<String, UriError> {
    let path = percent_decode(raw)?;
    check_path(&path)?;
    Ok(path)
}

/// Checks an already decoded relative path (see [`decode_path`]).
pub fn check_path(path: &str) -> Result<(), UriError> {
    if path.is_empty() || path.chars().any(|c| c == '\\' || c.is_control()) {
        return Err(UriError::Traversal);
    }
    if path.split('/').any(|seg| seg.is_empty() || seg == "." || seg == "..") {
        return Err(UriError::Traversal);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_canonical_uris() {
        assert_eq!(doc("guides/install.md"), "resource://docs/guides/install.md");
        assert_eq!(doc("a b/ü.md"), "resource://docs/a%20b/%C3%BC.md");
        assert_eq!(skill_file("acme/billing", "SKILL.md"), "skill://acme/billing/SKILL.md");
        assert_eq!(skill_dir("acme/billing"), "skill://acme/billing");
        assert_eq!(skill_detail("a/b"), "resource://catalog/skills/a%2Fb");
    }

    #[test]
    fn decoding_rejects_traversal_in_every_spelling() {
        for bad in [
            "../x", "a/../b", "%2e%2e/x", "a/%2E%2E", "a//b", "a\\b", "a%5Cb", "a%00b", "./a", "", "%zz",
            "%ff",
        ] {
            assert!(decode_path(bad).is_err(), "{bad:?} must be refused");
        }
        assert_eq!(decode_path("a%20b/c.md").unwrap(), "a b/c.md");
        assert_eq!(decode_path("a%2Fb").unwrap(), "a/b");
    }
}
