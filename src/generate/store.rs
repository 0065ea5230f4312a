//! Every reply a language model gave, kept in the workspace (`replies.sqlite`) by what was asked:
//! the model, the whole conversation (prompt, passages, worked examples), the decoding settings
//! and the shape the reply was held to. The same request is answered from the store and never
//! asked again — changing k, ticking another column, reopening the app or building a graph again
//! reads the replies already written — and the reply says so ([`super::Generated::stored`]).
//!
//! A reply is stored as soon as it is whole, so long work that stops (a failed request, the Stop
//! button, a closed app) keeps what was read, and the next run starts where it stopped. Only
//! replies are kept, never failures: a request that failed is asked again.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;
use sha2::{Digest, Sha256};

use super::{ChatRequest, Generated, Generator, GeneratorInfo, Sink, TokenChoice, ToolSpec, ToolTurn};
use crate::progress::Progress;
use crate::{Error, Result};

/// The store's file in a workspace.
pub const FILE: &str = "replies.sqlite";

const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS replies (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    kind TEXT NOT NULL,
    reply TEXT NOT NULL,
    written INTEGER NOT NULL
)";

/// The replies of every model asked in one workspace.
pub struct ReplyStore {
    conn: Mutex<Connection>,
    path: PathBuf,
}

impl std::fmt::Debug for ReplyStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReplyStore").field("path", &self.path).finish()
    }
}

/// What the store's keys mean: raised when what a key covers changes, so replies kept under the
/// old meaning are never read as new.
pub const KEY_VERSION: u32 = 2;

/// A request with what else decides its reply: the grammar its shape compiles to
/// ([`super::Shape::version`]) and the generator's own version of it
/// ([`Generator::request_version`], the embedded model's chat template).
#[derive(Serialize)]
struct Versioned<'a, T: Serialize> {
    request: &'a T,
    key_version: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    grammar: Option<String>,
    #[serde(skip_serializing_if = "String::is_empty")]
    template: String,
}

/// The key of `request` to `inner`: the request as sent, the grammar that holds its reply, the
/// template that writes it out.
fn versioned_key(inner: &dyn Generator, kind: &str, request: &ChatRequest, extra: &impl Serialize) -> Result<String> {
    let v = Versioned {
        request: &(request, extra),
        key_version: KEY_VERSION,
        grammar: request.shape.as_ref().map(super::Shape::version),
        template: inner.request_version(request),
    };
    key(&inner.identity(), kind, &v)
}

/// What a reply is kept under: a digest of the model's identity, what kind of answer it is, and
/// the request as JSON (every message, the decoding settings and the shape).
pub fn key(identity: &str, kind: &str, request: &impl Serialize) -> Result<String> {
    let body = serde_json::to_string(request).map_err(|e| Error::caused("replies: the request", e))?;
    let mut h = Sha256::new();
    for part in [identity, kind, &body] {
        h.update(part.len().to_le_bytes());
        h.update(part.as_bytes());
    }
    Ok(hex::encode(h.finalize()))
}

impl ReplyStore {
    /// Open (creating it if needed) the store in `workspace`.
    pub fn in_workspace(workspace: &Path) -> Result<Self> {
        std::fs::create_dir_all(workspace).map_err(|e| Error::io(workspace, e))?;
        Self::open(&workspace.join(FILE))
    }

    /// Open (creating it if needed) a store file.
    pub fn open(path: &Path) -> Result<Self> {
        let named = |e: rusqlite::Error| Error::caused(format!("replies: {}", path.display()), e);
        let conn = Connection::open(path).map_err(named)?;
        conn.busy_timeout(std::time::Duration::from_secs(5)).map_err(named)?;
        conn.execute_batch(SCHEMA).map_err(named)?;
        Ok(Self { conn: Mutex::new(conn), path: path.to_path_buf() })
    }

    /// Its file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn get(&self, key: &str) -> Option<String> {
        let conn = self.conn.lock().ok()?;
        conn.query_row("SELECT reply FROM replies WHERE key = ?1", params![key], |r| r.get::<_, String>(0))
            .optional()
            .ok()
            .flatten()
    }

    /// Keep a reply. A store that cannot be written (a full disk, a locked file) keeps nothing and
    /// says nothing: the reply itself was given, only its next asking is not saved.
    fn put(&self, key: &str, model: &str, kind: &str, reply: &impl Serialize) {
        let Ok(json) = serde_json::to_string(reply) else { return };
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
        if let Ok(conn) = self.conn.lock() {
            let _ = conn.execute(
                "INSERT OR REPLACE INTO replies (key, model, kind, reply, written) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![key, model, kind, json, i64::try_from(now).unwrap_or(0)],
            );
        }
    }

    /// How many replies it holds.
    pub fn len(&self) -> usize {
        self.conn
            .lock()
            .ok()
            .and_then(|c| c.query_row("SELECT COUNT(*) FROM replies", [], |r| r.get::<_, i64>(0)).ok())
            .and_then(|n| usize::try_from(n).ok())
            .unwrap_or(0)
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A generator whose replies are kept in a [`ReplyStore`]: a request asked before is answered
/// from the store (its text passed to the sink at once, [`Generated::stored`] set), any other is
/// asked and its reply kept.
pub struct Stored {
    inner: Arc<dyn Generator>,
    store: Arc<ReplyStore>,
}

impl Stored {
    /// `inner`, its replies kept in `store`.
    pub fn new(inner: Arc<dyn Generator>, store: Arc<ReplyStore>) -> Self {
        Self { inner, store }
    }

    /// `generator` with its replies kept in `store`, unless they already are.
    pub fn wrap(generator: Arc<dyn Generator>, store: &Arc<ReplyStore>) -> Arc<dyn Generator> {
        if generator.keeps_replies() { generator } else { Arc::new(Self::new(generator, store.clone())) }
    }

    /// The store.
    pub fn store(&self) -> &Arc<ReplyStore> {
        &self.store
    }
}

impl Generator for Stored {
    fn info(&self) -> &GeneratorInfo {
        self.inner.info()
    }

    fn identity(&self) -> String {
        self.inner.identity()
    }

    fn request_version(&self, request: &ChatRequest) -> String {
        self.inner.request_version(request)
    }

    fn holds_shapes(&self) -> bool {
        self.inner.holds_shapes()
    }

    fn keeps_replies(&self) -> bool {
        true
    }

    fn chat(&self, request: &ChatRequest, sink: Sink<'_>, progress: &dyn Progress) -> Result<Generated> {
        let identity = self.inner.identity();
        let key = versioned_key(self.inner.as_ref(), "chat", request, &())?;
        if let Some(mut g) = self.store.get(&key).and_then(|j| serde_json::from_str::<Generated>(&j).ok()) {
            g.stored = true;
            sink(&g.text);
            return Ok(g);
        }
        let g = self.inner.chat(request, sink, progress)?;
        self.store.put(&key, &identity, "chat", &g);
        Ok(g)
    }

    fn first_tokens(
        &self,
        request: &ChatRequest,
        top: usize,
        progress: &dyn Progress,
    ) -> Result<Option<Vec<TokenChoice>>> {
        let identity = self.inner.identity();
        let key = versioned_key(self.inner.as_ref(), &format!("first {top}"), request, &())?;
        if let Some(choices) = self.store.get(&key).and_then(|j| serde_json::from_str::<Vec<TokenChoice>>(&j).ok()) {
            return Ok(Some(choices));
        }
        let choices = self.inner.first_tokens(request, top, progress)?;
        if let Some(c) = &choices {
            self.store.put(&key, &identity, "first tokens", c);
        }
        Ok(choices)
    }

    fn chat_with_tools(
        &self,
        request: &ChatRequest,
        tools: &[ToolSpec],
        progress: &dyn Progress,
    ) -> Result<Option<ToolTurn>> {
        let identity = self.inner.identity();
        let key = versioned_key(self.inner.as_ref(), "tools", request, &tools)?;
        if let Some(turn) = self.store.get(&key).and_then(|j| serde_json::from_str::<ToolTurn>(&j).ok()) {
            return Ok(Some(ToolTurn { stored: true, ..turn }));
        }
        let turn = self.inner.chat_with_tools(request, tools, progress)?;
        if let Some(t) = &turn {
            self.store.put(&key, &identity, "tools", t);
        }
        Ok(turn)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{Finish, Message, Shape};
    use std::sync::atomic::{AtomicUsize, Ordering};

    struct Counting {
        info: GeneratorInfo,
        asked: AtomicUsize,
        identity: String,
        /// What `request_version` says (the template of an embedded model).
        template: std::sync::Mutex<String>,
    }

    impl Counting {
        fn new(identity: &str) -> Arc<Self> {
            let info = GeneratorInfo {
                model: "m".into(),
                size: None,
                place: crate::generate::Place::Scripted("here".into()),
                caveat: None,
            };
            Arc::new(Self {
                info,
                asked: AtomicUsize::new(0),
                identity: identity.into(),
                template: std::sync::Mutex::new("chatml".into()),
            })
        }
    }

    impl Generator for Counting {
        fn info(&self) -> &GeneratorInfo {
            &self.info
        }
        fn identity(&self) -> String {
            self.identity.clone()
        }
        fn request_version(&self, _: &ChatRequest) -> String {
            self.template.lock().unwrap().clone()
        }
        fn first_tokens(&self, _: &ChatRequest, top: usize, _: &dyn Progress) -> Result<Option<Vec<TokenChoice>>> {
            let n = self.asked.fetch_add(1, Ordering::SeqCst) + 1;
            Ok(Some(vec![TokenChoice { token: format!("first {n} of {top}"), logprob: -0.5 }]))
        }
        fn chat_with_tools(&self, _: &ChatRequest, tools: &[ToolSpec], _: &dyn Progress) -> Result<Option<ToolTurn>> {
            let n = self.asked.fetch_add(1, Ordering::SeqCst) + 1;
            let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
            Ok(Some(ToolTurn {
                text: format!("turn {n} with {}", names.join(",")),
                calls: Vec::new(),
                completion_tokens: 1,
                seconds: 0.1,
                stored: false,
            }))
        }
        fn chat(&self, request: &ChatRequest, sink: Sink<'_>, _: &dyn Progress) -> Result<Generated> {
            let n = self.asked.fetch_add(1, Ordering::SeqCst) + 1;
            let text = format!("reply {n} to {}", request.messages.last().map(|m| m.content.as_str()).unwrap_or(""));
            sink(&text);
            Ok(Generated {
                text,
                model: "m".into(),
                finish: Finish::Stop,
                prompt_tokens: 3,
                completion_tokens: 4,
                seconds: 1.5,
                constrained: None,
                stored: false,
                logprobs: Vec::new(),
            })
        }
    }

    /// A store in a fresh workspace, and "model-a" wrapped in it (with the counter of its requests).
    fn model_a_in_a_store() -> (tempfile::TempDir, Arc<ReplyStore>, Arc<Counting>, Arc<dyn Generator>) {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(ReplyStore::in_workspace(dir.path()).unwrap());
        let inner = Counting::new("model-a");
        let g = Stored::wrap(inner.clone(), &store);
        (dir, store, inner, g)
    }

    fn ask(g: &dyn Generator, question: &str, r: impl FnOnce(ChatRequest) -> ChatRequest) -> Generated {
        let mut shown = String::new();
        let request = r(ChatRequest::new(vec![Message::user(question)], 8));
        let got = g.chat(&request, &mut |p| shown.push_str(p), &crate::progress::NoProgress).unwrap();
        assert_eq!(shown, got.text, "the sink is given the reply, stored or not");
        got
    }

    #[test]
    fn a_request_asked_again_is_answered_from_the_store_and_anything_else_is_asked() {
        let (dir, store, inner, g) = model_a_in_a_store();
        let first = ask(g.as_ref(), "E140?", |r| r);
        assert_eq!((first.text.as_str(), first.stored), ("reply 1 to E140?", false));
        let again = ask(g.as_ref(), "E140?", |r| r);
        assert_eq!((again.text.as_str(), again.stored, again.seconds), ("reply 1 to E140?", true, 1.5));
        assert_eq!(inner.asked.load(Ordering::SeqCst), 1, "asked once");
        // Another question, another decoding, another shape, another model: each asked.
        ask(g.as_ref(), "E104?", |r| r);
        ask(g.as_ref(), "E140?", |mut r| {
            r.temperature = 0.7;
            r
        });
        ask(g.as_ref(), "E140?", |r| r.shaped(Shape::OneOf { words: vec!["yes".into(), "no".into()] }));
        assert_eq!(inner.asked.load(Ordering::SeqCst), 4);
        let other = Counting::new("model-b");
        let b = Stored::wrap(other.clone(), &store);
        assert!(!ask(b.as_ref(), "E140?", |r| r).stored, "another model's reply is not this one's");
        // Reopened (the app started again): still there; wrapping twice asks the store once.
        drop((g, b));
        let reopened = Arc::new(ReplyStore::in_workspace(dir.path()).unwrap());
        assert_eq!(reopened.len(), 5);
        let g = Stored::wrap(Stored::wrap(inner.clone(), &reopened), &reopened);
        assert!(ask(g.as_ref(), "E104?", |r| r).stored);
        assert_eq!(inner.asked.load(Ordering::SeqCst), 4);
    }

    #[test]
    fn a_changed_template_or_grammar_asks_again_and_an_unchanged_one_is_served_from_the_store() {
        let (_dir, _store, inner, g) = model_a_in_a_store();
        let yes_no = |r: ChatRequest| r.shaped(Shape::OneOf { words: vec!["yes".into(), "no".into()] });
        assert!(!ask(g.as_ref(), "E140?", yes_no).stored);
        assert!(ask(g.as_ref(), "E140?", yes_no).stored, "the same template and grammar: from the store");
        // An upgrade changes how the request is written out: asked again.
        *inner.template.lock().unwrap() = "chatml v2".into();
        assert!(!ask(g.as_ref(), "E140?", yes_no).stored);
        assert_eq!(inner.asked.load(Ordering::SeqCst), 2);
        // Back to the first: its reply is still there.
        *inner.template.lock().unwrap() = "chatml".into();
        assert!(ask(g.as_ref(), "E140?", yes_no).stored);
        // The grammar's version is the compiled grammar's: the same shape gives the same, a
        // shape that holds another reply another.
        let a = Shape::OneOf { words: vec!["yes".into(), "no".into()] };
        assert_eq!(a.version(), a.clone().version());
        assert_ne!(a.version(), Shape::OneOf { words: vec!["yes".into()] }.version());
        assert_ne!(Shape::Span { passage: "a b".into() }.version(), Shape::Span { passage: "a c".into() }.version());
        // A key covers the grammar: the same request under another grammar's version is another key.
        let r = yes_no(ChatRequest::new(vec![Message::user("x")], 8));
        let with = |grammar: &str| {
            let v = Versioned {
                request: &(&r, &()),
                key_version: KEY_VERSION,
                grammar: Some(grammar.into()),
                template: String::new(),
            };
            key("m", "chat", &v).unwrap()
        };
        assert_ne!(with(&a.version()), with("another grammar"));
    }

    #[test]
    fn first_tokens_and_tool_turns_are_kept_by_what_was_asked() {
        let (_dir, _store, inner, g) = model_a_in_a_store();
        let r = ChatRequest::new(vec![Message::user("Is it relevant?")], 1);
        let p = crate::progress::NoProgress;
        // The top 5, then the top 20: two questions; the top 5 again: from the store.
        let five = g.first_tokens(&r, 5, &p).unwrap().unwrap();
        let twenty = g.first_tokens(&r, 20, &p).unwrap().unwrap();
        assert_eq!((five[0].token.as_str(), twenty[0].token.as_str()), ("first 1 of 5", "first 2 of 20"));
        assert_eq!(g.first_tokens(&r, 5, &p).unwrap().unwrap(), five);
        assert_eq!(inner.asked.load(Ordering::SeqCst), 2);
        // Tools A, then tools B: two turns; A again: from the store, said so.
        let tool =
            |name: &str| ToolSpec { name: name.into(), description: "d".into(), parameters: serde_json::json!({}) };
        let a = g.chat_with_tools(&r, &[tool("bm25")], &p).unwrap().unwrap();
        let b = g.chat_with_tools(&r, &[tool("dense")], &p).unwrap().unwrap();
        assert_eq!((a.text.as_str(), b.text.as_str()), ("turn 3 with bm25", "turn 4 with dense"));
        let again = g.chat_with_tools(&r, &[tool("bm25")], &p).unwrap().unwrap();
        assert_eq!((again.text.as_str(), again.stored), ("turn 3 with bm25", true));
        assert!(!a.stored && !b.stored);
        assert_eq!(inner.asked.load(Ordering::SeqCst), 4);
    }

    #[test]
    fn keys_tell_apart_what_a_concatenation_would_not() {
        let r = ChatRequest::new(vec![Message::user("x")], 8);
        assert_ne!(key("ab", "c", &r).unwrap(), key("a", "bc", &r).unwrap());
        assert_eq!(key("a", "b", &r).unwrap(), key("a", "b", &r.clone()).unwrap());
        assert_eq!(key("a", "b", &r).unwrap().len(), 64);
    }

    #[test]
    fn a_store_that_cannot_be_opened_names_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("taken");
        std::fs::write(&file, "not a folder").unwrap();
        let e = ReplyStore::in_workspace(&file).err().map(|e| e.report()).unwrap_or_default();
        assert!(e.contains("taken"), "{e}");
    }
}
