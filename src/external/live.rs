//! A live search engine as a column: Elasticsearch or OpenSearch (`POST /{index}/_search` with
//! `explain: true`) or Solr (`/{collection}/select` with `debugQuery`), asked off the UI thread
//! like any other method.
//!
//! The engine is described by a URL, an index or collection, a query template with
//! `{{question}}` and `{{k}}`, the field holding the corpus's document id, and the name of an
//! environment variable holding the credentials. The credentials themselves are read at the
//! moment of the request and never stored: not in the workspace, not in a report, not in the
//! app's saved state. Every failure (no connection, refused credentials, a missing index, a
//! template that does not make a valid request, a response without hits) is an error that says
//! which and what to do.

use std::path::Path;
use std::time::Duration;

use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::response::{EngineResponse, error_reason};
use crate::{Error, Result};

/// Which API to speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EngineKind {
    /// Elasticsearch 7 or 8.
    Elasticsearch,
    /// OpenSearch 1 or 2.
    OpenSearch,
    /// Solr 8 or 9.
    Solr,
}

impl EngineKind {
    /// Every kind, in menu order.
    pub const ALL: [EngineKind; 3] = [EngineKind::Elasticsearch, EngineKind::OpenSearch, EngineKind::Solr];

    /// Display name.
    pub fn label(self) -> &'static str {
        match self {
            EngineKind::Elasticsearch => "Elasticsearch",
            EngineKind::OpenSearch => "OpenSearch",
            EngineKind::Solr => "Solr",
        }
    }

    /// A query template to start from.
    pub fn default_template(self) -> &'static str {
        match self {
            EngineKind::Elasticsearch | EngineKind::OpenSearch => {
                r#"{"query": {"multi_match": {"query": "{{question}}", "fields": ["title", "text"]}}, "size": {{k}}}"#
            }
            EngineKind::Solr => "q={{question}}&defType=edismax&qf=title text&rows={{k}}",
        }
    }
}

/// How to authenticate, by the name of an environment variable (never the secret itself).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Credentials {
    /// No credentials.
    #[default]
    None,
    /// `Authorization: ApiKey <value of the variable>` (Elasticsearch API keys).
    ApiKeyEnv(String),
    /// `Authorization: Basic …` from `user:password` in the variable.
    BasicAuthEnv(String),
}

/// A live engine's description (what the app keeps and a `--engine FILE` holds).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct LiveEngine {
    /// The column's name.
    pub name: String,
    /// Which API.
    pub kind: EngineKind,
    /// Base URL (`http://localhost:9200`, `https://solr.example.org/solr`).
    pub url: String,
    /// Index (Elasticsearch, OpenSearch) or collection (Solr).
    pub index: String,
    /// The request: a JSON body (Elasticsearch, OpenSearch) or query parameters (Solr), with
    /// `{{question}}` and `{{k}}`.
    pub template: String,
    /// The field holding the corpus's document id (default: the engine's `_id`, Solr's `id`).
    #[serde(default)]
    pub id_field: Option<String>,
    /// Credentials, by environment variable.
    #[serde(default)]
    pub credentials: Credentials,
    /// Seconds to wait for an answer.
    #[serde(default = "default_timeout")]
    pub timeout_secs: u64,
}

fn default_timeout() -> u64 {
    10
}

/// A request ready to send.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// `GET` or `POST`.
    pub method: &'static str,
    /// The full URL.
    pub url: String,
    /// The JSON body (POST only).
    pub body: Option<String>,
}

/// `s` as the inside of a JSON string (no quotes).
fn json_inner(s: &str) -> String {
    let quoted = serde_json::to_string(s).unwrap_or_default();
    quoted[1..quoted.len().saturating_sub(1).max(1)].to_string()
}

/// Percent-encoding for a query parameter's value.
fn url_encode(s: &str) -> String {
    percent_encoding::utf8_percent_encode(s, percent_encoding::NON_ALPHANUMERIC).to_string()
}

impl LiveEngine {
    /// Read an engine description from a JSON file.
    pub fn load(path: &Path) -> Result<LiveEngine> {
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        let engine: LiveEngine = serde_json::from_slice(&bytes).map_err(|e| {
            Error::invalid(
                format!("{}:{}:{}", path.display(), e.line(), e.column()),
                format!("not an engine description: {e}"),
            )
        })?;
        engine.validate()?;
        Ok(engine)
    }

    /// Check what can be checked without the network: the URL, the index, the template.
    pub fn validate(&self) -> Result<()> {
        let url = self.url.trim();
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(Error::invalid("url", format!("{url:?} is not an http:// or https:// URL")));
        }
        if url.split("://").nth(1).and_then(|rest| rest.split('/').next()).is_some_and(|host| host.contains('@')) {
            return Err(Error::invalid(
                "url",
                "the URL holds credentials: put them in an environment variable and name it instead, so they are \
                 never saved",
            ));
        }
        if self.index.trim().is_empty() || self.index.contains(['/', '?', '#', ' ']) {
            return Err(Error::invalid("index", format!("{:?} is not an index or collection name", self.index)));
        }
        if !self.template.contains("{{question}}") {
            return Err(Error::invalid("template", "the query template has no {{question}} to put the question in"));
        }
        self.request("test question", 10).map(|_| ())
    }

    /// The request for a question.
    pub fn request(&self, question: &str, k: usize) -> Result<Request> {
        let base = self.url.trim().trim_end_matches('/');
        match self.kind {
            EngineKind::Elasticsearch | EngineKind::OpenSearch => {
                let text =
                    self.template.replace("{{question}}", &json_inner(question)).replace("{{k}}", &k.to_string());
                let mut body: Value = serde_json::from_str(&text).map_err(|e| {
                    Error::invalid(
                        format!("template:{}:{}", e.line(), e.column()),
                        format!("the query template does not make a JSON request once filled in: {e}"),
                    )
                })?;
                let Value::Object(o) = &mut body else {
                    return Err(Error::invalid("template", "the query template must be a JSON object"));
                };
                o.insert("explain".into(), Value::Bool(true));
                o.entry("size").or_insert(Value::from(k));
                Ok(Request {
                    method: "POST",
                    url: format!("{base}/{}/_search", self.index),
                    body: Some(body.to_string()),
                })
            }
            EngineKind::Solr => {
                let mut params: Vec<String> = Vec::new();
                for part in self.template.split('&').filter(|p| !p.trim().is_empty()) {
                    let (key, value) = part.split_once('=').ok_or_else(|| {
                        Error::invalid("template", format!("{part:?} is not a `name=value` query parameter"))
                    })?;
                    let value = value.replace("{{question}}", question).replace("{{k}}", &k.to_string());
                    params.push(format!("{}={}", url_encode(key.trim()), url_encode(&value)));
                }
                let has = |params: &[String], name: &str| params.iter().any(|p| p.starts_with(&format!("{name}=")));
                if !has(&params, "rows") {
                    params.push(format!("rows={k}"));
                }
                let fl = format!("{},score", self.id_field.as_deref().unwrap_or("id"));
                if !has(&params, "fl") {
                    params.push(format!("fl={}", url_encode(&fl)));
                }
                for p in ["wt=json", "debugQuery=true", "debug.explain.structured=true"] {
                    params.push(p.to_string());
                }
                Ok(Request {
                    method: "GET",
                    url: format!("{base}/{}/select?{}", self.index, params.join("&")),
                    body: None,
                })
            }
        }
    }

    /// The Authorization header, read from the environment now.
    fn authorization(&self) -> Result<Option<String>> {
        let read = |var: &str| {
            std::env::var(var).map_err(|_| {
                Error::Unavailable(format!(
                    "`{}` needs its credentials in the environment variable {var}, which is not set",
                    self.name
                ))
            })
        };
        Ok(match &self.credentials {
            Credentials::None => None,
            Credentials::ApiKeyEnv(var) => Some(format!("ApiKey {}", read(var)?.trim())),
            Credentials::BasicAuthEnv(var) => {
                Some(format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(read(var)?.trim())))
            }
        })
    }

    /// Ask the engine: the response's hits with their explanations.
    pub fn search(&self, question: &str, k: usize) -> Result<EngineResponse> {
        let req = self.request(question, k)?;
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .tls_config(ureq::tls::TlsConfig::builder().root_certs(ureq::tls::RootCerts::PlatformVerifier).build())
            .timeout_global(Some(Duration::from_secs(self.timeout_secs.max(1))))
            .http_status_as_error(false)
            .build()
            .into();
        let auth = self.authorization()?;
        let name = &self.name;
        let sent = match req.body {
            Some(body) => {
                let mut r = agent.post(&req.url).header("Content-Type", "application/json");
                if let Some(a) = &auth {
                    r = r.header("Authorization", a);
                }
                r.send(body.as_bytes())
            }
            None => {
                let mut r = agent.get(&req.url);
                if let Some(a) = &auth {
                    r = r.header("Authorization", a);
                }
                r.call()
            }
        };
        let mut resp = sent.map_err(|e| {
            let what = match &e {
                ureq::Error::Timeout(_) => format!("no answer within {} s", self.timeout_secs),
                ureq::Error::ConnectionFailed | ureq::Error::HostNotFound => "cannot connect".to_string(),
                ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
                    "cannot connect (connection refused: is the engine running?)".to_string()
                }
                _ => "the request failed".to_string(),
            };
            Error::caused(format!("`{name}`: {what} ({})", self.url), e)
        })?;
        let status = resp.status().as_u16();
        let text =
            resp.body_mut().read_to_string().map_err(|e| Error::caused(format!("`{name}`: reading the answer"), e))?;
        let json: Option<Value> = serde_json::from_str(&text).ok();
        let reason = json.as_ref().and_then(error_reason);
        let said = reason.clone().map(|r| format!(": {r}")).unwrap_or_default();
        match status {
            200..=299 => {}
            401 | 403 => {
                let how = match &self.credentials {
                    Credentials::None => "give its credentials in an environment variable".to_string(),
                    Credentials::ApiKeyEnv(v) | Credentials::BasicAuthEnv(v) => format!("check {v}"),
                };
                return Err(Error::Unavailable(format!(
                    "`{name}` refused the credentials (HTTP {status}{said}); {how}"
                )));
            }
            404 => {
                return Err(Error::invalid(
                    format!("`{name}`"),
                    format!("no index or collection `{}` at {} (HTTP 404{said})", self.index, self.url),
                ));
            }
            400 => {
                return Err(Error::invalid(
                    format!("`{name}`"),
                    format!("the engine refused the query (HTTP 400{said}); check the query template"),
                ));
            }
            _ => {
                return Err(Error::invalid(format!("`{name}`"), format!("the engine answered HTTP {status}{said}")));
            }
        }
        let Some(json) = json else {
            return Err(Error::invalid(
                format!("`{name}`"),
                format!("the answer is not JSON (is {} a {} endpoint?)", self.url, self.kind.label()),
            ));
        };
        EngineResponse::parse(&json, self.id_field.as_deref(), &format!("`{name}`"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn es() -> LiveEngine {
        LiveEngine {
            name: "prod".into(),
            kind: EngineKind::Elasticsearch,
            url: "http://localhost:9200/".into(),
            index: "scifact".into(),
            template: EngineKind::Elasticsearch.default_template().into(),
            id_field: None,
            credentials: Credentials::None,
            timeout_secs: 5,
        }
    }

    #[test]
    fn elasticsearch_requests_carry_the_question_escaped_with_explain_on() {
        let r = es().request("a \"quoted\" question\n", 7).unwrap();
        assert_eq!((r.method, r.url.as_str()), ("POST", "http://localhost:9200/scifact/_search"));
        let body: Value = serde_json::from_str(r.body.as_deref().unwrap()).unwrap();
        assert_eq!(body["query"]["multi_match"]["query"], "a \"quoted\" question\n");
        assert_eq!((body["size"].as_u64(), body["explain"].as_bool()), (Some(7), Some(true)));
    }

    #[test]
    fn solr_requests_are_url_encoded_and_ask_for_structured_explanations() {
        let solr = LiveEngine {
            kind: EngineKind::Solr,
            url: "http://h:8983/solr".into(),
            template: EngineKind::Solr.default_template().into(),
            ..es()
        };
        let r = solr.request("sync & stale?", 5).unwrap();
        assert_eq!(r.method, "GET");
        assert!(r.url.starts_with("http://h:8983/solr/scifact/select?q=sync%20%26%20stale%3F&defType=edismax&qf=title%20text&rows=5&fl=id%2Cscore"), "{}", r.url);
        assert!(r.url.ends_with("&wt=json&debugQuery=true&debug.explain.structured=true"), "{}", r.url);
    }

    #[test]
    fn bad_descriptions_are_refused_before_any_request() {
        let bad = |f: fn(&mut LiveEngine)| {
            let mut e = es();
            f(&mut e);
            e.validate().unwrap_err().to_string()
        };
        assert!(bad(|e| e.url = "localhost:9200".into()).contains("not an http:// or https:// URL"));
        assert!(bad(|e| e.url = "https://elastic:changeme@host:9200".into()).contains("holds credentials"));
        assert!(bad(|e| e.template = r#"{"query": {"match": {"text": "x"}}}"#.into()).contains("no {{question}}"));
        let e = bad(|e| e.template = r#"{"query": {"match": {"text": "{{question}}"}}"#.into());
        assert!(e.starts_with("template:1:") && e.contains("does not make a JSON request"), "{e}");
        assert!(bad(|e| e.index = "a/b".into()).contains("not an index"));
        let solr = LiveEngine { kind: EngineKind::Solr, template: "q={{question}}&broken".into(), ..es() };
        assert!(solr.validate().unwrap_err().to_string().contains("\"broken\" is not a `name=value`"));
    }

    #[test]
    fn missing_credentials_say_which_variable() {
        let e = LiveEngine { credentials: Credentials::ApiKeyEnv("RANKLENS_TEST_NO_SUCH_KEY".into()), ..es() };
        let err = e.authorization().unwrap_err();
        assert!(matches!(err, Error::Unavailable(_)) && err.to_string().contains("RANKLENS_TEST_NO_SUCH_KEY"));
        assert_eq!(LiveEngine { credentials: Credentials::None, ..es() }.authorization().unwrap(), None);
    }
}
