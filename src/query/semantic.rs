//! Semantic search over a catalog's vectors (`catalog::vectors`): the query's vector against
//! every unit, each entry scored by its best unit, and the fusion of that score with BM25.
//!
//! The encoder is outside the query layer: whoever opens the catalog (the binary, with the
//! `semantic` feature) attaches a [`QueryEncoder`] for the catalog's model, and a search embeds
//! its query once through it. Without one, or in a catalog without vectors, search is BM25 alone
//! and [`Query::search_mode`] says why.
//!
//! Fusion is a weighted sum of normalised scores: BM25 divided by the query's best BM25 score,
//! and the cosine similarity scaled over the query's candidates (the least similar of the
//! [`SEMANTIC_CANDIDATES`] most similar entries 0, the most similar 1). BM25 weighs
//! [`KEYWORD_WEIGHT`] for a query of [`FULL_MEANING_WORDS`] words or more, all of it for one of
//! [`KEYWORD_ONLY_WORDS`] or fewer, and in between in proportion: a name typed (`vercel adapter`)
//! is answered by the page of that name, a question asked in a sentence by meaning. A query the
//! model cannot read (see [`QueryVector::chars_per_piece`]) is ranked by words alone.
//!
//! These were chosen on the paraphrase and keyword evaluations (tests/fixtures/search-eval):
//! reciprocal rank fusion (k = 60) lifted the paraphrases as much but cost the keyword set 0.08
//! MRR@10 (rank alone cannot tell a close second from a distant one); raw cosine instead of the
//! scaled one lifted the paraphrases less; a fixed weight cost page-name and non-English queries
//! their floors. The manual's semantic search page has the figures.
//!
//! Must not: load or run a model, or change BM25's own scores.

use std::sync::Arc;

use super::Query;
use super::error::QueryError;
use crate::catalog::vectors::{ModelId, Vectors};

/// A sentence encoder for queries: the model a catalog's vectors were made with.
pub trait QueryEncoder: Send + Sync {
    /// The model's identity (compared with the catalog's).
    fn model(&self) -> &ModelId;
    /// The unit vector of `text`, and how well the model reads it.
    fn embed_query(&self, text: &str) -> Result<QueryVector, String>;
}

/// A query embedded.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryVector {
    /// The unit vector.
    pub vector: Vec<f32>,
    /// Letters and digits of the query per word piece the model's tokenizer cut it into. A model
    /// reads a language it was trained on in words and large pieces (English text through an
    /// English vocabulary: 4 to 6); one it was not trained on falls apart into letters (Japanese
    /// or Russian through an English vocabulary: 1 to 2), and its vector then says little.
    pub chars_per_piece: f32,
}

/// Below this many letters per word piece, a hybrid search ranks by words alone: the model does
/// not read the query's language ([`QueryVector::chars_per_piece`]).
pub const MIN_CHARS_PER_PIECE: f32 = 2.5;

/// How a search ranks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Mode {
    /// BM25 fused with vector similarity when the catalog has vectors and an encoder is
    /// attached; BM25 alone otherwise (the default).
    #[default]
    Hybrid,
    /// BM25 alone.
    Keyword,
    /// Vector similarity alone, with each hit's cosine distance.
    Semantic,
}

impl Mode {
    /// Parses `hybrid`, `keyword` or `semantic` (empty: the default).
    pub fn parse(name: &str) -> Result<Mode, QueryError> {
        match name {
            "" | "hybrid" => Ok(Mode::Hybrid),
            "keyword" | "bm25" => Ok(Mode::Keyword),
            "semantic" => Ok(Mode::Semantic),
            other => Err(QueryError::invalid(
                "mode",
                format!("unknown search mode `{other}` (expected hybrid, keyword or semantic)"),
            )),
        }
    }

    /// Its name.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Hybrid => "hybrid",
            Mode::Keyword => "keyword",
            Mode::Semantic => "semantic",
        }
    }
}

/// The weight of normalised BM25 in a hybrid score of a long query; the scaled similarity has
/// the rest.
pub const KEYWORD_WEIGHT: f32 = 0.3;

/// Queries of at most this many words are ranked by BM25 alone, even in a hybrid search.
pub const KEYWORD_ONLY_WORDS: usize = 2;

/// Queries of at least this many words get the full weight of meaning, `1 - KEYWORD_WEIGHT`.
pub const FULL_MEANING_WORDS: usize = 8;

/// Most entries the vectors add to a hybrid search's candidates (BM25's matches are all kept),
/// and most hits of a semantic search.
pub const SEMANTIC_CANDIDATES: usize = 100;

/// What search does with this catalog, for `about` and for callers that report it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SearchMode {
    /// Hybrid: BM25 fused with this model's vectors.
    Hybrid(ModelId),
    /// BM25 alone, and why.
    Keyword(String),
}

/// Per entry, its best unit's similarity to the query and that unit's index; `None` for
/// entries with no vector.
pub(super) struct Similarities {
    pub(super) best: Vec<Option<(f32, u32)>>,
}

impl Similarities {
    pub(super) fn of(vectors: &Vectors, entries: usize, query: &[f32]) -> Similarities {
        let mut best: Vec<Option<(f32, u32)>> = vec![None; entries];
        for (i, (unit, sim)) in vectors.units.iter().zip(vectors.similarities(query)).enumerate() {
            if let Some(slot) = best.get_mut(unit.entry as usize) {
                // Ties keep the first unit (the lead, then sections in document order).
                if slot.is_none_or(|(s, _)| sim > s) {
                    *slot = Some((sim, i as u32));
                }
            }
        }
        Similarities { best }
    }

    pub(super) fn of_entry(&self, entry: u32) -> Option<(f32, u32)> {
        self.best.get(entry as usize).copied().flatten()
    }
}

impl Query {
    /// Uses `encoder` to embed queries, when the catalog has vectors of its model. A catalog
    /// without vectors keeps keyword search (the encoder is not kept).
    ///
    /// Fails, saying both models, when the catalog's vectors were made by another model.
    pub fn attach_encoder(&mut self, encoder: Arc<dyn QueryEncoder>) -> Result<(), String> {
        let Some(vectors) = &self.catalog.vectors else { return Ok(()) };
        let (ours, theirs) = (&vectors.model, encoder.model());
        if ours.hash != theirs.hash || ours.dims != theirs.dims {
            return Err(format!(
                "the catalog's vectors were made by model `{}` (hash {}, {} dimensions), not by `{}` (hash {}, \
                 {} dimensions); serve it with the model it was built with, or rebuild it with this one \
                 (`folio build --model DIR`)",
                ours.name,
                ours.short_hash(),
                ours.dims,
                theirs.name,
                theirs.short_hash(),
                theirs.dims
            ));
        }
        self.encoder = Some(encoder);
        Ok(())
    }

    /// Whether search here is hybrid or keyword alone, and why.
    pub fn search_mode(&self) -> SearchMode {
        match (&self.catalog.vectors, &self.encoder) {
            (Some(vectors), Some(_)) => SearchMode::Hybrid(vectors.model.clone()),
            (Some(vectors), None) => SearchMode::Keyword(format!(
                "the catalog has vectors of model `{}` (hash {}), but no model was given to embed queries \
                 with (`--model DIR`, or `[search] model` in folio.toml)",
                vectors.model.name,
                vectors.model.short_hash()
            )),
            (None, _) => SearchMode::Keyword(
                "the catalog was built without vectors (`folio build --model DIR`)".into(),
            ),
        }
    }

    /// The query's similarities, when this search uses vectors: the query embedded once.
    pub(super) fn similarities(&self, text: &str, mode: Mode) -> Result<Option<Similarities>, QueryError> {
        let (Some(vectors), Some(encoder)) = (&self.catalog.vectors, &self.encoder) else {
            return match mode {
                Mode::Semantic => Err(QueryError::invalid(
                    "mode",
                    match self.search_mode() {
                        SearchMode::Keyword(why) => format!("semantic search is not available: {why}"),
                        SearchMode::Hybrid(_) => unreachable!("hybrid needs vectors and an encoder"),
                    },
                )),
                _ => Ok(None),
            };
        };
        // A hybrid search of a word or two is BM25 alone: no need to embed it.
        if mode == Mode::Keyword
            || (mode == Mode::Hybrid && text.split_whitespace().count() <= KEYWORD_ONLY_WORDS)
        {
            return Ok(None);
        }
        match encoder.embed_query(text) {
            // A query in a language the model does not read is searched by its words.
            Ok(q) if mode == Mode::Hybrid && q.chars_per_piece < MIN_CHARS_PER_PIECE => Ok(None),
            Ok(q) => Ok(Some(Similarities::of(vectors, self.catalog.entries.len(), &q.vector))),
            // A query the encoder cannot read is still searched by its words.
            Err(_) if mode == Mode::Hybrid => Ok(None),
            Err(e) => Err(QueryError::invalid("query", format!("could not be embedded: {e}"))),
        }
    }
}
