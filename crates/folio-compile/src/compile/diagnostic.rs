//! A content problem found by the compiler, its ordering, and the registry of every code one can
//! carry ([`Code`], declared once in `codes!` with its name, class and default severity, so a
//! diagnostic cannot carry a code the registry lacks). A leaf module: no IO, no knowledge of the
//! other stages, no levels (`lints.rs` applies those), and no rendering (that is for the program
//! that shows them: the `folio` binary renders them for a terminal or CI, a build script as cargo
//! warnings).

use serde::Serialize;

/// What kind of problem a code names, which decides what lowering it and lenient serving may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// The catalog itself would be wrong (two entries at one URI, a file from outside the
    /// root…): can never be lowered below `error`, and `serve --content` refuses the tree.
    Unsound,
    /// A problem of one entry's own content (a skill's frontmatter breaks the spec): lowerable;
    /// `serve --content` leaves that entry out.
    Entry,
    /// A link or navigation problem, or a field the spec does not define (it passes through
    /// unchanged, so the entry is still what its author wrote): lowerable; never removes an
    /// entry.
    Link,
}

/// Declares the registry: one line per code, `Variant = "name", Class, severities;`, sorted by
/// name. The severities are those the code is reported with when no level is set (`allow`: not
/// reported unless a level turns it on, then a warning); the manual's diagnostics reference
/// states the same list (`tests/it/manual.rs` compares them).
macro_rules! codes {
    ($($variant:ident = $name:literal, $class:ident, $first:ident $(| $rest:ident)*;)*) => {
        /// A stable diagnostic code (`broken-link`): every code Folio reports. Each has a page,
        /// `content/docs/diagnostics/<name>.md`.
        ///
        /// Ordered by name (the variants are declared sorted), so sorting by code sorts by name.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Code {
            $(
                #[doc = concat!("`", $name, "`")]
                $variant,
            )*
        }

        impl Code {
            /// Every code, sorted by name.
            pub const ALL: &'static [Code] = &[$(Code::$variant),*];

            /// The stable name (`broken-link`), as diagnostics, `folio.toml` and flags spell it.
            pub const fn name(self) -> &'static str {
                match self {
                    $(Code::$variant => $name,)*
                }
            }

            /// The code named `name`, if there is one.
            pub fn from_name(name: &str) -> Option<Code> {
                match name {
                    $($name => Some(Code::$variant),)*
                    _ => None,
                }
            }

            /// What kind of problem it is.
            pub const fn class(self) -> Class {
                match self {
                    $(Code::$variant => Class::$class,)*
                }
            }

            /// The severities it is reported with when no level is set.
            pub(crate) const fn default_severities(self) -> &'static [Severity] {
                match self {
                    $(Code::$variant => &[severity!($first) $(, severity!($rest))*],)*
                }
            }

            /// True when it is not reported unless a level turns it on.
            pub(crate) const fn allow_by_default(self) -> bool {
                match self {
                    $(Code::$variant => allowed!($first),)*
                }
            }

            /// Its default as the diagnostics reference writes it: `error`, `warning, error`,
            /// `allow`.
            pub const fn documented_default(self) -> &'static str {
                match self {
                    $(Code::$variant => concat!(stringify!($first) $(, ", ", stringify!($rest))*),)*
                }
            }
        }
    };
}

/// A default severity word of `codes!`.
macro_rules! severity {
    (error) => {
        Severity::Error
    };
    (warning) => {
        Severity::Warning
    };
    (allow) => {
        Severity::Warning
    };
}

/// True for the `allow` default of `codes!`.
macro_rules! allowed {
    (allow) => {
        true
    };
    ($other:ident) => {
        false
    };
}

codes! {
    BrokenAnchor = "broken-anchor", Link, warning;
    BrokenLink = "broken-link", Link, error;
    ByteOrderMark = "byte-order-mark", Entry, warning;
    CaseCollision = "case-collision", Unsound, error;
    CaseMismatch = "case-mismatch", Link, error;
    CompatibilityTooLong = "compatibility-too-long", Entry, error;
    CrossSkillLink = "cross-skill-link", Link, warning;
    DescriptionTooLong = "description-too-long", Entry, error;
    DuplicateKey = "duplicate-key", Entry, error;
    DuplicateSkillName = "duplicate-skill-name", Unsound, error;
    DuplicateUri = "duplicate-uri", Unsound, error;
    FileTooLarge = "file-too-large", Entry, error;
    FrontmatterAmbiguous = "frontmatter-ambiguous", Entry, warning | error;
    FrontmatterSyntax = "frontmatter-syntax", Entry, error;
    FrontmatterType = "frontmatter-type", Entry, error | warning;
    FrontmatterUnclosed = "frontmatter-unclosed", Entry, error;
    HiddenFile = "hidden-file", Entry, warning;
    HostField = "host-field", Link, warning;
    InvalidConfig = "invalid-config", Unsound, error;
    InvalidDate = "invalid-date", Entry, error;
    InvalidLang = "invalid-lang", Link, warning;
    InvalidName = "invalid-name", Entry, error | warning;
    InvalidUtf8 = "invalid-utf8", Unsound, error;
    LocaleFallback = "locale-fallback", Link, allow;
    MentionedFile = "mentioned-file", Link, warning;
    MissingDescription = "missing-description", Entry, error;
    MissingName = "missing-name", Entry, error;
    MissingSkillMd = "missing-skill-md", Entry, warning | error;
    NameMismatch = "name-mismatch", Entry, error;
    NoContent = "no-content", Unsound, error;
    NonPortableName = "non-portable-name", Unsound, error | warning;
    NotARegularFile = "not-a-regular-file", Entry, error;
    OrphanDoc = "orphan-doc", Link, warning;
    PathEscape = "path-escape", Unsound, error;
    SkillLeftOut = "skill-left-out", Link, error;
    SkillMdTooLong = "skill-md-too-long", Entry, warning;
    SkillTooLarge = "skill-too-large", Entry, error;
    SkillTooManyFiles = "skill-too-many-files", Entry, error;
    SymlinkLoop = "symlink-loop", Unsound, warning;
    UnknownField = "unknown-field", Link, error;
    UnreadableFile = "unreadable-file", Entry, error;
    UnverifiedLink = "unverified-link", Link, warning;
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.name())
    }
}

impl std::str::FromStr for Code {
    type Err = UnknownCode;

    fn from_str(s: &str) -> Result<Code, UnknownCode> {
        Code::from_name(s).ok_or_else(|| UnknownCode(s.to_owned()))
    }
}

/// A name that is no diagnostic code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownCode(pub String);

impl std::fmt::Display for UnknownCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "unknown diagnostic code `{}`", self.0)
    }
}

impl std::error::Error for UnknownCode {}

/// Serialized as its name, so JSON output spells codes as text output does.
impl Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

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
    pub code: Code,
    /// What is wrong, lowercase, names in backticks.
    pub message: String,
    /// How to fix it, when a fix is known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
}

impl Diagnostic {
    /// An error at `path:line:column`.
    pub fn error(code: Code, path: &str, line: u32, column: u32, message: impl Into<String>) -> Self {
        Diagnostic::new(Severity::Error, code, path, line, column, message)
    }

    /// A warning at `path:line:column`.
    pub fn warning(code: Code, path: &str, line: u32, column: u32, message: impl Into<String>) -> Self {
        Diagnostic::new(Severity::Warning, code, path, line, column, message)
    }

    /// A diagnostic at `path:line:column`. The severity must be one the registry lists as the
    /// code's default (the manual states that list): checked in debug builds, so every test
    /// that reaches a report checks it.
    pub fn new(
        severity: Severity,
        code: Code,
        path: &str,
        line: u32,
        column: u32,
        message: impl Into<String>,
    ) -> Self {
        debug_assert!(
            code.default_severities().contains(&severity),
            "`{code}` is reported as {} but the registry lists {}",
            severity.as_str(),
            code.documented_default()
        );
        Diagnostic {
            path: path.to_owned(),
            line: line.max(1),
            column: column.max(1),
            severity,
            code,
            message: message.into(),
            help: None,
        }
    }

    /// The same diagnostic with a fix suggestion.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// True for errors.
    pub(crate) fn is_error(&self) -> bool {
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
