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
    let code = without_tests_and_comments(text);
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

/// A file's code before its test module (`mod tests` or `pub(crate) mod tests`), without its
/// comment lines.
fn without_tests_and_comments(text: &str) -> String {
    let end = ["#[cfg(test)]\nmod tests", "#[cfg(test)]\npub(crate) mod tests"]
        .iter()
        .filter_map(|m| text.find(m))
        .min()
        .unwrap_or(text.len());
    text[..end].lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
}

/// One source file of the crate: its path under `src/`, its module path (`retrieve::lexical`;
/// a `mod.rs` is its folder's module) and its code outside its test module and comments.
struct Source {
    rel: String,
    module: Vec<String>,
    code: String,
}

fn sources() -> Vec<Source> {
    let src = root().join("src");
    rust_files(&src)
        .into_iter()
        .filter(|file| !file.ends_with("main.rs"))
        .map(|file| {
            let rel = file.strip_prefix(&src).unwrap().to_string_lossy().replace('\\', "/");
            let mut module: Vec<String> = rel.trim_end_matches(".rs").split('/').map(str::to_string).collect();
            if matches!(module.last().map(String::as_str), Some("mod" | "lib" | "main")) {
                module.pop();
            }
            let text = std::fs::read_to_string(&file).unwrap();
            Source { rel, module, code: without_tests_and_comments(&text) }
        })
        .collect()
}

/// The `use` statements of a file: (is it `pub use` — a re-export —, the text after `use`).
fn use_statements(code: &str) -> Vec<(bool, String)> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("use ") {
        let before = &rest[..at];
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let head = before[line_start..].trim();
        let starts_statement = head.is_empty() || head == "pub" || (head.starts_with("pub(") && head.ends_with(')'));
        let after = &rest[at + 4..];
        match (starts_statement, after.find(';')) {
            (true, Some(end)) => {
                out.push((head.starts_with("pub"), after[..end].to_string()));
                rest = &after[end..];
            }
            _ => rest = after,
        }
    }
    out
}

/// The paths one `use` tree names, each as its segments (`a::{b, c::d as e}` gives `a::b` and
/// `a::c::d`; `self` in a group names the group's own path).
fn use_paths(tree: &str) -> Vec<Vec<String>> {
    fn walk(prefix: &[String], tree: &str, out: &mut Vec<Vec<String>>) {
        let (mut depth, mut part, mut parts) = (0, String::new(), Vec::new());
        for c in tree.chars() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    parts.push(std::mem::take(&mut part));
                    continue;
                }
                _ => {}
            }
            part.push(c);
        }
        parts.push(part);
        for p in parts {
            let p: String = p.split_whitespace().collect::<Vec<_>>().join(" ");
            if p.is_empty() {
                continue;
            }
            if let (Some(open), Some(close)) = (p.find('{'), p.rfind('}')) {
                let mut pre = prefix.to_vec();
                pre.extend(p[..open].split("::").map(str::trim).filter(|s| !s.is_empty()).map(str::to_string));
                walk(&pre, &p[open + 1..close], out);
            } else {
                let p = p.split(" as ").next().unwrap_or("").trim();
                let mut full = prefix.to_vec();
                full.extend(p.split("::").map(str::trim).filter(|s| !s.is_empty() && *s != "self").map(str::to_string));
                out.push(full);
            }
        }
    }
    let mut out = Vec::new();
    walk(&[], tree, &mut out);
    out
}

/// The crate's file graph: an edge from a file to every file whose items it names (through a
/// `use`, a path in its code, or a name it re-exports and also uses). A `mod` line and a `pub use`
/// re-export alone are no edges: they are a module's public face, not a use.
fn file_graph() -> std::collections::BTreeMap<String, std::collections::BTreeSet<String>> {
    use std::collections::{BTreeMap, BTreeSet};
    let sources = sources();
    let files: BTreeMap<Vec<String>, usize> = sources.iter().enumerate().map(|(i, s)| (s.module.clone(), i)).collect();
    // `crate`/`super`/`self`-relative (or child-relative) segments → (the module file, what follows it).
    let resolve = |from: &[String], segs: &[String]| -> Option<(usize, Vec<String>)> {
        let (mut base, mut rest): (Vec<String>, &[String]) = match segs.first().map(String::as_str) {
            Some("crate") => (Vec::new(), &segs[1..]),
            Some("super") => {
                let mut b = from.to_vec();
                let mut r = segs;
                while r.first().map(String::as_str) == Some("super") {
                    b.pop();
                    r = &r[1..];
                }
                (b, r)
            }
            Some("self") => (from.to_vec(), &segs[1..]),
            Some(first) => {
                let mut b = from.to_vec();
                b.push(first.to_string());
                if !files.contains_key(&b) {
                    return None;
                }
                (from.to_vec(), segs)
            }
            None => return None,
        };
        while let Some(next) = rest.first() {
            let mut b = base.clone();
            b.push(next.clone());
            if !files.contains_key(&b) {
                break;
            }
            base = b;
            rest = &rest[1..];
        }
        Some((*files.get(&base)?, rest.to_vec()))
    };
    // What each file re-exports: name → the absolute path it stands for.
    let mut reexports: Vec<BTreeMap<String, Vec<String>>> = vec![BTreeMap::new(); sources.len()];
    for (i, s) in sources.iter().enumerate() {
        for (public, tree) in use_statements(&s.code) {
            for segs in use_paths(&tree).into_iter().filter(|_| public) {
                let Some(name) = segs.last().filter(|n| *n != "*").cloned() else { continue };
                if let Some((f, rest)) = resolve(&s.module, &segs) {
                    let mut full = sources[f].module.clone();
                    full.extend(rest);
                    reexports[i].insert(name, full);
                }
            }
        }
    }
    // The file an absolute path's item is defined in, following re-exports.
    let defined_in = |segs: &[String]| -> Option<usize> {
        let mut abs: Vec<String> = std::iter::once("crate".to_string()).chain(segs.iter().cloned()).collect();
        for _ in 0..8 {
            let (f, rest) = resolve(&[], &abs)?;
            match rest.first().and_then(|n| reexports[f].get(n)) {
                Some(full) => {
                    abs = std::iter::once("crate".to_string())
                        .chain(full.iter().cloned())
                        .chain(rest[1..].iter().cloned())
                        .collect();
                }
                None => return Some(f),
            }
        }
        None
    };
    let target = |from: &[String], segs: &[String]| -> Option<usize> {
        let (f, rest) = resolve(from, segs)?;
        let mut full = sources[f].module.clone();
        full.extend(rest);
        defined_in(&full)
    };
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (i, s) in sources.iter().enumerate() {
        let edges = graph.entry(s.rel.clone()).or_default();
        let mut add = |f: Option<usize>| {
            if let Some(f) = f.filter(|&f| f != i) {
                edges.insert(sources[f].rel.clone());
            }
        };
        let statements = use_statements(&s.code);
        for (public, tree) in &statements {
            for segs in use_paths(tree).into_iter().filter(|_| !public) {
                add(target(&s.module, &segs));
            }
        }
        // The code without its `use` statements: its paths, and the re-exported names it uses.
        let mut body = s.code.clone();
        for (_, tree) in &statements {
            body = body.replacen(&format!("use {tree};"), "", 1);
        }
        let ident = |c: char| c.is_alphanumeric() || c == '_';
        // Paths from `crate`, `super` or `self`, or from a child module's name (`tokens::Codec`).
        for (at, _) in body.match_indices("::") {
            let head_start = body[..at].rfind(|c: char| !ident(c)).map_or(0, |i| i + 1);
            if head_start == at || body[..head_start].ends_with("::") {
                continue;
            }
            let path: String = body[head_start..].chars().take_while(|&c| ident(c) || c == ':').collect();
            let segs: Vec<String> = path.split("::").filter(|x| !x.is_empty()).map(str::to_string).collect();
            add(target(&s.module, &segs));
        }
        for (name, full) in &reexports[i] {
            let used = body.match_indices(name.as_str()).any(|(at, _)| {
                let before = body[..at].chars().next_back();
                let after = body[at + name.len()..].chars().next();
                !before.is_some_and(|c| ident(c) || c == ':') && !after.is_some_and(ident)
            });
            if used {
                add(defined_in(full));
            }
        }
    }
    graph
}

/// A cycle of the graph, as the files around it, if there is one.
fn find_cycle(graph: &std::collections::BTreeMap<String, std::collections::BTreeSet<String>>) -> Option<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    let mut mark: std::collections::BTreeMap<&str, Mark> = graph.keys().map(|k| (k.as_str(), Mark::New)).collect();
    for start in graph.keys() {
        if mark[start.as_str()] != Mark::New {
            continue;
        }
        // Depth first, with the path kept: an edge back to an open file closes a cycle.
        let mut stack: Vec<(&str, Vec<&str>)> =
            vec![(start.as_str(), graph[start].iter().map(String::as_str).collect())];
        mark.insert(start.as_str(), Mark::Open);
        while let Some((node, next)) = stack.last_mut() {
            let node = *node;
            match next.pop() {
                Some(to) => match mark.get(to).copied() {
                    Some(Mark::Open) => {
                        let from = stack.iter().position(|(n, _)| *n == to).unwrap_or(0);
                        let mut cycle: Vec<String> = stack[from..].iter().map(|(n, _)| n.to_string()).collect();
                        cycle.push(to.to_string());
                        return Some(cycle);
                    }
                    Some(Mark::New) => {
                        mark.insert(to, Mark::Open);
                        stack.push((
                            to,
                            graph.get(to).map(|s| s.iter().map(String::as_str).collect()).unwrap_or_default(),
                        ));
                    }
                    _ => {}
                },
                None => {
                    mark.insert(node, Mark::Done);
                    stack.pop();
                }
            }
        }
    }
    None
}

#[test]
fn no_two_files_import_each_other_directly_or_through_others() {
    let graph = file_graph();
    let edges: usize = graph.values().map(|s| s.len()).sum();
    assert!(graph.len() > 150 && edges > 400, "{} files, {edges} edges: the scan is broken", graph.len());
    // Spot checks that the scan sees each kind of reference.
    let has = |a: &str, b: &str| graph.get(a).is_some_and(|s| s.contains(b));
    assert!(has("retrieve/boolean.rs", "retrieve/explanation.rs"), "a `use super::…` re-exported name");
    assert!(has("cli/search.rs", "cli/args.rs"), "a `use super::args::…`");
    if let Some(cycle) = find_cycle(&graph) {
        panic!("files that import each other: {}", cycle.join(" → "));
    }
}

#[test]
fn the_file_graph_scan_reads_statements_groups_and_cycles() {
    assert_eq!(
        use_paths("crate::{a::B, c::{self, d::E as F}}, super::G"),
        vec![
            vec!["crate".to_string(), "a".into(), "B".into()],
            vec!["crate".into(), "c".into()],
            vec!["crate".into(), "c".into(), "d".into(), "E".into()],
            vec!["super".into(), "G".into()],
        ]
    );
    let found =
        use_statements("pub use a::B;\n    use c::{D, E};\nlet x = \"use me\"; fn reuse() {}\npub(crate) use f::G;");
    assert_eq!(found, vec![(true, "a::B".to_string()), (false, "c::{D, E}".into()), (true, "f::G".into())]);
    let g = |edges: &[(&str, &str)]| {
        let mut m: std::collections::BTreeMap<String, std::collections::BTreeSet<String>> = Default::default();
        for (a, b) in edges {
            m.entry(a.to_string()).or_default().insert(b.to_string());
            m.entry(b.to_string()).or_default();
        }
        m
    };
    assert_eq!(find_cycle(&g(&[("a", "b"), ("b", "c"), ("a", "c")])), None);
    assert_eq!(find_cycle(&g(&[("a", "b"), ("b", "c"), ("c", "a")])).map(|c| c.len()), Some(4));
}

/// The lines of a function's body in a file, from its `fn` line to its closing brace.
fn function_lines(text: &str, signature: &str) -> Option<usize> {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.iter().position(|l| l.contains(signature))?;
    let indent = lines[start].len() - lines[start].trim_start().len();
    let end =
        lines[start..].iter().position(|l| l.len() > indent && l[indent..].starts_with('}') && l.trim() == "}")?;
    Some(end + 1)
}

/// Files of `dir` over `most` lines.
fn over(dir: &str, most: usize) -> Vec<String> {
    let mut big = Vec::new();
    for file in rust_files(&root().join(dir)) {
        let n = std::fs::read_to_string(&file).unwrap().lines().count();
        if n > most {
            big.push(format!("{} ({n} lines)", file.strip_prefix(root()).unwrap().display()));
        }
    }
    big
}

#[test]
fn the_lessons_the_classroom_and_the_commands_stay_under_their_file_limits() {
    // The limits bite: each folder has files near them (a check that found no file would pass
    // on a wrong path).
    assert!(
        !over("src/lessons", 500).is_empty()
            && !over("src/classroom", 600).is_empty()
            && !over("src/cli", 400).is_empty(),
        "the scan is broken"
    );
    for folder in ["src/lessons", "src/classroom"] {
        let big = over(folder, 700);
        assert!(big.is_empty(), "files under {folder} over 700 lines: {big:?}");
    }
    let big = over("src/cli", 500);
    assert!(big.is_empty(), "files under src/cli over 500 lines: {big:?}");
}

#[test]
fn a_questions_data_is_typed_never_built_by_json_macros() {
    // Each exercise's data is a struct deriving Serialize (lessons/data.rs and beside each
    // exercise); `json!` builds an untyped value whose keys no compiler checks.
    let mut found = Vec::new();
    let mut structs = 0;
    for file in rust_files(&root().join("src/lessons")) {
        let text = std::fs::read_to_string(&file).unwrap();
        let code = without_tests_and_comments(&text);
        structs += code.matches("#[derive(serde::Serialize)]").count() + code.matches("#[derive(Serialize)]").count();
        if code.contains("json!") {
            found.push(file.strip_prefix(root()).unwrap().display().to_string());
        }
    }
    assert!(structs >= 30, "the scan is broken: {structs} data structs found");
    assert!(found.is_empty(), "json! outside the tests of src/lessons: {found:?}");
}

#[test]
fn a_why_not_fixs_knob_is_typed_and_never_parsed_back() {
    // A fix's knob was once `Edit::Setting { name, from, to: String }`, parsed back with
    // `unwrap_or` behind a wildcard arm in the core and again in the app: a mistyped knob did
    // nothing in two rooms. It is `Edit::Turn { from, to: KnobValue }`, applied as typed.
    let mut found = Vec::new();
    let mut turns = 0;
    for s in sources() {
        turns += s.code.matches("Edit::Turn").count();
        if s.code.contains("Edit::Setting") {
            found.push(format!("{}: Edit::Setting", s.rel));
        }
        if s.rel.ends_with("fixes.rs") {
            for needle in ["Setting {", ".parse()"] {
                if s.code.contains(needle) {
                    found.push(format!("{}: {needle}", s.rel));
                }
            }
        }
    }
    assert!(turns >= 4, "the scan is broken: {turns} uses of Edit::Turn");
    assert!(found.is_empty(), "knobs written as text: {found:?}");
}

#[test]
fn the_output_format_flag_and_the_question_are_declared_once() {
    // `--format` was declared 21 times, each command with its own copy of the attribute and help;
    // it is `FormatArg`, flattened where a command prints (ripgrep declares a flag once).
    let mut declared = Vec::new();
    let mut flattened = 0;
    for s in sources().iter().filter(|s| s.rel.starts_with("cli/")) {
        flattened += s.code.matches("format: FormatArg").count();
        // A field of type OutputFormat under a clap attribute is a declaration of the flag.
        let lines: Vec<&str> = s.code.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
        for pair in lines.windows(2) {
            if pair[0].starts_with("#[arg(") && pair[1].ends_with(": OutputFormat,") && !s.rel.ends_with("args.rs") {
                declared.push(format!("{}: {}", s.rel, pair[1]));
            }
            // Likewise the required question read from the command line or standard input.
            if pair[0].contains("text_or_stdin)]") && pair[1] == "question: String," {
                declared.push(format!("{}: {}", s.rel, pair[1]));
            }
        }
    }
    assert!(flattened >= 20, "the scan is broken: {flattened} commands flatten FormatArg");
    assert!(declared.is_empty(), "a shared argument declared again: {declared:?}");
}

#[test]
fn the_apps_files_stay_small_and_its_dispatcher_short() {
    let mut big = Vec::new();
    for file in rust_files(&root().join("src/gui")) {
        let n = std::fs::read_to_string(&file).unwrap().lines().count();
        if n > 500 {
            big.push(format!("{} ({n} lines)", file.strip_prefix(root()).unwrap().display()));
        }
    }
    assert!(big.is_empty(), "files under src/gui over 500 lines: {big:?}");
    let mut found = None;
    for file in rust_files(&root().join("src/gui")) {
        let text = std::fs::read_to_string(&file).unwrap();
        if let Some(n) = function_lines(&text, "fn apply(&mut self, command: Command)") {
            found = Some(n);
        }
    }
    let n = found.expect("RankLensApp::apply not found: the check is broken");
    assert!(n < 40, "RankLensApp::apply is {n} lines");
    assert_eq!(function_lines("fn f() {\n    a();\n}\n", "fn f()"), Some(3));
}

/// The public types (`struct`, `enum`, `type`, `trait`) a file declares, by name.
fn public_types(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in code.lines() {
        let t = line.trim_start();
        let Some(rest) = ["pub ", "pub(crate) "].iter().find_map(|p| t.strip_prefix(p)) else { continue };
        let Some(rest) = ["struct ", "enum ", "type ", "trait "].iter().find_map(|k| rest.strip_prefix(k)) else {
            continue;
        };
        let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        if !name.is_empty() {
            out.push(name);
        }
    }
    out
}

/// A name means one type: two modules that each declare a public `Judged` (or `Command`, `Split`)
/// make every reader check which one an import brought in.
#[test]
fn no_two_public_types_share_a_name() {
    assert_eq!(
        public_types(
            "pub struct A {\npub(crate) enum B<'a> {\n    pub type C = u8;\nstruct D;\npub fn e() {}\npub trait F: G {"
        ),
        ["A", "B", "C", "F"]
    );
    let mut seen: std::collections::BTreeMap<String, Vec<String>> = std::collections::BTreeMap::new();
    let all = sources();
    assert!(all.len() > 100, "the scan is broken: {} files", all.len());
    for s in &all {
        for name in public_types(&s.code) {
            seen.entry(name).or_default().push(s.rel.clone());
        }
    }
    let clashes: Vec<String> = seen
        .iter()
        .filter(|(_, files)| files.len() > 1)
        .map(|(n, files)| format!("{n}: {}", files.join(", ")))
        .collect();
    assert!(clashes.is_empty(), "public types declared twice: {clashes:?}");
}

/// The lines of `text` (a `mod.rs`) that are neither a comment, an attribute, a `mod` declaration
/// nor a `use` statement (a `use` may run over several lines to its `;`), with their numbers.
fn not_declarations(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut in_use = false;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if in_use {
            in_use = !t.ends_with(';');
            continue;
        }
        if t.is_empty() || t.starts_with("//") || t.starts_with("#[") {
            continue;
        }
        let rest = ["pub(crate) ", "pub(super) ", "pub "].iter().find_map(|p| t.strip_prefix(p)).unwrap_or(t);
        if rest.starts_with("mod ") && rest.ends_with(';') {
            continue;
        }
        if rest.starts_with("use ") {
            in_use = !rest.ends_with(';');
            continue;
        }
        out.push((i + 1, t.to_string()));
    }
    out
}

/// A `mod.rs` declares its children and re-exports their names; what they share lives in a file
/// of its own, and its tests in `tests.rs` (ARCHITECTURE.md). The app's dispatcher,
/// `gui/flow/mod.rs`, is the one exception, by design.
#[test]
fn a_mod_rs_only_declares_and_re_exports() {
    assert_eq!(
        not_declarations(
            "//! doc\nmod a;\npub(crate) mod b;\n#[cfg(test)]\nmod tests;\npub use b::{\n    C,\n    D,\n};\nuse std::fmt;\nconst X: u8 = 1;\nmod c {\n}\n"
        ),
        [(11, "const X: u8 = 1;".to_string()), (12, "mod c {".to_string()), (13, "}".to_string())]
    );
    let src = root().join("src");
    let mut found = Vec::new();
    let mut checked = 0;
    for file in rust_files(&src) {
        let rel = file.strip_prefix(&src).unwrap().to_string_lossy().replace('\\', "/");
        if !rel.ends_with("mod.rs") || rel == "gui/flow/mod.rs" {
            continue;
        }
        checked += 1;
        let text = std::fs::read_to_string(&file).unwrap();
        for (line, what) in not_declarations(&text) {
            found.push(format!("src/{rel}:{line}: {what}"));
        }
    }
    assert!(checked >= 15, "the scan is broken: {checked} mod.rs files");
    assert!(found.is_empty(), "code in mod.rs files (move it to a file of its own):\n{}", found.join("\n"));
}
