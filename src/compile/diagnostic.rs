//! A content problem found by the compiler, its ordering and its rendering
//! (`human`, `json`, `github`). A leaf module: no IO, no knowledge of the other stages.
//!
//! Renderers take the source text through a lookup closure so the caller decides where it comes
//! from (the CLI re-reads only the files that have diagnostics).

use std::fmt::Write as _;

use serde::Serialize;

/// How bad a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Fails `folio check` and `folio build`.
    Error,
    /// Reported; fails `folio check` only with `--deny-warnings`.
    Warning,
}

impl Severity {
    /// `error` or `warning`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// One content problem, located in a file of the content tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// Path relative to the content root, `/`-separated.
    pub path: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
    /// Error or warning.
    pub severity: Severity,
    /// Stable code (`broken-link`).
    pub code: &'static str,
    /// What is wrong, lowercase, names in backticks.
    pub message: String,
    /// How to fix it, when a fix is known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
}

impl Diagnostic {
    /// An error at `path:line:column`.
    pub fn error(code: &'static str, path: &str, line: u32, column: u32, message: impl Into<String>) -> Self {
        Diagnostic {
            path: path.to_owned(),
            line: line.max(1),
            column: column.max(1),
            severity: Severity::Error,
            code,
            message: message.into(),
            help: None,
        }
    }

    /// A warning at `path:line:column`.
    pub fn warning(
        code: &'static str,
        path: &str,
        line: u32,
        column: u32,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic { severity: Severity::Warning, ..Diagnostic::error(code, path, line, column, message) }
    }

    /// The same diagnostic with a fix suggestion.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// True for errors.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Sorts diagnostics by (path, line, column, code), then by message so two problems at the same
/// spot with the same code still print in a reproducible order, and drops exact duplicates.
pub fn sort(diagnostics: &mut Vec<Diagnostic>) {
    diagnostics.sort_by(|a, b| {
        (&a.path, a.line, a.column, a.code, &a.message, a.severity)
            .cmp(&(&b.path, b.line, b.column, b.code, &b.message, b.severity))
    });
    diagnostics.dedup();
}

/// Number of errors and warnings.
pub fn counts(diagnostics: &[Diagnostic]) -> (usize, usize) {
    let errors = diagnostics.iter().filter(|d| d.is_error()).count();
    (errors, diagnostics.len() - errors)
}

/// How a rendered path is shown: the content directory as the user named it, then the
/// content-relative path, so locations are clickable from where the command ran.
fn display_path(prefix: &str, path: &str) -> String {
    let prefix = prefix.trim_end_matches('/');
    if prefix.is_empty() || prefix == "." { path.to_owned() } else { format!("{prefix}/{path}") }
}

/// Renders diagnostics rustc-style: `path:line:col: error[code]: message`, the source line with a
/// caret under the column, `= help: …`, and a final `N errors, M warnings` line.
///
/// `prefix` is prepended to every path (the content directory as given on the command line);
/// `source` returns a file's text when it is available; `color` adds ANSI colours.
pub fn render_human(
    diagnostics: &[Diagnostic],
    prefix: &str,
    source: &dyn Fn(&str) -> Option<String>,
    color: bool,
) -> String {
    let paint = |code: &str, text: &str| {
        if color { format!("\x1b[{code}m{text}\x1b[0m") } else { text.to_owned() }
    };
    let mut out = String::new();
    let mut cached: Option<(String, Option<String>)> = None;
    for d in diagnostics {
        let (label, label_color) = match d.severity {
            Severity::Error => ("error", "1;31"),
            Severity::Warning => ("warning", "1;33"),
        };
        let location = format!("{}:{}:{}:", display_path(prefix, &d.path), d.line, d.column);
        let _ = writeln!(
            out,
            "{} {}: {}",
            paint("1", &location),
            paint(label_color, &format!("{label}[{}]", d.code)),
            d.message
        );
        if cached.as_ref().is_none_or(|(p, _)| p != &d.path) {
            cached = Some((d.path.clone(), source(&d.path)));
        }
        let text = cached.as_ref().and_then(|(_, t)| t.as_deref());
        let line_text = text.and_then(|t| t.split('\n').nth((d.line as usize).saturating_sub(1)));
        let gutter = d.line.to_string().len();
        let pad = " ".repeat(gutter);
        if let Some(line_text) = line_text {
            let line_text = line_text.strip_suffix('\r').unwrap_or(line_text);
            let line_text = line_text.strip_prefix('\u{feff}').unwrap_or(line_text);
            // Keep tabs in the caret's indentation so it lines up under the column in any terminal.
            let indent: String = line_text
                .chars()
                .take((d.column as usize).saturating_sub(1))
                .map(|c| if c == '\t' { '\t' } else { ' ' })
                .collect();
            let bar = paint("1;34", "|");
            let _ = writeln!(out, "{pad} {bar}");
            let _ = writeln!(out, "{} {bar} {line_text}", paint("1;34", &d.line.to_string()));
            let _ = writeln!(out, "{pad} {bar} {indent}{}", paint(label_color, "^"));
        }
        if let Some(help) = &d.help {
            let _ = writeln!(out, "{pad} {} {}: {help}", paint("1;34", "="), paint("1", "help"));
        }
        out.push('\n');
    }
    let (errors, warnings) = counts(diagnostics);
    let _ = writeln!(out, "{}, {}", plural(errors, "error"), plural(warnings, "warning"));
    out
}

fn plural(n: usize, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}

/// Renders diagnostics as one pretty JSON array (trailing newline); each path carries `prefix`.
pub fn render_json(diagnostics: &[Diagnostic], prefix: &str) -> String {
    let shown: Vec<Diagnostic> =
        diagnostics.iter().map(|d| Diagnostic { path: display_path(prefix, &d.path), ..d.clone() }).collect();
    let mut out = serde_json::to_string_pretty(&shown).expect("diagnostics always serialize");
    out.push('\n');
    out
}

/// Renders diagnostics as GitHub Actions workflow commands, one per line
/// (`::error file=…,line=…,col=…,title=…::message`), so they annotate the pull request.
/// `prefix` is the content directory relative to the repository root.
pub fn render_github(diagnostics: &[Diagnostic], prefix: &str) -> String {
    let mut out = String::new();
    for d in diagnostics {
        let mut message = d.message.clone();
        if let Some(help) = &d.help {
            message.push_str("\n\nhelp: ");
            message.push_str(help);
        }
        let _ = writeln!(
            out,
            "::{} file={},line={},col={},title={}::{}",
            d.severity.as_str(),
            escape_property(&display_path(prefix, &d.path)),
            d.line,
            d.column,
            escape_property(&format!("{}[{}]", d.severity.as_str(), d.code)),
            escape_data(&message),
        );
    }
    out
}

// GitHub's workflow-command escaping (actions/toolkit `command.ts`): data escapes `%`, CR and LF;
// properties additionally escape `:` and `,`.
fn escape_data(s: &str) -> String {
    s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<Diagnostic> {
        let mut v = vec![
            Diagnostic::warning("orphan-doc", "docs/b.md", 1, 1, "no doc links to `b.md`"),
            Diagnostic::error("broken-link", "docs/a.md", 2, 7, "link to `x.md` does not resolve")
                .with_help("did you mean `X.md`?"),
        ];
        sort(&mut v);
        v
    }

    #[test]
    fn human_shows_location_source_line_caret_and_help() {
        let source = |p: &str| (p == "docs/a.md").then(|| "# A\nsee [x](x.md)\n".to_owned());
        let out = render_human(&sample(), "content", &source, false);
        let expected = "\
content/docs/a.md:2:7: error[broken-link]: link to `x.md` does not resolve
  |
2 | see [x](x.md)
  |       ^
  = help: did you mean `X.md`?

content/docs/b.md:1:1: warning[orphan-doc]: no doc links to `b.md`

1 error, 1 warning
";
        assert_eq!(out, expected);
    }

    #[test]
    fn github_escapes_properties_and_data() {
        let out = render_github(&sample(), "site/content");
        assert_eq!(
            out.lines().next().unwrap(),
            "::error file=site/content/docs/a.md,line=2,col=7,title=error[broken-link]::link to `x.md` does \
             not resolve%0A%0Ahelp: did you mean `X.md`?"
        );
    }

    #[test]
    fn json_is_one_array_with_prefixed_paths() {
        let out = render_json(&sample(), ".");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v[0]["path"], "docs/a.md");
        assert_eq!(v[0]["code"], "broken-link");
        assert_eq!(v[0]["severity"], "error");
        assert_eq!(v[1]["line"], 1);
        assert!(v[1].get("help").is_none());
    }
}
