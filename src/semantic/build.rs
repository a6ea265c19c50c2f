//! Embedding a catalog: every unit's text (see `units`) through the encoder, with a cache that
//! keeps a vector by the hash of its text for one model, so a rebuild or a `serve --watch`
//! reload re-embeds only the units whose text changed.
//!
//! The cache is filled from what the last build left: the catalog file at `--out` (when it was
//! built with the same model) or, in a server that recompiles, the catalog it is serving. A
//! vector from the cache is the very vector a fresh embedding would give (the encoder reads one
//! text at a time, see `encoder`), so a cached build writes the same bytes as a clean one.
//!
//! Must not: decide which units exist (`units`) or rank anything.

use std::collections::BTreeMap;

use super::encoder::Encoder;
use super::units::{UnitText, units};
use crate::catalog::Catalog;
use crate::catalog::vectors::{ModelId, Quantized, Unit, Vectors};

/// Vectors by the hash of their text, for one model.
#[derive(Debug, Default)]
pub struct Cache {
    model_hash: String,
    vectors: BTreeMap<String, Quantized>,
}

impl Cache {
    /// An empty cache for `model`.
    pub fn new(model: &ModelId) -> Cache {
        Cache { model_hash: model.hash.clone(), vectors: BTreeMap::new() }
    }

    /// Keeps `catalog`'s vectors, when they were made by this cache's model.
    pub fn add(&mut self, catalog: &Catalog) {
        if let Some(vectors) = &catalog.vectors {
            self.add_vectors(vectors);
        }
    }

    /// Keeps `vectors`, when they were made by this cache's model.
    pub fn add_vectors(&mut self, vectors: &Vectors) {
        if vectors.model.hash != self.model_hash {
            return;
        }
        for (i, unit) in vectors.units.iter().enumerate() {
            self.vectors.entry(unit.text_hash.clone()).or_insert_with(|| vectors.quantized(i));
        }
    }

    /// True when it holds the vector of `text`.
    pub fn holds(&self, text: &str) -> bool {
        self.vectors.contains_key(&text_hash(text))
    }

    /// How many vectors it holds.
    pub fn len(&self) -> usize {
        self.vectors.len()
    }

    /// True when it holds none.
    pub fn is_empty(&self) -> bool {
        self.vectors.is_empty()
    }
}

/// What [`embed`] did.
#[derive(Debug)]
pub struct Embedded {
    /// The catalog's vectors.
    pub vectors: Vectors,
    /// Units run through the encoder.
    pub embedded: usize,
    /// Units whose vector came from the cache.
    pub reused: usize,
}

/// The key a unit's vector is kept by: blake3 of its text, the first 128 bits in hex.
pub fn text_hash(text: &str) -> String {
    blake3::hash(text.as_bytes()).to_hex()[..32].to_owned()
}

/// Embeds every unit of `catalog` (entry texts from `text_of`), taking what `cache` holds;
/// `progress(done, total)` is told after each unit the encoder runs on (of those not cached).
/// Fails with the encoder's message, naming the entry it failed on.
pub fn embed<'c>(
    catalog: &'c Catalog,
    text_of: &dyn Fn(u32) -> Option<&'c str>,
    encoder: &Encoder,
    cache: &Cache,
    progress: &dyn Fn(usize, usize),
) -> Result<Embedded, String> {
    let units = units(catalog, text_of);
    let mut vectors = Vectors::new(encoder.id().clone());
    let (mut embedded, mut reused) = (0, 0);
    let same_model = cache.model_hash == encoder.id().hash;
    let cached = |text: &str| same_model && cache.vectors.contains_key(&text_hash(text));
    let to_embed = units.iter().filter(|u| !cached(&u.text)).count();
    for UnitText { entry, section, text } in units {
        let hash = text_hash(&text);
        let vector = match cache.vectors.get(&hash).filter(|_| same_model) {
            Some(found) => {
                reused += 1;
                found.clone()
            }
            None => {
                embedded += 1;
                let vector = encoder
                    .embed(&text)
                    .map_err(|e| format!("embedding `{}`: {e}", catalog.entries[entry as usize].path))?;
                progress(embedded, to_embed);
                Quantized::new(&vector)
            }
        };
        vectors.push(Unit { entry, section, text_hash: hash }, &vector);
    }
    Ok(Embedded { vectors, embedded, reused })
}
