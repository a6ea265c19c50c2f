//! Lint levels: every diagnostic code Folio reports, what kind of problem it is, and the level
//! (`error`, `warn`, `allow`) a project gives it in `folio.toml` `[lints]` or on the command line
//! (`--allow/--warn/--deny CODE`), the way Cargo's `[lints]` and rustc's `-A/-W/-D` work.
//!
//! Owns the code registry ([`CODES`]), the rule that codes which would make a catalog unsound
//! cannot be lowered, and applying levels to diagnostics. Must not find problems itself: the
//! other stages report them at the severity they were written with, and [`Levels::apply`]
//! changes or drops them afterwards.

use std::collections::BTreeMap;

use super::diagnostic::{Diagnostic, Severity};

/// A level a code can be set to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// Not reported.
    Allow,
    /// Reported as a warning.
    Warn,
    /// Reported as an error: fails `check` and `build`.
    Error,
}

impl Level {
    /// `allow`, `warn` or `error`, as `folio.toml` spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Allow => "allow",
            Level::Warn => "warn",
            Level::Error => "error",
        }
    }

    /// Parses `allow`, `warn`/`warning`, `error`/`deny`.
    pub fn parse(s: &str) -> Option<Level> {
        match s {
            "allow" => Some(Level::Allow),
            "warn" | "warning" => Some(Level::Warn),
            "error" | "deny" => Some(Level::Error),
            _ => None,
        }
    }
}

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

/// One diagnostic code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Code {
    /// The stable code (`broken-link`).
    pub name: &'static str,
    /// What kind of problem it is.
    pub class: Class,
    /// True when it is not reported unless a level turns it on.
    pub allow_by_default: bool,
}

const fn code(name: &'static str, class: Class) -> Code {
    Code { name, class, allow_by_default: false }
}

/// Every code Folio reports, sorted by name. Each has a page under `content/docs/diagnostics/`.
pub const CODES: &[Code] = &[
    code("broken-anchor", Class::Link),
    code("broken-link", Class::Link),
    code("byte-order-mark", Class::Entry),
    code("case-collision", Class::Unsound),
    code("case-mismatch", Class::Link),
    code("compatibility-too-long", Class::Entry),
    code("cross-skill-link", Class::Link),
    code("description-too-long", Class::Entry),
    code("duplicate-key", Class::Entry),
    code("duplicate-skill-name", Class::Unsound),
    code("duplicate-uri", Class::Unsound),
    code("file-too-large", Class::Entry),
    code("frontmatter-ambiguous", Class::Entry),
    code("frontmatter-syntax", Class::Entry),
    code("frontmatter-type", Class::Entry),
    code("frontmatter-unclosed", Class::Entry),
    code("hidden-file", Class::Entry),
    code("host-field", Class::Link),
    code("invalid-config", Class::Unsound),
    code("invalid-date", Class::Entry),
    code("invalid-lang", Class::Link),
    code("invalid-name", Class::Entry),
    code("invalid-utf8", Class::Unsound),
    Code { name: "locale-fallback", class: Class::Link, allow_by_default: true },
    code("mentioned-file", Class::Link),
    code("missing-description", Class::Entry),
    code("missing-name", Class::Entry),
    code("missing-skill-md", Class::Entry),
    code("name-mismatch", Class::Entry),
    code("no-content", Class::Unsound),
    code("non-portable-name", Class::Unsound),
    code("not-a-regular-file", Class::Entry),
    code("orphan-doc", Class::Link),
    code("path-escape", Class::Unsound),
    code("skill-left-out", Class::Link),
    code("skill-md-too-long", Class::Entry),
    code("skill-too-large", Class::Entry),
    code("skill-too-many-files", Class::Entry),
    code("symlink-loop", Class::Unsound),
    code("unknown-field", Class::Link),
    code("unreadable-file", Class::Entry),
    code("unverified-link", Class::Link),
];

/// The registry entry of `name`.
pub fn lookup(name: &str) -> Option<&'static Code> {
    CODES.binary_search_by(|c| c.name.cmp(name)).ok().map(|i| &CODES[i])
}

/// Where a code's level was set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SetBy {
    /// Folio's default (the severity the code is reported with, or allow).
    Default,
    /// `folio.toml` `[lints]`, at this line and column.
    Config {
        /// 1-based line of the setting.
        line: u32,
        /// 1-based column of the setting.
        column: u32,
    },
    /// A command-line flag (`--allow broken-link`).
    CommandLine(String),
}

impl std::fmt::Display for SetBy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SetBy::Default => f.write_str("default"),
            SetBy::Config { line, column } => write!(f, "folio.toml:{line}:{column}"),
            SetBy::CommandLine(flag) => write!(f, "command line `{flag}`"),
        }
    }
}

/// A level a project asked for, before it is checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// The code as written.
    pub code: String,
    /// The level asked for.
    pub level: Level,
    /// Where it was asked for.
    pub set_by: SetBy,
}

/// Why a requested level is refused.
pub fn refusal(request: &Request) -> Option<String> {
    let Some(code) = lookup(&request.code) else {
        let names: Vec<&str> = CODES.iter().map(|c| c.name).collect();
        let near = crate::suggest::closest_name(&request.code, names.iter().copied());
        return Some(match near {
            Some(near) => format!("unknown diagnostic code `{}`; did you mean `{near}`?", request.code),
            None => format!("unknown diagnostic code `{}`", request.code),
        });
    };
    (code.class == Class::Unsound && request.level != Level::Error).then(|| {
        format!(
            "`{}` cannot be lowered to `{}`: it means the catalog itself would be wrong (see the \
             diagnostics reference); fix the content instead",
            code.name,
            request.level.as_str()
        )
    })
}

/// The levels in force: what each configured code is set to and where. Codes not in it keep
/// their default.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Levels {
    set: BTreeMap<&'static str, (Level, SetBy)>,
}

impl Levels {
    /// Levels from `folio.toml` requests, then command-line ones (which win). Refused requests
    /// (see [`refusal`]) are skipped: the caller reports them.
    pub fn new<'a>(requests: impl IntoIterator<Item = &'a Request>) -> Levels {
        let mut set = BTreeMap::new();
        for request in requests {
            if refusal(request).is_none()
                && let Some(code) = lookup(&request.code)
            {
                set.insert(code.name, (request.level, request.set_by.clone()));
            }
        }
        Levels { set }
    }

    /// The level of `code` when a project set it, and where.
    pub fn get(&self, code: &str) -> Option<&(Level, SetBy)> {
        self.set.get(code)
    }

    /// True when the project set no level.
    pub fn is_empty(&self) -> bool {
        self.set.is_empty()
    }

    /// Every code the project set, by name, with its level and where it was set.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &(Level, SetBy))> {
        self.set.iter().map(|(code, set)| (*code, set))
    }

    /// The effective level of a diagnostic and where it was set.
    pub fn level_of(&self, d: &Diagnostic) -> (Level, SetBy) {
        if let Some((level, set_by)) = self.set.get(d.code) {
            return (*level, set_by.clone());
        }
        let level = if lookup(d.code).is_some_and(|c| c.allow_by_default) {
            Level::Allow
        } else if d.is_error() {
            Level::Error
        } else {
            Level::Warn
        };
        (level, SetBy::Default)
    }

    /// Applies the levels: drops allowed diagnostics and sets the others' severity. Idempotent
    /// for codes a project set; a default-allow code is dropped.
    pub fn apply(&self, diags: &mut Vec<Diagnostic>) {
        diags.retain_mut(|d| match self.level_of(d).0 {
            Level::Allow => false,
            Level::Warn => {
                d.severity = Severity::Warning;
                true
            }
            Level::Error => {
                d.severity = Severity::Error;
                true
            }
        });
    }
}

/// How a diagnostic counts when deciding whether a catalog can be made.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Gate {
    /// Every error blocks the catalog (`check`, `build`, `serve --content --strict`).
    #[default]
    Strict,
    /// Link errors do not block (`serve --content`): a broken link is reported, the page served.
    Lenient,
}

impl Gate {
    /// True when `d` keeps a catalog from being made.
    pub fn blocks(self, d: &Diagnostic) -> bool {
        d.is_error() && (self == Gate::Strict || lookup(d.code).is_none_or(|c| c.class != Class::Link))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(code: &str, level: Level) -> Request {
        Request { code: code.to_owned(), level, set_by: SetBy::CommandLine(format!("--x {code}")) }
    }

    #[test]
    fn registry_is_sorted_and_unique() {
        assert!(CODES.windows(2).all(|w| w[0].name < w[1].name));
        assert_eq!(lookup("broken-link").map(|c| c.class), Some(Class::Link));
        assert!(lookup("nope").is_none());
    }

    #[test]
    fn unsound_codes_cannot_be_lowered() {
        assert!(refusal(&request("duplicate-uri", Level::Warn)).unwrap().contains("cannot be lowered"));
        assert_eq!(refusal(&request("duplicate-uri", Level::Error)), None);
        assert_eq!(
            refusal(&request("broken-lnk", Level::Warn)).unwrap(),
            "unknown diagnostic code `broken-lnk`; did you mean `broken-link`?"
        );
    }

    #[test]
    fn later_requests_win_and_allow_drops() {
        let levels =
            Levels::new(&[request("broken-link", Level::Warn), request("broken-link", Level::Allow)]);
        let mut diags = vec![
            Diagnostic::error("broken-link", "docs/a.md", 1, 1, "x"),
            Diagnostic::error("duplicate-uri", "docs/a.md", 1, 1, "x"),
            Diagnostic::warning("locale-fallback", "docs/a.md", 1, 1, "x"),
        ];
        levels.apply(&mut diags);
        assert_eq!(diags.iter().map(|d| d.code).collect::<Vec<_>>(), ["duplicate-uri"]);
    }

    #[test]
    fn lenient_gate_lets_link_errors_through() {
        let link = Diagnostic::error("broken-link", "docs/a.md", 1, 1, "x");
        let own = Diagnostic::error("description-too-long", "skills/a/SKILL.md", 1, 1, "x");
        assert!(Gate::Strict.blocks(&link) && Gate::Strict.blocks(&own));
        assert!(!Gate::Lenient.blocks(&link) && Gate::Lenient.blocks(&own));
    }
}
