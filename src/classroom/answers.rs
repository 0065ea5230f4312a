//! The students' answers: a folder of `<student>.json` files, or one CSV.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::roster::csv_rows;
use crate::{Error, Result};

/// Every student's answers: student → question id → (answer, where it was read).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Answers {
    /// student → question → (the raw answer, the file and line it came from).
    pub students: BTreeMap<String, BTreeMap<String, (serde_json::Value, String)>>,
    /// Files of an answers folder that are not `.json` answer files (a student's `notes.txt`, an
    /// `Ada.docx`): read by no one, and named when a student's answers are missing.
    pub skipped: Vec<String>,
}

/// One student's `<student>.json`: `{"answers": {"<question id>": value}}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AnswerFile {
    answers: BTreeMap<String, serde_json::Value>,
}

/// Read a folder of `<student>.json` files, or one CSV (`student,question,answer`).
pub fn read_answers(path: &Path) -> Result<Answers> {
    if path.is_dir() {
        let mut out = Answers::default();
        let (mut entries, skipped): (Vec<PathBuf>, Vec<PathBuf>) = std::fs::read_dir(path)
            .map_err(|e| Error::io(path, e))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file())
            .partition(|p| p.extension().is_some_and(|x| x == "json"));
        entries.sort();
        out.skipped = skipped.iter().filter_map(|p| Some(p.file_name()?.to_string_lossy().to_string())).collect();
        out.skipped.sort();
        if entries.is_empty() {
            return Err(Error::invalid(path.display().to_string(), "no <student>.json answer file in this folder"));
        }
        for file in entries {
            let student = file.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
            let bytes = std::fs::read(&file).map_err(|e| Error::io(&file, e))?;
            let answers = parse_answer_file(&bytes, &file.display().to_string())?;
            out.students.insert(student, answers);
        }
        Ok(out)
    } else {
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        parse_answers_csv(&bytes, &path.display().to_string())
    }
}

/// Parse one student's answer file.
pub fn parse_answer_file(bytes: &[u8], source: &str) -> Result<BTreeMap<String, (serde_json::Value, String)>> {
    let f: AnswerFile = serde_json::from_slice(bytes).map_err(|e| {
        Error::invalid(
            format!("{source}:{}", e.line()),
            format!("expected {{\"answers\": {{\"<question id>\": value}}}}: {e}"),
        )
    })?;
    // Each answer is named by the line its question id stands on (the first `"id"` followed by a
    // colon), so an error points at the answer, not at the file's first line.
    let text = String::from_utf8_lossy(bytes);
    let line_of = |q: &str| -> Option<usize> {
        let quoted = serde_json::to_string(q).ok()?;
        let mut from = 0;
        while let Some(i) = text.get(from..)?.find(&quoted) {
            let at = from + i;
            let rest = text.get(at + quoted.len()..)?.trim_start();
            if rest.starts_with(':') {
                return Some(text[..at].matches('\n').count() + 1);
            }
            from = at + quoted.len();
        }
        None
    };
    Ok(f.answers
        .into_iter()
        .map(|(q, v)| {
            let at = line_of(&q).map_or_else(|| source.to_string(), |l| format!("{source}:{l}"));
            (q, (v, at))
        })
        .collect())
}

/// Parse a CSV of `student,question,answer` (a header row allowed).
pub fn parse_answers_csv(bytes: &[u8], source: &str) -> Result<Answers> {
    let mut out = Answers::default();
    for (i, line, record) in csv_rows(bytes, source)? {
        let at = format!("{source}:{line}");
        if i == 0 && record.get(0).is_some_and(|f| f.trim().eq_ignore_ascii_case("student")) {
            continue;
        }
        if record.len() != 3 {
            return Err(Error::invalid(
                at,
                format!("expected 3 fields (student,question,answer), found {}", record.len()),
            ));
        }
        let (student, question, answer) = (record[0].trim(), record[1].trim(), record[2].trim());
        if student.is_empty() || question.is_empty() {
            return Err(Error::invalid(at, "the student and the question must not be empty"));
        }
        let answers = out.students.entry(student.to_string()).or_default();
        if answers.contains_key(question) {
            return Err(Error::invalid(at, format!("{student} answers {question} twice")));
        }
        answers.insert(question.to_string(), (serde_json::Value::String(answer.to_string()), at));
    }
    if out.students.is_empty() {
        return Err(Error::invalid(source, "no answers"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_gives_each_json_file_as_a_student_and_names_the_other_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("Ada.json"), r#"{"answers": {"q1": 2.0, "q2": "d3"}}"#).unwrap();
        std::fs::write(dir.path().join("Bo.json"), r#"{"answers": {}}"#).unwrap();
        std::fs::write(dir.path().join("notes.txt"), "not answers").unwrap();
        std::fs::write(dir.path().join("Cy.docx"), "a Word file").unwrap();
        std::fs::create_dir(dir.path().join("drafts.json")).unwrap();
        let a = read_answers(dir.path()).unwrap();
        assert_eq!(a.students.keys().collect::<Vec<_>>(), ["Ada", "Bo"]);
        assert_eq!(a.skipped, ["Cy.docx", "notes.txt"]);
        let ada = &a.students["Ada"];
        assert_eq!(ada["q1"].0, serde_json::json!(2.0));
        assert_eq!(ada["q2"].0, serde_json::json!("d3"));
        assert!(ada["q1"].1.ends_with("Ada.json:1"), "{}", ada["q1"].1);
        assert!(a.students["Bo"].is_empty());
        // A folder with no answer file, and a file that is not the answers' shape, are refused by name.
        let empty = tempfile::tempdir().unwrap();
        std::fs::write(empty.path().join("notes.txt"), "x").unwrap();
        assert!(read_answers(empty.path()).unwrap_err().to_string().contains("no <student>.json answer file"));
        std::fs::write(dir.path().join("Di.json"), "{\n\"answer\": {}}").unwrap();
        let e = read_answers(dir.path()).unwrap_err().to_string();
        assert!(e.contains("Di.json:2") && e.contains("expected {\"answers\""), "{e}");
    }

    #[test]
    fn a_csv_gives_each_row_as_an_answer_read_where_it_stands() {
        let a = parse_answers_csv(b"student,question,answer\nAda,q1,2\nAda,q2, d3 \nBo,q1,1.5\n", "a.csv").unwrap();
        assert_eq!(a.students["Ada"]["q2"], (serde_json::json!("d3"), "a.csv:3".to_string()));
        assert_eq!(a.students["Bo"]["q1"].1, "a.csv:4");
        let e = |b: &[u8]| parse_answers_csv(b, "a.csv").unwrap_err().to_string();
        assert!(e(b"Ada,q1,2\nAda,q1,3\n").contains("a.csv:2") && e(b"Ada,q1,2\nAda,q1,3\n").contains("twice"));
        assert!(e(b"Ada,q1\n").contains("expected 3 fields"));
        assert!(e(b",q1,2\n").contains("must not be empty"));
        assert!(e(b"student,question,answer\n").contains("no answers"));
    }
}
