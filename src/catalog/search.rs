//! The full-text index: built at compile time from the catalog's entries and stored in it,
//! queried at run time (DESIGN §8).
//!
//! Performs no IO; mounted by `build.rs`.

use serde::{Deserialize, Serialize};

use super::{Doc, Entry, Skill};

/// The search index stored in the catalog.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SearchIndex {}

/// Builds the index over every doc and skill.
pub fn build(_entries: &[Entry], _docs: &[Doc], _skills: &[Skill]) -> SearchIndex {
    SearchIndex {}
}
