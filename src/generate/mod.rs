//! A language model where the methods call for one: rewriting a question, drafting a hypothetical
//! answer (HyDE), the reader's answer with citations, and relevance judgements.
//!
//! Two kinds of [`Generator`] write text: [`EmbeddedLlm`], a quantized instruct model (GGUF) run in
//! this process with candle, and [`ChatServer`], any server that speaks OpenAI's chat-completions
//! protocol (llama.cpp's `llama-server`, Ollama, vLLM, LM Studio, OpenAI). The tasks
//! ([`tasks`]) build the messages, read the model's text back and check it (a citation to a passage
//! that was not in the prompt, a sentence whose cited passage shares no word with it), and never
//! depend on which generator wrote the text.

pub mod embedded;
pub mod gguf_vocab;
pub mod openai;
pub mod tasks;

use std::fmt;

use serde::{Deserialize, Serialize};

pub use embedded::EmbeddedLlm;
pub use openai::{ChatServer, ServerConfig};

use crate::Result;
use crate::progress::Progress;

/// Who says a message in a chat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Speaker {
    /// The instruction that frames the conversation.
    System,
    /// The person (here: RankLens on the person's behalf).
    User,
    /// The model.
    Assistant,
}

impl Speaker {
    /// The role name in ChatML and in OpenAI's protocol.
    pub fn name(self) -> &'static str {
        match self {
            Speaker::System => "system",
            Speaker::User => "user",
            Speaker::Assistant => "assistant",
        }
    }
}

/// One message of a chat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// Who says it.
    pub role: Speaker,
    /// What is said.
    pub content: String,
}

impl Message {
    /// A system message.
    pub fn system(content: impl Into<String>) -> Self {
        Self { role: Speaker::System, content: content.into() }
    }
    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Self { role: Speaker::User, content: content.into() }
    }
    /// A message the model said (a worked example's answer).
    pub fn assistant(content: impl Into<String>) -> Self {
        Self { role: Speaker::Assistant, content: content.into() }
    }
}

/// What to ask a generator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    /// The conversation so far.
    pub messages: Vec<Message>,
    /// At most this many new tokens.
    pub max_tokens: usize,
    /// 0 picks the likeliest token every time (the same text twice); above 0 samples.
    pub temperature: f64,
    /// Seed of the sampler (and sent to servers that take one).
    pub seed: u64,
}

impl ChatRequest {
    /// A request at temperature 0 with seed 42.
    pub fn new(messages: Vec<Message>, max_tokens: usize) -> Self {
        Self { messages, max_tokens, temperature: 0.0, seed: 42 }
    }
}

/// Why the text ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Finish {
    /// The model ended its turn.
    Stop,
    /// `max_tokens` was reached.
    Length,
}

/// A generator's text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Generated {
    /// The text, as the model wrote it.
    pub text: String,
    /// Which model wrote it ([`GeneratorInfo::label`]).
    pub model: String,
    /// Why it ended.
    pub finish: Finish,
    /// Tokens in the prompt (as the generator counted them; 0 when a server does not say).
    pub prompt_tokens: usize,
    /// Tokens written.
    pub completion_tokens: usize,
    /// Seconds from the request to the last token.
    pub seconds: f64,
}

/// What a generator is, for labels and reports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GeneratorInfo {
    /// The model's name (`SmolLM2-135M-Instruct`, or the name a server was asked for).
    pub model: String,
    /// Its size and arithmetic (`135M parameters, Q8_0`), when known.
    pub size: Option<String>,
    /// Where it runs (`embedded`, or the server's base URL).
    pub place: String,
    /// What a reader should know about its text (a small model's drafts are often wrong).
    pub caveat: Option<String>,
}

impl GeneratorInfo {
    /// `SmolLM2-135M-Instruct (135M parameters, Q8_0, embedded)`.
    pub fn label(&self) -> String {
        match &self.size {
            Some(size) => format!("{} ({size}, {})", self.model, self.place),
            None => format!("{} ({})", self.model, self.place),
        }
    }
}

impl fmt::Display for GeneratorInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label())
    }
}

/// Receives the text as it is written, piece by piece.
pub type Sink<'a> = &'a mut dyn FnMut(&str);

/// Something that writes text for a chat.
pub trait Generator: Send + Sync {
    /// What it is.
    fn info(&self) -> &GeneratorInfo;
    /// Answer `request`, passing each new piece of text to `sink` as it is written, and stopping
    /// with [`crate::Error::Cancelled`] when `progress` says so.
    fn chat(&self, request: &ChatRequest, sink: Sink<'_>, progress: &dyn Progress) -> Result<Generated>;
}

/// What every label of a small model's text adds.
pub fn caveat_for(model: &str) -> Option<String> {
    let m = model.to_ascii_lowercase();
    ["135m", "360m"].iter().any(|s| m.contains(s)).then(|| {
        "a very small model: its rewrites, drafts, answers and judgements are often wrong, which is the lesson's \
         point — check them against the passages"
            .to_string()
    })
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
    let llm = EmbeddedLlm::load(&path, &name, caveat_for(&name), progress)?;
    Ok((llm, model))
}
