//! The class report: what a class got wrong, question by question — the share right, each named
//! mistake with how many made it and who, the wrong answers that match no known mistake (for the
//! teacher to read), the questions left unanswered — and the distribution of scores. Built from the
//! same verdicts as the gradebook, so the two never disagree.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::{Deserialize, Serialize};

use super::answers::Answers;
use super::files::Key;
use super::grade::verdicts;
use crate::Result;
use crate::markup::escape_html as escape;

/// A named mistake and who made it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MistakeCount {
    /// The mistake (`ln instead of log2`).
    pub name: String,
    /// How many students made it.
    pub count: usize,
    /// Who, in name order.
    pub students: Vec<String>,
}

/// A wrong answer that matches no known mistake.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Unmatched {
    /// Who wrote it.
    pub student: String,
    /// What they wrote.
    pub answer: String,
    /// Their variant's key.
    pub key: String,
}

/// One question over the class.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QuestionReport {
    /// The question's id (the same in every variant).
    pub id: String,
    /// Its prompt in the first variant (the others differ in their data).
    pub prompt: String,
    /// Students who answered it right.
    pub right: usize,
    /// Students who answered it.
    pub answered: usize,
    /// Students who were asked it.
    pub students: usize,
    /// Each named mistake, most made first.
    pub mistakes: Vec<MistakeCount>,
    /// Wrong answers no known mistake explains.
    pub unmatched: Vec<Unmatched>,
    /// Students who left it unanswered.
    pub unanswered: Vec<String>,
    /// Answers that could not be read, each `student: why` (with the file and line): not graded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_graded: Vec<String>,
}

/// A student's score.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Score {
    /// The student.
    pub student: String,
    /// Points.
    pub score: u32,
    /// Points possible.
    pub max: u32,
}

/// The class report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClassReport {
    /// The lesson.
    pub lesson: String,
    /// One entry per question, in the key's order.
    pub questions: Vec<QuestionReport>,
    /// Every student's score, in name order.
    pub scores: Vec<Score>,
    /// How many students scored each number of points, from 0 to the most possible (the graded
    /// students: an absent one is in `unread`, not a 0 here).
    pub distribution: Vec<usize>,
    /// Files, rows and students that could not be graded, each with its file and line.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unread: Vec<super::answers::Unread>,
}

/// The class report of `answers` against `key`: the graded students counted, and what could not
/// be graded (an unreadable file or row, an unknown student or question, an absent student) listed
/// with where it stands — nothing counted silently.
pub fn class_report(key: &Key, answers: &Answers) -> Result<ClassReport> {
    let verdicts = verdicts(key, answers);
    let by_student = &verdicts.items;
    let mut questions: Vec<QuestionReport> = Vec::new();
    let mut scores = Vec::new();
    for (student, items) in by_student {
        let mut score = 0;
        for item in items {
            let q = match questions.iter_mut().find(|q| q.id == item.question) {
                Some(q) => q,
                None => {
                    questions.push(QuestionReport {
                        id: item.question.clone(),
                        prompt: item.prompt.clone(),
                        right: 0,
                        answered: 0,
                        students: 0,
                        mistakes: Vec::new(),
                        unmatched: Vec::new(),
                        unanswered: Vec::new(),
                        not_graded: Vec::new(),
                    });
                    let last = questions.len() - 1;
                    &mut questions[last]
                }
            };
            q.students += 1;
            if let Some(why) = &item.unreadable {
                q.not_graded.push(format!("{student}: {why}"));
                continue;
            }
            let Some((given, verdict)) = &item.answer else {
                q.unanswered.push(student.clone());
                continue;
            };
            q.answered += 1;
            if verdict.correct {
                q.right += 1;
                score += 1;
                continue;
            }
            match &verdict.mistake {
                Some(name) => match q.mistakes.iter_mut().find(|m| &m.name == name) {
                    Some(m) => {
                        m.count += 1;
                        m.students.push(student.clone());
                    }
                    None => {
                        q.mistakes.push(MistakeCount { name: name.clone(), count: 1, students: vec![student.clone()] })
                    }
                },
                None => q.unmatched.push(Unmatched {
                    student: student.clone(),
                    answer: given.clone(),
                    key: item.key.clone(),
                }),
            }
        }
        scores.push(Score { student: student.clone(), score, max: items.len() as u32 });
    }
    for q in &mut questions {
        q.mistakes.sort_by(|a, b| b.count.cmp(&a.count).then(a.name.cmp(&b.name)));
    }
    let most = scores.iter().map(|s| s.max).max().unwrap_or(0) as usize;
    let mut distribution = vec![0; most + 1];
    for s in &scores {
        if let Some(d) = distribution.get_mut(s.score as usize) {
            *d += 1;
        }
    }
    Ok(ClassReport { lesson: key.lesson.clone(), questions, scores, distribution, unread: verdicts.unread })
}

fn share(n: usize, of: usize) -> String {
    if of == 0 { "—".into() } else { format!("{:.0} %", 100.0 * n as f64 / of as f64) }
}

impl ClassReport {
    /// What could not be graded, one line each: the unreadable files, rows and absent students
    /// (with file and line), then each answer that could not be read (`q2 Student 03: …`).
    pub fn needs_a_look(&self) -> Vec<String> {
        self.unread
            .iter()
            .map(super::answers::Unread::line)
            .chain(self.questions.iter().flat_map(|q| q.not_graded.iter().map(move |n| format!("{} {n}", q.id))))
            .collect()
    }

    /// For the terminal.
    pub fn to_table(&self) -> String {
        let mut out = format!("Class report: {} ({} students)\n", self.lesson, self.scores.len());
        let look: Vec<(&str, &String)> =
            self.questions.iter().flat_map(|q| q.not_graded.iter().map(move |n| (q.id.as_str(), n))).collect();
        if !self.unread.is_empty() || !look.is_empty() {
            let _ = writeln!(out, "Needs a look:");
        }
        for u in &self.unread {
            let _ = writeln!(out, "  {}", u.line());
        }
        if !look.is_empty() {
            let _ = writeln!(out, "  {} answer(s) could not be read and were not graded:", look.len());
            for (q, n) in look {
                let _ = writeln!(out, "  {q} {n}");
            }
        }
        for q in &self.questions {
            let _ = writeln!(
                out,
                "\n{}  {} right of {} ({}), {} answered — {}",
                q.id,
                q.right,
                q.students,
                share(q.right, q.students),
                q.answered,
                q.prompt
            );
            for m in &q.mistakes {
                let _ = writeln!(out, "    {} × {}: {}", m.count, m.name, m.students.join(", "));
            }
            for u in &q.unmatched {
                let _ = writeln!(out, "    no known mistake: {} wrote {} (key {})", u.student, u.answer, u.key);
            }
            if !q.unanswered.is_empty() {
                let _ = writeln!(out, "    not answered: {}", q.unanswered.join(", "));
            }
        }
        let _ = writeln!(out, "\nscores (points: students):");
        for (points, n) in self.distribution.iter().enumerate() {
            let _ = writeln!(out, "  {points:>2}: {} {n}", "█".repeat(*n));
        }
        out
    }

    /// As CSV: one row per question and mistake (`question,kind,name,count,students`), kinds
    /// `right`, `mistake`, `unmatched`, `unanswered`; then one `score` row per number of points.
    pub fn to_csv(&self) -> String {
        let mut w = csv::Writer::from_writer(Vec::new());
        let _ = w.write_record(["question", "kind", "name", "count", "students"]);
        for q in &self.questions {
            let _ = w.write_record([&q.id, "right", "", &q.right.to_string(), ""]);
            for m in &q.mistakes {
                let _ = w.write_record([&q.id, "mistake", &m.name, &m.count.to_string(), &m.students.join("; ")]);
            }
            for u in &q.unmatched {
                let _ = w.write_record([&q.id, "unmatched", &u.answer, "1", &u.student]);
            }
            if !q.unanswered.is_empty() {
                let _ = w.write_record([
                    &q.id,
                    "unanswered",
                    "",
                    &q.unanswered.len().to_string(),
                    &q.unanswered.join("; "),
                ]);
            }
        }
        for (points, n) in self.distribution.iter().enumerate() {
            let _ = w.write_record(["", "score", &points.to_string(), &n.to_string(), ""]);
        }
        String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
    }

    /// A printable page.
    pub fn to_html(&self) -> String {
        let mut b = format!(
            "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Class report: {lesson}</title>\
             <style>body{{font-family:'DejaVu Sans',sans-serif;max-width:800px;margin:24px auto;color:#222}}\
             table{{border-collapse:collapse;margin:6px 0}}td,th{{border:1px solid #ccc;padding:3px 8px;font-size:13px;\
             text-align:left}}.q{{break-inside:avoid;margin-bottom:14px}}.muted{{color:#666;font-size:12px}}\
             @page{{size:A4;margin:15mm}}</style></head><body><h1>Class report: {lesson}</h1><p class=\"muted\">{} \
             students. Each wrong answer is recomputed with the usual mistakes; those it matches are named.</p>",
            self.scores.len(),
            lesson = escape(&self.lesson)
        );
        let look: Vec<String> = self.needs_a_look().iter().map(|l| format!("<li>{}</li>", escape(l))).collect();
        if !look.is_empty() {
            let _ = write!(
                b,
                "<h2>Needs a look: {} thing(s) could not be read and were not graded</h2><ul>{}</ul>",
                look.len(),
                look.concat()
            );
        }
        for q in &self.questions {
            let _ = write!(
                b,
                "<div class=\"q\"><h2>{} — {} right of {} ({})</h2><p>{}</p>",
                escape(&q.id),
                q.right,
                q.students,
                share(q.right, q.students),
                escape(&q.prompt)
            );
            if !q.mistakes.is_empty() {
                b.push_str("<table><tr><th>mistake</th><th>students</th><th>who</th></tr>");
                for m in &q.mistakes {
                    let _ = write!(
                        b,
                        "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
                        escape(&m.name),
                        m.count,
                        escape(&m.students.join(", "))
                    );
                }
                b.push_str("</table>");
            }
            if !q.unmatched.is_empty() {
                b.push_str("<p>Wrong answers no known mistake explains (read them):</p><table><tr><th>student</th><th>wrote</th><th>key</th></tr>");
                for u in &q.unmatched {
                    let _ = write!(
                        b,
                        "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
                        escape(&u.student),
                        escape(&u.answer),
                        escape(&u.key)
                    );
                }
                b.push_str("</table>");
            }
            if !q.unanswered.is_empty() {
                let _ = write!(b, "<p class=\"muted\">Not answered: {}</p>", escape(&q.unanswered.join(", ")));
            }
            b.push_str("</div>");
        }
        b.push_str("<h2>Scores</h2><table><tr><th>points</th><th>students</th></tr>");
        for (points, n) in self.distribution.iter().enumerate() {
            let _ = write!(b, "<tr><td>{points}</td><td>{n}</td></tr>");
        }
        b.push_str("</table></body></html>\n");
        b
    }
}

/// Who made which mistake, as a map for tests and views: (question, mistake) → students.
pub fn mistakes_by_question(report: &ClassReport) -> BTreeMap<(String, String), Vec<String>> {
    let mut out = BTreeMap::new();
    for q in &report.questions {
        for m in &q.mistakes {
            out.insert((q.id.clone(), m.name.clone()), m.students.clone());
        }
    }
    out
}
