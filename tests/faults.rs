//! Faults of the workspace, met as a user meets them: the process killed while it encodes, a disk
//! that fills up while a report or an index is written. Nothing already made is lost, and no half
//! file is left under the name asked for.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use ranklens::models::ModelManager;
use ranklens::progress::NoProgress;

fn ranklens(workspace: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ranklens"));
    c.env("RANKLENS_WORKSPACE", workspace).stdin(Stdio::null());
    c
}

/// Rows of the encoding cache, read as another program would (the writer may be running).
fn stored_encodings(db: &Path) -> usize {
    if !db.is_file() {
        return 0;
    }
    let Ok(conn) = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY) else {
        return 0;
    };
    conn.query_row("SELECT COUNT(*) FROM encodings", [], |r| r.get::<_, i64>(0)).map_or(0, |n| n as usize)
}

/// `n` distinct short passages as JSON Lines.
fn passages(n: usize) -> String {
    let topics = ["sync tokens", "offline caches", "plugin loading", "encryption keys", "conflict copies"];
    (0..n)
        .map(|i| {
            format!(
                "{{\"_id\":\"p{i}\",\"title\":\"Note {i}\",\"text\":\"Note number {i} explains {} for release {}.\"}}\n",
                topics[i % topics.len()],
                i / 7
            )
        })
        .collect()
}

#[test]
fn a_process_killed_while_encoding_resumes_from_the_encodings_it_stored() {
    let manager = ModelManager::from_env();
    let spec = manager.manifest().get("sentence-transformers/all-MiniLM-L6-v2").unwrap().clone();
    manager.fetch(&spec, &NoProgress).unwrap();

    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("notes.jsonl");
    let total = 1500;
    std::fs::write(&corpus, passages(total)).unwrap();
    let ws = dir.path().join("ws");
    let db = ws.join("encodings.sqlite");
    // f32: the id the messages name is then the same on every CPU (bf16 would add `@bf16` where it runs).
    let args = [
        "search",
        "--corpus",
        corpus.to_str().unwrap(),
        "--method",
        "dense",
        "--offline",
        "-k",
        "3",
        "--precision",
        "f32",
    ];

    // Kill it (SIGKILL: no clean-up runs) once some steps are stored and well before the end.
    let mut child = ranklens(&ws).args(args).arg("sync").stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(600);
    while stored_encodings(&db) < 64 {
        assert!(child.try_wait().unwrap().is_none(), "finished before it could be killed");
        assert!(Instant::now() < deadline, "nothing stored after 10 minutes");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let kept = stored_encodings(&db);
    assert!((64..total).contains(&kept), "{kept} of {total} stored when killed");
    let conn = rusqlite::Connection::open(&db).unwrap();
    let check: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
    assert_eq!(check, "ok");
    drop(conn);

    // The next start says what it found and encodes only the rest.
    let out = ranklens(&ws).args(args).arg("sync").output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let after_kill = stored_encodings(&db);
    assert_eq!(after_kill, total);
    let said = format!("encoding with sentence-transformers/all-MiniLM-L6-v2 ({} of {total} already stored)", kept);
    // The killed run may have committed one more step between the count above and the kill.
    let resumed = err.lines().find(|l| l.contains("already stored")).unwrap_or_default().to_string();
    let n: usize = resumed
        .split('(')
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no resume line in {err}; expected like {said}"));
    assert!(n >= kept && n < total, "{resumed}");

    // And a third start encodes nothing.
    let out = ranklens(&ws).args(args).arg("sync").output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("encoding with sentence-transformers/all-MiniLM-L6-v2 (all stored)"), "{err}");
}

/// Run `ranklens` under a file-size limit, as a full disk behaves for the writes it makes: each
/// write past `blocks` × 1 KiB fails with "File too large" (SIGXFSZ is ignored, so it is an error
/// the program sees, not a signal that kills it).
fn with_full_disk(ws: &Path, blocks: u32, args: &[&str]) -> std::process::Output {
    let mut script = format!("trap '' XFSZ; ulimit -f {blocks}; exec '{}'", env!("CARGO_BIN_EXE_ranklens"));
    for a in args {
        script.push_str(&format!(" '{a}'"));
    }
    Command::new("sh").arg("-c").arg(script).env("RANKLENS_WORKSPACE", ws).stdin(Stdio::null()).output().unwrap()
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

#[test]
fn a_full_disk_while_writing_a_report_keeps_the_old_report_and_leaves_no_half_file() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let out_dir = dir.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let report = out_dir.join("report.html");
    let args = ["report", "--offline", "--out", report.to_str().unwrap(), "What is E140?"];
    // A first run sets up the workspace (the sample's table, its indexes).
    let out = ranklens(&ws).args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    std::fs::write(&report, "the report from yesterday").unwrap();

    let out = with_full_disk(&ws, 24, &args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(&report.display().to_string()) && err.contains("File too large"), "{err}");
    assert_eq!(err.matches("File too large").count(), 1, "said once: {err}");
    assert_eq!(std::fs::read_to_string(&report).unwrap(), "the report from yesterday");
    assert_eq!(names(&out_dir), ["report.html"], "no temporary file left");

    // With room, the same command replaces it with a whole report.
    let out = ranklens(&ws).args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>") && html.trim_end().ends_with("</html>"), "{}", &html[..80]);
    assert_eq!(names(&out_dir), ["report.html"]);
}

#[test]
fn a_full_disk_or_a_kill_while_indexing_leaves_no_half_index() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let corpus = dir.path().join("notes.jsonl");
    std::fs::write(&corpus, passages(3000)).unwrap();
    let index = dir.path().join("notes-index");
    let args = ["index", "--corpus", corpus.to_str().unwrap(), "--out", index.to_str().unwrap()];

    let out = with_full_disk(&ws, 64, &args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(&format!("index: writing {}", index.display())) && err.contains("File too large"), "{err}");
    assert!(!index.exists(), "a half index under the final name");
    assert_eq!(names(dir.path()), ["notes.jsonl"], "the staging folder is removed");

    // With room it is built, and opens.
    let out = ranklens(&ws).args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let out =
        ranklens(&ws).args(["search", "--corpus", index.to_str().unwrap(), "-k", "1", "release 12"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    // Asked again, the existing index is kept and the error says so.
    let out = ranklens(&ws).args(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(err.contains("an index already exists here"), "{err}");
}

#[test]
fn a_workspace_index_left_half_written_is_rebuilt_not_fatal() {
    use ranklens::analysis::AnalyzerConfig;
    use ranklens::workbench::{SparseSpec, Workbench};
    // A large corpus is indexed on disk in the workspace (here anything over 1,000 bytes). A folder under the index's name that
    // holds only what tantivy writes first (an older RankLens killed while indexing) must not
    // stop the corpus from opening.
    let dir = tempfile::tempdir().unwrap();
    let corpus_path = dir.path().join("notes.jsonl");
    std::fs::write(&corpus_path, passages(500)).unwrap();
    let corpus = ranklens::corpus::load(&corpus_path, Default::default()).unwrap();
    let ws = dir.path().join("ws");
    let engine = Workbench::new(corpus.clone()).with_workspace(ws.clone()).with_on_disk_above(1000);
    let spec = SparseSpec::bm25(
        ranklens::retrieve::Bm25Variant::Lucene,
        ranklens::retrieve::Bm25Variant::Lucene.default_params(),
    );
    engine.sparse(spec, AnalyzerConfig::default(), &NoProgress).unwrap();
    let indexes = ws.join("indexes");
    let [stored] = names(&indexes).try_into().unwrap_or_else(|n: Vec<String>| panic!("{n:?}"));
    let stored = indexes.join(stored);
    assert!(ranklens::index::SparseIndex::is_stored(&stored));
    // Half written: tantivy's meta.json and a segment file, no RankLens description.
    std::fs::remove_file(stored.join("ranklens-index.json")).unwrap();

    let again = Workbench::new(corpus).with_workspace(ws).with_on_disk_above(1000);
    let bm25 = again.sparse(spec, AnalyzerConfig::default(), &NoProgress).unwrap();
    let hits = bm25.prepare(&ranklens::retrieve::QueryContext::new("release 12")).unwrap().search(1).unwrap();
    assert_eq!(hits.hits.len(), 1);
    assert!(ranklens::index::SparseIndex::is_stored(&stored), "rebuilt in place");
}
