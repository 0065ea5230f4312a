//! A client of OpenAI's chat-completions protocol (`POST {base}/chat/completions`), which
//! llama.cpp's `llama-server`, Ollama, vLLM, LM Studio and OpenAI itself speak: plain answers and
//! streamed ones (server-sent events, `data: {...}` lines ending with `data: [DONE]`).
//!
//! The API key is read from an environment variable the user names, when a request is sent; it
//! is never saved. Every failure says what happened and what to do: no connection, no answer in
//! time, 401/403 (the key), 404 (the model or the base URL), 429 (rate limit), 5xx (the server),
//! and an answer not in the documented shape.

use std::io::{BufRead, BufReader};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{ChatRequest, Finish, Generated, Generator, GeneratorInfo, Place, Sink, TokenChoice};
use crate::progress::{Progress, check_cancel};
use crate::{Error, Result};

/// Where a chat server is and how to ask it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerConfig {
    /// Base URL, up to and including the API version (`http://127.0.0.1:8080/v1`).
    pub base_url: String,
    /// The model name the server knows.
    pub model: String,
    /// The environment variable that holds the API key (never the key itself).
    #[serde(default)]
    pub key_env: Option<String>,
    /// Seconds to wait for the answer to start.
    #[serde(default = "default_timeout")]
    pub timeout_secs: u64,
    /// Ask for the answer as a stream of pieces.
    #[serde(default = "default_stream")]
    pub stream: bool,
}

fn default_timeout() -> u64 {
    120
}
fn default_stream() -> bool {
    true
}

impl ServerConfig {
    /// A server at `base_url` serving `model`, streamed, with no key.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        Self { base_url: base_url.into(), model: model.into(), key_env: None, timeout_secs: 120, stream: true }
    }

    fn endpoint(&self) -> String {
        format!("{}/chat/completions", self.base_url.trim_end_matches('/'))
    }
}

/// The names of a chat server's settings, as errors name them (the app's form and the command
/// line each say where that setting is given: `--llm`, Models → Generator).
pub mod setting {
    /// [`super::ServerConfig::base_url`].
    pub const URL: &str = "chat server URL";
    /// [`super::ServerConfig::model`].
    pub const MODEL: &str = "chat server model";
    /// [`super::ServerConfig::key_env`].
    pub const KEY_ENV: &str = "chat server API key variable";
}

/// A chat-completions server as a [`Generator`]: one HTTP agent per server, kept for every
/// request (its connections and TLS sessions are reused).
pub struct ChatServer {
    config: ServerConfig,
    info: GeneratorInfo,
    agent: ureq::Agent,
    /// The server refused JSON mode once: requests with a schema go without it from then on.
    json_refused: std::sync::atomic::AtomicBool,
}

/// A chat completion as the protocol writes it, plain (`message`) or as one streamed event
/// (`delta`); fields the protocol may leave out are optional.
#[derive(Debug, Deserialize)]
struct Completion {
    #[serde(default)]
    choices: Vec<Choice>,
    #[serde(default)]
    usage: Option<Usage>,
    #[serde(default)]
    error: Option<ErrorBody>,
}

#[derive(Debug, Deserialize)]
struct Choice {
    #[serde(default)]
    message: Option<Content>,
    #[serde(default)]
    delta: Option<Content>,
    #[serde(default)]
    finish_reason: Option<String>,
    #[serde(default)]
    logprobs: Option<Logprobs>,
}

/// `choices[0].logprobs`: each written token with its log-probability and the likeliest others.
#[derive(Debug, Deserialize)]
struct Logprobs {
    #[serde(default)]
    content: Vec<TokenLogprob>,
}

impl Logprobs {
    /// Each written token with its log-probability.
    fn written(&self) -> Vec<TokenChoice> {
        self.content.iter().map(|t| TokenChoice { token: t.token.clone(), logprob: t.logprob }).collect()
    }
}

#[derive(Debug, Deserialize)]
struct TokenLogprob {
    token: String,
    logprob: f64,
    #[serde(default)]
    top_logprobs: Vec<TopLogprob>,
}

#[derive(Debug, Deserialize)]
struct TopLogprob {
    token: String,
    logprob: f64,
}

#[derive(Debug, Deserialize)]
struct Content {
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    tool_calls: Vec<WireToolCall>,
}

/// A tool call as the protocol writes it.
#[derive(Debug, Deserialize)]
struct WireToolCall {
    #[serde(default)]
    id: String,
    function: WireFunction,
}

#[derive(Debug, Deserialize)]
struct WireFunction {
    name: String,
    /// JSON text (some servers send an object: kept as its text).
    #[serde(default)]
    arguments: Value,
}

/// One message as the protocol writes it: a tool call's turn carries its calls; a tool's result
/// names the call it answers.
fn message_json(m: &super::Message) -> Value {
    let mut v = json!({"role": m.role.name(), "content": m.content});
    if !m.tool_calls.is_empty() {
        v["tool_calls"] = m
            .tool_calls
            .iter()
            .map(|c| json!({"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}))
            .collect();
    }
    if let Some(id) = &m.tool_call_id {
        v["tool_call_id"] = json!(id);
    }
    v
}

#[derive(Debug, Default, Deserialize)]
struct Usage {
    #[serde(default)]
    prompt_tokens: Option<u64>,
    #[serde(default)]
    completion_tokens: Option<u64>,
}

/// OpenAI's `{"error": {"message": …}}`, or a server's `{"error": "…"}`.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum ErrorBody {
    Object { message: String },
    Text(String),
    Other(Value),
}

impl ErrorBody {
    /// What the server said: its message, or the error as it wrote it (cut to 200 characters).
    fn message(&self) -> String {
        match self {
            ErrorBody::Object { message } | ErrorBody::Text(message) => message.clone(),
            ErrorBody::Other(v) => v.to_string().chars().take(200).collect(),
        }
    }
}

impl Choice {
    fn finish(&self) -> Option<Finish> {
        match self.finish_reason.as_deref()? {
            "length" => Some(Finish::Length),
            _ => Some(Finish::Stop),
        }
    }
}

impl Usage {
    fn of(c: &Completion) -> (usize, usize) {
        let u = c.usage.as_ref();
        let n = |x: Option<u64>| x.unwrap_or(0) as usize;
        (n(u.and_then(|u| u.prompt_tokens)), n(u.and_then(|u| u.completion_tokens)))
    }
}

impl ChatServer {
    /// A client of `config`'s server; nothing is sent until the first request.
    pub fn new(config: ServerConfig) -> Result<Self> {
        let url = config.base_url.trim();
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(Error::invalid(setting::URL, format!("{url:?} is not an http:// or https:// URL")));
        }
        if config.model.trim().is_empty() {
            return Err(Error::invalid(setting::MODEL, "name the model the server should answer with"));
        }
        let info = GeneratorInfo {
            model: config.model.clone(),
            size: None,
            place: Place::Server(config.base_url.trim_end_matches('/').to_string()),
            caveat: None,
        };
        let wait = Duration::from_secs(config.timeout_secs.max(1));
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .tls_config(ureq::tls::TlsConfig::builder().root_certs(ureq::tls::RootCerts::PlatformVerifier).build())
            .timeout_connect(Some(Duration::from_secs(10)))
            .timeout_recv_response(Some(wait))
            .timeout_recv_body(Some(wait * 10))
            // A redirect is reported, not followed: the key was meant for the host the user named.
            .max_redirects(0)
            .http_status_as_error(false)
            .build()
            .into();
        Ok(Self { config, info, agent, json_refused: std::sync::atomic::AtomicBool::new(false) })
    }

    /// The request body for `request` (what the loopback tests check).
    pub fn body(&self, request: &ChatRequest) -> Value {
        let mut body = json!({
            "model": self.config.model,
            "messages": request.messages.iter().map(message_json).collect::<Vec<_>>(),
            "temperature": request.temperature,
            "seed": request.seed,
            "max_tokens": request.max_tokens,
            "stream": self.config.stream,
        });
        if request.logprobs {
            body["logprobs"] = json!(true);
        }
        if let Some(schema) = request.shape.as_ref().and_then(|s| s.json_schema())
            && !self.json_refused.load(std::sync::atomic::Ordering::Relaxed)
        {
            // JSON mode with a schema, in the form llama.cpp's and llama-cpp-python's servers take.
            body["response_format"] = json!({"type": "json_object", "schema": schema});
        }
        body
    }

    fn key(&self) -> Result<Option<String>> {
        let Some(var) = &self.config.key_env else { return Ok(None) };
        match std::env::var(var) {
            Ok(k) if !k.trim().is_empty() => Ok(Some(k.trim().to_string())),
            _ => Err(Error::invalid(
                setting::KEY_ENV,
                format!("the environment variable {var}, which should hold the server's API key, is not set"),
            )),
        }
    }

    fn failure(&self, status: u16, body: &str) -> Error {
        let said = error_message(body).map(|m| format!(": {m}")).unwrap_or_default();
        let server = &self.info.place;
        let what = match status {
            401 | 403 => match &self.config.key_env {
                Some(var) => format!("the server refused the API key (HTTP {status}{said}); check the key in {var}"),
                None => format!(
                    "the server wants an API key (HTTP {status}{said}); put it in an environment variable and name \
                     that variable in the {}",
                    setting::KEY_ENV
                ),
            },
            404 => format!(
                "HTTP 404{said}: the server has no model `{}`, or no chat-completions endpoint under {server} \
                 (the base URL usually ends in /v1)",
                self.config.model
            ),
            429 => format!("the server is limiting requests (HTTP 429{said}); wait a moment and try again"),
            500..=599 => format!("the server failed (HTTP {status}{said}); its log says why"),
            _ => format!("the server refused the request (HTTP {status}{said})"),
        };
        Error::Unavailable(format!("{server}: {what}"))
    }

    fn not_a_completion(&self, why: &str, body: &str) -> Error {
        let mut seen: String = body.chars().take(200).collect();
        if body.chars().count() > 200 {
            seen.push('…');
        }
        Error::invalid(
            format!("{}: the answer", self.info.place),
            format!("not a chat completion ({why}); it began {seen:?}"),
        )
    }
}

/// Longest line of a stream read: an event (one delta) is a few hundred bytes; a line that runs on
/// past this is refused, not held in memory.
pub const MAX_EVENT_BYTES: usize = 1 << 20;
/// Longest answer a stream may build (a plain answer is held to ureq's 10 MB body limit).
pub const MAX_ANSWER_BYTES: usize = 8 << 20;

/// Read one line (through its `\n`, which is dropped) into `line`, at most `cap` bytes: a longer
/// line is an `InvalidData` error. Ok(0) at the end of the stream.
fn read_line_capped(reader: &mut impl BufRead, line: &mut Vec<u8>, cap: usize) -> std::io::Result<usize> {
    line.clear();
    let mut read = 0;
    loop {
        let available = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(read);
        }
        // `content`: the bytes before the newline (which does not count against the cap).
        let (take, content, end) = match available.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, i, true),
            None => (available.len(), available.len(), false),
        };
        if line.len() + content > cap {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("a line of the stream runs past {} KiB with no end", cap >> 10),
            ));
        }
        line.extend_from_slice(&available[..take]);
        reader.consume(take);
        read += take;
        if end {
            line.pop();
            return Ok(read);
        }
    }
}

/// Whether a read failed because ureq's time for the body ran out.
fn is_timeout(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::TimedOut
        || e.get_ref()
            .and_then(|x| x.downcast_ref::<ureq::Error>())
            .is_some_and(|u| matches!(u, ureq::Error::Timeout(_)))
}

/// The message of an error body: OpenAI's `{"error": {"message"}}`, or `{"error": "…"}`.
fn error_message(body: &str) -> Option<String> {
    let c: Completion = serde_json::from_str(body).ok()?;
    c.error.map(|e| e.message())
}

impl Generator for ChatServer {
    fn info(&self) -> &GeneratorInfo {
        &self.info
    }

    fn identity(&self) -> String {
        format!("server {} model {}", self.config.base_url.trim_end_matches('/'), self.config.model)
    }

    fn chat(&self, request: &ChatRequest, sink: Sink<'_>, progress: &dyn Progress) -> Result<Generated> {
        check_cancel(progress)?;
        let started = Instant::now();
        progress.stage(&format!("Asking {}", self.info.model), 0);
        let (mut body, streamed) = match self.post(&self.body(request), self.config.stream) {
            // A server that refuses JSON mode (its error names `response_format`) is asked again
            // without it, and never with it again: the reply is still read and validated.
            Err(e)
                if request.shape.as_ref().is_some_and(|s| s.json_schema().is_some())
                    && !self.json_refused.load(std::sync::atomic::Ordering::Relaxed)
                    && e.to_string().contains("response_format") =>
            {
                self.json_refused.store(true, std::sync::atomic::Ordering::Relaxed);
                self.post(&self.body(request), self.config.stream)?
            }
            other => other?,
        };
        let server = &self.info.place;
        let read_err = |e: ureq::Error| Error::caused(format!("{server}: reading the answer"), e);
        if !streamed {
            let text = body.read_to_string().map_err(read_err)?;
            let c = self.completion(&text)?;
            let Some(choice) = c.choices.first() else { return Err(self.not_a_completion("no choices[0]", &text)) };
            let Some(content) = choice.message.as_ref().and_then(|m| m.content.as_deref()) else {
                return Err(self.not_a_completion("no choices[0].message.content", &text));
            };
            sink(content);
            let (prompt_tokens, completion_tokens) = Usage::of(&c);
            return Ok(Generated {
                text: content.to_string(),
                model: self.info.label(),
                finish: choice.finish().unwrap_or(Finish::Stop),
                prompt_tokens,
                completion_tokens,
                seconds: started.elapsed().as_secs_f64(),
                constrained: None,
                stored: false,
                logprobs: choice.logprobs.as_ref().map(Logprobs::written).unwrap_or_default(),
            });
        }
        self.read_stream(body, sink, progress, started)
    }

    fn chat_with_tools(
        &self,
        request: &ChatRequest,
        tools: &[super::ToolSpec],
        progress: &dyn Progress,
    ) -> Result<Option<super::ToolTurn>> {
        check_cancel(progress)?;
        self.tool_turn(request, tools).map(Some)
    }

    fn first_tokens(
        &self,
        request: &ChatRequest,
        top: usize,
        progress: &dyn Progress,
    ) -> Result<Option<Vec<TokenChoice>>> {
        check_cancel(progress)?;
        let mut body = self.body(request);
        if let Some(o) = body.as_object_mut() {
            o.insert("stream".into(), json!(false));
            o.insert("max_tokens".into(), json!(1));
            o.insert("logprobs".into(), json!(true));
            o.insert("top_logprobs".into(), json!(top.clamp(1, 20)));
        }
        let (mut answer, _) = self.post(&body, false)?;
        let text = answer
            .read_to_string()
            .map_err(|e| Error::caused(format!("{}: reading the answer", self.info.place), e))?;
        let c = self.completion(&text)?;
        let first = c.choices.first().and_then(|ch| ch.logprobs.as_ref()).and_then(|l| l.content.first());
        Ok(first.map(|t| {
            let mut out: Vec<TokenChoice> =
                t.top_logprobs.iter().map(|x| TokenChoice { token: x.token.clone(), logprob: x.logprob }).collect();
            if out.is_empty() {
                out.push(TokenChoice { token: t.token.clone(), logprob: t.logprob });
            }
            out.sort_by(|a, b| b.logprob.total_cmp(&a.logprob));
            out
        }))
    }
}

impl ChatServer {
    /// Ask with `tools` offered: the model's text and the calls it made (plain answer, not streamed).
    fn tool_turn(&self, request: &ChatRequest, tools: &[super::ToolSpec]) -> Result<super::ToolTurn> {
        let started = Instant::now();
        let mut body = self.body(request);
        if let Some(o) = body.as_object_mut() {
            o.insert("stream".into(), json!(false));
            o.insert(
                "tools".into(),
                tools
                    .iter()
                    .map(|t| {
                        json!({"type": "function", "function": {"name": t.name, "description": t.description,
                                "parameters": t.parameters}})
                    })
                    .collect(),
            );
            o.insert("tool_choice".into(), json!("auto"));
        }
        let (mut answer, _) = self.post(&body, false)?;
        let text = answer
            .read_to_string()
            .map_err(|e| Error::caused(format!("{}: reading the answer", self.info.place), e))?;
        let c = self.completion(&text)?;
        let Some(message) = c.choices.first().and_then(|ch| ch.message.as_ref()) else {
            return Err(self.not_a_completion("no choices[0].message", &text));
        };
        let calls = message
            .tool_calls
            .iter()
            .enumerate()
            .map(|(i, t)| super::ToolCall {
                id: if t.id.is_empty() { format!("call-{i}") } else { t.id.clone() },
                name: t.function.name.clone(),
                arguments: match &t.function.arguments {
                    Value::String(s) => s.clone(),
                    Value::Null => "{}".into(),
                    other => other.to_string(),
                },
            })
            .collect();
        Ok(super::ToolTurn {
            text: message.content.clone().unwrap_or_default(),
            calls,
            completion_tokens: Usage::of(&c).1,
            seconds: started.elapsed().as_secs_f64(),
            stored: false,
        })
    }

    /// Send one request body; the answer's body and whether it streams (server-sent events).
    /// Every failure is named: no connection, no answer in time, and each HTTP status.
    fn post(&self, body: &Value, stream: bool) -> Result<(ureq::Body, bool)> {
        let key = self.key()?;
        let wait = Duration::from_secs(self.config.timeout_secs.max(1));
        let url = self.config.endpoint();
        let mut req = self.agent.post(&url).header("Content-Type", "application/json");
        if let Some(k) = &key {
            req = req.header("Authorization", format!("Bearer {k}"));
        }
        if stream {
            req = req.header("Accept", "text/event-stream");
        }
        let server = &self.info.place;
        let resp = req.send(body.to_string().as_bytes()).map_err(|e| {
            let what = match &e {
                ureq::Error::Timeout(_) => format!("no answer within {} s", wait.as_secs()),
                ureq::Error::ConnectionFailed | ureq::Error::HostNotFound => {
                    "cannot connect: is the server running, and is the URL right?".to_string()
                }
                ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
                    "cannot connect (connection refused): is the server running?".to_string()
                }
                _ => "the request failed".to_string(),
            };
            Error::caused(format!("{server}: {what}"), e)
        })?;
        let status = resp.status().as_u16();
        let streamed = resp
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|c| c.starts_with("text/event-stream"));
        if (300..400).contains(&status) {
            let to = resp.headers().get("location").and_then(|v| v.to_str().ok()).unwrap_or("nowhere it named");
            return Err(Error::Unavailable(format!(
                "{server}: the server redirected the request (HTTP {status}) to {to}; RankLens does not follow \
                 redirects, so neither the question nor the API key goes to another address — if that address \
                 is the server's, set it as the {}",
                setting::URL
            )));
        }
        let mut body = resp.into_body();
        if !(200..300).contains(&status) {
            let text = body.read_to_string().unwrap_or_default();
            return Err(self.failure(status, &text));
        }
        Ok((body, streamed))
    }

    /// A plain answer's body read as a completion.
    fn completion(&self, text: &str) -> Result<Completion> {
        let v: Value = serde_json::from_str(text).map_err(|_| self.not_a_completion("not JSON", text))?;
        serde_json::from_value(v).map_err(|e| self.not_a_completion(&format!("not in the protocol's shape: {e}"), text))
    }

    /// Read a streamed answer: `data: {...}` events, each a delta, until `data: [DONE]`.
    fn read_stream(
        &self,
        body: ureq::Body,
        sink: Sink<'_>,
        progress: &dyn Progress,
        started: Instant,
    ) -> Result<Generated> {
        let server = &self.info.place;
        let mut reader = BufReader::new(body.into_reader());
        let (mut text, mut finish, mut pieces, mut done) = (String::new(), Finish::Stop, 0usize, false);
        let (mut prompt_tokens, mut completion_tokens) = (0, 0);
        let mut logprobs = Vec::new();
        let total = Duration::from_secs(self.config.timeout_secs.max(1)) * 10;
        let mut bytes = Vec::new();
        loop {
            check_cancel(progress)?;
            match read_line_capped(&mut reader, &mut bytes, MAX_EVENT_BYTES) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) if is_timeout(&e) => {
                    return Err(Error::Unavailable(format!(
                        "{server}: the answer did not finish within {} s (the server kept the stream open); \
                         {} words had arrived",
                        total.as_secs(),
                        text.split_whitespace().count()
                    )));
                }
                Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                    return Err(self.not_a_completion(&e.to_string(), &String::from_utf8_lossy(&bytes)));
                }
                Err(e) => return Err(Error::caused(format!("{server}: reading the stream"), e)),
            }
            let line = String::from_utf8_lossy(&bytes);
            let line = line.trim_end();
            let Some(data) = line.strip_prefix("data:") else { continue };
            let data = data.trim();
            if data == "[DONE]" {
                done = true;
                break;
            }
            let v: Value =
                serde_json::from_str(data).map_err(|_| self.not_a_completion("an event is not JSON", data))?;
            let c: Completion = serde_json::from_value(v)
                .map_err(|e| self.not_a_completion(&format!("an event is not in the protocol's shape: {e}"), data))?;
            if let Some(e) = &c.error {
                return Err(Error::Unavailable(format!("{server}: the server stopped the answer: {}", e.message())));
            }
            match c.choices.first() {
                Some(choice) => {
                    let Some(delta) = &choice.delta else {
                        return Err(self.not_a_completion("an event has no choices[0].delta", data));
                    };
                    if let Some(piece) = delta.content.as_deref() {
                        if text.len() + piece.len() > MAX_ANSWER_BYTES {
                            return Err(self.not_a_completion(
                                &format!("the answer is longer than {} MiB", MAX_ANSWER_BYTES >> 20),
                                &text,
                            ));
                        }
                        text.push_str(piece);
                        sink(piece);
                        pieces += 1;
                        progress.advance(1);
                    }
                    if let Some(f) = choice.finish() {
                        finish = f;
                    }
                    if let Some(l) = &choice.logprobs {
                        logprobs.extend(l.written());
                    }
                }
                None if c.usage.is_none() => return Err(self.not_a_completion("an event has no choices", data)),
                None => {}
            }
            let (p, w) = Usage::of(&c);
            prompt_tokens = prompt_tokens.max(p);
            completion_tokens = completion_tokens.max(w);
        }
        if !done {
            return Err(self.not_a_completion("the stream ended without `data: [DONE]`", &text));
        }
        Ok(Generated {
            text,
            model: self.info.label(),
            finish,
            prompt_tokens,
            completion_tokens: if completion_tokens > 0 { completion_tokens } else { pieces },
            seconds: started.elapsed().as_secs_f64(),
            constrained: None,
            stored: false,
            logprobs,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::Message;

    fn lines(input: &[u8], cap: usize) -> Vec<std::result::Result<String, String>> {
        // A reader that hands out 3 bytes at a time, so lines cross its buffer's edges.
        let mut r = std::io::BufReader::with_capacity(3, input);
        let mut out = Vec::new();
        let mut line = Vec::new();
        loop {
            match read_line_capped(&mut r, &mut line, cap) {
                Ok(0) => return out,
                Ok(_) => out.push(Ok(String::from_utf8_lossy(&line).into_owned())),
                Err(e) => {
                    out.push(Err(e.to_string()));
                    return out;
                }
            }
        }
    }

    #[test]
    fn lines_are_read_whole_across_buffers_and_a_line_past_the_cap_is_refused() {
        let ok = |s: &str| Ok(s.to_string());
        assert_eq!(
            lines(b"data: a\n\ndata: bcdefg\nlast", 16),
            [ok("data: a"), ok(""), ok("data: bcdefg"), ok("last")]
        );
        // Exactly the cap, and its newline, is a line; one byte more is not.
        assert_eq!(lines(b"12345678\nx", 8), [ok("12345678"), ok("x")]);
        let cut = lines(b"123456789\n", 8);
        assert_eq!(cut.len(), 1);
        assert!(cut[0].as_ref().is_err_and(|e| e.contains("runs past")), "{cut:?}");
        // An endless line with no newline at all stops at the cap too.
        let endless = vec![b'x'; 5000];
        assert!(lines(&endless, 2048).last().unwrap().is_err());
        assert!(lines(b"", 8).is_empty());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::proptest_cases()))]

        /// Any bytes, any cap: the lines read are the input split at its newlines (the last one
        /// read whole without one), up to the first line longer than the cap, which is refused.
        #[test]
        fn lines_are_the_input_split_at_newlines_until_one_runs_past_the_cap(
            input in proptest::collection::vec(proptest::prop_oneof![1 => proptest::prelude::Just(b'\n'), 6 => proptest::prelude::any::<u8>()], 0..200),
            cap in 1usize..40,
        ) {
            let got = lines(&input, cap);
            let mut want: Vec<&[u8]> = input.split(|&b| b == b'\n').collect();
            if input.ends_with(b"\n") || input.is_empty() {
                want.pop();
            }
            for (i, line) in want.iter().enumerate() {
                if line.len() > cap {
                    proptest::prop_assert_eq!(got.len(), i + 1);
                    proptest::prop_assert!(got[i].is_err());
                    return Ok(());
                }
                proptest::prop_assert_eq!(got[i].as_ref().ok(), Some(&String::from_utf8_lossy(line).into_owned()));
            }
            proptest::prop_assert_eq!(got.len(), want.len());
        }
    }

    #[test]
    fn error_bodies_are_read_in_both_of_their_shapes() {
        assert_eq!(
            error_message(r#"{"error":{"message":"no such model","type":"x"}}"#).as_deref(),
            Some("no such model")
        );
        assert_eq!(error_message(r#"{"error":"slow down"}"#).as_deref(), Some("slow down"));
        assert_eq!(error_message("<html>gateway</html>"), None);
        assert_eq!(error_message(r#"{"choices":[]}"#), None);
    }

    #[test]
    fn the_body_is_openai_s_chat_completion_request() {
        let mut config = ServerConfig::new("http://127.0.0.1:9/v1/", "smollm2");
        config.stream = true;
        let c = ChatServer::new(config).unwrap();
        let mut r = ChatRequest::new(vec![Message::system("s"), Message::user("u")], 12);
        r.temperature = 0.7;
        r.seed = 7;
        let body = c.body(&r);
        assert_eq!(
            body,
            json!({"model": "smollm2", "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}],
                   "temperature": 0.7, "seed": 7, "max_tokens": 12, "stream": true})
        );
        assert_eq!(c.info().place, Place::Server("http://127.0.0.1:9/v1".into()));
    }
}
