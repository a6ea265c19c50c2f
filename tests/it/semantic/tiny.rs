//! A tiny, randomly initialised BERT sentence encoder, written as a model directory
//! (`config.json`, `tokenizer.json`, `model.safetensors`) the way a real one is laid out: for the
//! plumbing tests (build, cache, mismatch, modes), which need a model that loads and runs in
//! milliseconds, not one that understands anything.
//!
//! Its vocabulary is the letters, digits and a few hundred English words, each letter also as a
//! `##` continuation, so every ASCII word tokenizes. Weights come from a fixed-seed generator:
//! the same `seed` writes the same bytes, another seed another model (another hash).

use std::fmt::Write as _;
use std::path::Path;

/// Hidden size, layers, heads, feed-forward size, positions.
const HIDDEN: usize = 32;
const LAYERS: usize = 2;
const HEADS: usize = 4;
const INTERMEDIATE: usize = 64;
const POSITIONS: usize = 64;

const WORDS: &str = "the a an and or of to in on for with by from at as is are be was were it this that \
    these those how what why when where which who install run build serve search page docs skill \
    file files folder tree link links section heading model vector server client request response \
    error errors config configure setup start stop cache index catalog query word words meaning \
    read write open close test tests deploy release version update change changed new old first \
    last next guide reference api cli command commands option options flag flags use using user \
    users data text markdown code example examples note help get set make take keep show find";

/// Writes the model into `dir` (created), its weights drawn from `seed`.
pub(crate) fn write(dir: &Path, seed: u64) {
    std::fs::create_dir_all(dir).unwrap();
    let vocab = vocabulary();
    let config = serde_json::json!({
        "architectures": ["BertModel"],
        "model_type": "bert",
        "hidden_act": "gelu",
        "hidden_size": HIDDEN,
        "num_hidden_layers": LAYERS,
        "num_attention_heads": HEADS,
        "intermediate_size": INTERMEDIATE,
        "max_position_embeddings": POSITIONS,
        "type_vocab_size": 2,
        "vocab_size": vocab.len(),
        "hidden_dropout_prob": 0.1,
        "attention_probs_dropout_prob": 0.1,
        "initializer_range": 0.02,
        "layer_norm_eps": 1e-12,
        "pad_token_id": 0,
    });
    std::fs::write(dir.join("config.json"), serde_json::to_vec_pretty(&config).unwrap()).unwrap();
    std::fs::write(dir.join("tokenizer.json"), tokenizer(&vocab)).unwrap();
    std::fs::write(dir.join("model.safetensors"), weights(vocab.len(), seed)).unwrap();
}

fn vocabulary() -> Vec<String> {
    let mut vocab: Vec<String> = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"].map(String::from).to_vec();
    for c in ('a'..='z').chain('0'..='9') {
        vocab.push(c.to_string());
        vocab.push(format!("##{c}"));
    }
    for word in WORDS.split_whitespace() {
        if word.chars().count() > 1 && !vocab.iter().any(|v| v == word) {
            vocab.push(word.to_owned());
        }
    }
    vocab
}

/// A WordPiece `tokenizer.json` with BERT's normaliser, pre-tokenizer and `[CLS] … [SEP]`
/// template, as the real models ship it.
fn tokenizer(vocab: &[String]) -> Vec<u8> {
    let special = |id: usize, content: &str| {
        serde_json::json!({"id": id, "content": content, "single_word": false, "lstrip": false,
            "rstrip": false, "normalized": false, "special": true})
    };
    let ids: serde_json::Map<String, serde_json::Value> =
        vocab.iter().enumerate().map(|(i, t)| (t.clone(), serde_json::json!(i))).collect();
    let added: Vec<serde_json::Value> = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
        .iter()
        .enumerate()
        .map(|(i, t)| special(i, t))
        .collect();
    let tokenizer = serde_json::json!({
        "version": "1.0",
        "truncation": null,
        "padding": null,
        "added_tokens": added,
        "normalizer": {"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true,
            "strip_accents": null, "lowercase": true},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {"type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                {"SpecialToken": {"id": "[SEP]", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}},
                {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
            "special_tokens": {
                "[CLS]": {"id": "[CLS]", "ids": [2], "tokens": ["[CLS]"]},
                "[SEP]": {"id": "[SEP]", "ids": [3], "tokens": ["[SEP]"]}}},
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": true},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
            "max_input_chars_per_word": 100, "vocab": ids},
    });
    serde_json::to_vec(&tokenizer).unwrap()
}

/// `model.safetensors`: every tensor candle's BERT reads, small random values (layer norms at
/// one and zero, as initialised), in the safetensors layout (an 8-byte header length, the JSON
/// header, the little-endian data).
fn weights(vocab: usize, seed: u64) -> Vec<u8> {
    let mut tensors: Vec<(String, Vec<usize>)> = vec![
        ("embeddings.word_embeddings.weight".into(), vec![vocab, HIDDEN]),
        ("embeddings.position_embeddings.weight".into(), vec![POSITIONS, HIDDEN]),
        ("embeddings.token_type_embeddings.weight".into(), vec![2, HIDDEN]),
        ("embeddings.LayerNorm.weight".into(), vec![HIDDEN]),
        ("embeddings.LayerNorm.bias".into(), vec![HIDDEN]),
    ];
    for l in 0..LAYERS {
        let p = format!("encoder.layer.{l}");
        for (name, shape) in [
            ("attention.self.query", [HIDDEN, HIDDEN]),
            ("attention.self.key", [HIDDEN, HIDDEN]),
            ("attention.self.value", [HIDDEN, HIDDEN]),
            ("attention.output.dense", [HIDDEN, HIDDEN]),
            ("intermediate.dense", [INTERMEDIATE, HIDDEN]),
            ("output.dense", [HIDDEN, INTERMEDIATE]),
        ] {
            tensors.push((format!("{p}.{name}.weight"), shape.to_vec()));
            tensors.push((format!("{p}.{name}.bias"), vec![shape[0]]));
        }
        for norm in ["attention.output.LayerNorm", "output.LayerNorm"] {
            tensors.push((format!("{p}.{norm}.weight"), vec![HIDDEN]));
            tensors.push((format!("{p}.{norm}.bias"), vec![HIDDEN]));
        }
    }
    tensors.sort();
    let mut rng = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        // xorshift64*: deterministic, and good enough for weights that mean nothing.
        rng ^= rng >> 12;
        rng ^= rng << 25;
        rng ^= rng >> 27;
        let x = rng.wrapping_mul(0x2545_F491_4F6C_DD1D);
        ((x >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 0.2
    };
    let (mut header, mut data) = (String::from("{"), Vec::new());
    for (i, (name, shape)) in tensors.iter().enumerate() {
        let n: usize = shape.iter().product();
        let start = data.len();
        for _ in 0..n {
            let value = match name {
                _ if name.ends_with("LayerNorm.weight") => 1.0,
                _ if name.ends_with("LayerNorm.bias") => 0.0,
                _ => next(),
            };
            data.extend_from_slice(&f32::to_le_bytes(value));
        }
        let comma = if i == 0 { "" } else { "," };
        write!(
            header,
            "{comma}\"{name}\":{{\"dtype\":\"F32\",\"shape\":{shape:?},\"data_offsets\":[{start},{}]}}",
            data.len()
        )
        .unwrap();
    }
    header.push('}');
    // The header is padded with spaces to a multiple of 8 bytes, as the format recommends.
    while header.len() % 8 != 0 {
        header.push(' ');
    }
    let mut out = (header.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(&data);
    out
}
