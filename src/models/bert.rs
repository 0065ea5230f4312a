//! The BERT backbone shared by every encoder: tokenizer, config and weights from a model folder,
//! and a padded batch forward pass.

use std::path::Path;

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::Config;

use std::ops::Range;

use super::fast_bert::FastBert;
use super::precision::Precision;
use super::window_cuts::{WindowSpec, window_spans};
use tokenizers::{Encoding, Tokenizer, TruncationParams};

use crate::{Error, Result};

/// A tokenizer and a BERT encoder loaded from one folder.
pub struct Backbone {
    /// The encoder.
    pub model: FastBert,
    /// Its tokenizer, with truncation set and padding off (batches are padded here).
    pub tokenizer: Tokenizer,
    /// Its configuration.
    pub config: Config,
    /// The same tokenizer without truncation, to cut long texts into windows.
    untruncated: Tokenizer,
    /// Tokens the model reads at once, special tokens included.
    pub max_length: usize,
    /// Where tensors live (CPU).
    pub device: Device,
}

/// Token ids of several inputs, to be padded into one forward pass.
#[derive(Debug, Clone, Default)]
pub struct Batch {
    /// Token ids per input.
    pub ids: Vec<Vec<u32>>,
    /// Segment ids per input.
    pub type_ids: Vec<Vec<u32>>,
    /// Attention mask per input (1 = attend).
    pub mask: Vec<Vec<u32>>,
}

impl Batch {
    /// Add one encoding.
    pub fn push(&mut self, e: &Encoding) {
        self.ids.push(e.get_ids().to_vec());
        self.type_ids.push(e.get_type_ids().to_vec());
        self.mask.push(e.get_attention_mask().to_vec());
    }

    /// Longest input.
    pub fn max_len(&self) -> usize {
        self.ids.iter().map(Vec::len).max().unwrap_or(0)
    }
}

fn model_err(dir: &Path, what: &str, e: impl Into<crate::error::Cause>) -> Error {
    Error::caused(format!("model: {}: {what}", dir.display()), e)
}

/// Load `tokenizer.json`, or build the standard BERT tokenizer from `vocab.txt`.
pub fn load_tokenizer(dir: &Path, max_length: usize) -> Result<Tokenizer> {
    let json = dir.join("tokenizer.json");
    let mut tokenizer = if json.is_file() {
        Tokenizer::from_file(&json).map_err(|e| model_err(dir, "tokenizer.json", e))?
    } else {
        let vocab = dir.join("vocab.txt");
        let wordpiece = tokenizers::models::wordpiece::WordPiece::from_file(&vocab.to_string_lossy())
            .unk_token("[UNK]".into())
            .build()
            .map_err(|e| model_err(dir, "vocab.txt", e))?;
        let mut t = Tokenizer::new(wordpiece);
        let _ = t.with_normalizer(Some(tokenizers::normalizers::BertNormalizer::default()));
        t.with_pre_tokenizer(Some(tokenizers::pre_tokenizers::bert::BertPreTokenizer));
        let id = |tok: &str| t.token_to_id(tok).ok_or_else(|| model_err(dir, "vocab.txt", format!("no {tok}")));
        let (sep, cls) = (id("[SEP]")?, id("[CLS]")?);
        t.with_post_processor(Some(tokenizers::processors::bert::BertProcessing::new(
            ("[SEP]".into(), sep),
            ("[CLS]".into(), cls),
        )));
        t
    };
    tokenizer
        .with_truncation(Some(TruncationParams { max_length, ..Default::default() }))
        .map_err(|e| model_err(dir, "truncation", e))?;
    tokenizer.with_padding(None);
    Ok(tokenizer)
}

/// Weights from `model.safetensors`, or PyTorch's `pytorch_model.bin`.
pub fn load_weights(dir: &Path, device: &Device) -> Result<VarBuilder<'static>> {
    let st = dir.join("model.safetensors");
    if st.is_file() {
        let bytes = std::fs::read(&st).map_err(|e| Error::io(&st, e))?;
        return VarBuilder::from_buffered_safetensors(bytes, DType::F32, device)
            .map_err(|e| model_err(dir, "model.safetensors", e));
    }
    let bin = dir.join("pytorch_model.bin");
    if bin.is_file() {
        return VarBuilder::from_pth(&bin, DType::F32, device).map_err(|e| model_err(dir, "pytorch_model.bin", e));
    }
    Err(Error::Model(format!("{}: no model.safetensors or pytorch_model.bin", dir.display())))
}

impl Backbone {
    /// Load the tokenizer, config and encoder of a folder. Returns the weights too, so a head can
    /// load its own tensors from them.
    /// The linear layers run in `precision` where the CPU can (see [`FastBert::precision`]).
    pub fn load(dir: &Path, max_length: usize, precision: Precision) -> Result<(Backbone, VarBuilder<'static>)> {
        let device = Device::Cpu;
        let cfg_path = dir.join("config.json");
        let cfg_text = std::fs::read_to_string(&cfg_path).map_err(|e| Error::io(&cfg_path, e))?;
        let config: Config = serde_json::from_str(&cfg_text).map_err(|e| model_err(dir, "config.json", e))?;
        let max_length = max_length.min(config.max_position_embeddings);
        let tokenizer = load_tokenizer(dir, max_length)?;
        let mut untruncated = tokenizer.clone();
        untruncated.with_truncation(None).map_err(|e| model_err(dir, "truncation", e))?;
        let vb = load_weights(dir, &device)?;
        let model = FastBert::load(&vb, &config)
            .and_then(|m| m.with_precision(precision))
            .map_err(|e| model_err(dir, "BERT weights", e))?;
        Ok((Backbone { model, tokenizer, config, untruncated, max_length, device }, vb))
    }

    /// Tokenise one text (with [CLS]/[SEP], truncated).
    pub fn encode(&self, text: &str) -> Result<Encoding> {
        self.tokenizer.encode(text, true).map_err(|e| Error::caused("model: tokenizer", e))
    }

    /// Byte ranges of the windows of `text` (one for a text that fits) when the model reads
    /// `tokens` word pieces of text at once.
    pub fn windows(&self, text: &str, tokens: usize, spec: WindowSpec) -> Result<Vec<Range<usize>>> {
        if spec.truncate {
            return Ok(std::iter::once(0..text.len()).collect());
        }
        let e = self.untruncated.encode(text, false).map_err(|e| Error::caused("model: tokenizer", e))?;
        let (size, stride) = spec.resolve(tokens);
        Ok(window_spans(text.len(), e.get_offsets(), e.get_word_ids(), size, stride))
    }

    /// Tokenise a (query, passage) pair.
    pub fn encode_pair(&self, a: &str, b: &str) -> Result<Encoding> {
        self.tokenizer.encode((a, b), true).map_err(|e| Error::caused("model: tokenizer", e))
    }

    /// The vocabulary string of a token id.
    pub fn token(&self, id: u32) -> String {
        self.tokenizer.id_to_token(id).unwrap_or_else(|| format!("[{id}]"))
    }

    /// Hidden states [batch, max_len, hidden] and the mask [batch, max_len] as f32. The encoder
    /// runs on each sequence's own tokens, unpadded (see [`FastBert`]); rows past a sequence's
    /// end are zeros.
    pub fn forward(&self, batch: &Batch) -> Result<(Tensor, Tensor)> {
        let (b, t, h) = (batch.ids.len(), batch.max_len(), self.model.hidden());
        let dev = &self.device;
        // Every token runs through the encoder and attends to the ones the mask keeps (a
        // tokenizer masks only a tail: padding, or ColBERT's [MASK] query augmentation).
        let keys: Vec<usize> = batch.mask.iter().map(|m| m.iter().take_while(|&&m| m != 0).count()).collect();
        let (packed, offsets) = self.model.forward(&batch.ids, &batch.type_ids, &keys)?;
        let mut hidden = vec![0f32; b * t * h];
        for s in 0..b {
            let rows = &packed[offsets[s] * h..offsets[s + 1] * h];
            hidden[s * t * h..s * t * h + rows.len()].copy_from_slice(rows);
        }
        let hidden = Tensor::from_vec(hidden, (b, t, h), dev)?;
        let mask: Vec<f32> = batch
            .mask
            .iter()
            .flat_map(|m| (0..t).map(move |p| m.get(p).map_or(0.0, |&v| if v != 0 { 1.0 } else { 0.0 })))
            .collect();
        Ok((hidden, Tensor::from_vec(mask, (b, t), dev)?))
    }
}

/// L2-normalise the last dimension.
pub fn l2_normalize(t: &Tensor) -> Result<Tensor> {
    let norm = t.sqr()?.sum_keepdim(t.rank() - 1)?.sqrt()?.clamp(1e-12, f64::MAX)?;
    Ok(t.broadcast_div(&norm)?)
}
