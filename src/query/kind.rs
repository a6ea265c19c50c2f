//! What an entry is ([`Kind`], as records, hits and filters name it) and whose it is
//! ([`Owner`], the doc or skill it belongs to). Plain values: no lookups, no catalog access.

use std::fmt;

use serde::Serialize;

use super::error::QueryError;
use crate::catalog::EntryKind;

/// What a record, hit or filter is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A generated catalog resource (`resource://catalog/about`, the two indexes).
    Catalog,
    /// A doc under `docs/`.
    Doc,
    /// A skill, represented by its `SKILL.md`.
    Skill,
    /// A skill file other than `SKILL.md`.
    SkillFile,
}

impl Kind {
    /// The stable lowercase name (`catalog`, `doc`, `skill`, `skill_file`).
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Catalog => "catalog",
            Kind::Doc => "doc",
            Kind::Skill => "skill",
            Kind::SkillFile => "skill_file",
        }
    }

    /// Parses a kind name; `all` and the empty string mean no filter (`Ok(None)`).
    ///
    /// Fails with [`QueryError::InvalidParams`] on any other name.
    pub fn parse_filter(name: &str) -> Result<Option<Kind>, QueryError> {
        match name {
            "" | "all" => Ok(None),
            "catalog" => Ok(Some(Kind::Catalog)),
            "doc" | "docs" => Ok(Some(Kind::Doc)),
            "skill" | "skills" => Ok(Some(Kind::Skill)),
            "skill_file" | "skill-file" => Ok(Some(Kind::SkillFile)),
            other => Err(QueryError::invalid(
                "kind",
                format!("unknown kind `{other}` (expected doc, skill, skill_file, catalog or all)"),
            )),
        }
    }

    pub(super) fn of_entry(kind: EntryKind) -> Kind {
        match kind {
            EntryKind::Doc => Kind::Doc,
            EntryKind::SkillDocument => Kind::Skill,
            EntryKind::SkillFile => Kind::SkillFile,
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which doc or skill an entry belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Owner {
    /// Index into `Catalog::docs`.
    Doc(u32),
    /// Index into `Catalog::skills`, and into its `files` (`None` for SKILL.md).
    Skill(u32, Option<u32>),
}
