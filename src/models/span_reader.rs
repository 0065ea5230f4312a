//! A trained extractive reader: a BERT-family encoder with a two-logit head (`qa_outputs`, the
//! `…ForQuestionAnswering` layout of `transformers`), read as the documents describe it.
//!
//! The question and a passage go in as one pair, `[CLS] question [SEP] passage [SEP]` (token type
//! 0 for the question, 1 for the passage). The head is a linear map from each token's last hidden
//! state p′ᵢ to two numbers: the *start* score S·p′ᵢ (logit 0) and the *end* score E·p′ᵢ
//! (logit 1). A passage longer than the model reads at once is cut into overlapping windows as
//! `transformers` cuts them (`truncation="only_second"` with `stride` tokens of overlap, each
//! window repeating the question), and each window is read on its own. What to do with the scores
//! (the best span, the no-answer) is the reader's ([`crate::read`]); this file only computes them.
//!
//! Two layouts load: BERT (`deepset/minilm-uncased-squad2`) and DistilBERT
//! (`distilbert-base-cased-distilled-squad`), whose encoder is the same network under other names
//! ([`FastBert::load_distilbert`]) with no token types.

use std::ops::Range;
use std::path::Path;

use tokenizers::Tokenizer;

use super::bert::{load_tokenizer, load_weights};
use super::fast_bert::{FastBert, distilbert_config};
use super::precision::Precision;
use crate::{Error, Result};

/// How a reader model cuts and reads (the manifest's `reader` settings).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ReaderSettings {
    /// Tokens of overlap between a passage's windows (`transformers`' `doc_stride`).
    pub stride: usize,
    /// The longest answer, in tokens.
    pub max_answer_tokens: usize,
    /// Whether the model was trained to say "no answer" with `[CLS]` (SQuAD 2.0); a SQuAD 1.1
    /// model's `[CLS]` scores mean nothing and it always answers.
    pub no_answer: bool,
}

impl Default for ReaderSettings {
    fn default() -> Self {
        Self { stride: 128, max_answer_tokens: 30, no_answer: true }
    }
}

/// One window of a passage as the model read it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct QaWindow {
    /// Every token of the window, `[CLS]` and the question included, as the vocabulary writes it.
    pub tokens: Vec<String>,
    /// For each token of the passage, its byte range in the passage's text; `None` for the
    /// question's tokens and the special ones.
    pub offsets: Vec<Option<Range<usize>>>,
    /// S·p′ᵢ for every token.
    pub start: Vec<f32>,
    /// E·p′ᵢ for every token.
    pub end: Vec<f32>,
}

impl QaWindow {
    /// The passage's tokens, by index into the window.
    pub fn passage_tokens(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.tokens.len()).filter(|&i| self.offsets.get(i).is_some_and(Option::is_some))
    }

    /// The no-answer score: `[CLS]`'s start score plus its end score.
    pub fn no_answer(&self) -> f32 {
        self.start.first().copied().unwrap_or(0.0) + self.end.first().copied().unwrap_or(0.0)
    }
}

/// The extractive model: its encoder, tokenizer and head.
pub struct QaModel {
    id: String,
    model: FastBert,
    /// The tokenizer, no truncation: windows are cut here ([`QaModel::windows`]).
    untruncated: Tokenizer,
    /// The head's weights, two rows of `hidden` (start, then end), and its two biases.
    head: Vec<f32>,
    bias: [f32; 2],
    max_length: usize,
    settings: ReaderSettings,
}

fn model_err(dir: &Path, what: &str, e: impl std::fmt::Display) -> Error {
    Error::Model(format!("{}: {what}: {e}", dir.display()))
}

impl QaModel {
    /// Load a `…ForQuestionAnswering` folder (`config.json`, `tokenizer.json` or `vocab.txt`,
    /// `model.safetensors` or `pytorch_model.bin`), reading `max_length` tokens a window.
    pub fn load(
        id: &str,
        dir: &Path,
        max_length: usize,
        settings: ReaderSettings,
        precision: Precision,
    ) -> Result<Self> {
        let cfg_path = dir.join("config.json");
        let text = std::fs::read_to_string(&cfg_path).map_err(|e| Error::io(&cfg_path, e))?;
        let json: serde_json::Value = serde_json::from_str(&text).map_err(|e| model_err(dir, "config.json", e))?;
        let distil = json.get("model_type").and_then(|m| m.as_str()) == Some("distilbert") || json.get("dim").is_some();
        let config = if distil {
            distilbert_config(&json)?
        } else {
            serde_json::from_value::<candle_transformers::models::bert::Config>(json)
                .map_err(|e| model_err(dir, "config.json", e))?
        };
        let max_length = max_length.min(config.max_position_embeddings);
        if settings.stride + 8 >= max_length {
            return Err(Error::invalid(
                "reader stride",
                format!(
                    "{} tokens of overlap in windows of {max_length}: the stride must be well under the window",
                    settings.stride
                ),
            ));
        }
        let mut untruncated = load_tokenizer(dir, max_length)?;
        untruncated.with_truncation(None).map_err(|e| model_err(dir, "truncation", e))?;
        let vb = load_weights(dir, &candle_core::Device::Cpu)?;
        let model = if distil { FastBert::load_distilbert(&vb, &config)? } else { FastBert::load(&vb, &config)? };
        let model = model.with_precision(precision)?;
        let h = config.hidden_size;
        let w = vb.get((2, h), "qa_outputs.weight").map_err(|e| model_err(dir, "the head qa_outputs.weight", e))?;
        let b = vb.get(2, "qa_outputs.bias").map_err(|e| model_err(dir, "the head qa_outputs.bias", e))?;
        let head = w.flatten_all()?.to_vec1::<f32>()?;
        let b = b.to_vec1::<f32>()?;
        let bias = [b.first().copied().unwrap_or(0.0), b.get(1).copied().unwrap_or(0.0)];
        Ok(Self { id: id.to_string(), model, untruncated, head, bias, max_length, settings })
    }

    /// Its id (with the precision it runs in).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// How it cuts and reads.
    pub fn settings(&self) -> ReaderSettings {
        self.settings
    }

    /// Tokens a window holds, question and special tokens included.
    pub fn max_length(&self) -> usize {
        self.max_length
    }

    /// The windows of `(question, passage)`, cut as `transformers` cuts them
    /// (`truncation="only_second"`, `stride` tokens of overlap): the passage's tokens in pieces of
    /// `max_length − |question| − 3`, each starting `stride` tokens before the last one ended,
    /// until one reaches the passage's end; each window `[CLS] question [SEP] piece [SEP]`. The
    /// windows are made here, from the two texts' own tokens: the tokenizer library's overflowing
    /// encodings of a pair are not those of `transformers` (tokenizers 0.23 keeps one).
    pub fn windows(&self, question: &str, passage: &str) -> Result<Vec<QaInput>> {
        let tokenize =
            |text: &str| self.untruncated.encode(text, false).map_err(|e| Error::caused("model: tokenizer", e));
        let (q, p) = (tokenize(question)?, tokenize(passage)?);
        let budget = self.max_length.saturating_sub(q.len() + 3);
        if budget <= self.settings.stride {
            return Err(Error::invalid(
                "question",
                format!(
                    "{} word pieces: the reader reads {} at once, so a passage beside it gets {budget}, no more \
                     than the {} the windows overlap by; ask a shorter question",
                    q.len(),
                    self.max_length,
                    self.settings.stride
                ),
            ));
        }
        let n = p.len();
        let mut pieces = Vec::new();
        let mut start = 0;
        loop {
            let stop = (start + budget).min(n);
            pieces.push(start..stop);
            if stop >= n {
                break;
            }
            start += budget - self.settings.stride;
        }
        let special = |t: &str| {
            self.untruncated.token_to_id(t).ok_or_else(|| Error::Model(format!("the vocabulary has no {t} token")))
        };
        let (cls, sep) = (special("[CLS]")?, special("[SEP]")?);
        Ok(pieces
            .into_iter()
            .map(|r| {
                let mut w = QaInput::default();
                let mut push = |id: u32, token: &str, typ: u32, offset: Option<Range<usize>>| {
                    w.ids.push(id);
                    w.tokens.push(token.to_string());
                    w.types.push(typ);
                    w.offsets.push(offset);
                };
                push(cls, "[CLS]", 0, None);
                for (id, token) in q.get_ids().iter().zip(q.get_tokens()) {
                    push(*id, token, 0, None);
                }
                push(sep, "[SEP]", 0, None);
                for i in r {
                    let (a, b) = p.get_offsets()[i];
                    push(p.get_ids()[i], &p.get_tokens()[i], 1, (b > a).then_some(a..b));
                }
                push(sep, "[SEP]", 1, None);
                w
            })
            .collect())
    }

    /// Read a passage for a question: each window's tokens with their start and end scores.
    pub fn read(&self, question: &str, passage: &str) -> Result<Vec<QaWindow>> {
        let inputs = self.windows(question, passage)?;
        let ids: Vec<Vec<u32>> = inputs.iter().map(|w| w.ids.clone()).collect();
        // A model without token types (DistilBERT) reads every token as type 0.
        let types: Vec<Vec<u32>> = inputs
            .iter()
            .map(|w| if self.model.token_types() > 1 { w.types.clone() } else { vec![0; w.ids.len()] })
            .collect();
        let keys: Vec<usize> = ids.iter().map(Vec::len).collect();
        let (hidden, offsets) = self.model.forward(&ids, &types, &keys)?;
        let h = self.model.hidden();
        let mut windows = Vec::with_capacity(inputs.len());
        for (w, input) in inputs.into_iter().enumerate() {
            let rows = offsets[w]..offsets[w + 1];
            let (mut start, mut end) = (Vec::with_capacity(rows.len()), Vec::with_capacity(rows.len()));
            for r in rows {
                let x = &hidden[r * h..(r + 1) * h];
                start.push(dot(x, &self.head[..h]) + self.bias[0]);
                end.push(dot(x, &self.head[h..2 * h]) + self.bias[1]);
            }
            windows.push(QaWindow { tokens: input.tokens, offsets: input.offsets, start, end });
        }
        Ok(windows)
    }
}

/// One window as the model reads it: token ids, types (0 the question's, 1 the passage's), the
/// tokens, and the passage tokens' byte ranges.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QaInput {
    /// Token ids.
    pub ids: Vec<u32>,
    /// Token types.
    pub types: Vec<u32>,
    /// The tokens as the vocabulary writes them.
    pub tokens: Vec<String>,
    /// The passage's tokens' byte ranges in the passage; `None` elsewhere.
    pub offsets: Vec<Option<Range<usize>>>,
}

/// A dot product summed in order (the same bits on every CPU).
fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).fold(0.0f32, |s, (x, y)| s + x * y)
}
