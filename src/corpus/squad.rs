//! SQuAD's JSON (v1.1 and v2.0) as a whole collection: each paragraph a passage, each question
//! of the set a question, each answer span the gold — so the questions can be asked of every
//! paragraph at once (open-domain reading), not only of their own.
//!
//! Every answer's `answer_start` is checked against its paragraph: the characters there must be
//! the answer's text. A file where they are not is refused, naming the first such answer by file,
//! line and column (the official files are one line long) and its question's id, and counting the
//! others: scores measured against misplaced spans would be wrong without a word.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use serde::Deserialize;

use super::answers::{AnswerFormat, AnswerSet, Gold, GoldSpan};
use super::{Doc, Qrels, Query};
use crate::{Error, Result};

#[derive(Deserialize)]
struct File {
    #[serde(default)]
    version: Option<String>,
    data: Vec<Article>,
}

#[derive(Deserialize)]
struct Article {
    #[serde(default)]
    title: String,
    paragraphs: Vec<Paragraph>,
}

#[derive(Deserialize)]
struct Paragraph {
    context: String,
    qas: Vec<Qa>,
}

#[derive(Deserialize)]
struct Qa {
    id: serde_json::Value,
    question: String,
    #[serde(default)]
    answers: Vec<AnswerSpan>,
    #[serde(default)]
    is_impossible: bool,
}

#[derive(Deserialize)]
struct AnswerSpan {
    text: String,
    answer_start: i64,
}

/// A SQuAD file read: its paragraphs as passages, its questions with their answers, and
/// judgements (each answerable question's own paragraph relevant, grade 1).
#[derive(Debug, Clone)]
pub struct Squad {
    /// The paragraphs (`Title-3`: the article's title and the paragraph's number from 0).
    pub docs: Vec<Doc>,
    /// The questions with their answers.
    pub answers: AnswerSet,
    /// Each answerable question's paragraph, grade 1.
    pub qrels: Qrels,
}

/// Whether `bytes` look like SQuAD's JSON (an object with a `data` list of articles).
pub fn looks_like_squad(bytes: &[u8]) -> bool {
    let start = String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]).into_owned();
    let t = start.trim_start();
    t.starts_with('{') && (t.contains("\"data\"") || t.contains("\"version\"")) && !t.contains("\"_id\"")
}

/// Where the `n`th occurrence of a question's id sits: `file:line:column`.
fn place(text: &str, path: &Path, id: &str) -> String {
    let needle = serde_json::Value::String(id.to_string()).to_string();
    let at = text.find(&format!("\"id\": {needle}")).or_else(|| text.find(&format!("\"id\":{needle}")));
    match at {
        Some(byte) => {
            let before = &text[..byte];
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            format!("{}:{line}:{column}", path.display())
        }
        None => path.display().to_string(),
    }
}

fn id_text(v: &serde_json::Value) -> String {
    v.as_str().map_or_else(|| v.to_string(), str::to_string)
}

/// Read a SQuAD file's bytes.
pub fn parse(bytes: &[u8], path: &Path) -> Result<Squad> {
    let text = std::str::from_utf8(bytes)
        .map_err(|e| Error::invalid(path.display().to_string(), format!("not UTF-8 text ({e})")))?;
    let file: File = serde_json::from_str(text).map_err(|e| {
        Error::invalid(
            format!("{}:{}:{}", path.display(), e.line(), e.column()),
            format!("not SQuAD's JSON ({e}); expected {{\"version\", \"data\": [{{\"title\", \"paragraphs\": …}}]}}"),
        )
    })?;
    let v2 = file.version.as_deref().is_some_and(|v| v.starts_with("v2") || v.starts_with('2'))
        || file.data.iter().any(|a| a.paragraphs.iter().any(|p| p.qas.iter().any(|q| q.is_impossible)));
    let format = if v2 { AnswerFormat::SquadV2 } else { AnswerFormat::SquadV1 };
    let mut docs = Vec::new();
    let mut used = HashSet::new();
    let mut answers = AnswerSet { source: path.to_path_buf(), format, questions: Vec::new(), gold: BTreeMap::new() };
    let mut qrels = Qrels::default();
    let mut bad: Vec<String> = Vec::new();
    for (a, article) in file.data.iter().enumerate() {
        let title = if article.title.trim().is_empty() { format!("article{a}") } else { article.title.clone() };
        for (p, paragraph) in article.paragraphs.iter().enumerate() {
            let mut id = format!("{title}-{p}");
            if !used.insert(id.clone()) {
                id = format!("{title}-{a}-{p}");
                used.insert(id.clone());
            }
            let chars: Vec<char> = paragraph.context.chars().collect();
            for qa in &paragraph.qas {
                let qid = id_text(&qa.id);
                let mut gold = Gold::default();
                for span in &qa.answers {
                    let len = span.text.chars().count();
                    let start = usize::try_from(span.answer_start).ok();
                    let found: Option<String> =
                        start.and_then(|s| chars.get(s..s + len)).map(|c| c.iter().collect::<String>());
                    if found.as_deref() != Some(span.text.as_str()) {
                        if bad.is_empty() {
                            let there = found.unwrap_or_else(|| "past the paragraph's end".into());
                            bad.push(format!(
                                "{}: question {qid}: the answer {:?} at character {} is {:?} in its paragraph",
                                place(text, path, &qid),
                                span.text,
                                span.answer_start,
                                there
                            ));
                        } else {
                            bad.push(qid.clone());
                        }
                        continue;
                    }
                    if !gold.answers.contains(&span.text) {
                        gold.answers.push(span.text.clone());
                    }
                    gold.spans.push(GoldSpan { doc: id.clone(), start: start.unwrap_or(0), text: span.text.clone() });
                }
                if qa.is_impossible {
                    // v2.0: the plausible answers are not answers.
                    gold = Gold::default();
                } else if !gold.answers.is_empty() {
                    qrels.insert(&qid, &id, 1);
                }
                if answers.gold.contains_key(&qid) {
                    continue;
                }
                answers.gold.insert(qid.clone(), gold);
                answers.questions.push(Query { id: qid, text: qa.question.trim().to_string() });
            }
            docs.push(Doc {
                id,
                title: title.replace('_', " "),
                text: paragraph.context.clone(),
                fields: BTreeMap::from([("article".to_string(), title.clone())]),
            });
        }
    }
    if let Some(first) = bad.first() {
        let more = bad.len() - 1;
        let tail =
            if more > 0 { format!(" (and {more} more answers whose offsets do not match)") } else { String::new() };
        return Err(Error::invalid(first.clone(), format!("an answer's offset does not match its text{tail}")));
    }
    Ok(Squad { docs, answers, qrels })
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"{"version": "v2.0", "data": [{"title": "Mozart", "paragraphs": [
        {"context": "Mozart was born in Salzburg in 1756.", "qas": [
            {"id": "q1", "question": "Where was Mozart born?", "answers": [{"text": "Salzburg", "answer_start": 19}]},
            {"id": "q2", "question": "Where did Mozart die?", "answers": [], "is_impossible": true,
             "plausible_answers": [{"text": "Salzburg", "answer_start": 19}]}]},
        {"context": "Größe: he wrote 41 symphonies.", "qas": [
            {"id": "q3", "question": "How many symphonies?", "answers": [{"text": "41", "answer_start": 16}, {"text": "41 symphonies", "answer_start": 16}]}]}
    ]}]}"#;

    #[test]
    fn paragraphs_become_passages_and_answers_gold() {
        let s = parse(GOOD.as_bytes(), Path::new("dev.json")).unwrap();
        assert_eq!(s.docs.iter().map(|d| d.id.as_str()).collect::<Vec<_>>(), ["Mozart-0", "Mozart-1"]);
        assert_eq!(s.answers.format, AnswerFormat::SquadV2);
        assert_eq!(s.answers.gold["q1"].answers, ["Salzburg"]);
        assert_eq!(
            s.answers.gold["q1"].spans,
            [GoldSpan { doc: "Mozart-0".into(), start: 19, text: "Salzburg".into() }]
        );
        assert!(s.answers.gold["q2"].answers.is_empty(), "plausible answers are not answers");
        // Offsets count characters: "Größe" has two non-ASCII characters before the answer.
        assert_eq!(s.answers.gold["q3"].spans[0].start, 16);
        assert_eq!(s.qrels.grade("q1", "Mozart-0"), Some(1));
        assert_eq!(s.qrels.grade("q2", "Mozart-0"), None);
        assert_eq!(s.qrels.grade("q3", "Mozart-1"), Some(1));
        assert!(looks_like_squad(GOOD.as_bytes()));
        assert!(!looks_like_squad(b"{\"_id\": \"d1\", \"text\": \"x\"}"));
    }

    #[test]
    fn a_misplaced_answer_is_refused_with_its_line_column_and_question() {
        let bad = GOOD.replace("\"answer_start\": 16}]", "\"answer_start\": 15}]");
        let e = parse(bad.as_bytes(), Path::new("dev.json")).unwrap_err().to_string();
        assert!(e.contains("dev.json:7:") && e.contains("question q3") && e.contains("\" 41 symphonie\""), "{e}");
        assert!(e.contains("does not match"), "{e}");
        let past = GOOD.replace("\"answer_start\": 19}]},", "\"answer_start\": 900}]},");
        let e = parse(past.as_bytes(), Path::new("dev.json")).unwrap_err().to_string();
        assert!(e.contains("past the paragraph's end") && e.contains("question q1"), "{e}");
        let e = parse(b"{\"data\": 3}", Path::new("x.json")).unwrap_err().to_string();
        assert!(e.contains("x.json:1:") && e.contains("not SQuAD's JSON"), "{e}");
    }
}
