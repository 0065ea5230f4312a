//! Your own embeddings: RankLens's dense vectors exported by `ranklens embed` in each format and
//! brought back with `--vectors` rank exactly as the built-in dense column, in `compare` and in
//! `eval`; counts and dimensions that do not fit are errors naming both numbers.

mod common;

use std::path::Path;

use ranklens::models::ModelManager;
use ranklens::progress::NoProgress;

fn models() {
    let manager = ModelManager::from_env();
    let spec = manager.manifest().get("sentence-transformers/all-MiniLM-L6-v2").unwrap().clone();
    manager.fetch(&spec, &NoProgress).unwrap();
}

fn cli(workspace: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ranklens"))
        .args(args)
        .env("RANKLENS_WORKSPACE", workspace)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// (column label, [(id, score)]) of every ranked column of `ranklens compare --format json`.
fn columns(json: &str) -> Vec<(String, Vec<(String, f64)>)> {
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    v["methods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let hits = m["hits"]
                .as_array()
                .map(|h| {
                    h.iter().map(|h| (h["id"].as_str().unwrap().to_string(), h["score"].as_f64().unwrap())).collect()
                })
                .unwrap_or_default();
            (m["method"].as_str().unwrap_or_default().to_string(), hits)
        })
        .collect()
}

#[test]
fn exported_vectors_brought_back_rank_as_the_dense_column() {
    models();
    let ws = tempfile::tempdir().unwrap();
    let sample = common::sample("acme-sync");
    let question = "What is E140?";
    for format in ["npy", "jsonl", "safetensors"] {
        let out = ws.path().join(format);
        let (code, stdout, err) = cli(
            ws.path(),
            &[
                "embed",
                "--corpus",
                sample.to_str().unwrap(),
                "--offline",
                "--out",
                out.to_str().unwrap(),
                "--format",
                format,
            ],
        );
        assert_eq!(code, Some(0), "{err}");
        assert!(stdout.contains(&format!("passages.{format} (27 × 384")), "{stdout}");
        let passages = out.join(format!("passages.{format}"));
        let queries = out.join(format!("queries.{format}"));
        let (code, json, err) = cli(
            ws.path(),
            &[
                "compare",
                "--corpus",
                sample.to_str().unwrap(),
                "--offline",
                "--format",
                "json",
                "--vectors",
                &format!("mine={}", passages.display()),
                "--query-vectors",
                queries.to_str().unwrap(),
                question,
            ],
        );
        assert_eq!(code, Some(0), "{err}");
        let cols = columns(&json);
        let dense = cols.iter().find(|(l, _)| l.starts_with("Dense")).unwrap();
        let mine = cols
            .iter()
            .find(|(l, _)| l == "mine")
            .unwrap_or_else(|| panic!("{:?}", cols.iter().map(|c| &c.0).collect::<Vec<_>>()));
        assert_eq!(
            dense.1.iter().map(|h| &h.0).collect::<Vec<_>>(),
            mine.1.iter().map(|h| &h.0).collect::<Vec<_>>(),
            "{format}"
        );
        for (a, b) in dense.1.iter().zip(&mine.1) {
            assert!((a.1 - b.1).abs() < 1e-6, "{format}: {} {} vs {}", a.0, a.1, b.1);
        }
    }
    // The question set: the same nDCG@10 as the built-in dense column.
    let out = ws.path().join("npy");
    let (code, json, err) = cli(
        ws.path(),
        &[
            "eval",
            "--dataset",
            sample.to_str().unwrap(),
            "--method",
            "dense",
            "--offline",
            "--format",
            "json",
            "--vectors",
            out.join("passages.npy").to_str().unwrap(),
            "--query-vectors",
            out.join("queries.npy").to_str().unwrap(),
        ],
    );
    assert_eq!(code, Some(0), "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let methods = v["methods"].as_array().unwrap_or_else(|| panic!("{json}"));
    let ndcg = |i: usize| {
        let mean = methods[i]["summary"]["mean"].as_object().unwrap();
        mean.iter().find(|(k, _)| k.to_lowercase().starts_with("ndcg")).and_then(|(_, v)| v.as_f64()).unwrap()
    };
    assert_eq!(methods.len(), 2);
    assert_eq!(methods[1]["label"], "passages");
    assert!((ndcg(0) - ndcg(1)).abs() < 1e-9, "{} vs {}", ndcg(0), ndcg(1));
}

#[test]
fn counts_and_dimensions_that_do_not_fit_are_named() {
    let ws = tempfile::tempdir().unwrap();
    let sample = common::sample("acme-sync");
    let dir = ws.path();
    // 27 passages in the sample: give 26 in corpus order.
    std::fs::write(dir.join("short.npy"), ranklens::external::vectors::write_npy(26, 4, &vec![0.5; 26 * 4])).unwrap();
    let compare = |extra: &[&str]| {
        let mut args = vec!["compare", "--corpus", sample.to_str().unwrap(), "--offline"];
        args.extend_from_slice(extra);
        args.push("x");
        cli(dir, &args)
    };
    let short = dir.join("short.npy");
    let (code, _, err) = compare(&["--vectors", short.to_str().unwrap()]);
    assert_eq!(code, Some(2));
    assert!(err.contains("26 vectors for the corpus's 27 passages"), "{err}");
    std::fs::write(dir.join("ok.npy"), ranklens::external::vectors::write_npy(27, 4, &vec![0.5; 27 * 4])).unwrap();
    std::fs::write(dir.join("q.jsonl"), "{\"id\": \"q1\", \"vector\": [1, 2, 3]}\n").unwrap();
    let (ok, q) = (dir.join("ok.npy"), dir.join("q.jsonl"));
    let (code, _, err) = compare(&["--vectors", ok.to_str().unwrap(), "--query-vectors", q.to_str().unwrap()]);
    assert_eq!(code, Some(2));
    assert!(err.contains("the query vectors have 3 dimensions and the passage vectors 4"), "{err}");
}

/// Files written by NumPy (`np.save`, `write_array` version 2) and by Python's `json` module
/// (`scripts/vector_fixtures.py`), read by the loaders: the values NumPy stored, each worked out
/// here — float16 keeps 0.1 as 1638/16384 and 1e-8 (below its smallest subnormal, 2^-24 ≈ 6e-8)
/// as 0 — and the layouts RankLens does not read refused by name.
#[test]
fn files_written_by_numpy_and_python_are_read_as_they_were_written() {
    use ranklens::external::vectors::VectorFile;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/vectors");
    let load = |name: &str| VectorFile::load(&dir.join(name));
    // float32: the nearest float32 to each decimal, as NumPy rounded it; the ids from the .ids.txt.
    let f32s = load("f32.npy").unwrap();
    assert_eq!((f32s.dim, f32s.ids.clone()), (3, Some(vec!["d1".to_string(), "d2".to_string()])));
    assert_eq!(f32s.data, [0.1f32, -0.5, 2.0, 1e-8, 3.25, -7.0]);
    // Version 2 of the format (a four-byte header length), the same values, no ids beside it.
    let v2 = load("f32-v2.npy").unwrap();
    assert_eq!((v2.ids, v2.data), (None, f32s.data.clone()));
    // float16: 0.1 → 0x2E66 = 1638/16384 = 0.0999755859375; 1e-8 → 0; the others exact.
    let halves = load("f16.npy").unwrap();
    assert_eq!(halves.data, [1638.0f32 / 16384.0, -0.5, 2.0, 0.0, 3.25, -7.0]);
    // float64 read as float32: the same nearest float32s.
    assert_eq!(load("f64.npy").unwrap().data, f32s.data);
    // Python's json: an id written as a number is read as its text; 1e-08 as Python spells it.
    let lines = load("python.jsonl").unwrap();
    assert_eq!(lines.ids, Some(vec!["d1".to_string(), "2".to_string()]));
    assert_eq!(lines.data, f32s.data);
    let beir = load("beir-style.jsonl").unwrap();
    assert_eq!((beir.ids, beir.data), (Some(vec!["doc-0".to_string(), "doc-1".to_string()]), f32s.data.clone()));
    // Refused, each naming the file and what to do.
    for (name, says) in [
        ("big-endian.npy", "\">f4\" is not supported: save as float32"),
        ("fortran.npy", "Fortran-ordered arrays are not supported"),
        ("one-row.npy", "expected a 2-D array (vectors × dimensions), found shape [3]"),
        ("int.npy", "\"<i8\" is not supported"),
    ] {
        let e = load(name).unwrap_err().report();
        assert!(e.contains(name) && e.contains(says), "{name}: {e}");
    }
}
