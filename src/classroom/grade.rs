//! The grader: every student's answers against the key, with feedback that names the usual
//! mistake an answer matches.

use serde::{Deserialize, Serialize};

use super::answers::{Answers, Unread};
use super::files::Key;
use crate::lessons::checkpoint::{Answer, AnswerKind, Verdict};
use crate::{Error, Result};

/// One line of feedback.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Feedback {
    /// The question.
    pub question: String,
    /// What was wrong, and the step that went wrong when a usual mistake matches.
    pub message: String,
}

/// A student's grade.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Grade {
    /// The student.
    pub student: String,
    /// Points scored (one per question right).
    pub score: u32,
    /// Points possible.
    pub max: u32,
    /// One line per question not right.
    pub feedback: Vec<Feedback>,
    /// Why this student has no grade (no answers handed in, or none that could be read): their
    /// row says so, and a gradebook leaves their grade empty rather than writing a 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub absent: Option<String>,
}

/// An answer that could not be read (text where a number belongs, an ambiguous `1,000`, a number
/// given for a choice): that question of that student is not graded, the others are.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NotGraded {
    /// The student.
    pub student: String,
    /// The question.
    pub question: String,
    /// Why, with the file and line it was read from.
    pub why: String,
}

/// The gradebook.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Gradebook {
    /// Files, rows and students that could not be graded at all — a file that is not an answers
    /// file, a row of the wrong shape, a student of the key with no answers, answers from someone
    /// not in the key — each with its file and line (listed first).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unread: Vec<Unread>,
    /// Answers that need a teacher's look before the grades stand (listed first).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_graded: Vec<NotGraded>,
    /// One grade per student of the key, in name order.
    pub students: Vec<Grade>,
}

/// Read an answer as the question's kind wants it: a number, an option, or options in order.
fn read_answer(kind: AnswerKind, v: &serde_json::Value, at: &str, question: &str) -> Result<Answer> {
    use serde_json::Value;
    let bad = |what: &str| Error::invalid(at, format!("{question}: {what}"));
    match (kind, v) {
        (AnswerKind::Number, Value::Number(n)) => n.as_f64().map(Answer::Number).ok_or_else(|| bad("not a number")),
        (AnswerKind::Ordering, Value::Array(a)) => a
            .iter()
            .map(|x| x.as_str().map(str::to_string).ok_or_else(|| bad("an ordering is a list of option names")))
            .collect::<Result<Vec<_>>>()
            .map(Answer::Ordering),
        (_, Value::String(s)) => Answer::parse(kind, s).map_err(|why| match kind {
            AnswerKind::Number => bad(&format!("wants a number: {why}")),
            _ => bad(&why),
        }),
        (AnswerKind::Number, other) => Err(bad(&format!("wants a number, not {other}"))),
        (_, other) => Err(bad(&format!("wants text, not {other}"))),
    }
}

/// One question of one student's variant, with what they answered and the checker's verdict
/// (`None` when they left it unanswered).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Item {
    /// The question's id.
    pub question: String,
    /// Its prompt.
    pub prompt: String,
    /// The key, as a person writes it.
    pub key: String,
    /// The answer as given, and the verdict.
    pub answer: Option<(String, Verdict)>,
    /// Why the answer given could not be read (then `answer` is `None` and it is not graded).
    pub unreadable: Option<String>,
}

/// A blank answer (`""`, white space, `null`) is no answer: "not answered", never a 0 read from it.
fn blank(v: &serde_json::Value) -> bool {
    v.is_null() || v.as_str().is_some_and(|s| s.trim().is_empty())
}

/// Every student's answers checked against the key, and what could not be used.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Verdicts {
    /// Student → each question of their variant, in the key's order (students with answers).
    pub items: std::collections::BTreeMap<String, Vec<Item>>,
    /// Students of the key with nothing to grade → why.
    pub absent: std::collections::BTreeMap<String, String>,
    /// Everything not used, with its file and line: the answers' unreadable files and rows, answers
    /// from someone not in the key or to a question not in it, the absent students.
    pub unread: Vec<Unread>,
}

/// Every student's answers checked against the key: student → each question of their variant, in
/// the key's order. Nothing stops the class: answers from a student not in the key, an unknown
/// question id and a student of the key with no answers are each listed in
/// [`Verdicts::unread`] with where they stand (never a silent zero), and an answer that cannot be
/// read (text where a number belongs) is that item's `unreadable`.
pub(crate) fn verdicts(key: &Key, answers: &Answers) -> Verdicts {
    let mut unread = answers.unread.clone();
    for (student, qs) in &answers.students {
        let Some(k) = key.students.get(student) else {
            let at = qs.values().next().map_or_else(|| "answers".to_string(), |(_, at)| at.clone());
            unread.push(Unread {
                at,
                student: Some(student.clone()),
                why: format!(
                    "{student:?} is not a student of this assignment (the key has {})",
                    key.students.keys().cloned().collect::<Vec<_>>().join(", ")
                ),
            });
            continue;
        };
        for (q, (_, at)) in qs {
            if !k.contains_key(q) {
                unread.push(Unread {
                    at: at.clone(),
                    student: Some(student.clone()),
                    why: format!(
                        "{q:?} is not a question of this assignment ({})",
                        k.keys().cloned().collect::<Vec<_>>().join(", ")
                    ),
                });
            }
        }
    }
    let mut absent = std::collections::BTreeMap::new();
    let mut items_by = std::collections::BTreeMap::new();
    for (student, k) in &key.students {
        let Some(given) = answers.students.get(student) else {
            // Their file was there and could not be read, or nothing of theirs was.
            let theirs = answers.unread.iter().find(|u| u.student.as_ref() == Some(student));
            let why = match theirs {
                Some(u) => format!("no answers could be read: {} ({})", u.at, u.why),
                None if answers.skipped.is_empty() => "no answers handed in".to_string(),
                None => format!(
                    "no answers handed in (the folder also holds {}, not .json answer files)",
                    answers.skipped.join(", ")
                ),
            };
            if theirs.is_none() {
                unread.push(Unread { at: "answers".into(), student: Some(student.clone()), why: why.clone() });
            }
            absent.insert(student.clone(), why);
            continue;
        };
        let mut items = Vec::new();
        for (qid, entry) in k {
            let (answer, unreadable) = match given.get(qid) {
                None => (None, None),
                Some((v, _)) if blank(v) => (None, None),
                Some((v, at)) => match read_answer(entry.question.kind, v, at, qid) {
                    Ok(answer) => (Some((answer.to_text(), entry.check(&answer))), None),
                    Err(e) => (None, Some(e.to_string())),
                },
            };
            items.push(Item {
                question: qid.clone(),
                prompt: entry.question.prompt.clone(),
                key: entry.solution.answer.to_text(),
                answer,
                unreadable,
            });
        }
        items_by.insert(student.clone(), items);
    }
    Verdicts { items: items_by, absent, unread }
}

/// Grade every student of the key who can be graded. A question left unanswered (or blank)
/// scores 0 and its feedback says so; one whose answer cannot be read is "not graded", listed in
/// [`Gradebook::not_graded`]; a file or row that cannot be read, answers from someone not in the
/// key and a student with no answers are listed in [`Gradebook::unread`] (the student's row says
/// they are absent) — and everyone else is graded.
pub fn grade(key: &Key, answers: &Answers) -> Result<Gradebook> {
    let mut students = Vec::new();
    let mut not_graded = Vec::new();
    let verdicts = verdicts(key, answers);
    for (student, why) in &verdicts.absent {
        let max = key.students.get(student).map_or(0, |k| k.len() as u32);
        let feedback = vec![Feedback { question: "all".into(), message: format!("not graded: {why}") }];
        students.push(Grade { student: student.clone(), score: 0, max, feedback, absent: Some(why.clone()) });
    }
    for (student, items) in verdicts.items {
        let mut score = 0;
        let mut feedback = Vec::new();
        for item in &items {
            match &item.answer {
                None if item.unreadable.is_some() => {
                    let why = item.unreadable.clone().unwrap_or_default();
                    feedback.push(Feedback { question: item.question.clone(), message: format!("not graded: {why}") });
                    not_graded.push(NotGraded { student: student.clone(), question: item.question.clone(), why });
                }
                None => feedback.push(Feedback { question: item.question.clone(), message: "not answered".into() }),
                Some((_, Verdict { correct: true, .. })) => score += 1,
                Some((_, v)) => feedback.push(Feedback { question: item.question.clone(), message: v.message.clone() }),
            }
        }
        students.push(Grade { student, score, max: items.len() as u32, feedback, absent: None });
    }
    students.sort_by(|a, b| a.student.cmp(&b.student));
    Ok(Gradebook { unread: verdicts.unread, not_graded, students })
}

impl Grade {
    /// The grade as a gradebook cell: the score, or empty for an absent student (never a 0 an
    /// import would record).
    pub fn grade_cell(&self) -> String {
        if self.absent.is_some() { String::new() } else { self.score.to_string() }
    }
}

impl Gradebook {
    /// Does anything need the teacher's look before the grades stand?
    pub fn needs_look(&self) -> bool {
        !self.unread.is_empty() || !self.not_graded.is_empty()
    }

    /// What could not be read, one line each with its file and line (empty when everything was).
    pub fn needs_a_look(&self) -> String {
        if !self.needs_look() {
            return String::new();
        }
        let mut out = String::from("Needs a look:\n");
        for u in &self.unread {
            out.push_str(&format!("  {}\n", u.line()));
        }
        if !self.not_graded.is_empty() {
            out.push_str(&format!("  {} answer(s) could not be read and were not graded:\n", self.not_graded.len()));
        }
        for n in &self.not_graded {
            out.push_str(&format!("  {} {}: {}\n", n.student, n.question, n.why));
        }
        out.push('\n');
        out
    }

    /// As CSV: `student,score,max,feedback` (the feedback lines joined by ` | `).
    pub fn to_csv(&self) -> String {
        let mut w = csv::Writer::from_writer(Vec::new());
        let _ = w.write_record(["student", "score", "max", "feedback"]);
        for g in &self.students {
            let fb: Vec<String> = g.feedback.iter().map(|f| format!("{}: {}", f.question, f.message)).collect();
            let _ = w.write_record([g.student.clone(), g.grade_cell(), g.max.to_string(), fb.join(" | ")]);
        }
        String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
    }

    /// As a table for the terminal, the answers that need a look first.
    pub fn to_table(&self) -> String {
        let width = self.students.iter().map(|g| g.student.chars().count()).max().unwrap_or(7).max(7);
        let mut out = self.needs_a_look();
        out.push_str(&format!("{:<width$}  score\n", "student"));
        for g in &self.students {
            match &g.absent {
                Some(_) => out.push_str(&format!("{:<width$}  —/{} (not graded)\n", g.student, g.max)),
                None => out.push_str(&format!("{:<width$}  {}/{}\n", g.student, g.score, g.max)),
            }
            for f in &g.feedback {
                out.push_str(&format!("{:<width$}    {}: {}\n", "", f.question, f.message));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_answer_is_read_as_its_question_wants_or_refused_naming_the_question() {
        let read = |kind, v: serde_json::Value| read_answer(kind, &v, "Ada.json", "q2");
        assert_eq!(read(AnswerKind::Number, json!(0.5)).unwrap(), Answer::Number(0.5));
        assert_eq!(read(AnswerKind::Number, json!("1,5")).unwrap(), Answer::Number(1.5));
        assert_eq!(read(AnswerKind::Choice, json!("d2")).unwrap(), Answer::Choice("d2".into()));
        assert_eq!(
            read(AnswerKind::Ordering, json!(["d2", "d1"])).unwrap(),
            Answer::Ordering(vec!["d2".into(), "d1".into()])
        );
        assert_eq!(
            read(AnswerKind::Ordering, json!("d2 > d1")).unwrap(),
            Answer::Ordering(vec!["d2".into(), "d1".into()])
        );
        let why = |kind, v: serde_json::Value| read(kind, v).unwrap_err().to_string();
        let e = why(AnswerKind::Number, json!("two"));
        assert!(e.contains("Ada.json") && e.contains("q2: wants a number: \"two\" is not a number"), "{e}");
        assert!(why(AnswerKind::Number, json!(true)).contains("q2: wants a number, not true"));
        assert!(why(AnswerKind::Choice, json!(3)).contains("q2: wants text, not 3"));
        assert!(why(AnswerKind::Choice, json!("  ")).contains("q2: no answer"));
        assert!(why(AnswerKind::Ordering, json!(["d2", 1])).contains("q2: an ordering is a list of option names"));
    }

    #[test]
    fn a_gradebook_is_written_as_csv_and_as_a_table() {
        let fb = |q: &str, m: &str| Feedback { question: q.into(), message: m.into() };
        let book = Gradebook {
            unread: Vec::new(),
            not_graded: Vec::new(),
            students: vec![
                Grade { student: "Ada".into(), score: 2, max: 2, feedback: vec![], absent: None },
                Grade {
                    student: "Bartholomew".into(),
                    score: 0,
                    max: 2,
                    feedback: vec![fb("q1", "not answered"), fb("q2", "1.386 is what you get with ln, not log2")],
                    absent: None,
                },
            ],
        };
        assert_eq!(
            book.to_csv(),
            "student,score,max,feedback\nAda,2,2,\n\
             Bartholomew,0,2,\"q1: not answered | q2: 1.386 is what you get with ln, not log2\"\n"
        );
        // Names padded to the longest (11), two spaces, score/max; feedback indented past the names.
        assert_eq!(
            book.to_table(),
            [
                "student      score",
                "Ada          2/2",
                "Bartholomew  0/2",
                "               q1: not answered",
                "               q2: 1.386 is what you get with ln, not log2",
            ]
            .map(|l| format!("{l}\n"))
            .concat()
        );
    }
}
