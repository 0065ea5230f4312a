//! Test collections by name (`ranklens data fetch`), against a loopback server: a good zip is
//! unpacked into the data folder and then found by name; a wrong md5, a download cut short, a
//! missing file and a zip whose entries would land outside the folder each fail with what to do,
//! and leave nothing behind.

mod common;

use std::io::Write;

use md5::{Digest, Md5};
use ranklens::datasets::{Fetcher, resolve};
use ranklens::progress::NoProgress;

fn zip(entries: &[(&str, &str)]) -> Vec<u8> {
    let mut z = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, content) in entries {
        z.start_file(*name, zip::write::SimpleFileOptions::default()).unwrap();
        z.write_all(content.as_bytes()).unwrap();
    }
    z.finish().unwrap().into_inner()
}

fn scifact_zip() -> Vec<u8> {
    zip(&[
        ("scifact/corpus.jsonl", "{\"_id\": \"d1\", \"title\": \"T\", \"text\": \"aspirin lowers fever\"}\n"),
        ("scifact/queries.jsonl", "{\"_id\": \"q1\", \"text\": \"does aspirin lower fever\"}\n"),
        ("scifact/qrels/test.tsv", "query-id\tcorpus-id\tscore\nq1\td1\t1\n"),
    ])
}

fn md5(bytes: &[u8]) -> String {
    hex::encode(Md5::digest(bytes))
}

/// Serves `/scifact.zip` as `body`, claiming `length` bytes.
fn serve(body: Vec<u8>, length: usize, status: u16) -> common::http::Server {
    common::http::raw(move |_, stream| {
        let head = format!(
            "HTTP/1.1 {status} X\r\nContent-Type: application/zip\r\nContent-Length: {length}\r\nConnection: close\r\n\r\n"
        );
        let _ = stream.write_all(head.as_bytes());
        let _ = stream.write_all(&body);
    })
}

/// What a failed fetch left in the data folder (nothing, as it should be).
fn left(data: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(data)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned())).collect())
        .unwrap_or_default()
}

#[test]
fn a_good_zip_is_unpacked_and_found_by_name() {
    let body = scifact_zip();
    let server = serve(body.clone(), body.len(), 200);
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let fetcher = Fetcher::new(data.clone()).with_base_url(&server.url).with_pin("scifact", &md5(&body));
    let got = fetcher.fetch("scifact", &NoProgress).unwrap();
    assert_eq!(got, data.join("scifact"));
    assert_eq!(std::fs::read_to_string(got.join("qrels/test.tsv")).unwrap(), "query-id\tcorpus-id\tscore\nq1\td1\t1\n");
    assert_eq!(left(&data), ["scifact"], "no zip or staging folder left");
    assert_eq!(resolve("scifact", &data).unwrap(), got);
    // Here already: not downloaded again.
    fetcher.fetch("scifact", &NoProgress).unwrap();
    assert_eq!(server.requests.lock().unwrap().len(), 1);
    assert_eq!(server.requests.lock().unwrap()[0].1, "/scifact.zip");
    // The published md5 refuses these bytes.
    let fresh = tempfile::tempdir().unwrap();
    let e = Fetcher::new(fresh.path().to_path_buf()).with_base_url(&server.url).fetch("scifact", &NoProgress);
    let e = e.unwrap_err().report();
    assert!(e.contains("5f7d1de60b170fc8027bb7898e2efca1") && e.contains(&md5(&body)), "{e}");
    assert!(left(fresh.path()).is_empty(), "{:?}", left(fresh.path()));
}

#[test]
fn a_download_cut_short_a_missing_file_and_a_wrong_md5_leave_nothing_and_say_what_to_do() {
    let body = scifact_zip();
    // Cut short: the server claims more than it sends.
    let short = serve(body[..body.len() / 2].to_vec(), body.len(), 200);
    let missing = serve(b"not found".to_vec(), 9, 404);
    for (server, why) in [(&short, "bytes arrived"), (&missing, "HTTP 404")] {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        let e = Fetcher::new(data.clone())
            .with_base_url(&server.url)
            .with_pin("scifact", &md5(&body))
            .fetch("scifact", &NoProgress);
        let e = e.unwrap_err().report();
        let url = format!("{}/scifact.zip", server.url);
        assert!(e.contains(why) || e.contains("broke off"), "{e}");
        assert!(e.contains(&url) && e.contains(&format!("unzip it into {}", data.display())), "{e}");
        assert!(left(&data).is_empty(), "nothing half-written: {:?}", left(&data));
    }
}

#[test]
fn a_zip_whose_entries_would_land_outside_the_folder_is_refused_whole() {
    for evil in ["../escaped.txt", "/tmp/ranklens-absolute-escape.txt", "scifact/../../escaped.txt"] {
        let body = zip(&[("scifact/corpus.jsonl", "{}\n"), (evil, "gotcha")]);
        let server = serve(body.clone(), body.len(), 200);
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("inner").join("data");
        let e = Fetcher::new(data.clone())
            .with_base_url(&server.url)
            .with_pin("scifact", &md5(&body))
            .fetch("scifact", &NoProgress);
        let e = e.unwrap_err().report();
        assert!(e.contains("would land outside the folder") && e.contains(evil), "{e}");
        assert!(left(&data).is_empty(), "{:?}", left(&data));
        assert!(!dir.path().join("inner").join("escaped.txt").exists() && !dir.path().join("escaped.txt").exists());
        assert!(!std::path::Path::new("/tmp/ranklens-absolute-escape.txt").exists());
    }
}

#[test]
fn a_fetched_collections_name_works_wherever_a_dataset_is_asked_for() {
    // The shared SciFact stands in for a fetched one: the workspace's data/scifact points at it.
    let ws = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(ws.path().join("data")).unwrap();
    std::os::unix::fs::symlink(common::shared_data("scifact"), ws.path().join("data").join("scifact")).unwrap();
    let run = |dataset: &str| -> serde_json::Value {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_ranklens"))
            .args([
                "eval",
                "--dataset",
                dataset,
                "--method",
                "bm25",
                "--variant",
                "lucene",
                "--k1",
                "0.9",
                "--b",
                "0.4",
            ])
            .args(["--format", "json"])
            .env("RANKLENS_WORKSPACE", ws.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let by_name = run("scifact");
    let by_path = run(&common::shared_data("scifact").display().to_string());
    let ndcg = |v: &serde_json::Value| v["methods"][0]["summary"]["mean"]["nDCG@10"].as_f64().unwrap();
    assert_eq!(ndcg(&by_name), ndcg(&by_path));
    // Anserini's published BM25 (k1 0.9, b 0.4) on SciFact: 0.6789 (README's figures).
    assert!((ndcg(&by_name) - 0.6789).abs() < 5e-5, "{}", ndcg(&by_name));
    // A collection not fetched says how to fetch it.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ranklens"))
        .args(["eval", "--dataset", "nfcorpus"])
        .env("RANKLENS_WORKSPACE", ws.path())
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && e.contains("ranklens data fetch nfcorpus"), "{e}");
}

/// Serves every path as `body` (a question set's file under any name).
fn serve_file(body: Vec<u8>) -> common::http::Server {
    serve(body.clone(), body.len(), 200)
}

#[test]
fn a_question_set_is_fetched_checked_whole_and_found_by_name() {
    let squad = r#"{"version": "1.1", "data": [{"title": "Mozart", "paragraphs": [{"context": "Mozart was born in Salzburg.", "qas": [{"id": "q1", "question": "Where was Mozart born?", "answers": [{"text": "Salzburg", "answer_start": 19}]}]}]}]}"#;
    let server = serve_file(squad.as_bytes().to_vec());
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let fetcher = Fetcher::new(data.clone()).with_base_url(&server.url).with_pin("squad-dev", &md5(squad.as_bytes()));
    let got = fetcher.fetch("squad-dev", &NoProgress).unwrap();
    assert_eq!(got, data.join("squad-dev").join("dev-v1.1.json"));
    assert_eq!(server.requests.lock().unwrap()[0].1, "/dev-v1.1.json", "the published file's name");
    assert_eq!(resolve("squad-dev", &data).unwrap(), got);
    assert_eq!(left(&data), ["squad-dev"], "no part or staging folder left");
    // It opens as a whole collection: its paragraph, its question, its answer.
    let c = ranklens::corpus::load(&got, ranklens::corpus::LoadOptions::default()).unwrap();
    assert_eq!((c.len(), c.queries.len()), (1, 1));
    assert_eq!(c.answers.unwrap().gold["q1"].answers, ["Salzburg"]);
    // A file whose answer offsets are wrong is refused after the download and leaves nothing.
    let bad = squad.replace("\"answer_start\": 19", "\"answer_start\": 18");
    let server = serve_file(bad.clone().into_bytes());
    let fresh = tempfile::tempdir().unwrap();
    let e = Fetcher::new(fresh.path().to_path_buf()).with_base_url(&server.url).fetch("squad-dev", &NoProgress);
    let e = e.unwrap_err().report();
    assert!(e.contains("does not match") && e.contains("q1"), "{e}");
    assert!(left(fresh.path()).is_empty(), "{:?}", left(fresh.path()));
    // A pinned md5 refuses other bytes, naming both.
    let e = Fetcher::new(fresh.path().to_path_buf())
        .with_base_url(&server.url)
        .with_pin("squad-dev", &md5(squad.as_bytes()))
        .fetch("squad-dev", &NoProgress)
        .unwrap_err()
        .report();
    assert!(e.contains(&md5(squad.as_bytes())) && e.contains(&md5(bad.as_bytes())), "{e}");
    assert!(left(fresh.path()).is_empty());
}

#[test]
fn a_gzipped_dpr_answers_file_is_unzipped_and_read() {
    let text = "who wrote the magic flute\t['Mozart', \"Wolfgang Amadeus Mozart\"]\nwhen\t['1791']\n";
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(text.as_bytes()).unwrap();
    let body = gz.finish().unwrap();
    let server = serve_file(body);
    let dir = tempfile::tempdir().unwrap();
    let got =
        Fetcher::new(dir.path().to_path_buf()).with_base_url(&server.url).fetch("trivia-test", &NoProgress).unwrap();
    assert_eq!(server.requests.lock().unwrap()[0].1, "/trivia-test.qa.csv.gz");
    assert_eq!(std::fs::read_to_string(&got).unwrap(), text);
    let mut report = ranklens::corpus::LoadReport::default();
    let set = ranklens::corpus::load_answers(&got, &mut report).unwrap();
    assert_eq!(set.gold["q1"].answers, ["Mozart", "Wolfgang Amadeus Mozart"]);
}

fn ranklens(workspace: &std::path::Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_ranklens"))
        .args(args)
        .env("RANKLENS_WORKSPACE", workspace)
        .output()
        .unwrap()
}

#[test]
fn data_list_lists_with_exit_0_and_shows_a_prepared_collection_as_here() {
    // A fresh machine: nothing here, and the listing still succeeds (it found eighteen entries).
    let fresh = tempfile::tempdir().unwrap();
    let out = ranklens(fresh.path(), &["data", "list", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rows.len(), 18);
    assert!(rows.iter().all(|r| r["here"].is_null()));
    // A data folder holding scifact: listed as here, with its folder.
    let ws = tempfile::tempdir().unwrap();
    let here = ws.path().join("data").join("scifact");
    std::fs::create_dir_all(here.join("qrels")).unwrap();
    std::fs::write(here.join("corpus.jsonl"), "").unwrap();
    std::fs::write(here.join("queries.jsonl"), "").unwrap();
    let out = ranklens(ws.path(), &["data", "list", "--format", "json"]);
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let scifact = rows.iter().find(|r| r["name"] == "scifact").unwrap();
    assert_eq!(scifact["here"], here.display().to_string());
    assert!(rows.iter().filter(|r| r["name"] != "scifact").all(|r| r["here"].is_null()));
}

#[test]
fn data_fetch_of_a_zip_that_fails_its_md5_names_the_collection_and_both_hashes_and_keeps_nothing() {
    let body = scifact_zip();
    let server = serve(body.clone(), body.len(), 200);
    let ws = tempfile::tempdir().unwrap();
    let out = ranklens(ws.path(), &["data", "fetch", "scifact", "--from", &server.url]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let err = stderr.lines().find(|l| l.starts_with("error: ")).unwrap_or_default();
    assert!(err.starts_with("error: collection scifact: "), "{stderr}");
    assert!(!err.contains("model:"), "a download is not a model's failure: {err}");
    assert!(err.contains("5f7d1de60b170fc8027bb7898e2efca1") && err.contains(&md5(&body)), "{err}");
    assert!(left(&ws.path().join("data")).is_empty(), "{:?}", left(&ws.path().join("data")));
}
