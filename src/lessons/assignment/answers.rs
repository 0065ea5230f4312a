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
    Ok(f.answers.into_iter().map(|(q, v)| (q, (v, source.to_string()))).collect())
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
