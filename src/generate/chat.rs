//! The chat a generator is asked and what it answers: who speaks (`Speaker`), the `Message`s
//! and tools of a `ChatRequest`, the `Generated` reply, and the `Generator` contract both the
//! embedded model and a chat server implement.

use super::shape::Shape;
use crate::Result;
use crate::progress::Progress;
use serde::{Deserialize, Serialize};
use std::fmt;

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
    /// A tool's result, answering one of the model's tool calls.
    Tool,
}

impl Speaker {
    /// The role name in ChatML and in OpenAI's protocol.
    pub fn name(self) -> &'static str {
        match self {
            Speaker::System => "system",
            Speaker::User => "user",
            Speaker::Assistant => "assistant",
            Speaker::Tool => "tool",
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
    /// The tools the model called in this message (its own turns only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// The call a tool's message answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

impl Message {
    fn of(role: Speaker, content: impl Into<String>) -> Self {
        Self { role, content: content.into(), tool_calls: Vec::new(), tool_call_id: None }
    }
    /// A system message.
    pub fn system(content: impl Into<String>) -> Self {
        Self::of(Speaker::System, content)
    }
    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Self::of(Speaker::User, content)
    }
    /// A message the model said (a worked example's answer).
    pub fn assistant(content: impl Into<String>) -> Self {
        Self::of(Speaker::Assistant, content)
    }
    /// The model's turn that called tools.
    pub fn calls(content: impl Into<String>, calls: Vec<ToolCall>) -> Self {
        Self { tool_calls: calls, ..Self::of(Speaker::Assistant, content) }
    }
    /// A tool's result for the call `id`.
    pub fn tool(id: impl Into<String>, content: impl Into<String>) -> Self {
        Self { tool_call_id: Some(id.into()), ..Self::of(Speaker::Tool, content) }
    }
}

/// A tool the model may call: its name, what it does, and its arguments' JSON schema.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// Its name (`bm25`).
    pub name: String,
    /// What it does, for the model.
    pub description: String,
    /// The JSON schema of its arguments (an object).
    pub parameters: serde_json::Value,
}

/// One call of a tool, as the model wrote it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The call's id (what the tool's answer names).
    pub id: String,
    /// The tool.
    pub name: String,
    /// Its arguments as the model wrote them (JSON text, not yet trusted).
    pub arguments: String,
}

/// A model's turn when it was offered tools: what it said, and the tools it called.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolTurn {
    /// Its text (a thought, or the answer when it calls nothing).
    pub text: String,
    /// The tools it called, in order.
    pub calls: Vec<ToolCall>,
    /// Tokens it wrote (0 when the server does not say).
    pub completion_tokens: usize,
    /// Seconds it took.
    pub seconds: f64,
    /// The turn came from the workspace's store of replies.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stored: bool,
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
    /// What the reply must be, where the task reads it as data: the embedded model is held to it
    /// while it writes; a chat server is sent the JSON schemas it can hold a reply to
    /// (`response_format`, which llama.cpp and vLLM enforce while decoding). The reply is read by
    /// its task's reader either way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<Shape>,
    /// Return each written token's log-probability under the model ([`Generated::logprobs`]):
    /// the embedded model's own, a server's `logprobs` where it gives them.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub logprobs: bool,
}

impl ChatRequest {
    /// A request at temperature 0 with seed 42.
    pub fn new(messages: Vec<Message>, max_tokens: usize) -> Self {
        Self { messages, max_tokens, temperature: 0.0, seed: 42, shape: None, logprobs: false }
    }

    /// The same request, its reply held to `shape`.
    pub fn shaped(mut self, shape: Shape) -> Self {
        self.shape = Some(shape);
        self
    }

    /// The same request, asking for each written token's log-probability.
    pub fn with_logprobs(mut self) -> Self {
        self.logprobs = true;
        self
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
    /// Seconds from the request to the last token (the seconds it took when it was written, for
    /// a reply from the store).
    pub seconds: f64,
    /// What the reply was held to while it was written (`Shape::describe`), when it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub constrained: Option<String>,
    /// The reply came from the workspace's store of replies: the model was not asked again.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stored: bool,
    /// Each written token with its log-probability under the model (natural log, over the whole
    /// vocabulary, before any shape masked it), when the request asked for them and the generator
    /// gives them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub logprobs: Vec<TokenChoice>,
}

impl Generated {
    /// ln P(reply) under the model: the sum of its tokens' log-probabilities, where they are known.
    pub fn logprob(&self) -> Option<f64> {
        (!self.logprobs.is_empty()).then(|| self.logprobs.iter().map(|t| t.logprob).sum())
    }
}

/// What a generator is, for labels and reports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GeneratorInfo {
    /// The model's name (`SmolLM2-135M-Instruct`, or the name a server was asked for).
    pub model: String,
    /// Its size and arithmetic (`135M parameters, Q4_1`), when known.
    pub size: Option<String>,
    /// Where it runs: in this process, or at a server's base URL.
    pub place: Place,
    /// What a reader should know about its text (a small model's drafts are often wrong).
    pub caveat: Option<String>,
}

/// Where a generator runs. Written as text (`embedded`, or the base URL), so stored replies and
/// reports read as before.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum Place {
    /// In this process (llama.cpp over a GGUF file).
    Embedded,
    /// An OpenAI-compatible server, by its base URL.
    Server(String),
    /// A scripted stand-in (tests, a benchmark's placeholder), by what it calls itself.
    Scripted(String),
}

impl Place {
    /// The word the embedded model's place is written as.
    const EMBEDDED: &'static str = "embedded";
}

impl From<String> for Place {
    fn from(text: String) -> Self {
        if text == Place::EMBEDDED { Place::Embedded } else { Place::Server(text) }
    }
}

impl From<Place> for String {
    fn from(place: Place) -> Self {
        place.to_string()
    }
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Place::Embedded => f.write_str(Place::EMBEDDED),
            Place::Server(text) | Place::Scripted(text) => f.write_str(text),
        }
    }
}

impl GeneratorInfo {
    /// `SmolLM2-135M-Instruct (135M parameters, Q4_1, embedded)`.
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

/// One candidate for the first token of an answer, with its log-probability (natural log, over the
/// whole vocabulary).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TokenChoice {
    /// The token's text as the model writes it (a leading space included).
    pub token: String,
    /// ln p(token | prompt).
    pub logprob: f64,
}

/// Receives the text as it is written, piece by piece.
pub type Sink<'a> = &'a mut dyn FnMut(&str);

/// Something that writes text for a chat.
pub trait Generator: Send + Sync {
    /// What it is.
    fn info(&self) -> &GeneratorInfo;

    /// What its replies are kept under in the store of replies: the same model with the same
    /// weights gives the same identity (the file's hash for a model from the manifest, the URL
    /// and model name for a server). The label, unless the generator knows better.
    fn identity(&self) -> String {
        self.info().label()
    }

    /// What decides a reply besides the request itself, as a short text: the embedded model's
    /// chat template as it writes the request out. A stored reply is kept under it, so a changed
    /// template asks again. Empty where nothing does (a server applies its own).
    fn request_version(&self, request: &ChatRequest) -> String {
        let _ = request;
        String::new()
    }

    /// Whether the replies it writes are held to their requests' shapes: true unless it is told
    /// to write freely (`--free`, [`super::unshaped::Unshaped`]). What a cache of its work (the
    /// GraphRAG graph) is kept apart by.
    fn holds_shapes(&self) -> bool {
        true
    }

    /// Whether its replies are already kept in a store ([`store::Stored`]).
    fn keeps_replies(&self) -> bool {
        false
    }
    /// Answer `request`, passing each new piece of text to `sink` as it is written, and stopping
    /// with [`crate::Error::Cancelled`] when `progress` says so.
    fn chat(&self, request: &ChatRequest, sink: Sink<'_>, progress: &dyn Progress) -> Result<Generated>;

    /// The `top` likeliest first tokens of the answer to `request`, best first, with their
    /// log-probabilities, where the generator can read them (the embedded model's logits, a
    /// server's `logprobs`); `Ok(None)` where it cannot (a server that does not return them).
    fn first_tokens(
        &self,
        request: &ChatRequest,
        top: usize,
        progress: &dyn Progress,
    ) -> Result<Option<Vec<TokenChoice>>> {
        let _ = (request, top, progress);
        Ok(None)
    }

    /// Answer `request` offered `tools` (the chat API's `tools`), where the generator takes them;
    /// `Ok(None)` where it does not (the embedded model: it is asked in a text protocol instead).
    fn chat_with_tools(
        &self,
        request: &ChatRequest,
        tools: &[ToolSpec],
        progress: &dyn Progress,
    ) -> Result<Option<ToolTurn>> {
        let _ = (request, tools, progress);
        Ok(None)
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_place_is_written_as_the_text_it_always_was_and_read_back() {
        let info = |place: Place| GeneratorInfo { model: "m".into(), size: None, place, caveat: None };
        let embedded = serde_json::to_string(&info(Place::Embedded)).unwrap_or_default();
        assert_eq!(embedded, r#"{"model":"m","size":null,"place":"embedded","caveat":null}"#);
        let url = "http://127.0.0.1:8080/v1";
        let server = serde_json::to_string(&info(Place::Server(url.into()))).unwrap_or_default();
        assert!(server.contains(r#""place":"http://127.0.0.1:8080/v1""#), "{server}");
        for (text, place) in [(embedded, Place::Embedded), (server, Place::Server(url.into()))] {
            let read: Option<GeneratorInfo> = serde_json::from_str(&text).ok();
            assert_eq!(read.map(|i| i.place), Some(place));
        }
        assert_eq!(info(Place::Embedded).label(), "m (embedded)");
        assert_eq!(info(Place::Scripted("test".into())).label(), "m (test)");
    }
}
