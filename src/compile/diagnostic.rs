//! A content problem found by the compiler, its ordering and its rendering
//! (`human`, `json`, `github`). A leaf module: no IO, no knowledge of the other stages.

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
