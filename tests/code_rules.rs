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

/// The layers ARCHITECTURE.md lists (`layer N: a b c` lines in its "Layers" block), lowest first.
fn layers() -> std::collections::BTreeMap<String, usize> {
    let text = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let mut out = std::collections::BTreeMap::new();
    for line in text.lines() {
        let Some(rest) = line.trim().strip_prefix("layer ") else { continue };
        let Some((n, modules)) = rest.split_once(':') else { continue };
        let n: usize = n.trim().parse().unwrap();
        for m in modules.split_whitespace() {
            assert!(out.insert(m.to_string(), n).is_none(), "{m} is listed twice in ARCHITECTURE.md");
        }
    }
    out
}

/// The crate's modules a source file names (`crate::x::…`, `crate::{x, y::…}`), outside its test
/// module and its comments.
fn imports(text: &str) -> std::collections::BTreeSet<String> {
    let code = text.split("#[cfg(test)]\nmod tests").next().unwrap_or(text);
    let code: String = code.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
    let ident = |s: &str| s.trim_start().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<String>();
    let mut out = std::collections::BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let (mut depth, mut part) = (0, String::new());
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        out.insert(ident(&part));
                        part.clear();
                        continue;
                    }
                    _ => {}
                }
                part.push(c);
            }
            out.insert(ident(&part));
        } else {
            out.insert(ident(rest));
        }
    }
    out.remove("");
    out
}

#[test]
fn no_import_runs_back_up_the_layers() {
    let layers = layers();
    let mut modules = std::collections::BTreeSet::new();
    let mut edges = 0;
    let mut back = Vec::new();
    for file in rust_files(&root().join("src")) {
        let rel = file.strip_prefix(root().join("src")).unwrap().to_string_lossy().into_owned();
        let module = rel.split('/').next().unwrap().trim_end_matches(".rs").to_string();
        if matches!(module.as_str(), "lib" | "main") {
            continue;
        }
        modules.insert(module.clone());
        let from = *layers.get(&module).unwrap_or_else(|| panic!("ARCHITECTURE.md's layers do not list `{module}`"));
        for to in imports(&std::fs::read_to_string(&file).unwrap()) {
            // Names that are not modules are the crate root's own (Error, Result, workspace_dir).
            let (Some(&layer), false) = (layers.get(&to), to == module) else { continue };
            edges += 1;
            if layer >= from {
                back.push(format!("src/{rel}: {module} (layer {from}) imports {to} (layer {layer})"));
            }
        }
    }
    assert!(edges > 100, "only {edges} imports found: the scan is broken");
    let listed: std::collections::BTreeSet<String> = layers.keys().cloned().collect();
    assert_eq!(listed, modules, "ARCHITECTURE.md's layers and src/ list different modules");
    assert!(back.is_empty(), "imports that run back up (or across) the layers:\n{}", back.join("\n"));
}

#[test]
fn the_import_scan_reads_groups_and_paths() {
    let text = "use crate::{analysis::Analyzer, corpus::{Doc, DocId}, Error};\nlet x = crate::index::dot::dot(a, b);\n// crate::gui in a comment\n#[cfg(test)]\nmod tests { use crate::cli; }";
    let found: Vec<String> = imports(text).into_iter().collect();
    assert_eq!(found, ["Error", "analysis", "corpus", "index"]);
}
