//! A content problem found by the compiler, and its ordering. A leaf module: no IO, no knowledge
//! of the other stages, and no rendering (that is for the program that shows them: the `folio`
//! binary renders them for a terminal or CI, a build script as cargo warnings).

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
