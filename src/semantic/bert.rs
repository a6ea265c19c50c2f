//! BERT's forward pass for one unpadded text, with arithmetic that does not depend on the CPU's
//! caches.
//!
//! candle's own `BertModel` computes the same function, but its matrix products (the `gemm`
//! crate) split a sum over more than 512 terms into blocks sized from the L1 cache it detects at
//! run time: all-MiniLM-L6-v2's feed-forward output sums 1,536 terms, in blocks of 512 on a CPU
//! with a 32 KB 8-way L1 and of 768 on one with a 48 KB 12-way L1. Floating-point addition is not
//! associative, so the two round differently, and about one vector in five would then differ in
//! some 8-bit code: the same tree would compile to different catalog bytes on two x86_64
//! machines. Here every product whose sum is longer than [`BLOCK`] is cut into blocks of
//! [`BLOCK`] terms, each summed by one product (which `gemm` never splits: it blocks at 512 or
//! more), and the blocks added in order, so the result depends on the shapes alone. Attention's
//! products sum over a head's width and over the text's tokens, which the encoder keeps to
//! [`MAX_TOKENS`]. On a CPU whose L1 makes `gemm` block at 512, this is the very arithmetic it
//! does, and the vectors are the bits `BertModel` gives there.
//!
//! The weights are read by name as Hugging Face's BERT names them (with or without a `bert.`
//! prefix). Inference only: no dropout, no padding mask (one text, no padding: every token
//! attends to every other).
//!
//! Must not: tokenize, pool or normalise (`encoder.rs` does), or batch texts.

use candle_core::{D, Result, Tensor};
use candle_nn::{Embedding, LayerNorm, Module, VarBuilder};
use serde::Deserialize;

/// The longest sum one matrix product computes; longer ones are cut into blocks of this many
/// terms. `gemm` splits a sum only when it is longer than 512 terms.
const BLOCK: usize = 512;

/// The most tokens of a text the encoder reads (BERT's own limit, and what keeps attention's
/// sums within one block).
pub(super) const MAX_TOKENS: usize = BLOCK;

/// What a model's `config.json` says of its shape (Hugging Face's `BertConfig`; other keys are
/// ignored).
#[derive(Debug, Clone, Deserialize)]
pub(super) struct Config {
    pub(super) model_type: Option<String>,
    pub(super) vocab_size: usize,
    pub(super) hidden_size: usize,
    pub(super) num_hidden_layers: usize,
    pub(super) num_attention_heads: usize,
    pub(super) intermediate_size: usize,
    #[serde(default = "gelu")]
    pub(super) hidden_act: HiddenAct,
    pub(super) max_position_embeddings: usize,
    #[serde(default = "two")]
    pub(super) type_vocab_size: usize,
    #[serde(default = "layer_norm_eps")]
    pub(super) layer_norm_eps: f64,
}

impl Config {
    /// Why these sizes cannot make a model, if they cannot.
    pub(super) fn problem(&self) -> Option<String> {
        let sizes = [
            ("vocab_size", self.vocab_size),
            ("hidden_size", self.hidden_size),
            ("num_hidden_layers", self.num_hidden_layers),
            ("num_attention_heads", self.num_attention_heads),
            ("intermediate_size", self.intermediate_size),
            ("max_position_embeddings", self.max_position_embeddings),
            ("type_vocab_size", self.type_vocab_size),
        ];
        if let Some((key, _)) = sizes.iter().find(|(_, n)| *n == 0) {
            return Some(format!("`{key}` is 0"));
        }
        (!self.hidden_size.is_multiple_of(self.num_attention_heads)).then(|| {
            format!(
                "`hidden_size` {} is not a multiple of `num_attention_heads` {}",
                self.hidden_size, self.num_attention_heads
            )
        })
    }
}

// Hugging Face's `BertConfig` defaults, for a config.json that leaves them out.
fn gelu() -> HiddenAct {
    HiddenAct::Gelu
}
fn two() -> usize {
    2
}
fn layer_norm_eps() -> f64 {
    1e-12
}

/// The feed-forward layer's activation, by its Hugging Face name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub(super) enum HiddenAct {
    /// GELU with the exact error function.
    #[serde(rename = "gelu")]
    Gelu,
    /// GELU by its tanh approximation.
    #[serde(alias = "gelu_new", alias = "gelu_pytorch_tanh", rename = "gelu_fast")]
    GeluTanh,
    /// `max(0, x)`.
    #[serde(rename = "relu")]
    Relu,
}

/// A BERT encoder's weights.
pub(super) struct Bert {
    word: Embedding,
    position: Embedding,
    token_type: Embedding,
    embeddings_norm: LayerNorm,
    layers: Vec<Layer>,
    heads: usize,
    act: HiddenAct,
}

struct Layer {
    query: Linear,
    key: Linear,
    value: Linear,
    attention_out: Linear,
    attention_norm: LayerNorm,
    intermediate: Linear,
    output: Linear,
    output_norm: LayerNorm,
}

/// `x · Wᵀ + b`, with the sum over `x`'s columns cut into blocks of [`BLOCK`].
struct Linear {
    /// `Wᵀ` as blocks of at most [`BLOCK`] rows, in order.
    blocks: Vec<Tensor>,
    bias: Tensor,
}

impl Linear {
    fn load(inputs: usize, outputs: usize, vb: VarBuilder) -> Result<Linear> {
        let weight = vb.get((outputs, inputs), "weight")?;
        let bias = vb.get(outputs, "bias")?;
        let blocks = (0..inputs)
            .step_by(BLOCK)
            .map(|start| weight.narrow(1, start, BLOCK.min(inputs - start))?.t()?.contiguous())
            .collect::<Result<_>>()?;
        Ok(Linear { blocks, bias })
    }

    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let mut sum: Option<Tensor> = None;
        let mut start = 0;
        for block in &self.blocks {
            let rows = block.dim(0)?;
            let part = if self.blocks.len() == 1 {
                x.matmul(block)?
            } else {
                x.narrow(1, start, rows)?.contiguous()?.matmul(block)?
            };
            sum = Some(match sum {
                Some(s) => (s + part)?,
                None => part,
            });
            start += rows;
        }
        // `Config::problem` refuses a layer of no inputs, which would have no blocks.
        sum.ok_or_else(|| candle_core::Error::Msg("a linear layer without inputs".into()))?
            .broadcast_add(&self.bias)
    }
}

impl Bert {
    /// The weights `config` describes, from `vb`.
    pub(super) fn load(vb: VarBuilder, config: &Config) -> Result<Bert> {
        let vb =
            if vb.contains_tensor("bert.embeddings.word_embeddings.weight") { vb.pp("bert") } else { vb };
        let hidden = config.hidden_size;
        let norm = |vb: VarBuilder| candle_nn::layer_norm(hidden, config.layer_norm_eps, vb.pp("LayerNorm"));
        let e = vb.pp("embeddings");
        let layers = (0..config.num_hidden_layers)
            .map(|i| {
                let l = vb.pp(format!("encoder.layer.{i}"));
                let attention = l.pp("attention");
                Ok(Layer {
                    query: Linear::load(hidden, hidden, attention.pp("self.query"))?,
                    key: Linear::load(hidden, hidden, attention.pp("self.key"))?,
                    value: Linear::load(hidden, hidden, attention.pp("self.value"))?,
                    attention_out: Linear::load(hidden, hidden, attention.pp("output.dense"))?,
                    attention_norm: norm(attention.pp("output"))?,
                    intermediate: Linear::load(hidden, config.intermediate_size, l.pp("intermediate.dense"))?,
                    output: Linear::load(config.intermediate_size, hidden, l.pp("output.dense"))?,
                    output_norm: norm(l.pp("output"))?,
                })
            })
            .collect::<Result<_>>()?;
        Ok(Bert {
            word: candle_nn::embedding(config.vocab_size, hidden, e.pp("word_embeddings"))?,
            position: candle_nn::embedding(
                config.max_position_embeddings,
                hidden,
                e.pp("position_embeddings"),
            )?,
            token_type: candle_nn::embedding(config.type_vocab_size, hidden, e.pp("token_type_embeddings"))?,
            embeddings_norm: norm(e)?,
            layers,
            heads: config.num_attention_heads,
            act: config.hidden_act,
        })
    }

    /// The last layer's vector of each token of `ids` (one text, at most the model's positions),
    /// as a `(tokens, hidden)` tensor.
    pub(super) fn forward(&self, ids: &Tensor) -> Result<Tensor> {
        let tokens = ids.dim(0)?;
        let positions = Tensor::arange(0u32, tokens as u32, ids.device())?;
        // Added in the order Hugging Face's BERT adds them: word, token type, then position.
        let embedded = (self.word.forward(ids)? + self.token_type.forward(&ids.zeros_like()?)?)?
            .add(&self.position.forward(&positions)?)?;
        let mut hidden = self.embeddings_norm.forward(&embedded)?;
        for layer in &self.layers {
            hidden = self.layer(layer, &hidden)?;
        }
        Ok(hidden)
    }

    fn layer(&self, layer: &Layer, x: &Tensor) -> Result<Tensor> {
        let (tokens, width) = x.dims2()?;
        let head = width / self.heads;
        // (tokens, width) -> (heads, tokens, head)
        let split = |t: Tensor| t.reshape((tokens, self.heads, head))?.transpose(0, 1)?.contiguous();
        let q = split(layer.query.forward(x)?)?;
        let k = split(layer.key.forward(x)?)?;
        let v = split(layer.value.forward(x)?)?;
        // Sums over a head's width and over the text's tokens: never more than BLOCK terms.
        let scores = (q.matmul(&k.t()?)? / (head as f64).sqrt())?;
        let probs = candle_nn::ops::softmax(&scores, D::Minus1)?;
        let context = probs.matmul(&v)?.transpose(0, 1)?.contiguous()?.reshape((tokens, width))?;
        let attended = layer.attention_norm.forward(&(layer.attention_out.forward(&context)? + x)?)?;
        let inner = layer.intermediate.forward(&attended)?;
        let inner = match self.act {
            HiddenAct::Gelu => inner.gelu_erf()?,
            HiddenAct::GeluTanh => inner.gelu()?,
            HiddenAct::Relu => inner.relu()?,
        };
        layer.output_norm.forward(&(layer.output.forward(&inner)? + attended)?)
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_types, reason = "VarBuilder::from_tensors takes a HashMap; nothing iterates it")]
mod tests {
    use std::collections::HashMap;

    use candle_core::{DType, Device};

    use super::*;

    /// A deterministic value in -1..1 for position `i`.
    fn value(i: usize) -> f32 {
        ((i as f32) * 0.618_034).sin()
    }

    #[test]
    fn a_long_sum_is_blocks_of_fused_multiply_adds_added_in_order() {
        let (tokens, inputs, outputs) = (3, 1100, 5);
        let x: Vec<f32> = (0..tokens * inputs).map(value).collect();
        let w: Vec<f32> = (0..outputs * inputs).map(|i| value(i + 7919)).collect();
        let b: Vec<f32> = (0..outputs).map(|i| value(i + 31)).collect();
        let device = Device::Cpu;
        let tensors = HashMap::from([
            ("weight".to_owned(), Tensor::from_slice(&w, (outputs, inputs), &device).unwrap()),
            ("bias".to_owned(), Tensor::from_slice(&b, outputs, &device).unwrap()),
        ]);
        let linear =
            Linear::load(inputs, outputs, VarBuilder::from_tensors(tensors, DType::F32, &device)).unwrap();
        assert_eq!(linear.blocks.len(), 3);
        let got = linear.forward(&Tensor::from_slice(&x, (tokens, inputs), &device).unwrap()).unwrap();
        let got: Vec<Vec<f32>> = got.to_vec2().unwrap();
        for (t, row) in got.iter().enumerate() {
            for (o, &out) in row.iter().enumerate() {
                let mut sum: Option<f32> = None;
                for start in (0..inputs).step_by(BLOCK) {
                    let block = (start..inputs.min(start + BLOCK))
                        .fold(0.0f32, |acc, k| x[t * inputs + k].mul_add(w[o * inputs + k], acc));
                    sum = Some(sum.map_or(block, |s| s + block));
                }
                let expected = sum.unwrap() + b[o];
                assert_eq!(out.to_bits(), expected.to_bits(), "token {t}, output {o}: {out} != {expected}");
            }
        }
    }
}
