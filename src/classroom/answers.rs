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
    /// What could not be read — a `.json` file that is not an answers file, a CSV row of the wrong
    /// shape — each named with its file and line: listed for the teacher, the rest still graded.
    pub unread: Vec<Unread>,
}

/// Something a grading could not use, for the teacher's look: a file, a row, an absent student.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Unread {
    /// Where: the file and line (`ans.csv:7`), or `answers` for what is missing altogether.
    pub at: String,
    /// Whose answers it holds or lacks, where that is known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub student: Option<String>,
    /// Why it was not used.
    pub why: String,
}

impl Unread {
    /// One line: where, whose, why.
    pub fn line(&self) -> String {
        match &self.student {
            Some(s) => format!("{} ({s}): {}", self.at, self.why),
            None => format!("{}: {}", self.at, self.why),
        }
    }
}

/// An error's place and message, split (`file:line: message` as [`Error::invalid`] prints it).
fn unread_of(e: &Error, student: Option<&str>, fallback: &str) -> Unread {
    let (at, why) = match e {
        Error::Invalid { location, message } => (location.clone(), message.clone()),
        other => (fallback.to_string(), other.to_string()),
    };
    Unread { at, student: student.map(str::to_string), why }
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
            // A file that cannot be read or is not an answers file stops no one else's grading:
            // it is named, and its student is graded as having handed in nothing readable.
            let source = file.display().to_string();
            let parsed = std::fs::read(&file)
                .map_err(|e| Error::io(&file, e))
                .and_then(|bytes| parse_answer_file(&bytes, &source));
            match parsed {
                Ok(answers) => {
                    out.students.insert(student, answers);
                }
                Err(e) => out.unread.push(unread_of(&e, Some(&student), &source)),
            }
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
        // A row of the wrong shape is named and skipped; the other rows are read.
        let first = record.get(0).map(str::trim).filter(|s| !s.is_empty()).map(str::to_string);
        let mut skip = |why: String| out.unread.push(Unread { at: at.clone(), student: first.clone(), why });
        if record.len() != 3 {
            let hint = if record.len() > 3 { " (a number with a comma, like 1,000, must be in quotes)" } else { "" };
            skip(format!("expected 3 fields (student,question,answer), found {}{hint}", record.len()));
            continue;
        }
        let (student, question, answer) = (record[0].trim(), record[1].trim(), record[2].trim());
        if student.is_empty() || question.is_empty() {
            skip("the student and the question must not be empty".into());
            continue;
        }
        if out.students.get(student).is_some_and(|a| a.contains_key(question)) {
            skip(format!("{student} answers {question} twice (the first answer is graded)"));
            continue;
        }
        let answers = out.students.entry(student.to_string()).or_default();
        answers.insert(question.to_string(), (serde_json::Value::String(answer.to_string()), at));
    }
    if out.students.is_empty() && out.unread.is_empty() {
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
        // A file that is not the answers' shape is named with its line, and the others are still read.
        std::fs::write(dir.path().join("Di.json"), "{\n\"answer\": {}}").unwrap();
        std::fs::write(dir.path().join("Ed.json"), "not json at all").unwrap();
        let a = read_answers(dir.path()).unwrap();
        assert_eq!(a.students.keys().collect::<Vec<_>>(), ["Ada", "Bo"]);
        let named: Vec<(String, Option<String>)> =
            a.unread.iter().map(|u| (u.at.rsplit('/').next().unwrap().to_string(), u.student.clone())).collect();
        assert_eq!(named, [("Di.json:2".into(), Some("Di".into())), ("Ed.json:1".into(), Some("Ed".into()))]);
        assert!(a.unread[0].why.contains("expected {\"answers\""), "{:?}", a.unread[0]);
    }

    #[test]
    fn a_csv_gives_each_row_as_an_answer_read_where_it_stands() {
        let a = parse_answers_csv(b"student,question,answer\nAda,q1,2\nAda,q2, d3 \nBo,q1,1.5\n", "a.csv").unwrap();
        assert_eq!(a.students["Ada"]["q2"], (serde_json::json!("d3"), "a.csv:3".to_string()));
        assert_eq!(a.students["Bo"]["q1"].1, "a.csv:4");
        // A bad row is named with its line and skipped; the rows around it are read.
        let unread = |b: &[u8]| {
            let a = parse_answers_csv(b, "a.csv").unwrap();
            a.unread.iter().map(|u| format!("{}: {}", u.at, u.why)).collect::<Vec<_>>()
        };
        assert_eq!(unread(b"Ada,q1,2\nAda,q1,3\n"), ["a.csv:2: Ada answers q1 twice (the first answer is graded)"]);
        assert_eq!(unread(b"Ada,q1\nBo,q1,2\n"), ["a.csv:1: expected 3 fields (student,question,answer), found 2"]);
        assert_eq!(unread(b",q1,2\nBo,q1,2\n"), ["a.csv:1: the student and the question must not be empty"]);
        let a = parse_answers_csv(b"Ada,q3,1,000\nAda,q1,2\n", "a.csv").unwrap();
        assert_eq!(a.students["Ada"].keys().collect::<Vec<_>>(), ["q1"]);
        assert_eq!(a.unread[0].student.as_deref(), Some("Ada"));
        assert!(a.unread[0].why.contains("found 4 (a number with a comma, like 1,000, must be in quotes)"));
        let e = parse_answers_csv(b"student,question,answer\n", "a.csv").unwrap_err().to_string();
        assert!(e.contains("no answers"), "{e}");
    }

    #[test]
    fn a_rows_line_is_the_one_an_editor_shows_past_blank_lines_and_quoted_line_breaks() {
        // Line 1 the header, 3 blank, 4–5 one answer with a line break inside its quotes: ben's
        // "1,000" stands on line 6 and the row of four fields on line 7.
        let csv = b"student,question,answer\nada,q1,3\n\nada,q2,\"two\nlines\"\nben,q1,\"1,000\"\nben,q2,x,y\n";
        let read = parse_answers_csv(csv, "ans.csv").unwrap();
        assert_eq!(read.unread.len(), 1);
        assert!(read.unread[0].at == "ans.csv:7" && read.unread[0].why.contains("found 4"), "{:?}", read.unread);
        let ok = parse_answers_csv(&csv[..csv.len() - 11], "ans.csv").unwrap();
        assert_eq!(ok.students["ada"]["q1"].1, "ans.csv:2");
        assert_eq!(ok.students["ada"]["q2"], (serde_json::json!("two\nlines"), "ans.csv:4".to_string()));
        assert_eq!(ok.students["ben"]["q1"], (serde_json::json!("1,000"), "ans.csv:6".to_string()));
        // Windows line ends and blank lines of spaces count the same way.
        let crlf = b"student,question,answer\r\n\r\n  \r\nbo,q1,2\r\n";
        assert_eq!(parse_answers_csv(crlf, "w.csv").unwrap().students["bo"]["q1"].1, "w.csv:4");
    }
}
