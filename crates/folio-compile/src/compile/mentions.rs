//! The mention lint (`mentioned-file`): a file name or relative path written in a skill's
//! SKILL.md or markdown reference files, in plain text or a code span, that names no file of
//! the skill but names one ignoring case, or one edit away, is reported with "did you mean".
//! An agent follows the text: "see REFERENCE.md" fails on a case-sensitive file system when the
//! file is `reference.md`.
//!
//! Quiet by design, so it can run on every skill: only words with a known file extension are
//! mentions (not every dotted word), fenced and indented code blocks and link targets are left
//! out (links are `links`'s), and a near-miss counts only when exactly one file of the skill is
//! that near (the same name ignoring case, or a stem one edit away with the same extension and
//! at least four characters). Names of files outside the skill (`package.json` of the user's
//! project) match nothing and are never reported.
//!
//! `scan` runs inside the markdown analysis of each of a skill's markdown files, on the
//! parallel stage (one parse per file: `markdown::analyze_with_mentions` gives a file's
//! mentions); [`check`] runs once the skill's files are known. Pure: no IO; must not parse
//! markdown itself, nor import the markdown analysis that calls it.

use super::diagnostic::{Code, Diagnostic};

/// A file name or path written in a skill's markdown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mention {
    /// As written (`references/Forms.md`).
    pub text: String,
    /// 1-based line and column in the file.
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
}

/// Extensions that make a word a file mention.
const EXTENSIONS: &[&str] = &[
    "md", "mdx", "markdown", "txt", "py", "sh", "bash", "js", "mjs", "cjs", "ts", "tsx", "jsx", "json",
    "yaml", "yml", "toml", "xml", "xsd", "html", "htm", "css", "csv", "sql", "rs", "go", "java", "rb",
    "ipynb", "ini", "cfg", "svg", "png", "jpg", "jpeg", "gif", "pdf", "docx", "xlsx", "pptx", "zip", "ttf",
    "otf",
];

/// Adds to `out` the mentions in one text or code run of a body (`run`, as the parser gives
/// it), whose source is `source`, at byte `start` of the parsed text; `locate` gives an
/// offset's line and column. The markdown analysis calls it outside code blocks and link text.
pub(super) fn scan(
    run: &str,
    source: &str,
    start: usize,
    locate: &dyn Fn(usize) -> (u32, u32),
    out: &mut Vec<Mention>,
) {
    for word in words(run) {
        if !is_mention(word) {
            continue;
        }
        // The word's place in the source (the run may differ from it by escapes).
        let (line, column) = locate(start + source.find(word).unwrap_or(0));
        out.push(Mention { text: word.to_owned(), line, column });
    }
}

/// The words of a text run: split at whitespace and the punctuation that surrounds a name in a
/// sentence, with trailing sentence punctuation removed.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| {
        c.is_whitespace()
            || matches!(c, '(' | ')' | '[' | ']' | '<' | '>' | '"' | '\'' | '`' | ',' | ';' | '|' | '=' | '*')
    })
    .map(|w| w.trim_end_matches(['.', ':', '!', '?']))
    .filter(|w| !w.is_empty())
}

/// True for a relative file name or path with a known extension: no URL, no absolute or
/// parent path, no glob or placeholder.
fn is_mention(word: &str) -> bool {
    // This runs on every word of every skill's markdown, so the extension is tested first: one
    // short scan turns away almost every word of prose, where the URL and path tests below scan
    // each word several times. What follows the word's last dot is the last segment's extension,
    // or holds a `/` and matches no extension.
    let Some((head, ext)) = word.rsplit_once('.') else { return false };
    if !EXTENSIONS.iter().any(|e| e.eq_ignore_ascii_case(ext)) {
        return false;
    }
    let stem = head.rsplit('/').next().unwrap_or(head);
    !(stem.is_empty()
        || word.contains("://")
        || word.starts_with(['/', '~', '-', '.', '@', '#'])
        || word.contains("..")
        || word.contains(['*', '{', '}', '$', '%', '\\', ':', '?', '&']))
}

/// Checks the mentions of one markdown file of a skill: `path` is the file's content path,
/// `file_dir` its directory relative to the skill (`""` for SKILL.md, `references`), `files` the
/// paths of every file of the skill relative to its directory.
pub(crate) fn check(
    path: &str,
    skill_dir: &str,
    file_dir: &str,
    files: &[&str],
    mentions: &[Mention],
    diags: &mut Vec<Diagnostic>,
) {
    for m in mentions {
        let mention = m.text.strip_prefix("./").unwrap_or(&m.text);
        let from_dir = if file_dir.is_empty() { mention.to_owned() } else { format!("{file_dir}/{mention}") };
        let bare = !mention.contains('/');
        let exact =
            |f: &&str| *f == mention || *f == from_dir || bare && f.rsplit('/').next() == Some(mention);
        if files.iter().any(exact) {
            continue;
        }
        let Some((near, case_only)) = nearest(mention, &from_dir, bare, files) else { continue };
        let d = Diagnostic::warning(
            Code::MentionedFile,
            path,
            m.line,
            m.column,
            format!("`{}` names no file of skill `{skill_dir}`; did you mean `{near}`?", m.text),
        );
        diags.push(d.with_help(if case_only {
            format!("write `{near}`: file names are case-sensitive, and an agent that follows the text fails to open `{}`", m.text)
        } else {
            format!("write `{near}`, or add the file `{}`", m.text)
        }));
    }
}

/// The one file of the skill near a mention: the same path ignoring case (`true`), else a name
/// one edit away in the stem with the same extension (`false`). `None` when none or several are.
fn nearest<'a>(mention: &str, from_dir: &str, bare: bool, files: &[&'a str]) -> Option<(&'a str, bool)> {
    let base = |f: &'a str| if bare { f.rsplit('/').next().unwrap_or(f) } else { f };
    let (mention_lower, from_dir_lower) = (mention.to_lowercase(), from_dir.to_lowercase());
    let same_case =
        |f: &&'a str| base(f).to_lowercase() == mention_lower || !bare && f.to_lowercase() == from_dir_lower;
    let by_case: Vec<&str> = files.iter().copied().filter(|f| same_case(f)).collect();
    if let [one] = by_case[..] {
        return Some((one, true));
    }
    if !by_case.is_empty() {
        return None;
    }
    let (stem, ext) = mention.rsplit_once('.')?;
    if stem.rsplit('/').next().unwrap_or(stem).chars().count() < 4 {
        return None;
    }
    let close: Vec<&str> = files
        .iter()
        .copied()
        .filter(|f| {
            let Some((f_stem, f_ext)) = base(f).rsplit_once('.') else { return false };
            f_ext == ext && one_edit(stem, f_stem)
        })
        .collect();
    match close[..] {
        [one] => Some((one, false)),
        _ => None,
    }
}

/// True when `a` and `b` differ by exactly one insertion, deletion or substitution.
fn one_edit(a: &str, b: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a == b || a.len().abs_diff(b.len()) > 1 {
        return false;
    }
    let (short, long) = if a.len() <= b.len() { (&a, &b) } else { (&b, &a) };
    let prefix = short.iter().zip(long.iter()).take_while(|(x, y)| x == y).count();
    if short.len() == long.len() {
        short[prefix + 1..] == long[prefix + 1..]
    } else {
        short[prefix..] == long[prefix + 1..]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `is_mention` as first written, path tests before the extension: the reference that the
    /// reordered one must agree with.
    fn is_mention_reference(word: &str) -> bool {
        if word.contains("://")
            || word.starts_with(['/', '~', '-', '.', '@', '#'])
            || word.contains("..")
            || word.contains(['*', '{', '}', '$', '%', '\\', ':', '?', '&'])
        {
            return false;
        }
        let name = word.rsplit('/').next().unwrap_or(word);
        let Some((stem, ext)) = name.rsplit_once('.') else { return false };
        !stem.is_empty() && EXTENSIONS.iter().any(|e| e.eq_ignore_ascii_case(ext))
    }

    proptest::proptest! {
        /// Testing the extension first changes no answer: words built from path punctuation and
        /// pieces of known extensions, where dots, slashes and URLs are common.
        #[test]
        fn is_mention_agrees_with_the_path_tests_first(
            word in "([a/.:~@#*{$-]|md|MD|py|json|x|//|\\.\\.){0,8}",
        ) {
            proptest::prop_assert_eq!(is_mention(&word), is_mention_reference(&word), "{:?}", word);
        }

        /// `one_edit` is exactly "Levenshtein distance 1", on a small alphabet where near misses
        /// are common.
        #[test]
        fn one_edit_is_levenshtein_distance_one(a in "[abé_.]{0,7}", b in "[abé_.]{0,7}") {
            proptest::prop_assert_eq!(one_edit(&a, &b), strsim::levenshtein(&a, &b) == 1, "{:?} {:?}", a, b);
        }
    }

    #[test]
    fn one_edit_is_one_insertion_deletion_or_substitution() {
        assert!(one_edit("form", "forms") && one_edit("forms", "form") && one_edit("fill", "fall"));
        assert!(!one_edit("form", "form") && !one_edit("form", "farms") && !one_edit("ab", "ba"));
    }
}
