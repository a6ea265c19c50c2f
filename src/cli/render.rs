//! Rendering of diagnostics for people and CI (`human`, `json`, `github`), bounded whatever the
//! content: a source line is clipped to a window around the column, at most
//! [`MAX_PER_CODE_AND_FILE`] diagnostics of one code are rendered per file (then one summary),
//! and control characters from file names or content are escaped (`\u{1b}`), so a hostile tree
//! cannot flood a terminal or a CI log, nor drive the terminal with escape sequences.
//!
//! No IO: the caller hands in the source text through a lookup closure, so it decides where the
//! text comes from (`folio check` re-reads only the files that have diagnostics). Terminal
//! safety (what is escaped, how wide a character is) is `terminal`'s.

use std::fmt::Write as _;

use folio::compile::{Code, Diagnostic, Severity, count_diagnostics as counts};
use serde::Serialize;

use super::terminal::{printable, unprintable};

/// Most diagnostics of one code rendered for one file; the rest are counted in one summary
/// line (the final totals still count every diagnostic).
pub(crate) const MAX_PER_CODE_AND_FILE: usize = 50;

/// Most characters of a source line shown under a diagnostic; a longer line is clipped to a
/// window around the column, with `...` where it was cut.
pub(crate) const MAX_SOURCE_CHARS: usize = 100;

/// How a rendered path is shown: the content directory as the user named it, then the
/// content-relative path, so locations are clickable from where the command ran.
fn display_path(prefix: &str, path: &str) -> String {
    let prefix = prefix.trim_end_matches('/');
    if prefix.is_empty() || prefix == "." {
        path.to_owned()
    } else if path == "." {
        // A diagnostic about the whole tree names the content root itself (`docs`, not `docs/.`).
        prefix.to_owned()
    } else {
        format!("{prefix}/{path}")
    }
}

/// The diagnostics to render, in order, each followed by the summaries of the groups that
/// end with it: a group is a (path, code) whose diagnostics past [`MAX_PER_CODE_AND_FILE`]
/// are left out. Diagnostics are sorted by path, so a file's summaries come after its last
/// diagnostic.
struct Capped<'a> {
    shown: Vec<(&'a Diagnostic, Vec<Omitted<'a>>)>,
}

/// The diagnostics of one code in one file that were left out.
struct Omitted<'a> {
    /// The first one left out (its location and severity stand for the group).
    first: &'a Diagnostic,
    count: usize,
    /// The cap that left them out.
    limit: usize,
}

impl Omitted<'_> {
    fn message(&self, where_: &str) -> String {
        format!(
            "... and {} more `{}` diagnostics in {where_} (at most {} per code and file are shown)",
            self.count, self.first.code, self.limit
        )
    }
}

fn cap(diagnostics: &[Diagnostic], limit: usize) -> Capped<'_> {
    let mut shown: Vec<(&Diagnostic, Vec<Omitted<'_>>)> = Vec::new();
    // The current file's groups: code, diagnostics seen, first left out.
    let mut groups: Vec<Group<'_>> = Vec::new();
    for (i, d) in diagnostics.iter().enumerate() {
        if i > 0 && diagnostics[i - 1].path != d.path {
            flush(&mut groups, &mut shown, limit);
        }
        let group = match groups.iter_mut().position(|g| g.0 == d.code) {
            Some(at) => &mut groups[at],
            None => {
                groups.push((d.code, 0, None));
                groups.last_mut().expect("just pushed")
            }
        };
        group.1 += 1;
        if group.1 <= limit {
            shown.push((d, Vec::new()));
        } else if group.2.is_none() {
            group.2 = Some(d);
        }
    }
    flush(&mut groups, &mut shown, limit);
    Capped { shown }
}

/// One file's groups of one code: the code, how many were seen, the first left out.
type Group<'a> = (Code, usize, Option<&'a Diagnostic>);

/// Ends a file: its groups' summaries go with its last diagnostic shown (every group shows
/// its first diagnostic, so there is one).
fn flush<'a>(groups: &mut Vec<Group<'a>>, shown: &mut [(&'a Diagnostic, Vec<Omitted<'a>>)], limit: usize) {
    let omitted = groups
        .drain(..)
        .filter_map(|(_, seen, first)| first.map(|first| Omitted { first, count: seen - limit, limit }));
    if let Some(last) = shown.last_mut() {
        last.1.extend(omitted);
    }
}

/// A file's text with the start of each line, so each diagnostic finds its line at once.
struct Source {
    path: String,
    text: Option<String>,
    line_starts: Vec<usize>,
}

impl Source {
    fn new(path: &str, text: Option<String>) -> Source {
        let mut line_starts = vec![0];
        if let Some(t) = &text {
            line_starts.extend(memchr::memchr_iter(b'\n', t.as_bytes()).map(|i| i + 1));
        }
        Source { path: path.to_owned(), text, line_starts }
    }

    /// Line `line` (1-based) without its line ending, if the file has it.
    fn line(&self, line: u32) -> Option<&str> {
        let text = self.text.as_deref()?;
        let index = usize::try_from(line).ok()?.checked_sub(1)?;
        let start = *self.line_starts.get(index)?;
        let end = self.line_starts.get(index + 1).map_or(text.len(), |&next| next - 1);
        let line = text.get(start..end)?;
        Some(line.strip_suffix('\r').unwrap_or(line))
    }
}

/// A source line as shown, and the caret's indentation under `column` (1-based, in characters):
/// at most [`MAX_SOURCE_CHARS`] characters around the column, `...` where the line was cut,
/// control characters escaped (tabs kept, in the indentation too, so the caret lines up).
pub(crate) fn source_window(line: &str, column: u32) -> (String, String) {
    const HALF: usize = MAX_SOURCE_CHARS / 2;
    let line = line.strip_prefix('\u{feff}').unwrap_or(line);
    let at = (column as usize).saturating_sub(1);
    // Only the characters up to the window's end (and one more, to know whether the line goes
    // on) are looked at: a long line costs the column, not the line.
    let limit = (at + HALF).max(MAX_SOURCE_CHARS);
    let chars: Vec<char> = line.chars().take(limit + 1).collect();
    let n = chars.len();
    let (start, end) = if n <= MAX_SOURCE_CHARS {
        (0, n)
    } else {
        // The column in the middle, but a window at the end of the line stays full.
        let start = at.saturating_sub(HALF);
        let start = if n > limit { start } else { start.min(n - MAX_SOURCE_CHARS) };
        (start, (start + MAX_SOURCE_CHARS).min(n))
    };
    let mut shown = String::new();
    let mut indent = String::new();
    if start > 0 {
        shown.push_str("...");
        indent.push_str("   ");
    }
    for (i, &c) in chars[start..end].iter().enumerate() {
        let before_caret = start + i < at;
        if c == '\t' {
            shown.push('\t');
            if before_caret {
                indent.push('\t');
            }
        } else if unprintable(c) {
            let escaped: String = c.escape_debug().collect();
            if before_caret {
                indent.extend(std::iter::repeat_n(' ', escaped.chars().count()));
            }
            shown.push_str(&escaped);
        } else {
            shown.push(c);
            if before_caret {
                indent.push(' ');
            }
        }
    }
    if end < n {
        shown.push_str("...");
    }
    (shown, indent)
}

/// Renders diagnostics rustc-style: `path:line:col: error[code]: message`, the source line with a
/// caret under the column, `= help: …`, and a final `N errors, M warnings` line.
///
/// `prefix` is prepended to every path (the content directory as given on the command line);
/// `source` returns a file's text when it is available; `color` adds ANSI colours. Bounded: see
/// the module documentation.
pub(crate) fn render_human(
    diagnostics: &[Diagnostic],
    prefix: &str,
    source: &dyn Fn(&str) -> Option<String>,
    color: bool,
) -> String {
    render_human_capped(diagnostics, prefix, source, color, MAX_PER_CODE_AND_FILE)
}

fn render_human_capped(
    diagnostics: &[Diagnostic],
    prefix: &str,
    source: &dyn Fn(&str) -> Option<String>,
    color: bool,
    limit: usize,
) -> String {
    let paint = |code: &str, text: &str| {
        if color { format!("\x1b[{code}m{text}\x1b[0m") } else { text.to_owned() }
    };
    let mut out = String::new();
    let mut cached: Option<Source> = None;
    for (d, omitted) in cap(diagnostics, limit).shown {
        let (label, label_color) = match d.severity {
            Severity::Error => ("error", "1;31"),
            Severity::Warning => ("warning", "1;33"),
        };
        let shown_path = display_path(prefix, &d.path);
        let location = format!("{}:{}:{}:", printable(&shown_path), d.line, d.column);
        let _ = writeln!(
            out,
            "{} {}: {}",
            paint("1", &location),
            paint(label_color, &format!("{label}[{}]", d.code)),
            printable(&d.message)
        );
        if cached.as_ref().is_none_or(|s| s.path != d.path) {
            cached = Some(Source::new(&d.path, source(&d.path)));
        }
        let line_text = cached.as_ref().and_then(|s| s.line(d.line));
        let gutter = d.line.to_string().len();
        let pad = " ".repeat(gutter);
        if let Some(line_text) = line_text {
            let (shown, indent) = source_window(line_text, d.column);
            let bar = paint("1;34", "|");
            let _ = writeln!(out, "{pad} {bar}");
            let _ = writeln!(out, "{} {bar} {shown}", paint("1;34", &d.line.to_string()));
            let _ = writeln!(out, "{pad} {bar} {indent}{}", paint(label_color, "^"));
        }
        if let Some(help) = &d.help {
            let _ = writeln!(out, "{pad} {} {}: {}", paint("1;34", "="), paint("1", "help"), printable(help));
        }
        out.push('\n');
        for group in omitted {
            let _ = writeln!(out, "{}\n", printable(&group.message(&shown_path)));
        }
    }
    let _ = write!(out, "{}", by_code(diagnostics));
    let (errors, warnings) = counts(diagnostics);
    let _ = writeln!(out, "{}, {}", plural(errors, "error"), plural(warnings, "warning"));
    out
}

/// The per-code summary a long report ends with, most frequent first: `by code: 918
/// broken-link (error), 2 orphan-doc (warning)`. Empty when nothing was reported.
fn by_code(diagnostics: &[Diagnostic]) -> String {
    let mut counts: std::collections::BTreeMap<(Code, Severity), usize> = std::collections::BTreeMap::new();
    for d in diagnostics {
        *counts.entry((d.code, d.severity)).or_default() += 1;
    }
    if counts.is_empty() {
        return String::new();
    }
    let mut rows: Vec<_> = counts.into_iter().collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let rows: Vec<String> =
        rows.iter().map(|((code, severity), n)| format!("{n} {code} ({})", severity.as_str())).collect();
    format!("by code: {}\n", rows.join(", "))
}

fn plural(n: usize, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}

/// A JSON summary of diagnostics left out: shaped like a diagnostic (at the first one left
/// out), with their number.
#[derive(Serialize)]
struct OmittedJson {
    path: String,
    line: u32,
    column: u32,
    severity: Severity,
    code: Code,
    message: String,
    omitted: usize,
}

/// Renders diagnostics as one pretty JSON array (trailing newline); each path carries `prefix`.
/// Past [`MAX_PER_CODE_AND_FILE`] diagnostics of one code in one file, one entry with an
/// `omitted` count stands for the rest.
pub(crate) fn render_json(diagnostics: &[Diagnostic], prefix: &str) -> String {
    render_json_capped(diagnostics, prefix, MAX_PER_CODE_AND_FILE)
}

fn render_json_capped(diagnostics: &[Diagnostic], prefix: &str, limit: usize) -> String {
    let mut shown: Vec<serde_json::Value> = Vec::new();
    for (d, omitted) in cap(diagnostics, limit).shown {
        let path = display_path(prefix, &d.path);
        let value = serde_json::to_value(Diagnostic { path: path.clone(), ..d.clone() });
        shown.push(value.expect("diagnostics always serialize"));
        for group in omitted {
            let entry = OmittedJson {
                path: path.clone(),
                line: group.first.line,
                column: group.first.column,
                severity: group.first.severity,
                code: group.first.code,
                message: group.message("this file"),
                omitted: group.count,
            };
            shown.push(serde_json::to_value(entry).expect("summaries always serialize"));
        }
    }
    let mut out = serde_json::to_string_pretty(&shown).expect("diagnostics always serialize");
    out.push('\n');
    out
}

/// Renders diagnostics as GitHub Actions workflow commands, one per line
/// (`::error file=…,line=…,col=…,title=…::message`), so they annotate the pull request.
/// `prefix` is the content directory relative to the repository root. Past
/// [`MAX_PER_CODE_AND_FILE`] diagnostics of one code in one file, one annotation (at the first
/// one left out) says how many more there are.
pub(crate) fn render_github(diagnostics: &[Diagnostic], prefix: &str) -> String {
    render_github_capped(diagnostics, prefix, MAX_PER_CODE_AND_FILE)
}

fn render_github_capped(diagnostics: &[Diagnostic], prefix: &str, limit: usize) -> String {
    let mut out = String::new();
    let mut command = |d: &Diagnostic, message: &str| {
        let _ = writeln!(
            out,
            "::{} file={},line={},col={},title={}::{}",
            d.severity.as_str(),
            escape_property(&display_path(prefix, &d.path)),
            d.line,
            d.column,
            escape_property(&format!("{}[{}]", d.severity.as_str(), d.code)),
            escape_data(message),
        );
    };
    for (d, omitted) in cap(diagnostics, limit).shown {
        let mut message = d.message.clone();
        if let Some(help) = &d.help {
            message.push_str("\n\nhelp: ");
            message.push_str(help);
        }
        command(d, &message);
        for group in omitted {
            command(group.first, &group.message("this file"));
        }
    }
    out
}

// GitHub's workflow-command escaping (actions/toolkit `command.ts`): data escapes `%`, CR and LF;
// properties additionally escape `:` and `,`. Other control characters are escaped the way
// the human format does, so an ESC in a file name does not reach the log viewer.
fn escape_data(s: &str) -> String {
    let s = s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A");
    printable(&s).into_owned()
}

fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests;
