//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

/// The shared evaluation collections: `$RANKLENS_DATA`, else the first `shared/data` found next to
/// the repository, one of its parent folders or the local working copy it was cloned from. A
/// missing folder fails the test with instructions rather than skipping it.
pub fn shared_data(name: &str) -> PathBuf {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let candidates: Vec<PathBuf> = match std::env::var_os("RANKLENS_DATA") {
        Some(dir) => vec![PathBuf::from(dir)],
        None => {
            // Next to the clone, or next to the working copy it was cloned from (a local origin).
            let origin = std::process::Command::new("git")
                .args(["-C", env!("CARGO_MANIFEST_DIR"), "config", "--get", "remote.origin.url"])
                .output()
                .ok()
                .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()))
                .filter(|p| p.is_absolute() && p.is_dir());
            let roots = std::iter::once(repo.clone()).chain(origin);
            roots.flat_map(|r| r.ancestors().map(|a| a.join("shared").join("data")).collect::<Vec<_>>()).collect()
        }
    };
    let found = candidates.iter().map(|base| base.join(name)).find(|dir| dir.join("corpus.jsonl").is_file());
    found.unwrap_or_else(|| {
        panic!(
            "{name} not found in any of {}: put the BEIR collections in ../shared/data or set RANKLENS_DATA",
            candidates.iter().map(|c| c.display().to_string()).collect::<Vec<_>>().join(", ")
        )
    })
}

/// Anserini's SciFact setting, BM25 `lucene` k1=0.9 b=0.4 with the default (`english`) analyzer:
/// the run over the 300 test queries (depth 1000), with the collection's judgements.
pub fn scifact_lucene_run() -> (ranklens::eval::Run, ranklens::eval::Qrels) {
    use ranklens::retrieve::{Bm25Params, Bm25Variant};
    let corpus = ranklens::corpus::load(&shared_data("scifact"), ranklens::corpus::LoadOptions::default()).unwrap();
    assert_eq!(corpus.len(), 5183);
    assert_eq!(corpus.queries.len(), 300);
    let qrels = corpus.qrels.clone().unwrap();
    let engine = ranklens::workbench::Workbench::new(corpus);
    let params = Bm25Params { k1: 0.9, b: 0.4, ..Bm25Variant::Lucene.default_params() };
    let spec = ranklens::workbench::SparseSpec::bm25(Bm25Variant::Lucene, params);
    let no_progress = ranklens::progress::NoProgress;
    let bm25 = engine.sparse(spec, ranklens::analysis::AnalyzerConfig::default(), &no_progress).unwrap();
    let run = engine.run_queries(bm25.as_ref(), &ranklens::config::Settings::default(), 1000, &no_progress).unwrap();
    (run, qrels)
}

/// The Python of the checker environment (pytrec_eval), made once by `scripts/venv.sh`.
pub fn checker_python() -> PathBuf {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = std::process::Command::new(root.join("scripts/venv.sh"))
        .arg(root.join("scripts/requirements-check.txt"))
        .output()
        .unwrap();
    assert!(out.status.success(), "creating the checker venv failed: {}", String::from_utf8_lossy(&out.stderr));
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
}

/// A comparison this machine could not make (a kernel its CPU lacks, or the f32 kernels forced),
/// written to `$RANKLENS_SKIPPED_LOG` when the test command sets it: `scripts/test.sh` prints the
/// list at the end, so a run that checked less says so.
#[allow(dead_code)]
pub fn skipped(what: &str) {
    use std::io::Write;
    if let Some(path) = std::env::var_os("RANKLENS_SKIPPED_LOG")
        && let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(path)
    {
        let _ = writeln!(f, "{what}");
    }
}

/// The numbers written as `[n]` (digits alone between brackets) in `text`, found by a scan of
/// their own: a citation reader must report at least these (a reader that finds nothing is wrong
/// whenever the text cites).
#[allow(dead_code)]
pub fn bracketed_numbers(text: &str) -> std::collections::BTreeSet<usize> {
    let mut out = std::collections::BTreeSet::new();
    for (i, piece) in text.split('[').enumerate() {
        if i == 0 {
            continue;
        }
        if let Some(end) = piece.find(']') {
            let inner = &piece[..end];
            if !inner.is_empty() && inner.len() <= 4 && inner.bytes().all(|b| b.is_ascii_digit()) {
                let n: usize = inner.parse().unwrap_or(0);
                if n > 0 {
                    out.insert(n);
                }
            }
        }
    }
    out
}

/// How many cases each property test runs: 1,000, or more when `RANKLENS_PROPTEST_CASES` asks
/// for more (a soak run). The knob never lowers it.
pub fn proptest_cases() -> u32 {
    std::env::var("RANKLENS_PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(1000).max(1000)
}

/// The bundled sample corpus.
pub fn sample(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample-corpus").join(name)
}

/// A tiny BERT checkpoint with seeded random weights, written in the real file layouts
/// (`config.json`, `tokenizer.json`, `model.safetensors`), for testing loaders without real models.
pub mod tiny_bert {
    use std::collections::HashMap;
    use std::path::Path;

    use candle_core::{Device, Tensor};

    pub const HIDDEN: usize = 16;
    pub const LAYERS: usize = 2;
    pub const INTERMEDIATE: usize = 32;

    /// The vocabulary: special tokens at BERT's usual places for [PAD], [unused0], [unused1].
    pub const VOCAB: &[&str] = &[
        "[PAD]",
        "[unused0]",
        "[unused1]",
        "[UNK]",
        "[CLS]",
        "[SEP]",
        "[MASK]",
        ".",
        ",",
        "?",
        "!",
        "the",
        "a",
        "cache",
        "cached",
        "results",
        "stay",
        "valid",
        "for",
        "15",
        "minutes",
        "how",
        "long",
        "before",
        "saved",
        "expire",
        "desktop",
        "app",
        "loads",
        "plugins",
        "at",
        "start",
        "sync",
        "token",
        "expired",
        "sign",
        "in",
        "again",
        "represent",
        "this",
        "sentence",
        "searching",
        "relevant",
        "passages",
        ":",
        "##s",
        "##ed",
        "error",
    ];

    /// A deterministic pseudo-random stream (SplitMix64).
    pub struct Rng(pub u64);

    impl Rng {
        pub fn next_f32(&mut self) -> f32 {
            self.0 = self.0.wrapping_add(0x9e3779b97f4a7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58476d1ce4e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d049bb133111eb);
            z ^= z >> 31;
            ((z >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 0.4
        }

        pub fn tensor(&mut self, shape: &[usize]) -> Tensor {
            let n: usize = shape.iter().product();
            let v: Vec<f32> = (0..n).map(|_| self.next_f32()).collect();
            Tensor::from_vec(v, shape, &Device::Cpu).unwrap()
        }
    }

    pub fn write_tokenizer(dir: &Path) {
        use tokenizers::models::wordpiece::WordPiece;
        let vocab_file = dir.join("vocab.txt");
        std::fs::write(&vocab_file, VOCAB.join("\n") + "\n").unwrap();
        let wp = WordPiece::from_file(&vocab_file.to_string_lossy()).unk_token("[UNK]".into()).build().unwrap();
        let mut t = tokenizers::Tokenizer::new(wp);
        let _ = t.with_normalizer(Some(tokenizers::normalizers::BertNormalizer::default()));
        t.with_pre_tokenizer(Some(tokenizers::pre_tokenizers::bert::BertPreTokenizer));
        t.with_post_processor(Some(tokenizers::processors::bert::BertProcessing::new(
            ("[SEP]".into(), 5),
            ("[CLS]".into(), 4),
        )));
        t.save(dir.join("tokenizer.json"), false).unwrap();
    }

    pub fn write_config(dir: &Path) {
        let config = serde_json::json!({
            "architectures": ["BertModel"], "model_type": "bert", "vocab_size": VOCAB.len(), "hidden_size": HIDDEN,
            "num_hidden_layers": LAYERS, "num_attention_heads": 2, "intermediate_size": INTERMEDIATE,
            "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1,
            "max_position_embeddings": 64, "type_vocab_size": 2, "initializer_range": 0.02,
            "layer_norm_eps": 1e-12, "pad_token_id": 0
        });
        std::fs::write(dir.join("config.json"), serde_json::to_string_pretty(&config).unwrap()).unwrap();
    }

    /// BERT tensors under `prefix` ("" or "bert."), plus `extra` named tensors.
    pub fn write_weights(dir: &Path, prefix: &str, extra: &[(&str, Vec<usize>)], seed: u64) {
        let mut rng = Rng(seed);
        let mut t: HashMap<String, Tensor> = HashMap::new();
        let h = HIDDEN;
        let mut add = |name: String, shape: &[usize], rng: &mut Rng| {
            t.insert(name, rng.tensor(shape));
        };
        add(format!("{prefix}embeddings.word_embeddings.weight"), &[VOCAB.len(), h], &mut rng);
        add(format!("{prefix}embeddings.position_embeddings.weight"), &[64, h], &mut rng);
        add(format!("{prefix}embeddings.token_type_embeddings.weight"), &[2, h], &mut rng);
        add(format!("{prefix}embeddings.LayerNorm.weight"), &[h], &mut rng);
        add(format!("{prefix}embeddings.LayerNorm.bias"), &[h], &mut rng);
        for l in 0..LAYERS {
            let p = format!("{prefix}encoder.layer.{l}.");
            for m in ["attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"] {
                add(format!("{p}{m}.weight"), &[h, h], &mut rng);
                add(format!("{p}{m}.bias"), &[h], &mut rng);
            }
            add(format!("{p}attention.output.LayerNorm.weight"), &[h], &mut rng);
            add(format!("{p}attention.output.LayerNorm.bias"), &[h], &mut rng);
            add(format!("{p}intermediate.dense.weight"), &[INTERMEDIATE, h], &mut rng);
            add(format!("{p}intermediate.dense.bias"), &[INTERMEDIATE], &mut rng);
            add(format!("{p}output.dense.weight"), &[h, INTERMEDIATE], &mut rng);
            add(format!("{p}output.dense.bias"), &[h], &mut rng);
            add(format!("{p}output.LayerNorm.weight"), &[h], &mut rng);
            add(format!("{p}output.LayerNorm.bias"), &[h], &mut rng);
        }
        for (name, shape) in extra {
            add(name.to_string(), shape, &mut rng);
        }
        candle_core::safetensors::save(&t, dir.join("model.safetensors")).unwrap();
    }

    /// A whole model folder.
    pub fn write_model(dir: &Path, prefix: &str, extra: &[(&str, Vec<usize>)], seed: u64) {
        std::fs::create_dir_all(dir).unwrap();
        write_tokenizer(dir);
        write_config(dir);
        write_weights(dir, prefix, extra, seed);
    }
}

/// A small HTTP server in the test process, standing in for a search engine.
pub mod http {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::net::{TcpListener, TcpStream};
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    /// A request as received: (method, path, headers, body).
    pub type Request = (String, String, String, String);

    /// A tiny HTTP server answering each request with `answer(method, path, body)`: (status, body,
    /// delay). It records the requests (method, path, headers, body).
    pub struct Server {
        pub url: String,
        pub requests: Arc<Mutex<Vec<Request>>>,
    }

    /// Read one request from `stream`: (method, path, headers, body).
    fn read_request(stream: &TcpStream) -> Request {
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut line = String::new();
        reader.read_line(&mut line).unwrap_or(0);
        let mut parts = line.split_whitespace();
        let (method, path) = (parts.next().unwrap_or("").to_string(), parts.next().unwrap_or("").to_string());
        let (mut headers, mut length) = (String::new(), 0usize);
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h).unwrap_or(0) == 0 || h.trim().is_empty() {
                break;
            }
            if let Some(v) = h.to_ascii_lowercase().strip_prefix("content-length:") {
                length = v.trim().parse().unwrap_or(0);
            }
            headers.push_str(&h);
        }
        let mut body = vec![0u8; length];
        let _ = reader.read_exact(&mut body);
        (method, path, headers, String::from_utf8_lossy(&body).into_owned())
    }

    /// A server that records each request and lets `reply` write whatever bytes it likes to the
    /// socket — a status line and headers of its own, slowly, or for ever.
    pub fn raw(reply: impl Fn(&Request, &mut TcpStream) + Send + Sync + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let log = requests.clone();
        let reply = Arc::new(reply);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let (log, reply) = (log.clone(), reply.clone());
                std::thread::spawn(move || {
                    let request = read_request(&stream);
                    log.lock().unwrap().push(request.clone());
                    reply(&request, &mut stream);
                });
            }
        });
        Server { url, requests }
    }

    pub fn serve(answer: impl Fn(&str, &str, &str) -> (u16, String, u64) + Send + Sync + 'static) -> Server {
        raw(move |(method, path, _, body), stream| {
            let (status, text, delay) = answer(method, path, body);
            std::thread::sleep(Duration::from_millis(delay));
            // An answer made of server-sent events goes out as a stream, as servers send them.
            let kind = if text.starts_with("data:") { "text/event-stream" } else { "application/json" };
            let reply = format!(
                "HTTP/1.1 {status} X\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
                text.len()
            );
            let _ = stream.write_all(reply.as_bytes());
        })
    }
}

/// A loopback chat-completions server scripted by the test: each request's JSON body goes to
/// `script`, which says what to answer. Non-streamed answers, OpenAI's documented shapes.
#[allow(dead_code)]
pub mod chat {
    use serde_json::{Value, json};

    /// What the scripted server answers.
    pub enum Reply {
        /// `choices[0].message.content`.
        Text(String),
        /// The first token's log-probabilities (`logprobs.content[0].top_logprobs`).
        Logprobs(Vec<(String, f64)>),
        /// An HTTP status with a body.
        Status(u16, String),
        /// A body as it is.
        Raw(String),
    }

    /// The request's messages' contents, concatenated (what a script usually reads).
    pub fn said(body: &Value) -> String {
        body["messages"]
            .as_array()
            .map_or(String::new(), |m| m.iter().filter_map(|x| x["content"].as_str()).collect::<Vec<_>>().join("\n"))
    }

    /// The last user message.
    pub fn last(body: &Value) -> String {
        body["messages"].as_array().and_then(|m| m.last()).and_then(|m| m["content"].as_str()).unwrap_or("").to_string()
    }

    /// A completion whose text is `content`.
    pub fn completion(content: &str) -> String {
        json!({"id": "c", "object": "chat.completion", "model": "scripted",
               "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
               "usage": {"prompt_tokens": 10, "completion_tokens": 3}})
        .to_string()
    }

    /// A completion that calls tools: (name, arguments as JSON text), with `tokens` written.
    pub fn tool_calls(calls: &[(&str, &str)], tokens: u64) -> String {
        let calls: Vec<Value> = calls
            .iter()
            .enumerate()
            .map(|(i, (name, args))| {
                json!({"id": format!("call_{i}"), "type": "function",
                                            "function": {"name": name, "arguments": args}})
            })
            .collect();
        json!({"id": "c", "object": "chat.completion", "model": "scripted",
               "choices": [{"index": 0, "message": {"role": "assistant", "content": null, "tool_calls": calls},
                            "finish_reason": "tool_calls"}],
               "usage": {"prompt_tokens": 10, "completion_tokens": tokens}})
        .to_string()
    }

    /// The contents of the request's tool messages (the results the model was shown), in order.
    pub fn tool_results(body: &Value) -> Vec<String> {
        body["messages"]
            .as_array()
            .map(|m| {
                m.iter()
                    .filter(|x| x["role"] == "tool")
                    .filter_map(|x| x["content"].as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Serve `script` on loopback.
    pub fn serve(script: impl Fn(&Value) -> Reply + Send + Sync + 'static) -> super::http::Server {
        super::http::serve(move |_, _, body| {
            let v: Value = serde_json::from_str(body).unwrap_or(Value::Null);
            match script(&v) {
                Reply::Text(t) => (200, completion(&t), 0),
                Reply::Logprobs(top) => {
                    let top: Vec<Value> = top.iter().map(|(t, p)| json!({"token": t, "logprob": p})).collect();
                    let first = top.first().cloned().unwrap_or(json!({"token": "", "logprob": 0.0}));
                    let body = json!({"id": "c", "object": "chat.completion", "model": "scripted",
                        "choices": [{"index": 0, "message": {"role": "assistant", "content": first["token"]},
                                     "logprobs": {"content": [{"token": first["token"], "logprob": first["logprob"], "top_logprobs": top}]},
                                     "finish_reason": "length"}]});
                    (200, body.to_string(), 0)
                }
                Reply::Status(s, b) => (s, b, 0),
                Reply::Raw(b) => (200, b, 0),
            }
        })
    }

    /// A client of `server`, plain (not streamed), as the methods use it.
    pub fn client(server: &super::http::Server) -> ranklens::generate::ChatServer {
        let mut c = ranklens::generate::ServerConfig::new(format!("{}/v1", server.url), "scripted-model");
        c.stream = false;
        c.timeout_secs = 10;
        ranklens::generate::ChatServer::new(c).unwrap()
    }

    /// How many passages a listwise request holds (its `I will provide you with N passages`).
    pub fn window_size(body: &Value) -> usize {
        let text = last(body);
        text.split("provide you with ")
            .nth(1)
            .and_then(|r| r.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    }

    /// The passages of a listwise request, as shown (`[i] text`), by number.
    pub fn window_passages(body: &Value) -> Vec<String> {
        let text = last(body);
        let n = window_size(body);
        (1..=n)
            .map(|i| {
                let start = format!("[{i}] ");
                text.split(&start).nth(1).map(|r| r.split("\n\n").next().unwrap_or("").to_string()).unwrap_or_default()
            })
            .collect()
    }
}

/// Runs the `ranklens` binary in `workspace` with `args`: its exit code, standard output read as
/// JSON (`Null` when it is not JSON) and standard error.
pub fn ranklens_json(workspace: &std::path::Path, args: &[&str]) -> (Option<i32>, serde_json::Value, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ranklens"))
        .env("RANKLENS_WORKSPACE", workspace)
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let json = serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    (out.status.code(), json, stderr)
}
