//! The embedded generator: a quantized instruct model read from one GGUF file and run in this
//! process with candle (llama and qwen2 architectures, ChatML chat format).
//!
//! Weights stored with 4- or 5-bit blocks (`Q4_0`, `Q4_1`, `Q5_0`, `Q5_1`) are re-quantised to
//! `Q8_0` in memory when the model loads: candle has no SIMD kernel for the 4-bit blocks, and its
//! `Q8_0` kernel writes SmolLM2-135M's tokens several times faster (figures in the README). Every
//! weight stays within one 8-bit step of the file's value.
//!
//! Decoding is greedy at temperature 0 (the same text twice) and seeded sampling above it, with a
//! repeat penalty of 1.1 over the last 64 tokens (llama.cpp's long-standing default): small models
//! otherwise repeat a sentence until `max_tokens`.

use std::fs::File;
use std::io::Cursor;
use std::path::Path;
use std::sync::Mutex;
use std::time::Instant;

use candle_core::quantized::{GgmlDType, QTensor, gguf_file};
use candle_core::{Device, Tensor};
use candle_transformers::generation::{LogitsProcessor, Sampling};
use candle_transformers::models::{quantized_llama, quantized_qwen2};
use tokenizers::Tokenizer;

use super::{ChatRequest, Finish, Generated, Generator, GeneratorInfo, Sink};
use crate::progress::{Progress, check_cancel};
use crate::{Error, Result};

/// Repeat penalty and the window it looks back over.
const REPEAT_PENALTY: f32 = 1.1;
const REPEAT_WINDOW: usize = 64;

/// The longest prompt plus answer the embedded model is asked to hold (SmolLM2 reads 8,192 tokens;
/// beyond 4,096 a prompt takes minutes on two cores).
pub const CONTEXT_LIMIT: usize = 4096;

enum Weights {
    Llama(quantized_llama::ModelWeights),
    Qwen2(quantized_qwen2::ModelWeights),
}

impl Weights {
    fn forward(&mut self, x: &Tensor, pos: usize) -> candle_core::Result<Tensor> {
        match self {
            Weights::Llama(m) => m.forward(x, pos),
            Weights::Qwen2(m) => m.forward(x, pos),
        }
    }
    fn clear(&mut self) {
        match self {
            Weights::Llama(m) => m.clear_kv_cache(),
            Weights::Qwen2(m) => m.clear_kv_cache(),
        }
    }
    /// A copy sharing the matrices (reference-counted) with its own attention cache: only
    /// candle's llama model can be copied so.
    fn fork(&self) -> Option<Weights> {
        match self {
            Weights::Llama(m) => Some(Weights::Llama(m.clone())),
            Weights::Qwen2(_) => None,
        }
    }
}

/// The attention cache after reading the opening turns of a conversation (the system message and
/// the worked examples), kept to read the next request that opens the same way: a judge's
/// requests differ only in their last turn, which saves reading a third of each prompt again.
struct Opening {
    tokens: Vec<u32>,
    wide: bool,
    weights: Weights,
}

/// A GGUF instruct model run in this process.
pub struct EmbeddedLlm {
    /// Q8_0 weights: the fastest at writing tokens one by one (memory-bound).
    weights: Mutex<Weights>,
    /// f32 weights, loaded at the first long prompt: reading a prompt multiplies whole matrices,
    /// which f32 does about four times faster than candle's Q8_0 kernel here.
    wide: Mutex<Option<Weights>>,
    /// The last request's opening turns, read.
    opening: Mutex<Option<Opening>>,
    path: std::path::PathBuf,
    arch: String,
    tokenizer: Tokenizer,
    /// Tokens that end the model's turn.
    stops: Vec<u32>,
    info: GeneratorInfo,
    /// What the file's weights were stored as, and what they run as.
    pub arithmetic: String,
}

/// The block types candle runs without a SIMD kernel, re-quantised to Q8_0 at load.
fn slow(dtype: GgmlDType) -> bool {
    matches!(dtype, GgmlDType::Q4_0 | GgmlDType::Q4_1 | GgmlDType::Q5_0 | GgmlDType::Q5_1)
}

fn human_count(n: u64) -> String {
    if n >= 1_000_000_000 { format!("{:.1}B", n as f64 / 1e9) } else { format!("{}M", (n as f64 / 1e6).round() as u64) }
}

/// When a request reads a prompt more than this many times longer than the most it may write,
/// the f32 copy of the weights answers it (reading a prompt dominates: a judgement, a long RAG
/// prompt); otherwise the Q8_0 weights do (writing dominates). Measured on SmolLM2-135M on two
/// Zen 3 cores: reading 3.4 ms a token in f32 against 13 in Q8_0, writing 70 against 27.
pub const F32_PROMPT_RATIO: usize = 4;

/// Whether a request with `prompt` tokens that may write `max_tokens` runs on the f32 copy.
pub fn uses_f32_copy(prompt: usize, max_tokens: usize) -> bool {
    prompt > F32_PROMPT_RATIO * max_tokens.max(1)
}

/// A GGUF file opened and its header read: the file, the header, and the path as errors name it.
fn open_gguf(path: &Path) -> Result<(File, gguf_file::Content, String)> {
    let what = path.display().to_string();
    let mut file = File::open(path).map_err(|e| Error::io(path, e))?;
    let content = gguf_file::Content::read(&mut file)
        .map_err(|e| Error::model_caused(format!("{what}: not a GGUF model file"), e))?;
    Ok((file, content, what))
}

/// The model's weights from a GGUF file, with its matrices as `target`: Q8_0 re-quantises the
/// blocks candle has no fast kernel for (and leaves the others); F32 dequantises every matrix.
/// Returns the weights, the block type that was re-quantised, and the parameter count.
fn build_weights(
    content: &gguf_file::Content,
    file: &mut File,
    what: &str,
    arch: &str,
    target: GgmlDType,
    progress: &dyn Progress,
) -> Result<(Weights, Option<GgmlDType>, u64)> {
    let cpu = Device::Cpu;
    let mut names: Vec<String> = content.tensor_infos.keys().cloned().collect();
    names.sort();
    progress.stage(
        if target == GgmlDType::F32 {
            "Loading the generator's f32 copy (for long prompts)"
        } else {
            "Loading the generator"
        },
        names.len() as u64,
    );
    let mut tensors = Vec::with_capacity(names.len());
    let (mut stored, mut params) = (None, 0u64);
    for name in &names {
        check_cancel(progress)?;
        let t = content.tensor(file, name, &cpu).map_err(|e| Error::model_caused(format!("{what}: {name}"), e))?;
        params += t.shape().elem_count() as u64;
        let dims = t.shape().dims().to_vec();
        let convert = match target {
            GgmlDType::F32 => dims.len() == 2 && t.dtype() != GgmlDType::F32,
            _ => slow(t.dtype()) && dims.len() == 2 && dims[1] % 32 == 0,
        };
        let t = if convert {
            stored = Some(t.dtype());
            let named = |e: candle_core::Error| Error::model_caused(format!("{what}: {name}"), e);
            QTensor::quantize(&t.dequantize(&cpu).map_err(named)?, target).map_err(named)?
        } else {
            t
        };
        tensors.push((name.clone(), t));
        progress.advance(1);
    }
    // candle builds a model from a GGUF reader: hand it an in-memory one holding the new matrices.
    let metadata: Vec<(&str, &gguf_file::Value)> = content.metadata.iter().map(|(k, v)| (k.as_str(), v)).collect();
    let refs: Vec<(&str, &QTensor)> = tensors.iter().map(|(n, t)| (n.as_str(), t)).collect();
    let named = |e: candle_core::Error| Error::model_caused(format!("{what}: its weights cannot be built"), e);
    let mut buf = Cursor::new(Vec::new());
    gguf_file::write(&mut buf, &metadata, &refs).map_err(named)?;
    drop(tensors);
    buf.set_position(0);
    let rebuilt = gguf_file::Content::read(&mut buf).map_err(named)?;
    let weights = match arch {
        "qwen2" => Weights::Qwen2(quantized_qwen2::ModelWeights::from_gguf(rebuilt, &mut buf, &cpu).map_err(named)?),
        _ => Weights::Llama(quantized_llama::ModelWeights::from_gguf(rebuilt, &mut buf, &cpu).map_err(named)?),
    };
    Ok((weights, stored, params))
}

impl EmbeddedLlm {
    /// Load `path` (a GGUF file) as the model `name`; `caveat` is what a reader of its text should
    /// know.
    pub fn load(path: &Path, name: &str, caveat: Option<String>, progress: &dyn Progress) -> Result<Self> {
        let (mut file, content, what) = open_gguf(path)?;
        let arch =
            content.metadata.get("general.architecture").and_then(|v| v.to_string().ok()).cloned().unwrap_or_default();
        if arch != "llama" && arch != "qwen2" {
            return Err(Error::invalid(
                &what,
                format!("architecture {arch:?}: the embedded generator runs llama and qwen2 models"),
            ));
        }
        let template = content
            .metadata
            .get("tokenizer.chat_template")
            .and_then(|v| v.to_string().ok())
            .cloned()
            .unwrap_or_default();
        if !template.contains("<|im_start|>") {
            return Err(Error::invalid(
                &what,
                "its chat template is not ChatML (<|im_start|>), the one RankLens writes",
            ));
        }
        let vocab = super::gguf_vocab::from_gguf(&content, &what)?;
        let mut stops: Vec<u32> =
            ["<|im_end|>", "<|endoftext|>"].iter().filter_map(|t| vocab.special.get(*t).copied()).collect();
        stops.extend(vocab.eos);
        if !vocab.special.contains_key("<|im_start|>") || stops.is_empty() {
            return Err(Error::invalid(&what, "its vocabulary has no <|im_start|> / <|im_end|> tokens"));
        }

        let (weights, stored, params) = build_weights(&content, &mut file, &what, &arch, GgmlDType::Q8_0, progress)?;
        let arithmetic = match stored {
            Some(d) => format!("Q8_0, from the file's {d:?}"),
            None => "as stored".to_string(),
        };
        let size = format!("{} parameters, {}", human_count(params), if stored.is_some() { "Q8_0" } else { "GGUF" });
        let info = GeneratorInfo { model: name.to_string(), size: Some(size), place: "embedded".into(), caveat };
        Ok(Self {
            weights: Mutex::new(weights),
            wide: Mutex::new(None),
            opening: Mutex::new(None),
            path: path.to_path_buf(),
            arch,
            tokenizer: vocab.tokenizer,
            stops,
            info,
            arithmetic,
        })
    }

    /// The ChatML text of a request, ending where the assistant's turn starts.
    pub fn chatml(request: &ChatRequest) -> String {
        let mut out = Self::chatml_turns(&request.messages);
        out.push_str("<|im_start|>assistant\n");
        out
    }

    fn chatml_turns(messages: &[super::Message]) -> String {
        let mut out = String::new();
        for m in messages {
            out.push_str(&format!("<|im_start|>{}\n{}<|im_end|>\n", m.role.name(), m.content.trim()));
        }
        out
    }

    /// The tokens of every turn but the last, when the prompt starts with exactly them (it does:
    /// each turn ends with a special token); `None` for a one-turn request.
    fn opening_tokens(&self, request: &ChatRequest, prompt: &[u32]) -> Result<Option<Vec<u32>>> {
        if request.messages.len() < 2 {
            return Ok(None);
        }
        let opening = self.tokenize(&Self::chatml_turns(&request.messages[..request.messages.len() - 1]))?;
        Ok((opening.len() < prompt.len() && prompt.starts_with(&opening)).then_some(opening))
    }

    /// Tokens of a text as the model reads it (special tokens matched whole).
    pub fn tokenize(&self, text: &str) -> Result<Vec<u32>> {
        let enc =
            self.tokenizer.encode(text, false).map_err(|e| Error::Model(format!("tokenizing the prompt: {e}")))?;
        Ok(enc.get_ids().to_vec())
    }

    /// Start from the opening turns already read when this request opens as the last one did;
    /// otherwise read them (into a copy of `weights`) and keep their cache for the next request.
    /// Returns that copy, ready at the position where the rest of the prompt starts, or `None`
    /// and 0 when the request has one turn or the model cannot be copied (then `weights` reads
    /// the whole prompt).
    fn opening(
        &self,
        weights: &Weights,
        request: &ChatRequest,
        prompt: &[u32],
        wide: bool,
    ) -> Result<(Option<Weights>, usize)> {
        let Some(opening) = self.opening_tokens(request, prompt)? else { return Ok((None, 0)) };
        let mut kept =
            self.opening.lock().map_err(|_| Error::Model("the generator stopped on an earlier failure".into()))?;
        if let Some(k) = kept.as_ref().filter(|k| k.tokens == opening && k.wide == wide) {
            return Ok((k.weights.fork(), opening.len()));
        }
        let Some(mut w) = weights.fork() else { return Ok((None, 0)) };
        w.clear();
        w.forward(&Tensor::new(opening.as_slice(), &Device::Cpu)?.unsqueeze(0)?, 0)?;
        let forked = w.fork();
        *kept = Some(Opening { tokens: opening.clone(), wide, weights: w });
        Ok((forked, opening.len()))
    }

    /// The model's scores for the first token it would write (its Q8_0 weights), reading the
    /// opening turns as [`Generator::chat`] does (`opening`: kept from an earlier request that
    /// opened alike, or read apart and kept), or the whole prompt at once: the two agree to
    /// rounding, which is what lets a judge's requests skip reading the examples again.
    pub fn first_token_scores(&self, request: &ChatRequest, opening: bool) -> Result<Vec<f32>> {
        let prompt = self.tokenize(&Self::chatml(request))?;
        let mut guard =
            self.weights.lock().map_err(|_| Error::Model("the generator stopped on an earlier failure".into()))?;
        let (mut forked, pos) = if opening { self.opening(&guard, request, &prompt, false)? } else { (None, 0) };
        let weights: &mut Weights = match forked.as_mut() {
            Some(w) => w,
            None => {
                guard.clear();
                &mut guard
            }
        };
        let logits = weights.forward(&Tensor::new(&prompt[pos..], &Device::Cpu)?.unsqueeze(0)?, pos)?;
        Ok(logits.squeeze(0)?.to_dtype(candle_core::DType::F32)?.to_vec1()?)
    }

    /// The `top` likeliest first tokens of the answer with their log-probabilities, read from the
    /// model's logits (log-softmax over the whole vocabulary, in f64), best first; ties by token id.
    pub fn first_token_choices(&self, request: &ChatRequest, top: usize) -> Result<Vec<super::TokenChoice>> {
        let logits = self.first_token_scores(request, true)?;
        Ok(top_choices(&logits, top, |id| self.tokenizer_decode(id)))
    }

    /// One token's text, as the first-token choices name it.
    pub fn tokenizer_decode(&self, id: u32) -> String {
        self.tokenizer.decode(&[id], false).unwrap_or_default()
    }

    fn decode(&self, ids: &[u32]) -> Result<String> {
        self.tokenizer.decode(ids, true).map_err(|e| Error::Model(format!("decoding the answer: {e}")))
    }
}

/// The `top` largest of `logits` as log-probabilities (log-softmax in f64), best first, ties by
/// index; `text` names each index.
pub fn top_choices(logits: &[f32], top: usize, text: impl Fn(u32) -> String) -> Vec<super::TokenChoice> {
    let max = logits.iter().copied().filter(|x| x.is_finite()).fold(f32::NEG_INFINITY, f32::max);
    if !max.is_finite() {
        return Vec::new();
    }
    let max = f64::from(max);
    let log_sum = logits.iter().filter(|x| x.is_finite()).map(|&x| (f64::from(x) - max).exp()).sum::<f64>().ln() + max;
    let mut order: Vec<usize> = (0..logits.len()).filter(|&i| logits[i].is_finite()).collect();
    order.sort_by(|&a, &b| logits[b].total_cmp(&logits[a]).then(a.cmp(&b)));
    order
        .into_iter()
        .take(top)
        .map(|i| super::TokenChoice { token: text(i as u32), logprob: f64::from(logits[i]) - log_sum })
        .collect()
}

impl Generator for EmbeddedLlm {
    fn info(&self) -> &GeneratorInfo {
        &self.info
    }

    fn first_tokens(
        &self,
        request: &ChatRequest,
        top: usize,
        progress: &dyn Progress,
    ) -> Result<Option<Vec<super::TokenChoice>>> {
        check_cancel(progress)?;
        self.first_token_choices(request, top).map(Some)
    }

    fn chat(&self, request: &ChatRequest, sink: Sink<'_>, progress: &dyn Progress) -> Result<Generated> {
        let started = Instant::now();
        let prompt = self.tokenize(&Self::chatml(request))?;
        if prompt.len() + request.max_tokens > CONTEXT_LIMIT {
            return Err(Error::invalid(
                "prompt",
                format!(
                    "{} tokens and up to {} more for the answer: the embedded model is given at most {CONTEXT_LIMIT}; \
                     put fewer or shorter passages in the prompt",
                    prompt.len(),
                    request.max_tokens
                ),
            ));
        }
        let sampling = if request.temperature <= 0.0 {
            Sampling::ArgMax
        } else {
            Sampling::All { temperature: request.temperature }
        };
        let mut sampler = LogitsProcessor::from_sampling(request.seed, sampling);
        let poisoned = || Error::Model("the generator stopped on an earlier failure".into());
        let mut wide;
        let mut narrow;
        let weights: &mut Weights = if uses_f32_copy(prompt.len(), request.max_tokens) {
            wide = self.wide.lock().map_err(|_| poisoned())?;
            if wide.is_none() {
                let (mut file, content, what) = open_gguf(&self.path)?;
                *wide = Some(build_weights(&content, &mut file, &what, &self.arch, GgmlDType::F32, progress)?.0);
            }
            wide.as_mut().ok_or_else(poisoned)?
        } else {
            narrow = self.weights.lock().map_err(|_| poisoned())?;
            &mut narrow
        };
        let wide_weights = uses_f32_copy(prompt.len(), request.max_tokens);
        progress.stage("Reading the prompt", prompt.len() as u64);
        let cpu = Device::Cpu;
        let (mut forked, pos) = self.opening(weights, request, &prompt, wide_weights)?;
        let weights: &mut Weights = match forked.as_mut() {
            Some(w) => w,
            None => {
                weights.clear();
                weights
            }
        };
        let mut context = prompt.clone();
        let mut written: Vec<u32> = Vec::new();
        // Each token's text is decoded once, as it comes (a character spanning several tokens is
        // passed on when its last token is in), not the whole answer again on every token.
        let mut stream = self.tokenizer.decode_stream(true);
        let mut shown = String::new();
        let mut finish = Finish::Length;
        let mut input = Tensor::new(&prompt[pos..], &cpu)?.unsqueeze(0)?;
        let mut pos = pos;
        progress.advance(prompt.len() as u64);
        progress.stage("Writing", request.max_tokens as u64);
        while written.len() < request.max_tokens {
            check_cancel(progress)?;
            let logits = weights.forward(&input, pos)?.squeeze(0)?.to_dtype(candle_core::DType::F32)?;
            pos += input.dim(1)?;
            let start = context.len().saturating_sub(REPEAT_WINDOW);
            let logits = candle_transformers::utils::apply_repeat_penalty(&logits, REPEAT_PENALTY, &context[start..])?;
            let next = sampler.sample(&logits)?;
            if self.stops.contains(&next) {
                finish = Finish::Stop;
                break;
            }
            written.push(next);
            context.push(next);
            progress.advance(1);
            if let Some(piece) = stream.step(next).map_err(|e| Error::Model(format!("decoding the answer: {e}")))? {
                sink(&piece);
                shown.push_str(&piece);
            }
            input = Tensor::new(&[next], &cpu)?.unsqueeze(0)?;
        }
        // The answer is the whole decode; what the pieces did not show yet (a character cut at
        // the end) is passed on last.
        let text = self.decode(&written)?;
        if let Some(rest) = text.strip_prefix(shown.as_str())
            && !rest.is_empty()
        {
            sink(rest);
        }
        Ok(Generated {
            text,
            model: self.info.label(),
            finish,
            prompt_tokens: prompt.len(),
            completion_tokens: written.len(),
            seconds: started.elapsed().as_secs_f64(),
        })
    }
}

/// The GGUF file of a resolved generator.
pub fn gguf_file(model: &crate::models::ResolvedModel) -> Result<std::path::PathBuf> {
    model
        .spec
        .files
        .iter()
        .map(|f| model.dir.join(&f.path))
        .find(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("gguf")))
        .ok_or_else(|| crate::Error::Model(format!("{}: the generator has no .gguf file", model.spec.id)))
}

/// Load the embedded generator the model manager finds (downloading it when allowed).
pub fn load_embedded(
    manager: &crate::models::ModelManager,
    allow_download: bool,
    progress: &dyn Progress,
) -> Result<(EmbeddedLlm, crate::models::ResolvedModel)> {
    let model = manager.resolve(crate::models::Role::Generator, allow_download, progress)?;
    let path = gguf_file(&model)?;
    let name = model.spec.id.rsplit('/').next().unwrap_or(&model.spec.id).to_string();
    let llm = EmbeddedLlm::load(&path, &name, super::caveat_for(&name), progress)?;
    Ok((llm, model))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{ChatRequest, Message};

    #[test]
    fn chatml_is_smollm2_s_template_ending_where_the_answer_starts() {
        // SmolLM2's chat template (its tokenizer_config.json): each turn
        // `<|im_start|>{role}\n{content}<|im_end|>\n`, then the assistant's opening.
        let r = ChatRequest::new(vec![Message::system("Be brief."), Message::user("  What is E140?\n")], 8);
        assert_eq!(
            EmbeddedLlm::chatml(&r),
            "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nWhat is E140?<|im_end|>\n<|im_start|>assistant\n"
        );
    }

    #[test]
    fn top_choices_are_log_softmax_best_first_and_skip_what_is_not_finite() {
        // Logits ln 1, ln 2, ln 5 (and a NaN and −∞ left out): probabilities 1/8, 2/8, 5/8.
        let logits = [0.0f32, 2f32.ln(), f32::NAN, 5f32.ln(), f32::NEG_INFINITY];
        let top = top_choices(&logits, 2, |i| format!("t{i}"));
        let got: Vec<(&str, f64)> = top.iter().map(|c| (c.token.as_str(), c.logprob)).collect();
        assert_eq!(got.len(), 2);
        assert_eq!((got[0].0, got[1].0), ("t3", "t1"));
        assert!((got[0].1 - (5.0f64 / 8.0).ln()).abs() < 1e-6, "{got:?}");
        assert!((got[1].1 - (2.0f64 / 8.0).ln()).abs() < 1e-6, "{got:?}");
        // Equal logits: the lower index first.
        let tie = top_choices(&[1.0, 1.0], 2, |i| i.to_string());
        assert_eq!((tie[0].token.as_str(), tie[1].token.as_str()), ("0", "1"));
        assert!((tie[0].logprob - 0.5f64.ln()).abs() < 1e-9);
        assert!(top_choices(&[f32::NAN], 3, |i| i.to_string()).is_empty());
    }

    #[test]
    fn the_f32_copy_reads_long_prompts_and_the_quantised_weights_write() {
        // 4 × 64 = 256: a prompt of 257 tokens before 64 new ones reads on the f32 copy.
        assert!(uses_f32_copy(257, 64) && !uses_f32_copy(256, 64));
        // A judgement writes 1 token: any prompt over 4 tokens; 0 counts as 1.
        assert!(uses_f32_copy(5, 1) && uses_f32_copy(5, 0) && !uses_f32_copy(4, 1));
        assert_eq!(human_count(134_515_008), "135M");
        assert_eq!(human_count(1_711_376_384), "1.7B");
        assert!(slow(GgmlDType::Q4_1) && !slow(GgmlDType::Q8_0) && !slow(GgmlDType::F32));
    }

    #[test]
    fn a_file_that_is_not_gguf_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("model.gguf");
        std::fs::write(&path, b"<html>not a model</html>").unwrap();
        let e = open_gguf(&path).err().map(|e| e.report()).unwrap_or_default();
        assert!(e.contains("model.gguf") && e.contains("not a GGUF model file"), "{e}");
        let missing = open_gguf(&dir.path().join("absent.gguf")).err().map(|e| e.report()).unwrap_or_default();
        assert!(missing.contains("absent.gguf"), "{missing}");
    }
}
