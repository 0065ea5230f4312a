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

use super::{ChatRequest, Finish, Generated, Generator, GeneratorInfo, Sink};
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

/// A chat-completions server as a [`Generator`].
pub struct ChatServer {
    config: ServerConfig,
    info: GeneratorInfo,
}

impl ChatServer {
    /// A client of `config`'s server; nothing is sent until the first request.
    pub fn new(config: ServerConfig) -> Result<Self> {
        let url = config.base_url.trim();
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(Error::invalid("--llm", format!("{url:?} is not an http:// or https:// URL")));
        }
        if config.model.trim().is_empty() {
            return Err(Error::invalid("--llm-model", "name the model the server should answer with"));
        }
        let info = GeneratorInfo {
            model: config.model.clone(),
            size: None,
            place: config.base_url.trim_end_matches('/').to_string(),
            caveat: None,
        };
        Ok(Self { config, info })
    }

    /// The request body for `request` (what the loopback tests check).
    pub fn body(&self, request: &ChatRequest) -> Value {
        json!({
            "model": self.config.model,
            "messages": request.messages.iter().map(|m| json!({"role": m.role.name(), "content": m.content}))
                .collect::<Vec<_>>(),
            "temperature": request.temperature,
            "seed": request.seed,
            "max_tokens": request.max_tokens,
            "stream": self.config.stream,
        })
    }

    fn key(&self) -> Result<Option<String>> {
        let Some(var) = &self.config.key_env else { return Ok(None) };
        match std::env::var(var) {
            Ok(k) if !k.trim().is_empty() => Ok(Some(k.trim().to_string())),
            _ => Err(Error::Unavailable(format!(
                "the environment variable {var}, which should hold the server's API key, is not set"
            ))),
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
                     that variable (--llm-key-env)"
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

/// The message of an error body: OpenAI's `{"error": {"message"}}`, or `{"error": "…"}`.
fn error_message(body: &str) -> Option<String> {
    let v: Value = serde_json::from_str(body).ok()?;
    let e = v.get("error")?;
    e.get("message").and_then(Value::as_str).or_else(|| e.as_str()).map(str::to_string)
}

fn finish_of(v: &Value) -> Option<Finish> {
    match v.get("finish_reason").and_then(Value::as_str)? {
        "length" => Some(Finish::Length),
        _ => Some(Finish::Stop),
    }
}

fn usage(v: &Value, key: &str) -> usize {
    v.get("usage").and_then(|u| u.get(key)).and_then(Value::as_u64).unwrap_or(0) as usize
}

impl Generator for ChatServer {
    fn info(&self) -> &GeneratorInfo {
        &self.info
    }

    fn chat(&self, request: &ChatRequest, sink: Sink<'_>, progress: &dyn Progress) -> Result<Generated> {
        check_cancel(progress)?;
        let started = Instant::now();
        let key = self.key()?;
        let wait = Duration::from_secs(self.config.timeout_secs.max(1));
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .tls_config(ureq::tls::TlsConfig::builder().root_certs(ureq::tls::RootCerts::PlatformVerifier).build())
            .timeout_connect(Some(Duration::from_secs(10)))
            .timeout_recv_response(Some(wait))
            .timeout_recv_body(Some(wait * 10))
            .http_status_as_error(false)
            .build()
            .into();
        let url = self.config.endpoint();
        let mut req = agent.post(&url).header("Content-Type", "application/json");
        if let Some(k) = &key {
            req = req.header("Authorization", format!("Bearer {k}"));
        }
        if self.config.stream {
            req = req.header("Accept", "text/event-stream");
        }
        progress.stage(&format!("Asking {}", self.info.model), 0);
        let server = &self.info.place;
        let resp = req.send(self.body(request).to_string().as_bytes()).map_err(|e| {
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
        let mut body = resp.into_body();
        if !(200..300).contains(&status) {
            let text = body.read_to_string().unwrap_or_default();
            return Err(self.failure(status, &text));
        }
        let read_err = |e: ureq::Error| Error::caused(format!("{server}: reading the answer"), e);
        if !streamed {
            let text = body.read_to_string().map_err(read_err)?;
            let v: Value = serde_json::from_str(&text).map_err(|_| self.not_a_completion("not JSON", &text))?;
            let choice =
                v.get("choices").and_then(|c| c.get(0)).ok_or_else(|| self.not_a_completion("no choices[0]", &text))?;
            let content = choice
                .get("message")
                .and_then(|m| m.get("content"))
                .and_then(Value::as_str)
                .ok_or_else(|| self.not_a_completion("no choices[0].message.content", &text))?;
            sink(content);
            return Ok(Generated {
                text: content.to_string(),
                model: self.info.label(),
                finish: finish_of(choice).unwrap_or(Finish::Stop),
                prompt_tokens: usage(&v, "prompt_tokens"),
                completion_tokens: usage(&v, "completion_tokens"),
                seconds: started.elapsed().as_secs_f64(),
            });
        }
        let reader = BufReader::new(body.into_reader());
        let (mut text, mut finish, mut pieces, mut done) = (String::new(), Finish::Stop, 0usize, false);
        let (mut prompt_tokens, mut completion_tokens) = (0, 0);
        for line in reader.lines() {
            check_cancel(progress)?;
            let line = line.map_err(|e| Error::caused(format!("{server}: reading the stream"), e))?;
            let line = line.trim_end();
            let Some(data) = line.strip_prefix("data:") else { continue };
            let data = data.trim();
            if data == "[DONE]" {
                done = true;
                break;
            }
            let v: Value =
                serde_json::from_str(data).map_err(|_| self.not_a_completion("an event is not JSON", data))?;
            if let Some(m) = v.get("error") {
                let m = m.get("message").and_then(Value::as_str).or_else(|| m.as_str()).unwrap_or("an error");
                return Err(Error::Unavailable(format!("{server}: the server stopped the answer: {m}")));
            }
            let choice = v.get("choices").and_then(|c| c.get(0));
            if let Some(choice) = choice {
                let Some(delta) = choice.get("delta") else {
                    return Err(self.not_a_completion("an event has no choices[0].delta", data));
                };
                if let Some(piece) = delta.get("content").and_then(Value::as_str) {
                    text.push_str(piece);
                    sink(piece);
                    pieces += 1;
                    progress.advance(1);
                }
                if let Some(f) = finish_of(choice) {
                    finish = f;
                }
            } else if v.get("usage").is_none() {
                return Err(self.not_a_completion("an event has no choices", data));
            }
            prompt_tokens = prompt_tokens.max(usage(&v, "prompt_tokens"));
            completion_tokens = completion_tokens.max(usage(&v, "completion_tokens"));
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
        })
    }
}
