//! Lint levels: every diagnostic code Folio reports, what kind of problem it is, and the level
//! (`error`, `warn`, `allow`) a project gives it in `folio.toml` `[lints]` or on the command line
//! (`--allow/--warn/--deny CODE`), the way Cargo's `[lints]` and rustc's `-A/-W/-D` work.
//!
//! Owns the rule that codes which would make a catalog unsound cannot be lowered, and applying
//! levels to diagnostics; the code registry itself is [`Code`] (declared in `diagnostic.rs`,
//! which diagnostics are built from). Must not find problems itself: the
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

/// What kind of problem a code names (the registry itself is [`Code`], public as
/// `compile::Code` beside the diagnostic that carries it: one path, one listing entry).
pub use super::diagnostic::Class;
use super::diagnostic::Code;

/// The registry entry of `name`.
pub fn lookup(name: &str) -> Option<Code> {
    Code::from_name(name)
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
        let near = crate::suggest::closest_name(&request.code, Code::ALL.iter().map(|c| c.name()));
        return Some(match near {
            Some(near) => format!("unknown diagnostic code `{}`; did you mean `{near}`?", request.code),
            None => format!("unknown diagnostic code `{}`", request.code),
        });
    };
    (code.class() == Class::Unsound && request.level != Level::Error).then(|| {
        format!(
            "`{}` cannot be lowered to `{}`: it means the catalog itself would be wrong (see the \
             diagnostics reference); fix the content instead",
            code.name(),
            request.level.as_str()
        )
    })
}

/// The levels in force: what each configured code is set to and where. Codes not in it keep
/// their default.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Levels {
    set: BTreeMap<Code, (Level, SetBy)>,
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
                set.insert(code, (request.level, request.set_by.clone()));
            }
        }
        Levels { set }
    }

    /// The level of `code` when a project set it, and where.
    pub fn get(&self, code: Code) -> Option<&(Level, SetBy)> {
        self.set.get(&code)
    }

    /// True when the project set no level.
    pub fn is_empty(&self) -> bool {
        self.set.is_empty()
    }

    /// Every code the project set, by name, with its level and where it was set.
    pub fn iter(&self) -> impl Iterator<Item = (Code, &(Level, SetBy))> {
        self.set.iter().map(|(code, set)| (*code, set))
    }

    /// The effective level of a diagnostic and where it was set.
    pub fn level_of(&self, d: &Diagnostic) -> (Level, SetBy) {
        if let Some((level, set_by)) = self.set.get(&d.code) {
            return (*level, set_by.clone());
        }
        let level = if d.code.allow_by_default() {
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
        d.is_error() && (self == Gate::Strict || d.code.class() != Class::Link)
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
        assert!(Code::ALL.windows(2).all(|w| w[0].name() < w[1].name() && w[0] < w[1]));
        assert!(Code::ALL.iter().all(|&c| lookup(c.name()) == Some(c) && c.name().parse() == Ok(c)));
        assert_eq!(lookup("broken-link").map(Code::class), Some(Class::Link));
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
            Diagnostic::error(Code::BrokenLink, "docs/a.md", 1, 1, "x"),
            Diagnostic::error(Code::DuplicateUri, "docs/a.md", 1, 1, "x"),
            Diagnostic::warning(Code::LocaleFallback, "docs/a.md", 1, 1, "x"),
        ];
        levels.apply(&mut diags);
        assert_eq!(diags.iter().map(|d| d.code).collect::<Vec<_>>(), [Code::DuplicateUri]);
    }

    #[test]
    fn lenient_gate_lets_link_errors_through() {
        let link = Diagnostic::error(Code::BrokenLink, "docs/a.md", 1, 1, "x");
        let own = Diagnostic::error(Code::DescriptionTooLong, "skills/a/SKILL.md", 1, 1, "x");
        assert!(Gate::Strict.blocks(&link) && Gate::Strict.blocks(&own));
        assert!(!Gate::Lenient.blocks(&link) && Gate::Lenient.blocks(&own));
    }
}
