//! Pure rules over the parsed tree: skill limits, unique URIs and skill names, portable file
//! names, UTF-8.
//!
//! No IO, no parsing: every function takes what the earlier stages found and returns diagnostics.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::collections::btree_map::Entry;

use unicode_normalization::UnicodeNormalization as _;

use super::diagnostic::{Code, Diagnostic};
use super::frontmatter::Located;

/// Most files one skill may hold, SKILL.md included (SEP-2640).
pub(crate) const MAX_SKILL_FILES: usize = 512;
/// Most bytes one skill may hold in total (SEP-2640): 16 MiB.
pub(crate) const MAX_SKILL_BYTES: u64 = 16 * 1024 * 1024;
/// SKILL.md longer than this many lines is a warning (Agent Skills guidance: keep it under 500
/// lines and move detail into references).
pub(crate) const MAX_SKILL_MD_LINES: u32 = 500;

/// `invalid-utf8`: the line and column of the first byte that is not UTF-8, or `None` when the
/// bytes are valid UTF-8.
pub(crate) fn utf8(path: &str, bytes: &[u8]) -> Option<Diagnostic> {
    let err = std::str::from_utf8(bytes).err()?;
    let valid = &bytes[..err.valid_up_to()];
    let line_start = valid.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let line = 1 + valid.iter().filter(|&&b| b == b'\n').count();
    // The prefix is valid UTF-8, so counting non-continuation bytes counts characters.
    let column = 1 + valid[line_start..].iter().filter(|&&b| (b & 0xC0) != 0x80).count();
    Some(
        Diagnostic::error(
            Code::InvalidUtf8,
            path,
            u32::try_from(line).unwrap_or(u32::MAX),
            u32::try_from(column).unwrap_or(u32::MAX),
            format!(
                "`{path}` is not valid UTF-8: byte 0x{:02X} at offset {}",
                bytes[err.valid_up_to()],
                err.valid_up_to()
            ),
        )
        .with_help("save the file as UTF-8"),
    )
}

/// One skill as the validator sees it.
#[derive(Debug, Clone)]
pub(crate) struct SkillShape<'a> {
    /// Content-relative path of SKILL.md.
    pub document: &'a str,
    /// Content-relative skill directory.
    pub dir: &'a str,
    /// Every file of the skill, SKILL.md included: path relative to the skill dir, and size.
    pub files: Vec<(&'a str, u64)>,
    /// Lines of SKILL.md.
    pub document_lines: u32,
}

/// Skill limits: `skill-too-many-files`, `skill-too-large`, `skill-md-too-long`.
pub(crate) fn skill(shape: &SkillShape<'_>, diags: &mut Vec<Diagnostic>) {
    let doc = shape.document;
    if shape.files.len() > MAX_SKILL_FILES {
        diags.push(
            Diagnostic::error(
                Code::SkillTooManyFiles,
                doc,
                1,
                1,
                format!(
                    "skill `{}` holds {} files, more than {MAX_SKILL_FILES}",
                    shape.dir,
                    shape.files.len()
                ),
            )
            .with_help("move bulky assets out of the skill, or split it into several skills"),
        );
    }
    let total: u64 = shape.files.iter().map(|(_, size)| size).sum();
    if total > MAX_SKILL_BYTES {
        diags.push(
            Diagnostic::error(
                Code::SkillTooLarge,
                doc,
                1,
                1,
                format!("skill `{}` holds {total} bytes, more than {MAX_SKILL_BYTES} (16 MiB)", shape.dir),
            )
            .with_help("move large assets out of the skill"),
        );
    }
    if shape.document_lines > MAX_SKILL_MD_LINES {
        diags.push(
            Diagnostic::warning(
                Code::SkillMdTooLong,
                doc,
                MAX_SKILL_MD_LINES + 1,
                1,
                format!("SKILL.md has {} lines, more than {MAX_SKILL_MD_LINES}", shape.document_lines),
            )
            .with_help("move detail into reference files and link them from SKILL.md"),
        );
    }
}

/// `duplicate-skill-name`: skills (by SKILL.md path, sorted) with their located names.
pub(crate) fn skill_names(skills: &[(&str, &Located<String>)], diags: &mut Vec<Diagnostic>) {
    let mut seen: BTreeMap<&str, &str> = BTreeMap::new();
    for (document, name) in skills {
        match seen.get(name.value.as_str()) {
            Some(first) => diags.push(
                Diagnostic::error(
                    Code::DuplicateSkillName,
                    document,
                    name.line,
                    name.column,
                    format!("skill name `{}` {DUPLICATE_OF}{first}`", name.value),
                )
                .with_help("skill names are their ids and must be unique in the catalog; rename one"),
            ),
            None => {
                seen.insert(&name.value, document);
            }
        }
    }
}

/// `<scope>:<name>`: a skill's name where its host scopes it, with the frontmatter's position.
pub(crate) fn scoped_name(scope: &str, name: &Located<String>) -> Located<String> {
    Located { value: format!("{scope}:{}", name.value), ..name.clone() }
}

/// The SKILL.md a `duplicate-skill-name` diagnostic says first used the name (the message
/// [`skill_names`] writes names it last, in backquotes).
pub(crate) fn duplicate_of(d: &Diagnostic) -> Option<&str> {
    if d.code != Code::DuplicateSkillName {
        return None;
    }
    let (_, first) = d.message.rsplit_once(DUPLICATE_OF)?;
    first.strip_suffix('`')
}

const DUPLICATE_OF: &str = "is already used by `";

/// `duplicate-uri`: (uri, content-relative path) pairs, sorted; each URI may name one file.
/// Sorted, the files of one URI are adjacent, and the first by path is the one the others are
/// reported against.
pub(crate) fn unique_uris(uris: &[(&str, &str)], diags: &mut Vec<Diagnostic>) {
    debug_assert!(uris.is_sorted());
    for group in uris.chunk_by(|a, b| a.0 == b.0) {
        let (uri, first) = group[0];
        for &(_, path) in &group[1..] {
            diags.push(
                Diagnostic::error(
                    Code::DuplicateUri,
                    path,
                    1,
                    1,
                    format!("`{path}` and `{first}` would both be served as `{uri}`"),
                )
                .with_help("rename one of them"),
            );
        }
    }
}

/// Windows device names, reserved with any extension (`con.md` too).
const RESERVED: &[&str] = &[
    "CON", "PRN", "AUX", "NUL", "COM0", "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8",
    "COM9", "LPT0", "LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9", "COM¹", "COM²",
    "COM³", "LPT¹", "LPT²", "LPT³",
];

/// File and directory names that do not survive a checkout on every system: `non-portable-name`
/// (Windows-reserved names and characters, trailing dot or space, control characters, NFD names
/// and NFC/NFD twins) and `case-collision` (siblings equal ignoring case). `paths` are the
/// content-relative paths of every file; each distinct directory and file is checked once.
pub(crate) fn portable_names(paths: &[&str], diags: &mut Vec<Diagnostic>) {
    // Every distinct directory and file path. In path order a directory's files are adjacent, so
    // the directories a path shares with the one before it are already listed: only the
    // segments after them are new (in any other order the dedup below still removes repeats).
    let mut prefixes: Vec<&str> = Vec::with_capacity(paths.len() * 2);
    let mut previous = "";
    for path in paths {
        let mut end = shared_dirs(previous, path);
        for seg in path[end..].split('/') {
            end += seg.len();
            prefixes.push(&path[..end]);
            end += 1;
        }
        previous = path;
    }
    prefixes.sort_unstable();
    prefixes.dedup();
    let mut by_case: BTreeMap<(&str, Cow<'_, str>), &str> = BTreeMap::new();
    let mut by_form: BTreeMap<(&str, String), &str> = BTreeMap::new();
    for prefix in prefixes {
        let (parent, name) = prefix.rsplit_once('/').unwrap_or(("", prefix));
        if let Some(why) = non_portable(name) {
            diags.push(
                Diagnostic::error(Code::NonPortableName, prefix, 1, 1, format!("`{name}` {why}"))
                    .with_help("rename it so it can be checked out on Windows, macOS and Linux"),
            );
        }
        // An ASCII name is in every normal form: only the others need the Unicode tables.
        let composed = (!name.is_ascii()).then(|| name.nfc().collect::<String>());
        if let Some(composed) = composed.as_deref().filter(|c| *c != name) {
            diags.push(
                Diagnostic::warning(
                    Code::NonPortableName,
                    prefix,
                    1,
                    1,
                    format!(
                        "`{name}` (`{}`) is not in composed Unicode (NFC): macOS and Windows may \
                         present it differently",
                        escape_non_ascii(name)
                    ),
                )
                .with_help(format!("rename it to its NFC spelling, `{}`", escape_non_ascii(composed))),
            );
        }
        // Canonically equivalent names have the same NFC form (Unicode's definition of
        // canonical equivalence), and are the same name to macOS.
        if let Some(composed) = composed {
            match by_form.entry((parent, composed)) {
                Entry::Occupied(first) if *first.get() != name => diags.push(
                    Diagnostic::error(
                        Code::NonPortableName,
                        prefix,
                        1,
                        1,
                        format!(
                            "`{name}` (`{}`) and `{}` (`{}`) differ only in Unicode normalisation \
                             (NFC vs NFD)",
                            escape_non_ascii(name),
                            first.get(),
                            escape_non_ascii(first.get())
                        ),
                    )
                    .with_help("they are the same name on macOS; keep one"),
                ),
                Entry::Occupied(_) => {}
                Entry::Vacant(slot) => {
                    slot.insert(name);
                }
            }
        }
        // Most names have no uppercase letter: they are their own key, without an allocation.
        let lower = if name.bytes().all(|b| b.is_ascii() && !b.is_ascii_uppercase()) {
            Cow::Borrowed(name)
        } else {
            Cow::Owned(name.to_lowercase())
        };
        match by_case.entry((parent, lower)) {
            Entry::Occupied(first) => diags.push(
                Diagnostic::error(
                    Code::CaseCollision,
                    prefix,
                    1,
                    1,
                    format!(
                        "`{name}` and `{}` differ only in case; they collide on macOS and Windows",
                        first.get()
                    ),
                )
                .with_help("rename or merge one of them"),
            ),
            Entry::Vacant(slot) => {
                slot.insert(name);
            }
        }
    }
}

/// Length of the directories `a` and `b` share: up to and including the last `/` both have at
/// the same place with equal bytes before it (0 when they share no directory).
fn shared_dirs(a: &str, b: &str) -> usize {
    let mut shared = 0;
    for (i, (x, y)) in a.bytes().zip(b.bytes()).enumerate() {
        if x != y {
            break;
        }
        if x == b'/' {
            shared = i + 1;
        }
    }
    shared
}

/// Why a single name is not portable, if it is not.
fn non_portable(name: &str) -> Option<String> {
    if let Some(c) =
        name.chars().find(|c| matches!(c, '<' | '>' | ':' | '"' | '|' | '?' | '*' | '\\') || c.is_control())
    {
        return Some(format!(
            "contains `{}`, which Windows does not allow in file names",
            c.escape_default()
        ));
    }
    if name.ends_with('.') || name.ends_with(' ') {
        return Some("ends with a dot or a space, which Windows strips".to_owned());
    }
    let stem = name.split('.').next().unwrap_or(name).trim_end_matches(' ');
    // The reserved names are written in uppercase: one conversion of the stem compares with
    // all of them (converting each pair cost 60 allocations per name on large trees).
    if RESERVED.contains(&stem.to_uppercase().as_str()) {
        return Some(format!("is a reserved device name on Windows (`{stem}`)"));
    }
    None
}

/// `name` with each non-ASCII character written as its code point (`re\u{301}sume\u{301}.md`),
/// so names that render alike can be told apart in a message.
fn escape_non_ascii(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii() { c.to_string() } else { c.escape_unicode().to_string() }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::diagnostic::Severity;

    #[track_caller]
    fn codes(paths: &[&str]) -> Vec<(String, &'static str)> {
        let mut diags = Vec::new();
        portable_names(paths, &mut diags);
        diags.into_iter().map(|d| (d.path, d.code.name())).collect()
    }

    #[test]
    fn utf8_error_points_at_first_bad_byte() {
        let d = utf8("docs/a.md", b"# ok\nab\xc3\xa9c\xff").unwrap();
        assert_eq!((d.line, d.column, d.code), (2, 5, Code::InvalidUtf8));
        assert!(utf8("docs/a.md", "é\n".as_bytes()).is_none());
    }

    #[test]
    fn every_file_sharing_a_uri_is_reported_against_the_first() {
        let mut uris = vec![
            ("resource://docs/a", "docs/a.md"),
            ("resource://docs/b", "docs/b/index.md"),
            ("resource://docs/a", "docs/a/index.md"),
            ("resource://docs/a", "docs/a/README.md"),
            ("resource://docs/c", "docs/c.md"),
        ];
        uris.sort();
        let mut diags = Vec::new();
        unique_uris(&uris, &mut diags);
        let got: Vec<(String, String)> = diags.into_iter().map(|d| (d.path, d.message)).collect();
        assert_eq!(
            got,
            [
                (
                    "docs/a/README.md".to_owned(),
                    "`docs/a/README.md` and `docs/a.md` would both be served as `resource://docs/a`"
                        .to_owned()
                ),
                (
                    "docs/a/index.md".to_owned(),
                    "`docs/a/index.md` and `docs/a.md` would both be served as `resource://docs/a`"
                        .to_owned()
                ),
            ]
        );
    }

    #[test]
    fn reserved_and_odd_names_are_not_portable() {
        assert_eq!(codes(&["docs/con.md"]), [("docs/con.md".to_owned(), "non-portable-name")]);
        assert_eq!(codes(&["docs/LPT1/x.md"]), [("docs/LPT1".to_owned(), "non-portable-name")]);
        assert_eq!(codes(&["docs/a?.md"]).len(), 1);
        assert_eq!(codes(&["docs/a. "]).len(), 1);
        assert!(codes(&["docs/console.md", "docs/a.b.md"]).is_empty());
        assert_eq!(codes(&["docs/Com1.txt", "docs/lpt¹", "docs/nul .md"]).len(), 3);
        assert!(RESERVED.iter().all(|r| r.to_uppercase() == *r), "compared with uppercase stems");
    }

    #[test]
    fn case_and_normalisation_twins_collide() {
        assert_eq!(
            codes(&["docs/Guide.md", "docs/guide.md"]),
            [("docs/guide.md".to_owned(), "case-collision")]
        );
        let nfd = "docs/re\u{301}sume\u{301}.md";
        let found = codes(&["docs/résumé.md", nfd]);
        assert!(found.contains(&(nfd.to_owned(), "non-portable-name")), "{found:?}");
        assert_eq!(found.len(), 2, "an NFD warning and a twin error: {found:?}");
        assert!(codes(&["docs/résumé.md", "docs/resume.md"]).is_empty());
    }

    #[test]
    fn normalisation_twins_are_found_in_every_script() {
        // (NFC, NFD) spellings as macOS tools write them: Japanese voiced kana (U+3099), Hangul
        // syllables (split into jamo), Vietnamese stacked marks, Cyrillic й, Greek with tonos.
        let pairs = [
            ("\u{304C}\u{30A4}\u{30C9}", "\u{304B}\u{3099}\u{30A4}\u{30C8}\u{3099}"),
            ("\u{D55C}\u{AE00}", "\u{1112}\u{1161}\u{11AB}\u{1100}\u{1173}\u{11AF}"),
            ("vi\u{1EC7}t", "vie\u{323}\u{302}t"),
            ("\u{439}", "\u{438}\u{306}"),
            ("\u{3AC}", "\u{3B1}\u{301}"),
        ];
        for (nfc, nfd) in pairs {
            let (nfc, nfd) = (format!("docs/{nfc}.md"), format!("docs/{nfd}.md"));
            let mut diags = Vec::new();
            portable_names(&[&nfc, &nfd], &mut diags);
            let found: Vec<_> = diags.iter().map(|d| (d.path.as_str(), d.severity)).collect();
            // The later path (in byte order) is the twin; the decomposed one is also a warning.
            let later = nfc.as_str().max(nfd.as_str());
            assert!(found.contains(&(later, Severity::Error)), "{nfd}: {found:?}");
            assert!(found.contains(&(nfd.as_str(), Severity::Warning)), "{nfd}: {found:?}");
            assert_eq!(found.len(), 2, "{nfd}: {found:?}");
            // Alone, the composed spelling is fine.
            assert!(codes(&[&nfc]).is_empty(), "{nfc}");
        }
    }

    #[test]
    fn a_decomposed_name_is_named_with_its_code_points() {
        let mut diags = Vec::new();
        portable_names(&["docs/cafe\u{301}.md"], &mut diags);
        assert_eq!(
            diags[0].message,
            "`cafe\u{301}.md` (`cafe\\u{301}.md`) is not in composed Unicode (NFC): macOS and Windows \
             may present it differently"
        );
        assert_eq!(diags[0].help.as_deref(), Some("rename it to its NFC spelling, `caf\\u{e9}.md`"));
    }

    #[test]
    fn directories_are_checked_once_in_any_path_order() {
        assert_eq!(shared_dirs("docs/a/x.md", "docs/a/y.md"), "docs/a/".len());
        assert_eq!(shared_dirs("docs/ab/x.md", "docs/ac/x.md"), "docs/".len());
        assert_eq!(shared_dirs("docs/x.md", "skills/x.md"), 0);
        // A directory met again after other paths is still one directory, and a twin that
        // only differs in case is found wherever it comes.
        let found =
            codes(&["docs/A/x.md", "docs/b.md", "docs/A/y.md", "docs/a/z.md", "docs/É/1.md", "docs/é/2.md"]);
        assert_eq!(found, [("docs/a".to_owned(), "case-collision"), ("docs/é".to_owned(), "case-collision")]);
    }
}
