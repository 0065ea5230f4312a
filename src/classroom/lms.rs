//! Exchange with the systems teachers keep grades in. Out: the gradebook as CSV in the column
//! shape Moodle's grade import and Canvas's gradebook import read (the roster's identifier
//! columns, when it has them, carried through). In: a Moodle quiz's *Responses* report (the quiz
//! made by `ranklens lesson NAME --format moodle`), read as every student's answers to the
//! lesson's checkpoints, so the offline grader and the class report work on it.

use std::collections::BTreeMap;
use std::path::Path;

use super::answers::Answers;
use super::files::Key;
use super::grade::Gradebook;
use super::roster::csv_rows;
use crate::lessons::checkpoint::Checkpoint;
use crate::{Error, Result};

/// A roster's columns beyond the name, by lower-cased header (`email`, `id`, `sis user id`,
/// `section`): student → column → value. Empty when the roster has no header row.
pub fn roster_columns(bytes: &[u8], source: &str) -> Result<BTreeMap<String, BTreeMap<String, String>>> {
    let rows = csv_rows(bytes, source)?;
    let Some((_, _, header)) = rows.first() else { return Ok(BTreeMap::new()) };
    let names: Vec<String> = header.iter().map(|h| h.trim().to_lowercase()).collect();
    if !matches!(names.first().map(String::as_str), Some("name" | "student" | "student name" | "full name")) {
        return Ok(BTreeMap::new());
    }
    let mut out = BTreeMap::new();
    for (_, _, record) in rows.iter().skip(1) {
        let student = record.get(0).unwrap_or("").trim().to_string();
        let columns = names.iter().zip(record.iter()).skip(1).map(|(h, v)| (h.clone(), v.trim().to_string())).collect();
        out.insert(student, columns);
    }
    Ok(out)
}

/// Which gradebook a teacher imports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lms {
    /// Moodle's grade import.
    Moodle,
    /// Canvas's gradebook import.
    Canvas,
}

/// The class's gradebook in `lms`'s import shape: each student graded against the key, the
/// roster's identifier columns carried through when a roster (its bytes and where they came from)
/// is given. What `ranklens assignment grade --format moodle|canvas` prints and the app's class
/// report saves.
pub fn gradebook_csv(key: &Key, answers: &Answers, roster: Option<(&[u8], &str)>, lms: Lms) -> Result<String> {
    let book = super::grade::grade(key, answers)?;
    let ids = match roster {
        Some((bytes, source)) => roster_columns(bytes, source)?,
        None => BTreeMap::new(),
    };
    let item = format!("{} assignment (RankLens)", key.lesson);
    Ok(match lms {
        Lms::Moodle => book.to_moodle_csv(&item, &ids),
        Lms::Canvas => book.to_canvas_csv(&item, &ids),
    })
}

fn column<'a>(ids: &'a BTreeMap<String, BTreeMap<String, String>>, student: &str, names: &[&str]) -> &'a str {
    ids.get(student).and_then(|c| names.iter().find_map(|n| c.get(*n))).map_or("", String::as_str)
}

impl Gradebook {
    /// For Moodle's grade import (Grades → Import → CSV file): `Student,Email address,ID number,
    /// <item>` — map *Email address* (or *ID number*) to the user and `<item>` to the grade item.
    pub fn to_moodle_csv(&self, item: &str, ids: &BTreeMap<String, BTreeMap<String, String>>) -> String {
        let mut w = csv::Writer::from_writer(Vec::new());
        let _ = w.write_record(["Student", "Email address", "ID number", item]);
        for g in &self.students {
            let email = column(ids, &g.student, &["email", "email address", "e-mail"]);
            let id = column(ids, &g.student, &["id number", "idnumber", "id"]);
            let _ = w.write_record([g.student.as_str(), email, id, &g.grade_cell()]);
        }
        String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
    }

    /// For Canvas's gradebook import: `Student,ID,SIS User ID,SIS Login ID,Section,<item>`, a
    /// *Points Possible* row, then one row per student (Canvas matches on the ID columns, which the
    /// roster must carry for it: export them from Canvas's own gradebook).
    pub fn to_canvas_csv(&self, item: &str, ids: &BTreeMap<String, BTreeMap<String, String>>) -> String {
        let mut w = csv::Writer::from_writer(Vec::new());
        let _ = w.write_record(["Student", "ID", "SIS User ID", "SIS Login ID", "Section", item]);
        let max = self.students.iter().map(|g| g.max).max().unwrap_or(0);
        let _ = w.write_record(["Points Possible", "", "", "", "", &max.to_string()]);
        for g in &self.students {
            let _ = w.write_record([
                g.student.as_str(),
                column(ids, &g.student, &["id", "canvas id"]),
                column(ids, &g.student, &["sis user id"]),
                column(ids, &g.student, &["sis login id", "email"]),
                column(ids, &g.student, &["section"]),
                &g.grade_cell(),
            ]);
        }
        String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
    }
}

/// Read a Moodle quiz's Responses report (CSV): each row a student (`First name` and `Surname`
/// or `Last name`, or `Full name`), each `Response N` column their answer to the quiz's Nth
/// question, which is the Nth of `checkpoints`. Returns the key (every student the same
/// questions) and the answers, for [`super::grade`] and [`super::class_report`]. A row that is
/// not a student's (Moodle's "Overall average") is skipped; a blank or `-` response is no answer.
pub fn read_moodle_responses(
    bytes: &[u8],
    source: &str,
    lesson: &str,
    checkpoints: &[Checkpoint],
) -> Result<(Key, Answers)> {
    let rows = csv_rows(bytes, source)?;
    let Some((_, _, header)) = rows.first() else { return Err(Error::invalid(source, "an empty file")) };
    let names: Vec<String> = header.iter().map(|h| h.trim().to_lowercase()).collect();
    let find = |wanted: &[&str]| names.iter().position(|n| wanted.contains(&n.as_str()));
    let first = find(&["first name"]);
    let last = find(&["surname", "last name"]);
    let full = find(&["full name", "name", "student"]);
    if first.is_none() && full.is_none() {
        return Err(Error::invalid(
            format!("{source}:1"),
            "no `First name` (or `Full name`) column: is this a Moodle quiz's Responses report?",
        ));
    }
    let mut responses: Vec<(usize, usize)> = Vec::new();
    for (i, n) in names.iter().enumerate() {
        if let Some(k) = n.strip_prefix("response ").and_then(|k| k.trim().parse::<usize>().ok()) {
            responses.push((i, k));
        }
    }
    if responses.is_empty() {
        return Err(Error::invalid(format!("{source}:1"), "no `Response N` column"));
    }
    if let Some((_, k)) = responses.iter().find(|(_, k)| *k == 0 || *k > checkpoints.len()) {
        return Err(Error::invalid(
            format!("{source}:1"),
            format!("`Response {k}`: the {lesson} quiz has {} questions", checkpoints.len()),
        ));
    }
    let mut answers = Answers::default();
    for (_, line, record) in rows.iter().skip(1) {
        let get = |i: Option<usize>| i.and_then(|i| record.get(i)).unwrap_or("").trim();
        let student = match (get(full), get(first), get(last)) {
            (f, "", "") => f.to_string(),
            (_, a, b) => format!("{a} {b}").trim().to_string(),
        };
        if student.is_empty() || student.to_lowercase().contains("overall average") {
            continue;
        }
        let at = format!("{source}:{line}");
        let mine: &mut BTreeMap<String, (serde_json::Value, String)> = answers.students.entry(student).or_default();
        for &(i, k) in &responses {
            let given = record.get(i).unwrap_or("").trim();
            if given.is_empty() || given == "-" {
                continue;
            }
            let id = checkpoints[k - 1].question.id.clone();
            mine.insert(id, (serde_json::Value::String(given.replace(';', ",")), at.clone()));
        }
    }
    if answers.students.is_empty() {
        return Err(Error::invalid(source, "no student's row"));
    }
    let per_student: BTreeMap<String, Checkpoint> =
        checkpoints.iter().map(|c| (c.question.id.clone(), c.clone())).collect();
    let students: BTreeMap<String, BTreeMap<String, Checkpoint>> =
        answers.students.keys().map(|s| (s.clone(), per_student.clone())).collect();
    let checksum = Key::compute_checksum(lesson, 0, &students);
    Ok((Key { lesson: lesson.to_string(), seed: 0, students, checksum }, answers))
}

/// [`read_moodle_responses`] of a file.
pub fn read_moodle_responses_file(path: &Path, lesson: &str, checkpoints: &[Checkpoint]) -> Result<(Key, Answers)> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    read_moodle_responses(&bytes, &path.display().to_string(), lesson, checkpoints)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lessons::checkpoint::{Answer, AnswerKind, Mistake, Question, Solution};

    fn quiz() -> Vec<Checkpoint> {
        let q = |id: &str, kind, answer, options: Vec<String>, mistakes| Checkpoint {
            question: Question {
                id: id.into(),
                prompt: id.into(),
                kind,
                data: serde_json::Value::Null,
                options,
                tolerance: 0.005,
            },
            solution: Solution { answer, steps: vec![], mistakes },
        };
        vec![
            q(
                "idf",
                AnswerKind::Number,
                Answer::Number(2.0),
                vec![],
                vec![Mistake { name: "ln instead of log2".into(), value: 4f64.ln() }],
            ),
            q("first", AnswerKind::Choice, Answer::Choice("d2".into()), vec!["d1".into(), "d2".into()], vec![]),
            q(
                "order",
                AnswerKind::Ordering,
                Answer::Ordering(vec!["a".into(), "b".into(), "c".into()]),
                vec!["c".into(), "a".into(), "b".into()],
                vec![],
            ),
        ]
    }

    #[test]
    fn a_moodle_responses_report_is_graded_against_the_lessons_checkpoints() {
        let csv = "Surname,First name,Email address,State,Started on,Completed,Time taken,Grade/3.00,Response 1,Response 2,Response 3\n\
                   Lovelace,Ada,ada@x.org,Finished,1 Dec,1 Dec,5 mins,3.00,2,d2,a; b; c\n\
                   Turing,Alan,alan@x.org,Finished,1 Dec,1 Dec,5 mins,0.00,\"1,3863\",d1,-\n\
                   Overall average,,,,,,,1.50,,,\n";
        let (key, answers) = read_moodle_responses(csv.as_bytes(), "responses.csv", "tfidf", &quiz()).unwrap();
        assert_eq!(key.students.keys().collect::<Vec<_>>(), ["Ada Lovelace", "Alan Turing"]);
        let book = crate::classroom::grade(&key, &answers).unwrap();
        let scores: Vec<(&str, u32)> = book.students.iter().map(|g| (g.student.as_str(), g.score)).collect();
        assert_eq!(scores, [("Ada Lovelace", 3), ("Alan Turing", 0)]);
        let report = crate::classroom::class_report(&key, &answers).unwrap();
        let q = |id: &str| report.questions.iter().find(|q| q.id == id).unwrap();
        assert_eq!(q("idf").mistakes[0].students, ["Alan Turing"], "1,3863 is ln 4 with a decimal comma");
        assert_eq!(q("order").unanswered, ["Alan Turing"], "`-` is Moodle's blank");
        let e = read_moodle_responses(b"a,b\n1,2\n", "r.csv", "tfidf", &quiz()).unwrap_err().to_string();
        assert!(e.contains("r.csv:1") && e.contains("First name"), "{e}");
        let e = read_moodle_responses(b"First name,Response 4\nA,1\n", "r.csv", "tfidf", &quiz()).unwrap_err();
        assert!(e.to_string().contains("has 3 questions"), "{e}");
    }

    #[test]
    fn the_gradebook_comes_out_in_moodles_and_canvass_shapes_with_the_rosters_ids() {
        let book = Gradebook {
            unread: Vec::new(),
            not_graded: Vec::new(),
            students: vec![
                crate::classroom::Grade { student: "Ada".into(), score: 3, max: 4, feedback: vec![], absent: None },
                crate::classroom::Grade { student: "Bob".into(), score: 1, max: 4, feedback: vec![], absent: None },
                // No answers from Cy: the grade cell is empty, never a 0 the import would record.
                crate::classroom::Grade {
                    student: "Cy".into(),
                    score: 0,
                    max: 4,
                    feedback: vec![],
                    absent: Some("no answers handed in".into()),
                },
            ],
        };
        let ids = roster_columns(
            b"Name,Email,ID,SIS User ID,Section\nAda,ada@x.org,101,S1,A\nBob,bob@x.org,102,S2,B\n",
            "r.csv",
        )
        .unwrap();
        assert_eq!(
            book.to_moodle_csv("BM25 assignment", &ids),
            "Student,Email address,ID number,BM25 assignment\nAda,ada@x.org,101,3\nBob,bob@x.org,102,1\nCy,,,\n"
        );
        assert_eq!(
            book.to_canvas_csv("BM25 assignment", &ids),
            "Student,ID,SIS User ID,SIS Login ID,Section,BM25 assignment\nPoints Possible,,,,,4\n\
             Ada,101,S1,ada@x.org,A,3\nBob,102,S2,bob@x.org,B,1\nCy,,,,,\n"
        );
        // A roster with no header carries no ids: the columns stay empty.
        assert!(roster_columns(b"Ada\nBob\n", "r.csv").unwrap().is_empty());
    }
}
