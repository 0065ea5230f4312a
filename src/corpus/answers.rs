//! Question sets with answers: what a reader is measured on.
//!
//! Four shapes are read, each into an [`AnswerSet`] (the questions, and each one's gold answers):
//!
//! - **RankLens's TSV** (`answers.tsv`, the sample's): a header naming `question` and `answers`
//!   (and optionally `id`, `passage` — the passage that holds the answer — and `wording`); the
//!   answers of a question are separated by ` | `, and an empty `answers` field is a question the
//!   corpus cannot answer.
//! - **JSON Lines**: `{"id", "question", "answers": [...]}` (or `"answer": "…"`).
//! - **DPR's open-domain files** (`nq-test.qa.csv`, `trivia-test.qa.csv`): no header, a question, a
//!   tab, and the answers as a Python list literal (`["Daei", 'Ali Daei']`).
//! - **SQuAD's JSON** (v1.1 and v2.0), which is a whole collection: its paragraphs become the
//!   passages, its questions the question set, its answer spans the gold
//!   ([`super::squad`]).
//!
//! A bad row is skipped with a warning naming its file and line; a file whose shape is wrong as a
//! whole (no `answers` column, not one question) is an error naming the file and line.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::delimited::{Delimited, Row, read_delimited};
use super::{LoadReport, Query};
use crate::{Error, Result};

/// Where a gold answer sits in a passage, where the file says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GoldSpan {
    /// The passage's id.
    pub doc: String,
    /// Its first character in the passage's text (characters, as SQuAD counts).
    pub start: usize,
    /// The answer's text.
    pub text: String,
}

/// One question's gold answers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Gold {
    /// The answer strings; none for a question the corpus cannot answer.
    pub answers: Vec<String>,
    /// Where answers sit, where the file says (SQuAD's spans, the TSV's `passage`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub spans: Vec<GoldSpan>,
    /// How the question is worded against its passage, where the file says (`paraphrase`: in words
    /// the passage does not use; `passage`: in the passage's own words).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wording: Option<String>,
}

/// What shape an answers file had (SQuAD v1.1 is scored by its own script's rules).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerFormat {
    /// RankLens's TSV.
    Tsv,
    /// JSON Lines.
    Jsonl,
    /// DPR's `*.qa.csv`.
    Dpr,
    /// SQuAD v1.1.
    SquadV1,
    /// SQuAD v2.0 (with unanswerable questions).
    SquadV2,
}

/// Questions with their gold answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnswerSet {
    /// The file they came from.
    pub source: PathBuf,
    /// Its shape.
    pub format: AnswerFormat,
    /// The questions, in the file's order.
    pub questions: Vec<Query>,
    /// Each question's answers, by question id.
    pub gold: BTreeMap<String, Gold>,
}

impl AnswerSet {
    /// A question's gold answers.
    pub fn gold(&self, question_id: &str) -> Option<&Gold> {
        self.gold.get(question_id)
    }

    /// The gold of the question with this text (the question bar's question, if it is one of the
    /// set's).
    pub fn gold_for_text(&self, question: &str) -> Option<(&Query, &Gold)> {
        let q = self.questions.iter().find(|q| q.text.trim() == question.trim())?;
        Some((q, self.gold.get(&q.id)?))
    }

    /// How many questions have no answer.
    pub fn unanswerable(&self) -> usize {
        self.gold.values().filter(|g| g.answers.is_empty()).count()
    }
}

/// A file with no header whose first line is a question, a tab and a list literal.
pub(super) fn looks_like_dpr(bytes: &[u8]) -> bool {
    let first = bytes.split(|&b| b == b'\n').next().unwrap_or_default();
    let text = String::from_utf8_lossy(first);
    text.rsplit_once('\t').is_some_and(|(_, list)| list.trim_start().starts_with('['))
}

fn lines(bytes: &[u8]) -> impl Iterator<Item = (usize, std::result::Result<&str, ()>)> {
    bytes.split(|&b| b == b'\n').enumerate().map(|(i, line)| {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        (i + 1, std::str::from_utf8(line).map_err(|_| ()))
    })
}

fn skip(report: &mut LoadReport, path: &Path, line: usize, message: impl Into<String>) {
    report.skipped += 1;
    report.warn(path, Some(line), message);
}

/// Add a question, refusing an id seen before.
fn push(set: &mut AnswerSet, report: &mut LoadReport, line: usize, query: Query, gold: Gold) {
    if set.gold.contains_key(&query.id) {
        let path = set.source.clone();
        skip(report, &path, line, format!("question id {:?} is used twice; the first one is kept", query.id));
        return;
    }
    set.gold.insert(query.id.clone(), gold);
    set.questions.push(query);
}

fn empty(path: &Path, format: AnswerFormat) -> AnswerSet {
    AnswerSet { source: path.to_path_buf(), format, questions: Vec::new(), gold: BTreeMap::new() }
}

/// The alternatives of an `answers` field: separated by `|`, each trimmed, empty ones dropped.
pub fn split_answers(field: &str) -> Vec<String> {
    field.split('|').map(str::trim).filter(|a| !a.is_empty()).map(str::to_string).collect()
}

pub(super) fn load_tsv(bytes: &[u8], path: &Path, report: &mut LoadReport) -> Result<AnswerSet> {
    let Delimited { header, rows } = read_delimited(bytes, b'\t', false, path)?;
    let col = |names: &[&str]| header.iter().position(|h| names.iter().any(|n| h.eq_ignore_ascii_case(n)));
    let question_col = col(&["question", "query", "text"]);
    let answers_col = col(&["answers", "answer"]);
    let (Some(question_col), Some(answers_col)) = (question_col, answers_col) else {
        let missing = if question_col.is_none() { "question" } else { "answers" };
        return Err(Error::invalid(
            format!("{}:1", path.display()),
            format!(
                "the header has no `{missing}` column (found: {}); an answers file names `question` and `answers` \
                 (answers separated by ` | `, empty for a question the corpus cannot answer)",
                header.join(", ")
            ),
        ));
    };
    let (id_col, passage_col, wording_col) =
        (col(&["id", "qid"]), col(&["passage", "doc", "docid"]), col(&["wording"]));
    let mut set = empty(path, AnswerFormat::Tsv);
    for Row { line, fields } in rows {
        let record = match fields {
            Ok(r) => r,
            Err(message) => {
                skip(report, path, line, message);
                continue;
            }
        };
        let Ok(values) = record
            .iter()
            .map(|f| std::str::from_utf8(f).map(|s| s.trim().to_string()))
            .collect::<std::result::Result<Vec<String>, _>>()
        else {
            skip(report, path, line, "row is not valid UTF-8; skipped");
            continue;
        };
        if values.len() > header.len() {
            skip(
                report,
                path,
                line,
                format!("row has {} fields, the header has {}; skipped", values.len(), header.len()),
            );
            continue;
        }
        let get = |c: Option<usize>| c.and_then(|c| values.get(c)).cloned().unwrap_or_default();
        let question = get(Some(question_col));
        if question.is_empty() {
            skip(report, path, line, "a row needs a question; skipped");
            continue;
        }
        let id = Some(get(id_col)).filter(|s| !s.is_empty()).unwrap_or_else(|| format!("line{line}"));
        let answers = split_answers(&get(Some(answers_col)));
        let passage = get(passage_col);
        let spans = if passage.is_empty() {
            Vec::new()
        } else {
            answers.iter().map(|a| GoldSpan { doc: passage.clone(), start: usize::MAX, text: a.clone() }).collect()
        };
        let wording = Some(get(wording_col)).filter(|w| !w.is_empty());
        push(&mut set, report, line, Query { id, text: question }, Gold { answers, spans, wording });
    }
    Ok(set)
}

pub(super) fn load_jsonl(bytes: &[u8], path: &Path, report: &mut LoadReport) -> AnswerSet {
    let mut set = empty(path, AnswerFormat::Jsonl);
    for (n, line) in lines(bytes) {
        let Ok(line) = line else {
            skip(report, path, n, "line is not valid UTF-8; skipped");
            continue;
        };
        if line.trim().is_empty() {
            continue;
        }
        let v: serde_json::Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                skip(report, path, n, format!("malformed JSON ({e}); skipped"));
                continue;
            }
        };
        let Some(question) = ["question", "query", "text"].iter().find_map(|k| v.get(*k).and_then(|q| q.as_str()))
        else {
            skip(report, path, n, "a line needs \"question\"; skipped");
            continue;
        };
        let answers: Option<Vec<String>> = match (v.get("answers"), v.get("answer")) {
            (Some(serde_json::Value::Array(a)), _) => {
                a.iter().map(|x| x.as_str().map(|s| s.trim().to_string())).collect::<Option<Vec<_>>>()
            }
            (None, Some(serde_json::Value::String(a))) => Some(vec![a.trim().to_string()]),
            (None, Some(serde_json::Value::Null)) => Some(Vec::new()),
            _ => None,
        };
        let Some(answers) = answers else {
            skip(report, path, n, "a line needs \"answers\", a list of strings (empty when there is none); skipped");
            continue;
        };
        let answers: Vec<String> = answers.into_iter().filter(|a| !a.is_empty()).collect();
        let id = v
            .get("id")
            .or_else(|| v.get("_id"))
            .and_then(|x| x.as_str().map(str::to_string).or_else(|| x.as_i64().map(|i| i.to_string())))
            .unwrap_or_else(|| format!("line{n}"));
        let passage = v.get("passage").and_then(|p| p.as_str()).map(str::to_string);
        let spans = passage
            .map(|p| answers.iter().map(|a| GoldSpan { doc: p.clone(), start: usize::MAX, text: a.clone() }).collect())
            .unwrap_or_default();
        let wording = v.get("wording").and_then(|w| w.as_str()).map(str::to_string);
        push(&mut set, report, n, Query { id, text: question.trim().to_string() }, Gold { answers, spans, wording });
    }
    set
}

pub(super) fn load_dpr(bytes: &[u8], path: &Path, report: &mut LoadReport) -> AnswerSet {
    let mut set = empty(path, AnswerFormat::Dpr);
    for (n, line) in lines(bytes) {
        let Ok(line) = line else {
            skip(report, path, n, "line is not valid UTF-8; skipped");
            continue;
        };
        if line.trim().is_empty() {
            continue;
        }
        let Some((question, list)) = line.rsplit_once('\t') else {
            skip(report, path, n, "expected: question<TAB>[\"answer\", …]; skipped");
            continue;
        };
        match parse_python_list(list) {
            Ok(answers) => {
                let answers: Vec<String> = answers.into_iter().filter(|a| !a.trim().is_empty()).collect();
                let query = Query { id: format!("q{n}"), text: question.trim().to_string() };
                push(&mut set, report, n, query, Gold { answers, ..Default::default() });
            }
            Err(why) => skip(report, path, n, format!("the answers are not a list of strings ({why}); skipped")),
        }
    }
    set
}

/// A Python list of string literals, as DPR's files write answers (`['a', "b's"]`): single or
/// double quotes, with Python's escapes (`\\`, `\'`, `\"`, `\n`, `\t`, `\xNN`, `\uNNNN`).
pub fn parse_python_list(text: &str) -> std::result::Result<Vec<String>, String> {
    let chars: Vec<char> = text.trim().chars().collect();
    let mut i = 0;
    let skip_space = |i: &mut usize| {
        while chars.get(*i).is_some_and(|c| c.is_whitespace()) {
            *i += 1;
        }
    };
    if chars.first() != Some(&'[') {
        return Err("it does not start with [".into());
    }
    i += 1;
    let mut out = Vec::new();
    skip_space(&mut i);
    if chars.get(i) == Some(&']') {
        return if i + 1 == chars.len() { Ok(out) } else { Err("text after the closing ]".into()) };
    }
    loop {
        skip_space(&mut i);
        let Some(&quote) = chars.get(i).filter(|c| **c == '\'' || **c == '"') else {
            return Err(format!("a string was expected at character {}", i + 1));
        };
        i += 1;
        let mut s = String::new();
        loop {
            let Some(&c) = chars.get(i) else { return Err("a string is never closed".into()) };
            i += 1;
            if c == quote {
                break;
            }
            if c != '\\' {
                s.push(c);
                continue;
            }
            let Some(&e) = chars.get(i) else { return Err("a string is never closed".into()) };
            i += 1;
            match e {
                'n' => s.push('\n'),
                't' => s.push('\t'),
                'r' => s.push('\r'),
                '\\' | '\'' | '"' => s.push(e),
                'x' | 'u' | 'U' => {
                    let n = match e {
                        'x' => 2,
                        'u' => 4,
                        _ => 8,
                    };
                    let hex: String = chars.iter().skip(i).take(n).collect();
                    let code = u32::from_str_radix(&hex, 16).ok().filter(|_| hex.len() == n);
                    let Some(c) = code.and_then(char::from_u32) else {
                        return Err(format!("a bad \\{e} escape at character {i}"));
                    };
                    s.push(c);
                    i += n;
                }
                other => {
                    // Python keeps an unknown escape as written.
                    s.push('\\');
                    s.push(other);
                }
            }
        }
        out.push(s);
        skip_space(&mut i);
        match chars.get(i) {
            Some(',') => {
                i += 1;
                skip_space(&mut i);
                if chars.get(i) == Some(&']') {
                    i += 1;
                    break;
                }
            }
            Some(']') => {
                i += 1;
                break;
            }
            _ => return Err(format!(", or ] was expected at character {}", i + 1)),
        }
    }
    skip_space(&mut i);
    if i != chars.len() {
        return Err("text after the closing ]".into());
    }
    Ok(out)
}

/// A Python list literal of these strings, as `repr` writes one (single quotes unless the string
/// holds one and no double quote): what DPR's files hold, written back.
pub fn python_list(answers: &[String]) -> String {
    let items: Vec<String> = answers
        .iter()
        .map(|a| {
            let quote = if a.contains('\'') && !a.contains('"') { '"' } else { '\'' };
            let mut s = String::from(quote);
            for c in a.chars() {
                match c {
                    '\\' => s.push_str("\\\\"),
                    '\n' => s.push_str("\\n"),
                    '\t' => s.push_str("\\t"),
                    '\r' => s.push_str("\\r"),
                    c if c == quote => {
                        s.push('\\');
                        s.push(c);
                    }
                    c if (c as u32) < 0x20 || c as u32 == 0x7f => s.push_str(&format!("\\x{:02x}", c as u32)),
                    c => s.push(c),
                }
            }
            s.push(quote);
            s
        })
        .collect();
    format!("[{}]", items.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::load_answers;

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn the_tsv_reads_alternatives_unanswerable_questions_and_names_bad_rows() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(
            dir.path(),
            "answers.tsv",
            "id\tquestion\tanswers\tpassage\twording\n\
             a1\tHow long do results stay valid?\t15 minutes | fifteen minutes\tcaching-1\tpassage\n\
             \n\
             a2\tWho founded Acme?\t\t\t\n\
             a3\t\t5\t\t\n\
             a1\tAgain?\tx\t\t\n\
             a4\tToo many?\tx\ty\tz\tw\n",
        );
        let mut report = LoadReport::default();
        let set = load_answers(&p, &mut report).unwrap();
        assert_eq!(set.questions.iter().map(|q| q.id.as_str()).collect::<Vec<_>>(), ["a1", "a2"]);
        assert_eq!(set.gold["a1"].answers, ["15 minutes", "fifteen minutes"]);
        assert_eq!(set.gold["a1"].wording.as_deref(), Some("passage"));
        assert!(set.gold["a2"].answers.is_empty());
        assert_eq!(set.unanswerable(), 1);
        let lines: Vec<Option<usize>> = report.warnings.iter().map(|w| w.line).collect();
        assert_eq!(lines, [Some(5), Some(6), Some(7)], "{:?}", report.warnings);
        assert!(report.warnings[1].message.contains("used twice"));
    }

    #[test]
    fn an_answers_file_without_an_answers_column_is_refused_at_its_header() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(dir.path(), "qs.tsv", "id\tquestion\n1\tWhat?\n");
        let e = load_answers(&p, &mut LoadReport::default()).unwrap_err().to_string();
        assert!(e.contains("qs.tsv:1") && e.contains("no `answers` column"), "{e}");
        let p = write(dir.path(), "none.tsv", "question\tanswers\n\tx\n");
        let e = load_answers(&p, &mut LoadReport::default()).unwrap_err().to_string();
        assert!(e.contains("none.tsv") && e.contains("none.tsv:2"), "{e}");
    }

    #[test]
    fn dpr_lines_are_a_question_and_a_python_list() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(
            dir.path(),
            "nq-test.qa.csv",
            "who got the first nobel prize in physics\t['Wilhelm Conrad Röntgen']\n\
             where is it\t[\"O'Hare\", 'Chicago\\'s airport']\n\
             broken\t['never closed\n",
        );
        let mut report = LoadReport::default();
        let set = load_answers(&p, &mut report).unwrap();
        assert_eq!(set.format, AnswerFormat::Dpr);
        assert_eq!(set.gold["q1"].answers, ["Wilhelm Conrad Röntgen"]);
        assert_eq!(set.gold["q2"].answers, ["O'Hare", "Chicago's airport"]);
        assert_eq!(report.warnings.len(), 1);
        assert_eq!(report.warnings[0].line, Some(3));
    }

    #[test]
    fn python_lists_by_hand() {
        assert_eq!(parse_python_list("[]").unwrap(), Vec::<String>::new());
        assert_eq!(parse_python_list(" ['a' , \"b\",] ").unwrap(), ["a", "b"]);
        assert_eq!(parse_python_list(r"['\x41\u00e9\n\\q']").unwrap(), ["Aé\n\\q"]);
        assert!(parse_python_list("['a'] x").is_err());
        assert!(parse_python_list("['a' 'b']").is_err());
        assert!(parse_python_list("[1]").is_err());
        assert!(parse_python_list(r"['\x4']").is_err());
        assert_eq!(python_list(&["it's".into(), "a\"b".into(), "x\ny".into()]), r#"["it's", 'a"b', 'x\ny']"#);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::proptest_cases()))]

        /// Any answers written as Python writes a list read back as the same answers.
        #[test]
        fn a_python_list_round_trips(answers in proptest::collection::vec("(\\PC|['\"\\\\\n\t\u{1}])*", 0..5)) {
            let text = python_list(&answers);
            proptest::prop_assert_eq!(parse_python_list(&text), Ok(answers));
        }

        /// Any bytes as an answers file: an answer set or an error naming the file, never a panic;
        /// every warning names the file and a line.
        #[test]
        fn any_answers_file_loads_or_is_refused_by_name(
            bytes in proptest::collection::vec(proptest::sample::select(b"q\ta|\"'[],\n\\x{}:answers".to_vec()), 0..120),
            ext in proptest::sample::select(vec!["tsv", "jsonl", "qa.csv"]),
        ) {
            let dir = tempfile::tempdir().unwrap();
            let p = dir.path().join(format!("f.{ext}"));
            std::fs::write(&p, &bytes).unwrap();
            let mut report = LoadReport::default();
            match load_answers(&p, &mut report) {
                Ok(set) => {
                    proptest::prop_assert!(!set.questions.is_empty());
                    proptest::prop_assert_eq!(set.questions.len(), set.gold.len());
                }
                Err(e) => proptest::prop_assert!(e.to_string().contains("f."), "{}", e),
            }
            for w in &report.warnings {
                proptest::prop_assert!(w.file == p && w.line.is_some(), "{}", w);
            }
        }
    }
}
