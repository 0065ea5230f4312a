//! The README's commands are real: every `ranklens …` line of its fenced shell blocks is parsed by
//! the CLI's own parser (clap), so a renamed command or flag fails here rather than in a reader's
//! terminal. A collection named by `--dataset` resolves against a workspace holding its folder.

use clap::Parser;
use ranklens::cli::Cli;

/// Splits a shell line into words as `sh` would for these commands: single and double quotes,
/// backslash escapes outside single quotes, a `#` comment at the start of a word.
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    word.push(c);
                }
            }
            '"' => {
                in_word = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => word.extend(chars.next()),
                        c => word.push(c),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.extend(chars.next());
            }
            '#' if !in_word => break,
            c if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        out.push(word);
    }
    out
}

/// The `ranklens` commands of the README's `sh` blocks, continuation lines joined.
fn commands(readme: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_sh = false;
    let mut pending = String::new();
    for line in readme.lines() {
        let t = line.trim();
        if t.starts_with("```") {
            in_sh = t == "```sh";
            continue;
        }
        if !in_sh {
            continue;
        }
        if let Some(head) = t.strip_suffix('\\') {
            pending.push_str(head.trim_end());
            pending.push(' ');
            continue;
        }
        pending.push_str(t);
        let whole = std::mem::take(&mut pending);
        if whole.starts_with("ranklens ") {
            out.push(whole);
        }
    }
    out
}

#[test]
fn the_splitter_reads_quotes_escapes_and_comments_as_sh_does() {
    assert_eq!(words(r#"a "b c" 'd "e"' f\ g # h"#), ["a", "b c", r#"d "e""#, "f g"]);
    assert_eq!(words(r#"x "it's" y#z"#), ["x", "it's", "y#z"]);
    assert_eq!(
        commands("```sh\nranklens a \\\n  --b c\ncargo x\n```\n```text\nranklens no\n```\n"),
        ["ranklens a --b c"]
    );
}

#[test]
fn every_command_in_the_readme_parses_with_the_clis_own_parser() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let found = commands(&readme);
    assert!(found.len() >= 40, "the README's CLI section lists every command: found {}", found.len());
    // `--dataset scifact` resolves a fetched collection: a workspace that holds its folder.
    let ws = tempfile::tempdir().unwrap();
    let scifact = ws.path().join("data").join("scifact");
    std::fs::create_dir_all(scifact.join("qrels")).unwrap();
    std::fs::write(scifact.join("corpus.jsonl"), "").unwrap();
    std::fs::write(scifact.join("queries.jsonl"), "").unwrap();
    // `--corpus squad-dev` resolves a fetched SQuAD file the same way.
    let squad = ws.path().join("data").join("squad-dev");
    std::fs::create_dir_all(&squad).unwrap();
    std::fs::write(squad.join("dev-v1.1.json"), r#"{"version":"1.1","data":[]}"#).unwrap();
    // SAFETY: this test binary's tests do not read the environment concurrently with this write.
    unsafe { std::env::set_var("RANKLENS_WORKSPACE", ws.path()) };
    let mut bad = Vec::new();
    for line in &found {
        if let Err(e) = Cli::try_parse_from(words(line)) {
            bad.push(format!("{line}\n  {}", e.to_string().lines().next().unwrap_or("")));
        }
    }
    assert!(bad.is_empty(), "README commands the CLI refuses:\n{}", bad.join("\n"));
    // Every subcommand of the CLI appears in the README at least once.
    let named: std::collections::BTreeSet<String> = found.iter().filter_map(|l| words(l).get(1).cloned()).collect();
    let cmd = <Cli as clap::CommandFactory>::command();
    let missing: Vec<_> =
        cmd.get_subcommands().map(|s| s.get_name().to_string()).filter(|n| n != "help" && !named.contains(n)).collect();
    assert!(missing.is_empty(), "commands the README never shows: {missing:?}");
}

#[test]
fn the_readme_is_read_in_ten_minutes() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(lines <= 350, "the README has {lines} lines; measurements belong in docs/measured.md");
    for image in readme.split("](docs/screenshots/").skip(1) {
        let name = image.split(')').next().unwrap_or("");
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/screenshots").join(name);
        assert!(path.is_file(), "the README shows {name}, which is not in docs/screenshots");
    }
}
