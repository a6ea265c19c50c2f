//! Section vectors for semantic search, as a catalog holds them: the model that made them, one
//! record per embedded unit (a doc section, a doc's lead, a skill), and the vectors quantized to
//! 8 bits.
//!
//! Quantization is symmetric and per vector: each component is `round(x / scale)` in
//! `-127..=127` with `scale = max|x| / 127`, so a vector costs `dims + 4` bytes (388 for a
//! 384-dimension model) instead of four bytes a component. Unit vectors keep their direction to
//! about 0.4% of the largest component, below what moves a ranking (the manual's semantic
//! search page gives the measured difference).
//!
//! This module must not embed text (the `folio` crate's `semantic` feature does) or rank
//! (the query layer fuses these scores with BM25); it stores vectors and scores a query against
//! them.

use serde::{Deserialize, Serialize};

/// The identity of the model a catalog's vectors were made with: a catalog is searched only with
/// the same model (same `hash`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelId {
    /// The model directory's name, for messages (`all-MiniLM-L6-v2`).
    pub name: String,
    /// blake3 over the revision of the encoder that ran it and the model's `config.json`,
    /// `tokenizer.json` and `model.safetensors`, hex.
    pub hash: String,
    /// Dimensions of a vector.
    pub dims: u32,
    /// Tokens of a text the model reads; the rest is cut.
    pub max_tokens: u32,
}

impl ModelId {
    /// The hash as messages show it (the first 16 hex digits).
    pub fn short_hash(&self) -> &str {
        self.hash.get(..16).unwrap_or(&self.hash)
    }
}

/// One embedded unit: a section of a doc or skill document, a document's lead (the text before
/// its first heading, with its title and description), or a skill's name and description.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unit {
    /// The entry it belongs to (index into `Catalog::entries`).
    pub entry: u32,
    /// The section's id, or empty for an entry's lead.
    pub section: String,
    /// blake3 of the text that was embedded, hex (the cache key, with the model's hash).
    pub text_hash: String,
}

/// A catalog's vectors.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Vectors {
    /// The model that made them.
    pub model: ModelId,
    /// One record per vector, sorted by (entry, position in the entry).
    pub units: Vec<Unit>,
    /// `dims` signed bytes per unit, in `units` order.
    #[serde(with = "serde_bytes_vec")]
    pub codes: Vec<u8>,
    /// Per unit: the factor that turns its codes back into the vector's components.
    pub scales: Vec<f32>,
}

/// A quantized vector: its codes and scale.
#[derive(Debug, Clone, PartialEq)]
pub struct Quantized {
    /// Signed components, `-127..=127`, stored as bytes.
    pub codes: Vec<u8>,
    /// What one step of a code is worth.
    pub scale: f32,
}

impl Quantized {
    /// `vector` quantized (see the module doc).
    pub fn new(vector: &[f32]) -> Quantized {
        let max = vector.iter().fold(0.0f32, |m, x| m.max(x.abs()));
        let scale = if max > 0.0 { max / 127.0 } else { 1.0 };
        let codes = vector.iter().map(|x| ((x / scale).round().clamp(-127.0, 127.0) as i8) as u8).collect();
        Quantized { codes, scale }
    }
}

impl Vectors {
    /// An empty set for `model`.
    pub fn new(model: ModelId) -> Vectors {
        Vectors { model, units: Vec::new(), codes: Vec::new(), scales: Vec::new() }
    }

    /// Appends one unit's vector.
    pub fn push(&mut self, unit: Unit, vector: &Quantized) {
        debug_assert_eq!(vector.codes.len(), self.model.dims as usize);
        self.units.push(unit);
        self.codes.extend_from_slice(&vector.codes);
        self.scales.push(vector.scale);
    }

    /// Unit `i`'s quantized vector.
    pub fn quantized(&self, i: usize) -> Quantized {
        let dims = self.model.dims as usize;
        Quantized { codes: self.codes[i * dims..(i + 1) * dims].to_vec(), scale: self.scales[i] }
    }

    /// The cosine similarity of `query` (a unit vector of `dims` components) with every unit,
    /// in `units` order.
    pub fn similarities(&self, query: &[f32]) -> Vec<f32> {
        let dims = self.model.dims as usize;
        if dims == 0 || query.len() != dims {
            return vec![0.0; self.units.len()];
        }
        self.codes
            .chunks_exact(dims)
            .zip(&self.scales)
            .map(|(codes, &scale)| {
                let dot: f32 = codes.iter().zip(query).map(|(&c, &q)| f32::from(c as i8) * q).sum();
                dot * scale / norm_of(codes, scale)
            })
            .collect()
    }

    /// Why these vectors cannot be read, if they cannot: counts that disagree or entries out of
    /// range. Checked when a catalog is opened.
    pub(crate) fn inconsistency(&self, entries: usize) -> Option<String> {
        let dims = self.model.dims as usize;
        if dims == 0 {
            return Some("vectors have zero dimensions".to_owned());
        }
        if self.codes.len() != self.units.len().saturating_mul(dims) || self.scales.len() != self.units.len()
        {
            return Some(format!(
                "vectors: {} units of {dims} dimensions, but {} codes and {} scales",
                self.units.len(),
                self.codes.len(),
                self.scales.len()
            ));
        }
        if let Some(unit) = self.units.iter().find(|u| u.entry as usize >= entries) {
            return Some(format!("a vector names entry {} of {entries}", unit.entry));
        }
        if self.scales.iter().any(|s| !s.is_finite() || *s <= 0.0) {
            return Some("a vector's scale is not a positive number".to_owned());
        }
        None
    }
}

/// The length of a quantized vector (its codes times its scale): quantization moves a unit
/// vector's length off 1 by a little, which would otherwise favour some units.
fn norm_of(codes: &[u8], scale: f32) -> f32 {
    let sum: f32 = codes.iter().map(|&c| f32::from(c as i8).powi(2)).sum();
    let norm = sum.sqrt() * scale;
    if norm > 0.0 { norm } else { 1.0 }
}

/// A `Vec<u8>` as one msgpack `bin` rather than an array of integers.
mod serde_bytes_vec {
    use serde::{Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(bytes: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(bytes)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<u8>, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Vec<u8>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("bytes")
            }
            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Vec<u8>, E> {
                Ok(v.to_vec())
            }
            fn visit_byte_buf<E: serde::de::Error>(self, v: Vec<u8>) -> Result<Vec<u8>, E> {
                Ok(v)
            }
        }
        deserializer.deserialize_bytes(Visitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(dims: u32) -> ModelId {
        ModelId { name: "m".into(), hash: "ab".repeat(32), dims, max_tokens: 8 }
    }

    #[test]
    fn quantized_vectors_keep_their_cosines() {
        let a = [0.6f32, -0.8, 0.0, 0.0];
        let b = [0.0f32, 0.6, 0.8, 0.0];
        let mut vectors = Vectors::new(model(4));
        for (i, v) in [a, b].iter().enumerate() {
            let unit = Unit { entry: i as u32, section: String::new(), text_hash: String::new() };
            vectors.push(unit, &Quantized::new(v));
        }
        let sims = vectors.similarities(&a);
        assert!((sims[0] - 1.0).abs() < 1e-3, "{sims:?}");
        assert!((sims[1] - (-0.48)).abs() < 1e-2, "{sims:?}");
        assert_eq!(vectors.inconsistency(2), None);
        assert!(vectors.inconsistency(1).unwrap().contains("entry 1 of 1"));
    }

    #[test]
    fn codes_round_trip_as_one_bin() {
        let mut vectors = Vectors::new(model(3));
        let unit = Unit { entry: 0, section: "intro".into(), text_hash: "00".into() };
        vectors.push(unit, &Quantized::new(&[1.0, -1.0, 0.5]));
        let bytes = rmp_serde::to_vec(&vectors).unwrap();
        // bin8 marker, then the three codes.
        assert!(bytes.windows(5).any(|w| w == [0xc4, 3, 127, 129, 64]), "{bytes:?}");
        let back: Vectors = rmp_serde::from_slice(&bytes).unwrap();
        assert_eq!(back, vectors);
    }
}
