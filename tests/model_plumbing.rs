//! The loaders for models that cannot be downloaded here (bge, answerai-colbert, the
//! cross-encoder), tested on small seeded random weights saved in the real file layouts; and the
//! hub download path against a local HTTP server that serves the hub's layout.

mod common;

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use candle_core::{D, Device, IndexOp, Module, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use common::tiny_bert::{self, HIDDEN};
use ranklens::models::{
    ArchSettings, BertCrossEncoder, BertDenseEncoder, ColbertEncoder, ColbertSettings, HubSource, InputKind, Manifest,
    ModelFile, ModelManager, ModelSource, ModelSpec, PairScorer, Pooling, Role, TextEncoder, TokenEncoder,
};
use ranklens::progress::{NoProgress, Progress};

fn arch(pooling: Option<Pooling>, instruction: Option<&str>) -> ArchSettings {
    ArchSettings {
        pooling,
        normalize: true,
        max_length: 64,
        query_instruction: instruction.map(str::to_string),
        colbert: None,
        reader: None,
        precision: ranklens::models::Precision::F32,
    }
}

/// The reference forward pass: candle's BertModel run directly on the saved files.
fn reference_hidden(dir: &Path, prefix: &str, ids: &[u32], types: &[u32]) -> Tensor {
    let cfg: Config = serde_json::from_str(&std::fs::read_to_string(dir.join("config.json")).unwrap()).unwrap();
    let vb = VarBuilder::from_buffered_safetensors(
        std::fs::read(dir.join("model.safetensors")).unwrap(),
        candle_core::DType::F32,
        &Device::Cpu,
    )
    .unwrap();
    let vb = if prefix.is_empty() { vb } else { vb.pp(prefix.trim_end_matches('.')) };
    let model = BertModel::load(vb, &cfg).unwrap();
    let ids_t = Tensor::new(ids, &Device::Cpu).unwrap().unsqueeze(0).unwrap();
    let types_t = Tensor::new(types, &Device::Cpu).unwrap().unsqueeze(0).unwrap();
    model.forward(&ids_t, &types_t, None).unwrap().squeeze(0).unwrap()
}

fn tokenize(dir: &Path, text: &str) -> Vec<u32> {
    let t = tokenizers::Tokenizer::from_file(dir.join("tokenizer.json")).unwrap();
    t.encode(text, true).unwrap().get_ids().to_vec()
}

fn norm(v: &[f32]) -> f32 {
    v.iter().map(|x| x * x).sum::<f32>().sqrt()
}

#[test]
fn bge_layout_uses_cls_pooling_and_the_query_instruction() {
    let dir = tempfile::tempdir().unwrap();
    tiny_bert::write_model(dir.path(), "", &[], 11);
    let instruction = "Represent this sentence for searching relevant passages: ";
    let enc = BertDenseEncoder::load("bge-tiny", dir.path(), &arch(Some(Pooling::Cls), Some(instruction))).unwrap();
    assert_eq!(enc.dim(), HIDDEN);
    let text = "how long before saved results expire?";
    let doc = enc.encode(&[text], InputKind::Document).unwrap().remove(0);
    let query = enc.encode(&[text], InputKind::Query).unwrap().remove(0);
    assert!((norm(&doc) - 1.0).abs() < 1e-5 && (norm(&query) - 1.0).abs() < 1e-5);

    // CLS pooling: the document vector is the normalised first hidden state of the plain text...
    let ids = tokenize(dir.path(), text);
    let h = reference_hidden(dir.path(), "", &ids, &vec![0; ids.len()]);
    let cls: Vec<f32> = h.i(0).unwrap().to_vec1().unwrap();
    let n = norm(&cls);
    for (a, b) in doc.iter().zip(&cls) {
        assert!((a - b / n).abs() < 1e-5);
    }
    // ...and the query vector is that of the instruction followed by the text.
    let qids = tokenize(dir.path(), &format!("{instruction}{text}"));
    assert_eq!(&qids[1..6], &[38, 39, 40, 18, 41], "represent this sentence for searching");
    let qh = reference_hidden(dir.path(), "", &qids, &vec![0; qids.len()]);
    let qcls: Vec<f32> = qh.i(0).unwrap().to_vec1().unwrap();
    let qn = norm(&qcls);
    for (a, b) in query.iter().zip(&qcls) {
        assert!((a - b / qn).abs() < 1e-5);
    }
}

#[test]
fn mean_pooling_ignores_padding_in_a_batch() {
    let dir = tempfile::tempdir().unwrap();
    tiny_bert::write_model(dir.path(), "", &[], 12);
    let enc = BertDenseEncoder::load("mini-tiny", dir.path(), &arch(Some(Pooling::Mean), None)).unwrap();
    let short = "sync token";
    let batch =
        enc.encode(&[short, "the desktop app loads plugins at start, again and again"], InputKind::Document).unwrap();
    let ids = tokenize(dir.path(), short);
    let h = reference_hidden(dir.path(), "", &ids, &vec![0; ids.len()]);
    let mean: Vec<f32> = h.mean(0).unwrap().to_vec1().unwrap();
    let n = norm(&mean);
    for (a, b) in batch[0].iter().zip(&mean) {
        assert!((a - b / n).abs() < 1e-5, "padding changed the short text's vector");
    }
}

fn colbert_settings() -> ColbertSettings {
    ColbertSettings {
        query_marker: "[unused0]".into(),
        doc_marker: "[unused1]".into(),
        query_length: 12,
        doc_length: 10,
        projection_dim: 8,
        mask_punctuation: true,
    }
}

#[test]
fn colbert_layout_markers_query_padding_and_projection() {
    let dir = tempfile::tempdir().unwrap();
    tiny_bert::write_model(dir.path(), "bert.", &[("linear.weight", vec![8, HIDDEN])], 13);
    let mut a = arch(None, None);
    a.colbert = Some(colbert_settings());
    let enc = ColbertEncoder::load("colbert-tiny", dir.path(), &a).unwrap();
    assert!(enc.trained_late_interaction());

    let (ids, mask) = enc.input("sync token expired?", InputKind::Query).unwrap();
    assert_eq!(ids.len(), 12);
    assert_eq!(&ids[..2], &[4, 1], "[CLS] [Q]");
    assert_eq!(&ids[2..7], &[32, 33, 34, 9, 5], "sync token expired ? [SEP]");
    assert!(ids[7..].iter().all(|&i| i == 6), "padded with [MASK]");
    assert_eq!(mask, [1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0], "[MASK] padding is not attended to");

    let (dids, dmask) =
        enc.input("the cache, results stay valid for 15 minutes again and again", InputKind::Document).unwrap();
    assert_eq!(dids.len(), 10, "documents are cut at doc_length");
    assert_eq!((dids[0], dids[1], *dids.last().unwrap()), (4, 2, 5), "[CLS] [D] ... [SEP]");
    assert!(dmask.iter().all(|&m| m == 1));

    let q = enc.encode_tokens(&["sync token expired?"], InputKind::Query).unwrap().remove(0);
    assert_eq!((q.len(), q.dim), (12, 8), "one projected vector per query position, masks included");
    for i in 0..q.len() {
        assert!((norm(q.row(i)) - 1.0).abs() < 1e-5);
    }
    let d = enc.encode_tokens(&["the cache, results."], InputKind::Document).unwrap().remove(0);
    assert!(!d.tokens.iter().any(|t| t == "," || t == "."), "punctuation is dropped from documents: {:?}", d.tokens);
    assert_eq!(d.tokens[..2], ["[CLS]".to_string(), "[unused1]".to_string()]);
}

#[test]
fn colbert_projection_matches_a_hand_computation() {
    let dir = tempfile::tempdir().unwrap();
    tiny_bert::write_model(dir.path(), "bert.", &[("linear.weight", vec![8, HIDDEN])], 14);
    let mut a = arch(None, None);
    a.colbert = Some(colbert_settings());
    let enc = ColbertEncoder::load("colbert-tiny", dir.path(), &a).unwrap();
    let text = "cache results";
    let (ids, _) = enc.input(text, InputKind::Document).unwrap();
    let h = reference_hidden(dir.path(), "bert.", &ids, &vec![0; ids.len()]);
    let vb = VarBuilder::from_buffered_safetensors(
        std::fs::read(dir.path().join("model.safetensors")).unwrap(),
        candle_core::DType::F32,
        &Device::Cpu,
    )
    .unwrap();
    let w = vb.get((8, HIDDEN), "linear.weight").unwrap();
    let projected = h.matmul(&w.t().unwrap()).unwrap();
    let d = enc.encode_tokens(&[text], InputKind::Document).unwrap().remove(0);
    for (row, &pos) in d.positions.iter().enumerate() {
        let p: Vec<f32> = projected.i(pos).unwrap().to_vec1().unwrap();
        let n = norm(&p);
        for (a, b) in d.row(row).iter().zip(&p) {
            assert!((a - b / n).abs() < 1e-5);
        }
    }
}

#[test]
fn cross_encoder_layout_pooler_and_classifier() {
    let dir = tempfile::tempdir().unwrap();
    let extra = [
        ("bert.pooler.dense.weight", vec![HIDDEN, HIDDEN]),
        ("bert.pooler.dense.bias", vec![HIDDEN]),
        ("classifier.weight", vec![1, HIDDEN]),
        ("classifier.bias", vec![1]),
    ];
    tiny_bert::write_model(dir.path(), "bert.", &extra, 15);
    let ce = BertCrossEncoder::load("ce-tiny", dir.path(), &arch(None, None)).unwrap();
    let docs = ["cached results stay valid for 15 minutes", "the desktop app loads plugins", "sync token expired"];
    let scores = ce.score("how long before saved results expire?", &docs).unwrap();
    assert_eq!(scores.len(), 3);

    // By hand: [CLS] q [SEP] d [SEP] with segment ids 0 then 1 → tanh(pooler(h[0])) → classifier.
    let t = tokenizers::Tokenizer::from_file(dir.path().join("tokenizer.json")).unwrap();
    let enc = t.encode(("how long before saved results expire?", docs[1]), true).unwrap();
    let types = enc.get_type_ids().to_vec();
    let first_sep = enc.get_ids().iter().position(|&i| i == 5).unwrap();
    assert!(types[..=first_sep].iter().all(|&x| x == 0) && types[first_sep + 1..].iter().all(|&x| x == 1));
    let h = reference_hidden(dir.path(), "bert.", enc.get_ids(), &types);
    let vb = VarBuilder::from_buffered_safetensors(
        std::fs::read(dir.path().join("model.safetensors")).unwrap(),
        candle_core::DType::F32,
        &Device::Cpu,
    )
    .unwrap();
    let pooler = candle_nn::linear(HIDDEN, HIDDEN, vb.pp("bert.pooler.dense")).unwrap();
    let classifier = candle_nn::linear(HIDDEN, 1, vb.pp("classifier")).unwrap();
    let pooled = pooler.forward(&h.i(0..1).unwrap()).unwrap().tanh().unwrap();
    let logit: f32 = classifier.forward(&pooled).unwrap().squeeze(D::Minus1).unwrap().to_vec1::<f32>().unwrap()[0];
    assert!((scores[1] - logit).abs() < 1e-5, "{} vs {logit}", scores[1]);
}

/// A minimal HTTP server for the hub's `/{repo}/resolve/{revision}/{file}` layout.
struct Hub {
    url: String,
    requests: Arc<AtomicUsize>,
}

fn serve(files: HashMap<String, Vec<u8>>) -> Hub {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let requests = Arc::new(AtomicUsize::new(0));
    let counter = requests.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut line = String::new();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            if reader.read_line(&mut line).is_err() {
                continue;
            }
            loop {
                let mut h = String::new();
                if reader.read_line(&mut h).is_err() || h == "\r\n" || h.is_empty() {
                    break;
                }
            }
            counter.fetch_add(1, Ordering::SeqCst);
            let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
            match files.get(&path) {
                Some(body) => {
                    let _ = write!(
                        stream,
                        "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                        body.len()
                    );
                    let _ = stream.write_all(body);
                }
                None => {
                    let _ = write!(stream, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
                }
            }
        }
    });
    Hub { url, requests }
}

fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(bytes))
}

fn test_model(dir: &Path, revision: &str) -> (ModelSpec, HashMap<String, Vec<u8>>) {
    tiny_bert::write_model(dir, "", &[], 21);
    let mut files = Vec::new();
    let mut served = HashMap::new();
    for name in ["config.json", "tokenizer.json", "model.safetensors"] {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        files.push(ModelFile { path: name.into(), sha256: Some(sha256(&bytes)), size: None });
        served.insert(format!("/acme/tiny-dense/resolve/{revision}/{name}"), bytes);
    }
    let spec = ModelSpec {
        id: "acme/tiny-dense".into(),
        role: Role::Dense,
        note: String::new(),
        arch: arch(Some(Pooling::Mean), None),
        files,
        hub: Some(HubSource { repo: "acme/tiny-dense".into(), revision: revision.into() }),
        pip: None,
        parts: None,
        on_request: false,
        license: None,
        speed: None,
    };
    (spec, served)
}

fn manager(spec: &ModelSpec, cache: PathBuf, hub: &Hub) -> ModelManager {
    ModelManager::from_env()
        .with_manifest(Manifest { format: 1, models: vec![spec.clone()] })
        .with_cache_dir(cache)
        .with_hf_cache(None)
        .with_hub_endpoint(hub.url.clone())
        .offline(false)
}

#[test]
fn hub_download_verifies_installs_atomically_and_is_not_repeated() {
    let src = tempfile::tempdir().unwrap();
    let (spec, served) = test_model(src.path(), "abc123");
    let hub = serve(served);
    let cache = tempfile::tempdir().unwrap();
    let m = manager(&spec, cache.path().to_path_buf(), &hub);

    let resolved = m.resolve(Role::Dense, true, &NoProgress).unwrap();
    assert_eq!(resolved.source, ModelSource::Hub);
    assert_eq!(hub.requests.load(Ordering::SeqCst), 3);
    assert_eq!(resolved.hashes["model.safetensors"], spec.files[2].sha256.clone().unwrap());
    let enc = BertDenseEncoder::load(&spec.id, &resolved.dir, &spec.arch).unwrap();
    assert_eq!(enc.encode(&["sync token"], InputKind::Query).unwrap()[0].len(), HIDDEN);

    // Verified once, never downloaded again.
    let again = m.resolve(Role::Dense, true, &NoProgress).unwrap();
    assert_eq!(again.source, ModelSource::Cache);
    assert_eq!(hub.requests.load(Ordering::SeqCst), 3);
    let leftovers: Vec<_> =
        std::fs::read_dir(cache.path()).unwrap().filter_map(|e| e.ok()).map(|e| e.file_name()).collect();
    assert!(leftovers.iter().all(|n| !n.to_string_lossy().starts_with(".staging")), "{leftovers:?}");
}

#[test]
fn a_tampered_file_is_refused_and_nothing_is_installed() {
    let src = tempfile::tempdir().unwrap();
    let (spec, mut served) = test_model(src.path(), "main");
    let key = "/acme/tiny-dense/resolve/main/model.safetensors".to_string();
    let mut bytes = served[&key].clone();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    served.insert(key, bytes);
    let hub = serve(served);
    let cache = tempfile::tempdir().unwrap();
    let err = manager(&spec, cache.path().to_path_buf(), &hub).resolve(Role::Dense, true, &NoProgress).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("does not match the expected"), "{msg}");
    assert!(msg.contains("ranklens models fetch --role dense"), "the error says how to fix it: {msg}");
    assert!(!cache.path().join("acme--tiny-dense").exists());
}

struct CancelAfterFirstChunk(AtomicBool);

impl Progress for CancelAfterFirstChunk {
    fn stage(&self, _: &str, _: u64) {}
    fn advance(&self, _: u64) {
        self.0.store(true, Ordering::SeqCst);
    }
    fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

#[test]
fn cancelling_a_download_leaves_no_partial_model_and_offline_never_connects() {
    let src = tempfile::tempdir().unwrap();
    let (spec, served) = test_model(src.path(), "main");
    let hub = serve(served);
    let cache = tempfile::tempdir().unwrap();
    let m = manager(&spec, cache.path().to_path_buf(), &hub);
    let err = m.fetch(&spec, &CancelAfterFirstChunk(AtomicBool::new(false))).unwrap_err();
    assert!(matches!(err, ranklens::Error::Cancelled), "{err}");
    assert!(std::fs::read_dir(cache.path()).unwrap().next().is_none(), "nothing left behind");

    let before = hub.requests.load(Ordering::SeqCst);
    let offline = m.clone().offline(true);
    let err = offline.resolve(Role::Dense, true, &NoProgress).unwrap_err().to_string();
    assert!(err.contains("offline"), "{err}");
    assert_eq!(hub.requests.load(Ordering::SeqCst), before);
}

#[test]
fn an_explicit_folder_wins_and_a_hugging_face_snapshot_is_accepted_as_is() {
    let src = tempfile::tempdir().unwrap();
    let (spec, _) = test_model(src.path(), "main");
    let hf = tempfile::tempdir().unwrap();
    let snapshot = hf.path().join("models--acme--tiny-dense").join("snapshots").join("main");
    tiny_bert::write_model(&snapshot, "", &[], 21);
    let cache = tempfile::tempdir().unwrap();
    let hub = serve(HashMap::new());
    let m = manager(&spec, cache.path().to_path_buf(), &hub).with_hf_cache(Some(hf.path().to_path_buf()));
    let found = m.resolve(Role::Dense, false, &NoProgress).unwrap();
    assert_eq!(found.source, ModelSource::HfSnapshot);
    assert_eq!(found.dir, snapshot);
    let explicit =
        m.with_explicit(Role::Dense, src.path().to_path_buf()).resolve(Role::Dense, false, &NoProgress).unwrap();
    assert_eq!(explicit.source, ModelSource::Explicit);
    assert_eq!(hub.requests.load(Ordering::SeqCst), 0);
}

#[test]
fn a_cached_file_damaged_after_download_is_never_loaded_but_fetched_again_or_reported() {
    let src = tempfile::tempdir().unwrap();
    let (spec, served) = test_model(src.path(), "main");
    let hub = serve(served);
    let cache = tempfile::tempdir().unwrap();
    let m = manager(&spec, cache.path().to_path_buf(), &hub);
    let first = m.resolve(Role::Dense, true, &NoProgress).unwrap();
    let weights = first.dir.join("model.safetensors");
    let good = std::fs::read(&weights).unwrap();

    // One bit flipped in place: same size, different hash.
    let mut flipped = good.clone();
    flipped[good.len() / 2] ^= 0x01;
    std::fs::write(&weights, &flipped).unwrap();
    let offline = m.clone().offline(true);
    let err = offline.resolve(Role::Dense, true, &NoProgress).unwrap_err().to_string();
    assert!(err.contains("model.safetensors: sha256") && err.contains("changed or damaged"), "{err}");
    let requests = hub.requests.load(Ordering::SeqCst);
    let again = m.resolve(Role::Dense, true, &NoProgress).unwrap();
    assert_eq!(again.source, ModelSource::Hub, "fetched again");
    assert_eq!(hub.requests.load(Ordering::SeqCst), requests + 3);
    assert_eq!(std::fs::read(&weights).unwrap(), good);

    // Truncated: named with both sizes.
    std::fs::write(&weights, &good[..good.len() / 3]).unwrap();
    let err = offline.resolve(Role::Dense, true, &NoProgress).unwrap_err().to_string();
    assert!(err.contains(&format!("{} bytes where {} were verified", good.len() / 3, good.len())), "{err}");
    assert_eq!(m.resolve(Role::Dense, true, &NoProgress).unwrap().source, ModelSource::Hub);
    assert_eq!(std::fs::read(&weights).unwrap(), good);
}
