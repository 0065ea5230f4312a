//! The embedded generator: a GGUF instruct model run in this process by llama.cpp, through the
//! `llama-cpp-2` binding built from the sources it vendors (every architecture llama.cpp reads:
//! llama, qwen2, phi, gemma, mistral …).
//!
//! Why llama.cpp and not candle's quantized models, which ran here before: on the same GGUF with
//! the same two threads, candle took 1.5× llama.cpp's time for a RAG answer from Qwen2.5 1.5B and
//! 2.6× for a listwise window, with up to 16.9 GB of memory for a 1.1 GB file (it kept an f32 copy
//! to read long prompts); llama.cpp reads and writes at llama.cpp's speed in about 1.2× the file's
//! size (the measurement is in the README).
//!
//! One context is kept between requests with the tokens its cache holds: a request that opens as
//! the last one did (the judge's system message and worked examples, an agent's conversation so
//! far, the same prompt asked again with another decoding) reads only what differs, in whole
//! chunks of [`CHUNK`] tokens aligned from the prompt's start, so its scores are bit for bit those
//! of the prompt read whole (the same text twice, whatever was asked in between). Decoding is
//! greedy at temperature 0 (the same text twice) and seeded sampling above it, with a repeat
//! penalty of 1.1 over the last 64 tokens for free text (small models otherwise repeat a sentence
//! until `max_tokens`). A request with a [`Shape`] is held to it token by token ([`Grammars`]):
//! no penalty then, the grammar decides what may come.

use std::num::NonZeroU32;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::{LlamaChatMessage, LlamaChatTemplate, LlamaModel};
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::LlamaToken;

use super::shape::{Grammars, Held, Shape};
use super::{ChatRequest, Finish, Generated, Generator, GeneratorInfo, Message, Place, Sink, TokenChoice};
use crate::progress::{Progress, check_cancel};
use crate::{Error, Result};

/// Repeat penalty and the window it looks back over (llama.cpp's long-standing defaults).
const REPEAT_PENALTY: f32 = 1.1;
const REPEAT_WINDOW: usize = 64;

/// The most tokens a request may hold, prompt and answer (or the model's trained context, when
/// shorter): 8,192 holds a listwise window of twenty passages or an agent's four rounds, and its
/// attention cache stays under a quarter of Qwen2.5 1.5B's file.
pub const CONTEXT_LIMIT: usize = 8192;

/// The most prompt tokens read at once (also how often Stop is looked at while reading). A prompt
/// is read in chunks that are a function of the prompt alone ([`chunks`]), whatever the context
/// already holds: llama.cpp's sums depend on how many tokens a batch holds, so a prompt's scores are
/// then the same read whole or after a request that opened alike.
pub const CHUNK: usize = 256;

/// Where a prompt's chunks start: at each turn (ChatML's `<|im_start|>`, `turn`), then every
/// [`CHUNK`] tokens within a turn; the last entry is the prompt's length. Two prompts that share
/// their first turns share the chunks of those turns, so a request that opens as the last one did
/// keeps them (measured on a 2,600-token listwise window: chunks of 256 read 9 % faster than of 64).
pub fn chunks<T: PartialEq + Copy>(prompt: &[T], turn: Option<T>) -> Vec<usize> {
    let mut starts = vec![0usize];
    let mut segment = 0usize;
    for (i, t) in prompt.iter().enumerate().skip(1) {
        if Some(*t) == turn || i - segment == CHUNK {
            if Some(*t) == turn {
                segment = i;
            } else {
                segment += CHUNK;
            }
            starts.push(i);
        }
    }
    starts.push(prompt.len());
    starts
}

/// llama.cpp's backend, initialised once per process (it refuses a second time).
fn backend() -> Result<&'static LlamaBackend> {
    static BACKEND: OnceLock<std::result::Result<LlamaBackend, String>> = OnceLock::new();
    BACKEND
        .get_or_init(|| {
            LlamaBackend::init()
                .map(|mut b| {
                    // llama.cpp logs every tensor it loads to stderr; RankLens reports its own way.
                    b.void_logs();
                    b
                })
                .map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| Error::Model(format!("llama.cpp did not start: {e}")))
}

/// How the model's chat is written out.
enum Template {
    /// `<|im_start|>role\n…<|im_end|>\n`, written by RankLens (SmolLM2, Qwen2.5 and every model
    /// whose template is ChatML): the exact text is known and tested.
    ChatMl,
    /// The model's own template, applied by llama.cpp (Llama 3, Gemma, Phi …).
    Own(LlamaChatTemplate),
}

/// The context and what its attention cache holds.
struct Session {
    /// Borrows the model its `EmbeddedLlm` owns: see [`EmbeddedLlm::session`].
    ctx: LlamaContext<'static>,
    /// The tokens whose keys and values the cache holds, from position 0.
    held: Vec<LlamaToken>,
    /// How many of `held` were read as whole chunks of the prompt they belonged to ([`chunks`]):
    /// only those may be kept for the next prompt (the rest were written one at a time).
    aligned: usize,
}

// SAFETY: a llama.cpp context is a handle to memory that no thread owns; llama.cpp forbids using
// one from two threads at once, which the `Mutex` around every `Session` rules out.
unsafe impl Send for Session {}

/// A GGUF instruct model run in this process by llama.cpp.
pub struct EmbeddedLlm {
    // Fields drop in order: the session, which borrows the model, before the model.
    session: Mutex<Option<Session>>,
    grammars: OnceLock<std::result::Result<Grammars, String>>,
    model: Box<LlamaModel>,
    template: Template,
    /// The token that opens a turn (`<|im_start|>`), where chunks of a prompt start.
    turn: Option<LlamaToken>,
    context: u32,
    /// Cells of the context's cache: `context`, unless a test asked for fewer
    /// ([`EmbeddedLlm::with_cache_cells`]).
    cells: u32,
    threads: i32,
    path: PathBuf,
    info: GeneratorInfo,
    /// What its replies are kept under ([`Generator::identity`]).
    identity: String,
    /// Prompt tokens read into the context so far (not those found there already).
    read_tokens: std::sync::atomic::AtomicU64,
    /// What the file's weights are stored as (`Q4_K_M`), as llama.cpp runs them.
    pub arithmetic: String,
}

fn human_count(n: u64) -> String {
    if n >= 1_000_000_000 { format!("{:.1}B", n as f64 / 1e9) } else { format!("{}M", (n as f64 / 1e6).round() as u64) }
}

/// The name of a GGUF `general.file_type` (llama.cpp's `llama_ftype`).
fn file_type(code: &str) -> String {
    let name = match code.trim() {
        "0" => "F32",
        "1" => "F16",
        "2" => "Q4_0",
        "3" => "Q4_1",
        "7" => "Q8_0",
        "8" => "Q5_0",
        "9" => "Q5_1",
        "10" => "Q2_K",
        "11" => "Q3_K_S",
        "12" => "Q3_K_M",
        "13" => "Q3_K_L",
        "14" => "Q4_K_S",
        "15" => "Q4_K_M",
        "16" => "Q5_K_S",
        "17" => "Q5_K_M",
        "18" => "Q6_K",
        "32" => "BF16",
        other => return format!("GGUF type {other}"),
    };
    name.to_string()
}

/// How many threads read and write: every core this process may use.
fn threads() -> i32 {
    std::thread::available_parallelism().map(|n| i32::try_from(n.get()).unwrap_or(2)).unwrap_or(2)
}

impl EmbeddedLlm {
    /// Load a GGUF file. `name` labels it; `caveat` is what every label of its text adds.
    pub fn load(path: &Path, name: &str, caveat: Option<String>, progress: &dyn Progress) -> Result<Self> {
        let what = path.display().to_string();
        if !path.is_file() {
            return Err(Error::io(path, std::io::Error::new(std::io::ErrorKind::NotFound, "no such file")));
        }
        check_cancel(progress)?;
        progress.stage(&format!("Loading {name}"), 0);
        let backend = backend()?;
        // Read into memory rather than mapped: a mapped file's pages count as the process's
        // memory on top of the copies llama.cpp makes of the weights it lays out for its kernels.
        let params = LlamaModelParams::default().with_use_mmap(false);
        let model = LlamaModel::load_from_file(backend, path, &params)
            .map_err(|e| Error::Model(format!("{what}: not a GGUF model llama.cpp can load ({e})")))?;
        let stored = model.meta_val_str("general.file_type").map(|c| file_type(&c)).unwrap_or_else(|_| "GGUF".into());
        let template = match model.chat_template(None) {
            Ok(t) if t.to_str().is_ok_and(|s| !s.contains("<|im_start|>")) => Template::Own(t),
            _ => Template::ChatMl,
        };
        let context = u32::try_from(CONTEXT_LIMIT).unwrap_or(8192).min(model.n_ctx_train().max(512));
        let turn = match model.vocab().tokenize(b"<|im_start|>", false, true).as_slice() {
            [one] => Some(*one),
            _ => None,
        };
        // The model's own size label (`1.5B`) where the file has one: llama.cpp's count adds the
        // embedding matrix again where the output layer shares it.
        let params = model.meta_val_str("general.size_label").unwrap_or_else(|_| human_count(model.n_params()));
        let size = format!("{params} parameters, {stored}");
        let info = GeneratorInfo { model: name.to_string(), size: Some(size), place: Place::Embedded, caveat };
        let bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        let file = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        Ok(Self {
            identity: format!("gguf {file} {bytes} bytes"),
            read_tokens: std::sync::atomic::AtomicU64::new(0),
            session: Mutex::new(None),
            grammars: OnceLock::new(),
            model: Box::new(model),
            template,
            turn,
            context,
            cells: context,
            threads: threads(),
            path: path.to_path_buf(),
            info,
            arithmetic: format!("{stored}, run by llama.cpp"),
        })
    }

    /// The same model known by its file's sha256 (a model the manager verified): its replies
    /// are then kept under the hash, wherever the file lies.
    pub fn with_hash(mut self, sha256: &str) -> Self {
        self.identity = format!("gguf sha256 {sha256}");
        self
    }

    /// The same model whose context caches only `cells` tokens (llama.cpp rounds up to a multiple
    /// of 256) while prompts are still checked against the full context: a request that passes the
    /// check then fails inside llama.cpp's decode, which is how the tests reach the failure path
    /// (the cache reset after a failed decode). Call before the first request.
    #[doc(hidden)]
    pub fn with_cache_cells(mut self, cells: u32) -> Self {
        self.cells = cells.clamp(1, self.context);
        self
    }

    /// The token that opens a turn in its chat format, where a prompt's chunks start ([`chunks`]).
    pub fn turn_token(&self) -> Option<u32> {
        self.turn.map(|t| t.0.cast_unsigned())
    }

    /// Forget what the context holds: the next request reads its whole prompt (a benchmark's
    /// timings, a test that compares reading with and without it).
    pub fn forget(&self) {
        if let Ok(mut slot) = self.session.lock()
            && let Some(s) = slot.as_mut()
        {
            s.ctx.clear_kv_cache();
            s.held.clear();
            s.aligned = 0;
        }
    }

    /// The file it was loaded from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The most tokens one request may hold, prompt and answer.
    pub fn context_limit(&self) -> usize {
        self.context as usize
    }

    /// The ChatML text of a request, ending where the assistant's turn starts.
    pub fn chatml(request: &ChatRequest) -> String {
        let mut out = String::new();
        for m in &request.messages {
            out.push_str(&format!("<|im_start|>{}\n{}<|im_end|>\n", m.role.name(), m.content.trim()));
        }
        out.push_str("<|im_start|>assistant\n");
        out
    }

    /// The prompt's text in the model's chat format.
    pub fn prompt_text(&self, request: &ChatRequest) -> Result<String> {
        match &self.template {
            Template::ChatMl => Ok(Self::chatml(request)),
            Template::Own(t) => {
                let messages: Vec<LlamaChatMessage> = request
                    .messages
                    .iter()
                    .map(|m: &Message| LlamaChatMessage::new(m.role.name().into(), m.content.trim().into()))
                    .collect::<std::result::Result<_, _>>()
                    .map_err(|e| Error::invalid("prompt", format!("a message holds a NUL character ({e})")))?;
                self.model
                    .apply_chat_template(t, &messages, true)
                    .map_err(|e| Error::Model(format!("{}: its chat template failed ({e})", self.info.model)))
            }
        }
    }

    /// Tokens of a text as the model reads it (special tokens matched whole).
    pub fn tokenize(&self, text: &str) -> Result<Vec<u32>> {
        Ok(self.tokens(text).into_iter().map(|t| t.0.cast_unsigned()).collect())
    }

    fn tokens(&self, text: &str) -> Vec<LlamaToken> {
        // ChatML opens with its own marker; another template's text is read with the model's
        // beginning-of-text token where its vocabulary asks for one.
        let add_special = matches!(self.template, Template::Own(_));
        self.model.vocab().tokenize(text.as_bytes(), add_special, true)
    }

    /// One token's text, as the first-token choices name it.
    pub fn token_text(&self, id: u32) -> String {
        let bytes = self.model.vocab().token_to_piece(LlamaToken(id.cast_signed()), true, None);
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// The grammars of this model's vocabulary, built at the first request that has a shape.
    fn grammars(&self) -> Result<&Grammars> {
        self.grammars
            .get_or_init(|| {
                let env = LlamaSampler::llguidance_tok_env(&self.model);
                Grammars::new(&env).map_err(|e| e.report())
            })
            .as_ref()
            .map_err(|e| Error::Model(e.clone()))
    }

    /// A reply to `shape`, held while it is written.
    pub fn hold(&self, shape: &Shape) -> Result<Held> {
        self.grammars()?.hold(shape)
    }

    /// The kept session, created at the first request.
    fn session<'a>(&self, slot: &'a mut Option<Session>) -> Result<&'a mut Session> {
        if slot.is_none() {
            let params = LlamaContextParams::default()
                .with_n_ctx(NonZeroU32::new(self.cells))
                .with_n_batch(512)
                .with_n_ubatch(512)
                .with_n_threads(self.threads)
                .with_n_threads_batch(self.threads);
            // SAFETY: the context borrows the model for as long as it lives. The model is boxed
            // (its address never changes), owned by `self`, never replaced, and dropped after
            // the session (field order): so the borrow outlives every use of the context.
            let model: &'static LlamaModel = unsafe { &*std::ptr::from_ref::<LlamaModel>(&self.model) };
            let ctx = model
                .new_context(backend()?, params)
                .map_err(|e| Error::Model(format!("{}: llama.cpp could not make a context ({e})", self.info.model)))?;
            *slot = Some(Session { ctx, held: Vec::new(), aligned: 0 });
        }
        slot.as_mut().ok_or_else(|| Error::Model("the generator's session was lost".into()))
    }

    /// Prompt tokens read into the context since it loaded: a prompt's tokens found in the context
    /// already (the opening of the last request) are not counted.
    pub fn tokens_read(&self) -> u64 {
        self.read_tokens.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Read `prompt` into the session's cache in its chunks ([`chunks`]), keeping the chunks the
    /// cache already holds of the prompt's start; the index of the last prompt token's logits in
    /// the last batch.
    fn read(&self, session: &mut Session, prompt: &[LlamaToken], progress: &dyn Progress) -> Result<i32> {
        let starts = chunks(prompt, self.turn);
        let shared = session.held.iter().zip(prompt).take_while(|(a, b)| a == b).count();
        // The last prompt token is always read again (its logits are the first answer token's);
        // a chunk is kept only when it was read whole (a chunk's start below `aligned` and below
        // the shared tokens is one of both prompts' starts).
        let bound = shared.min(prompt.len().saturating_sub(1)).min(session.aligned);
        let keep = starts.iter().copied().filter(|&b| b <= bound).max().unwrap_or(0);
        let removed = session
            .ctx
            .clear_kv_cache_seq(Some(0), Some(u32::try_from(keep).unwrap_or(u32::MAX)), None)
            .unwrap_or(false);
        if removed {
            session.held.truncate(keep);
            session.aligned = keep;
        } else {
            session.ctx.clear_kv_cache();
            session.held.clear();
            session.aligned = 0;
        }
        let start = session.held.len();
        progress.stage("Reading the prompt", prompt.len() as u64);
        progress.advance(start as u64);
        let mut batch = LlamaBatch::new(CHUNK, 1);
        let mut last = 0;
        for w in starts.windows(2).filter(|w| w[0] >= start) {
            check_cancel(progress)?;
            let chunk = &prompt[w[0]..w[1]];
            batch.clear();
            for (i, &t) in chunk.iter().enumerate() {
                let pos = w[0] + i;
                batch
                    .add(t, i32::try_from(pos).unwrap_or(i32::MAX), &[0], pos + 1 == prompt.len())
                    .map_err(|e| Error::Model(format!("reading the prompt: {e}")))?;
            }
            if let Err(e) = session.ctx.decode(&mut batch) {
                session.ctx.clear_kv_cache();
                session.held.clear();
                session.aligned = 0;
                return Err(Error::Model(format!("reading the prompt: llama.cpp failed ({e})")));
            }
            session.held.extend_from_slice(chunk);
            session.aligned = session.held.len();
            self.read_tokens.fetch_add(chunk.len() as u64, std::sync::atomic::Ordering::Relaxed);
            last = batch.n_tokens() - 1;
            progress.advance(chunk.len() as u64);
        }
        Ok(last)
    }

    fn checked_prompt(&self, request: &ChatRequest) -> Result<Vec<LlamaToken>> {
        let prompt = self.tokens(&self.prompt_text(request)?);
        if prompt.is_empty() {
            return Err(Error::invalid("prompt", "it is empty"));
        }
        if prompt.len() + request.max_tokens > self.context as usize {
            return Err(Error::invalid(
                "prompt",
                format!(
                    "{} tokens and up to {} more for the answer: the embedded model is given at most {}; put \
                     fewer or shorter passages in the prompt",
                    prompt.len(),
                    request.max_tokens,
                    self.context
                ),
            ));
        }
        Ok(prompt)
    }

    /// The model's scores (logits) for the first token of its answer to `request`.
    pub fn first_token_scores(&self, request: &ChatRequest, progress: &dyn Progress) -> Result<Vec<f32>> {
        let prompt = self.checked_prompt(request)?;
        let mut slot = self.session.lock().map_err(|_| poisoned())?;
        let session = self.session(&mut slot)?;
        let last = self.read(session, &prompt, progress)?;
        Ok(session.ctx.get_logits_ith(last).to_vec())
    }

    /// The `top` likeliest first tokens of the answer with their log-probabilities (log-softmax
    /// over the tokens it may write, in f64: the whole vocabulary, or the tokens the request's
    /// shape allows first), best first; ties by token id.
    pub fn first_token_choices(
        &self,
        request: &ChatRequest,
        top: usize,
        progress: &dyn Progress,
    ) -> Result<Vec<TokenChoice>> {
        let mut logits = self.first_token_scores(request, progress)?;
        if let Some(shape) = &request.shape {
            self.hold(shape)?.mask(&mut logits)?;
        }
        Ok(top_choices(&logits, top, |id| self.token_text(id)))
    }
}

fn poisoned() -> Error {
    Error::Model("the generator stopped on an earlier failure".into())
}

/// Divide positive logits by the penalty and multiply negative ones, for each distinct token of
/// `recent` (llama.cpp's and candle's rule).
fn penalise(logits: &mut [f32], recent: &[LlamaToken]) {
    let mut seen: Vec<i32> = recent.iter().map(|t| t.0).collect();
    seen.sort_unstable();
    seen.dedup();
    for t in seen {
        if let Some(l) = usize::try_from(t).ok().and_then(|i| logits.get_mut(i)) {
            *l = if *l >= 0.0 { *l / REPEAT_PENALTY } else { *l * REPEAT_PENALTY };
        }
    }
}

/// The token to write: the largest logit at temperature 0 (the lowest id among equals), else a
/// draw from the softmax at that temperature with the seeded generator's next number.
pub fn choose(logits: &[f32], temperature: f64, state: &mut u64) -> Option<usize> {
    let best =
        logits.iter().enumerate().filter(|(_, l)| l.is_finite()).fold(None::<(usize, f32)>, |b, (i, &l)| match b {
            Some((_, bl)) if bl >= l => b,
            _ => Some((i, l)),
        })?;
    if temperature <= 0.0 {
        return Some(best.0);
    }
    let weights: Vec<f64> = logits
        .iter()
        .map(|&l| if l.is_finite() { ((f64::from(l) - f64::from(best.1)) / temperature).exp() } else { 0.0 })
        .collect();
    let total: f64 = weights.iter().sum();
    *state = crate::lcg::lcg(*state);
    let mut target = (*state >> 11) as f64 / (1u64 << 53) as f64 * total;
    for (i, w) in weights.iter().enumerate() {
        if *w > 0.0 {
            if target < *w {
                return Some(i);
            }
            target -= w;
        }
    }
    Some(best.0)
}

/// The `top` largest of `logits` as log-probabilities (log-softmax in f64), best first, ties by
/// index; `text` names each index.
pub fn top_choices(logits: &[f32], top: usize, text: impl Fn(u32) -> String) -> Vec<TokenChoice> {
    let log_sum = log_sum_exp(logits);
    if !log_sum.is_finite() {
        return Vec::new();
    }
    let mut order: Vec<usize> = (0..logits.len()).filter(|&i| logits[i].is_finite()).collect();
    order.sort_by(|&a, &b| logits[b].total_cmp(&logits[a]).then(a.cmp(&b)));
    order
        .into_iter()
        .take(top)
        .map(|i| TokenChoice { token: text(i as u32), logprob: f64::from(logits[i]) - log_sum })
        .collect()
}

/// ln Σ exp(logit) over the finite logits, in f64 (what a token's logit is less its log-probability).
fn log_sum_exp(logits: &[f32]) -> f64 {
    let max = logits.iter().copied().filter(|x| x.is_finite()).fold(f32::NEG_INFINITY, f32::max);
    if !max.is_finite() {
        return f64::NEG_INFINITY;
    }
    let max = f64::from(max);
    logits.iter().filter(|x| x.is_finite()).map(|&x| (f64::from(x) - max).exp()).sum::<f64>().ln() + max
}

/// The longest start of `bytes` that is whole UTF-8 (a character cut at the end waits for its
/// last token).
fn whole_utf8(bytes: &[u8]) -> usize {
    match std::str::from_utf8(bytes) {
        Ok(_) => bytes.len(),
        Err(e) if e.error_len().is_none() => e.valid_up_to(),
        Err(_) => bytes.len(),
    }
}

impl Generator for EmbeddedLlm {
    fn info(&self) -> &GeneratorInfo {
        &self.info
    }

    fn identity(&self) -> String {
        self.identity.clone()
    }

    fn request_version(&self, request: &ChatRequest) -> String {
        // The prompt as the template writes it (the messages are keyed already; this carries the
        // template's own text around them).
        self.prompt_text(request).map(|t| crate::models::text_hash(&t)[..16].to_string()).unwrap_or_default()
    }

    fn first_tokens(
        &self,
        request: &ChatRequest,
        top: usize,
        progress: &dyn Progress,
    ) -> Result<Option<Vec<TokenChoice>>> {
        check_cancel(progress)?;
        self.first_token_choices(request, top, progress).map(Some)
    }

    fn chat(&self, request: &ChatRequest, sink: Sink<'_>, progress: &dyn Progress) -> Result<Generated> {
        let started = Instant::now();
        let prompt = self.checked_prompt(request)?;
        let mut held = match &request.shape {
            Some(shape) => Some(self.hold(shape)?),
            None => None,
        };
        let vocab = self.model.vocab();
        let mut slot = self.session.lock().map_err(|_| poisoned())?;
        let session = self.session(&mut slot)?;
        let mut last = self.read(session, &prompt, progress)?;
        progress.stage("Writing", request.max_tokens as u64);
        let mut written: Vec<LlamaToken> = Vec::new();
        let mut bytes: Vec<u8> = Vec::new();
        let mut shown = 0usize;
        let mut finish = Finish::Length;
        let mut state = request.seed;
        let mut batch = LlamaBatch::new(1, 1);
        let mut logprobs = Vec::new();
        while written.len() < request.max_tokens {
            check_cancel(progress)?;
            let mut logits = session.ctx.get_logits_ith(last).to_vec();
            // The model's own distribution, before a shape masks it or the penalty moves it.
            let log_sum = if request.logprobs { Some(log_sum_exp(&logits)) } else { None };
            let raw = if request.logprobs { Some(logits.clone()) } else { None };
            match held.as_mut() {
                Some(h) => h.mask(&mut logits)?,
                None => {
                    let context = &session.held;
                    penalise(&mut logits, &context[context.len().saturating_sub(REPEAT_WINDOW)..]);
                }
            }
            let Some(next) = choose(&logits, request.temperature, &mut state) else {
                return Err(Error::Model("the model left no token it may write".into()));
            };
            let token = LlamaToken(i32::try_from(next).unwrap_or(i32::MAX));
            if let (Some(lse), Some(raw)) = (log_sum, &raw)
                && !vocab.is_eog(token)
            {
                let logprob = raw.get(next).map_or(f64::NEG_INFINITY, |&l| f64::from(l) - lse);
                logprobs.push(TokenChoice { token: self.token_text(token.0.cast_unsigned()), logprob });
            }
            if vocab.is_eog(token) {
                finish = Finish::Stop;
                break;
            }
            if let Some(h) = held.as_mut() {
                h.accept(token.0.cast_unsigned())?;
            }
            written.push(token);
            progress.advance(1);
            bytes.extend(vocab.token_to_piece(token, false, None));
            let whole = whole_utf8(&bytes);
            if whole > shown {
                sink(&String::from_utf8_lossy(&bytes[shown..whole]));
                shown = whole;
            }
            if held.as_ref().is_some_and(|h| h.is_complete()) {
                // The shape allows nothing more: the reply is whole without asking for the end.
                finish = Finish::Stop;
                break;
            }
            if written.len() == request.max_tokens {
                break;
            }
            batch.clear();
            let pos = i32::try_from(session.held.len()).unwrap_or(i32::MAX);
            batch.add(token, pos, &[0], true).map_err(|e| Error::Model(format!("writing: {e}")))?;
            if let Err(e) = session.ctx.decode(&mut batch) {
                session.ctx.clear_kv_cache();
                session.held.clear();
                session.aligned = 0;
                return Err(Error::Model(format!("writing: llama.cpp failed ({e})")));
            }
            session.held.push(token);
            last = 0;
        }
        if shown < bytes.len() {
            sink(&String::from_utf8_lossy(&bytes[shown..]));
        }
        Ok(Generated {
            text: String::from_utf8_lossy(&bytes).into_owned(),
            model: self.info.label(),
            finish,
            prompt_tokens: prompt.len(),
            completion_tokens: written.len(),
            seconds: started.elapsed().as_secs_f64(),
            constrained: held.map(|h| h.description().to_string()),
            stored: false,
            logprobs,
        })
    }
}

/// The GGUF file of a resolved generator.
pub fn gguf_file(model: &crate::models::ResolvedModel) -> Result<PathBuf> {
    model
        .spec
        .files
        .iter()
        .map(|f| model.dir.join(&f.path))
        .find(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("gguf")))
        .ok_or_else(|| Error::Model(format!("{}: the generator has no .gguf file", model.spec.id)))
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
    let mut llm = EmbeddedLlm::load(&path, &name, super::caveat_for(&name), progress)?;
    let file = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    if let Some(hash) = model.hashes.get(&file) {
        llm = llm.with_hash(hash);
    }
    Ok((llm, model))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{ChatRequest, Message};

    #[test]
    fn chatml_is_the_chat_template_of_smollm2_and_qwen_ending_where_the_answer_starts() {
        // SmolLM2's and Qwen2.5's chat template (their tokenizer_config.json): each turn
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
        let tie = top_choices(&[1.0, 1.0], 2, |i| i.to_string());
        assert_eq!((tie[0].token.as_str(), tie[1].token.as_str()), ("0", "1"));
        assert!((tie[0].logprob - 0.5f64.ln()).abs() < 1e-9);
        assert!(top_choices(&[f32::NAN], 3, |i| i.to_string()).is_empty());
    }

    #[test]
    fn a_prompt_is_read_in_chunks_that_start_at_each_turn_and_every_256_tokens_within_one() {
        // Turns open at 0, 5 and 300 (token 1); the turn from 5 is longer than a chunk.
        let mut prompt = vec![7u32; 700];
        for at in [0, 5, 300] {
            prompt[at] = 1;
        }
        assert_eq!(chunks(&prompt, Some(1)), [0, 5, 261, 300, 556, 700]);
        // No turn token: every 256 from the start.
        assert_eq!(chunks(&prompt, None), [0, 256, 512, 700]);
        assert_eq!(chunks(&[1u32, 7, 7], Some(1)), [0, 3]);
        assert_eq!(chunks::<u32>(&[], None), [0, 0]);
        // Two prompts that share their first turns share those turns' chunks.
        let mut other = prompt[..300].to_vec();
        other.extend([1, 9, 9]);
        let (a, b) = (chunks(&prompt, Some(1)), chunks(&other, Some(1)));
        assert_eq!(a[..4], b[..4]);
    }

    #[test]
    fn greedy_takes_the_largest_and_a_masked_token_is_never_drawn() {
        let mut state = 7;
        assert_eq!(choose(&[0.5, 2.0, 2.0, -1.0], 0.0, &mut state), Some(1), "the lowest id among equals");
        assert_eq!(choose(&[f32::NEG_INFINITY; 3], 0.0, &mut state), None);
        // At temperature 1 over logits ln 1 and ln 3 (and a masked one), 1 is drawn about 3 times
        // in 4, and 2 never.
        let logits = [0.0f32, 3f32.ln(), f32::NEG_INFINITY];
        let mut counts = [0usize; 3];
        for _ in 0..4000 {
            counts[choose(&logits, 1.0, &mut state).unwrap()] += 1;
        }
        assert_eq!(counts[2], 0);
        assert!((2800..3200).contains(&counts[1]), "{counts:?}");
        // The same seed draws the same tokens.
        let (mut a, mut b) = (42u64, 42u64);
        let draws = |s: &mut u64| (0..20).map(|_| choose(&logits, 0.8, s).unwrap()).collect::<Vec<_>>();
        assert_eq!(draws(&mut a), draws(&mut b));
    }

    #[test]
    fn the_repeat_penalty_divides_what_is_positive_and_multiplies_what_is_negative_once_per_token() {
        let mut logits = [2.2f32, -1.0, 3.0];
        penalise(&mut logits, &[LlamaToken(0), LlamaToken(1), LlamaToken(0), LlamaToken(9)]);
        assert!((logits[0] - 2.0).abs() < 1e-6 && (logits[1] + 1.1).abs() < 1e-6 && logits[2] == 3.0, "{logits:?}");
    }

    #[test]
    fn a_character_cut_between_tokens_waits_for_its_last_byte() {
        let e_acute = "é".as_bytes();
        assert_eq!(whole_utf8(&[b'a', e_acute[0]]), 1);
        assert_eq!(whole_utf8(&[b'a', e_acute[0], e_acute[1]]), 3);
        assert_eq!(whole_utf8(&[0xff, b'a']), 2, "an invalid byte is passed on (and shown replaced)");
        assert_eq!(file_type("15"), "Q4_K_M");
        assert_eq!(file_type("99"), "GGUF type 99");
        assert_eq!(human_count(134_515_008), "135M");
        assert_eq!(human_count(1_543_714_304), "1.5B");
    }

    #[test]
    fn a_file_that_is_not_gguf_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("model.gguf");
        std::fs::write(&path, b"<html>not a model</html>").unwrap();
        let e = EmbeddedLlm::load(&path, "m", None, &crate::progress::NoProgress).err().map(|e| e.report());
        let e = e.unwrap_or_default();
        assert!(e.contains("model.gguf") && e.contains("not a GGUF model"), "{e}");
        let missing = EmbeddedLlm::load(&dir.path().join("absent.gguf"), "m", None, &crate::progress::NoProgress)
            .err()
            .map(|e| e.report())
            .unwrap_or_default();
        assert!(missing.contains("absent.gguf"), "{missing}");
    }
}
