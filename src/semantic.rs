//! Semantic search's build side and its encoder (feature `semantic`): a local BERT-family
//! sentence-transformer turns each unit of a catalog (a section, a document's lead, a skill's
//! name and description) into a vector at build time, and each query into one at search time.
//!
//! | module | owns |
//! | --- | --- |
//! | `encoder.rs` | loading a model directory and embedding one text (candle, tokenizers) |
//! | `files.rs` | reading a model's files: any regular file of a directory the user names, or, for one a content tree names, only what the tree's rules allow (inside its root, regular, bounded) |
//! | `bert.rs` | BERT's forward pass, its sums blocked so the CPU's caches do not change a bit |
//! | `units.rs` | what is embedded: the units of a catalog and the text of each |
//! | `build.rs` | embedding a catalog with a cache keyed by text hash and model |
//!
//! The vectors' home in the catalog is `catalog::vectors`; ranking with them is the query
//! layer's (`query::semantic`), which sees the encoder only as a [`QueryEncoder`]. This module
//! must not rank, and the query layer must not load models.

mod bert;
mod build;
mod encoder;
mod files;
mod units;

pub use build::{Cache, Embedded, embed, text_hash};
pub use encoder::{Encoder, ModelError};
pub use files::{MAX_TREE_FILE_BYTES, MAX_TREE_WEIGHTS_BYTES, ModelSource};
pub use units::{MAX_UNIT_CHARS, UnitText, units};

use crate::catalog::vectors::ModelId;
use crate::query::{QueryEncoder, QueryVector};

impl QueryEncoder for Encoder {
    fn model(&self) -> &ModelId {
        self.id()
    }

    fn embed_query(&self, text: &str) -> Result<QueryVector, String> {
        let (vector, chars_per_piece) = self.embed_with_fit(text)?;
        Ok(QueryVector { vector, chars_per_piece })
    }
}
