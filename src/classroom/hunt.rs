//! Page Hunt in class: each student's five rounds drawn from a seed (a passage per round, the
//! same on every machine), handed out as a sheet, answered with one question per round in the
//! answers file the assignments take (`student,question,answer` CSV, or a folder of
//! `<student>.json`), and graded by ranking each question with the same code as the game
//! ([`crate::lessons::page_hunt::score_try`]): the grade of a round is the rank the passage reached
//! under the round's method and the points it scores. The class report says which rounds the
//! class found hard. Nothing is graded silently as zero: an unreadable row, a student with no
//! answers and a missing round are listed for a look, with file and line where there is one.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::answers::{Answers, Unread};
use crate::config::Settings;
use crate::lessons::page_hunt::{ROUNDS, Round, TOP, draw_passage, score_try};
use crate::progress::{Progress, check_cancel};
use crate::retrieve::MethodKind;
use crate::workbench::Workbench;
use crate::{Error, Result};

/// What a Page Hunt key says it is.
pub const HUNT_LESSON: &str = "page-hunt";

/// One round of one student's sheet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HuntTask {
    /// The answer's id on the sheet (`r1` … `r5`).
    pub id: String,
    /// The round.
    pub round: Round,
    /// The passage to bring in (its id).
    pub passage: String,
    /// Its text, as shown on the sheet.
    pub text: String,
}

/// The class's rounds: who hunts which passage in which round, under which method.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HuntKey {
    /// Always [`HUNT_LESSON`].
    pub lesson: String,
    /// The seed the passages were drawn with.
    pub seed: u64,
    /// The method of the rounds that rank with one.
    pub method: MethodKind,
    /// The corpus's fingerprint: grading against another corpus is refused.
    pub corpus: String,
    /// student → the five rounds.
    pub students: BTreeMap<String, Vec<HuntTask>>,
    /// sha256 of everything above (canonical JSON): an edited key no longer matches.
    pub checksum: String,
}

impl HuntKey {
    fn compute_checksum(&self) -> String {
        let body = serde_json::json!({
            "lesson": self.lesson, "seed": self.seed, "method": self.method,
            "corpus": self.corpus, "students": self.students,
        });
        hex::encode(Sha256::digest(body.to_string().as_bytes()))
    }

    /// The key as written to `key.json`.
    pub fn to_json(&self) -> Result<String> {
        serde_json::to_string_pretty(self).map_err(|e| Error::invalid("page hunt key", e.to_string()))
    }

    /// Read a key, refusing one that is not a Page Hunt key or was edited (named with the file).
    pub fn read(path: &Path) -> Result<HuntKey> {
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        HuntKey::parse(&bytes, &path.display().to_string())
    }

    /// Parse a key's bytes; `source` names the file in errors.
    pub fn parse(bytes: &[u8], source: &str) -> Result<HuntKey> {
        let key: HuntKey = serde_json::from_slice(bytes)
            .map_err(|e| Error::invalid(format!("{source}:{}", e.line()), format!("not a Page Hunt key ({e})")))?;
        if key.lesson != HUNT_LESSON {
            return Err(Error::invalid(
                format!("{source}: lesson"),
                format!("\"{}\" is not a Page Hunt key (grade it with `ranklens assignment grade`)", key.lesson),
            ));
        }
        if key.checksum != key.compute_checksum() {
            return Err(Error::invalid(
                format!("{source}: checksum"),
                "the key was edited after it was drawn: draw the class again with the same seed",
            ));
        }
        Ok(key)
    }
}

/// A student's seed for round `i`: the class's seed, the student's name and the round, hashed
/// (sha256, so the draw is the same on every machine).
fn student_seed(seed: u64, student: &str, round: usize, attempt: u64) -> u64 {
    let digest = Sha256::digest(format!("{seed}\u{1f}{student}\u{1f}{round}\u{1f}{attempt}").as_bytes());
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(&digest[..8]);
    u64::from_le_bytes(bytes)
}

/// Draw each student's five rounds: a passage per round (a different one each round while the
/// corpus has enough), under `method` for the rounds that rank with one.
pub fn draw_class(workbench: &Workbench, roster: &[String], seed: u64, method: MethodKind) -> Result<HuntKey> {
    if !crate::lessons::page_hunt::METHODS.contains(&method) {
        return Err(Error::invalid(
            "method",
            format!("Page Hunt ranks with a method that scores every passage, not {}", method.label()),
        ));
    }
    if roster.is_empty() {
        return Err(Error::invalid("roster", "no student to draw rounds for"));
    }
    let corpus = workbench.corpus();
    let mut students = BTreeMap::new();
    for student in roster {
        let mut tasks: Vec<HuntTask> = Vec::new();
        for (i, round) in ROUNDS.into_iter().enumerate() {
            // A passage the student already hunts is drawn again (a few times at most: a corpus
            // of fewer passages than rounds repeats one).
            let mut doc = None;
            for attempt in 0..16 {
                let Some(d) = draw_passage(workbench, student_seed(seed, student, i, attempt)) else { break };
                let id = corpus.external_id(d);
                doc = Some(d);
                if !tasks.iter().any(|t| t.passage == id) {
                    break;
                }
            }
            let Some(doc) = doc else {
                return Err(Error::invalid("corpus", "the corpus has no passage to hunt"));
            };
            tasks.push(HuntTask {
                id: format!("r{}", i + 1),
                round,
                passage: corpus.external_id(doc).to_string(),
                text: corpus.doc(doc).map(|d| d.passage_text()).unwrap_or_default(),
            });
        }
        students.insert(student.clone(), tasks);
    }
    let mut key = HuntKey {
        lesson: HUNT_LESSON.into(),
        seed,
        method,
        corpus: corpus.fingerprint(),
        students,
        checksum: String::new(),
    };
    key.checksum = key.compute_checksum();
    Ok(key)
}

/// A student's sheet as Markdown: the rules, then each round's passage, and how to hand in.
pub fn sheet(key: &HuntKey, student: &str) -> Option<String> {
    let tasks = key.students.get(student)?;
    let mut out = format!(
        "# Page Hunt — {student}\n\nFor each round, write one question that brings the passage into the top {TOP}. \
         Hand in one line per round, `{student},r1,your question` (in double quotes when it holds a comma), \
         or `{{\"answers\": {{\"r1\": \"…\"}}}}` as `{student}.json`.\n"
    );
    for t in tasks {
        let method = t.round.scoring_method(key.method).label();
        out.push_str(&format!(
            "\n## {} — {}\n\n{}\n\n> passage {}: {}\n",
            t.id,
            t.round.title(),
            t.round.rules(method),
            t.passage,
            t.text
        ));
    }
    Some(out)
}

/// One round of a student graded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HuntTry {
    /// The round's id on the sheet.
    pub id: String,
    /// The round.
    pub round: Round,
    /// The passage.
    pub passage: String,
    /// The question handed in; `None` when none was.
    pub question: Option<String>,
    /// Where it was read (`answers.csv:4`).
    pub at: Option<String>,
    /// The scoring method's label.
    pub method: String,
    /// The passage's rank under it (`None`: not found, refused or not handed in).
    pub rank: Option<usize>,
    /// The points.
    pub points: u32,
    /// Why it scored nothing when that is not the rank (refused, not handed in).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A student's grade.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HuntGrade {
    /// The student.
    pub student: String,
    /// Each round.
    pub tries: Vec<HuntTry>,
    /// Points over the rounds.
    pub points: u32,
    /// The most that could be scored.
    pub max: u32,
    /// Why the student was not graded (no answers at all); their row says so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub absent: Option<String>,
}

/// How the class did in one round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoundReport {
    /// The round.
    pub round: Round,
    /// Its title.
    pub title: String,
    /// Questions handed in.
    pub handed_in: usize,
    /// Of those, the ones that scored (the passage brought into the top 10, the rule kept).
    pub scored: usize,
    /// Mean points over the students graded (a question not handed in counts 0).
    pub mean_points: f64,
}

/// The class graded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HuntGradebook {
    /// The seed and method of the key.
    pub seed: u64,
    /// The method of the rounds that rank with one.
    pub method: String,
    /// Each student.
    pub students: Vec<HuntGrade>,
    /// Each round, in the order played.
    pub rounds: Vec<RoundReport>,
    /// The round with the lowest mean (the first of equals); `None` when no one was graded.
    pub hardest: Option<Round>,
    /// What could not be used: unreadable rows and files, answers of no one on the key, students
    /// with no answers, rounds not handed in.
    pub needs_a_look: Vec<Unread>,
}

/// Grade `answers` against `key` by ranking each question with `settings` on `workbench` (which
/// must hold the corpus the key was drawn from).
pub fn grade_hunt(
    workbench: &Workbench,
    key: &HuntKey,
    answers: &Answers,
    settings: &Settings,
    progress: &dyn Progress,
) -> Result<HuntGradebook> {
    if workbench.corpus().fingerprint() != key.corpus {
        return Err(Error::invalid(
            "corpus",
            "the key was drawn from another corpus (its fingerprint differs): grade with the corpus it was drawn from",
        ));
    }
    let mut needs_a_look = answers.unread.clone();
    for student in answers.students.keys().filter(|s| !key.students.contains_key(*s)) {
        let at =
            answers.students[student].values().next().map(|(_, at)| at.clone()).unwrap_or_else(|| "answers".into());
        needs_a_look.push(Unread { at, student: Some(student.clone()), why: "not on the key's roster".into() });
    }
    let total: usize = key.students.values().map(Vec::len).sum();
    progress.stage("Ranking the class's questions", total as u64);
    let mut students = Vec::new();
    for (student, tasks) in &key.students {
        let max = (tasks.len() * TOP) as u32;
        let Some(handed) = answers.students.get(student) else {
            let why = "no answers handed in".to_string();
            needs_a_look.push(Unread { at: "answers".into(), student: Some(student.clone()), why: why.clone() });
            students.push(HuntGrade { student: student.clone(), tries: Vec::new(), points: 0, max, absent: Some(why) });
            progress.advance(tasks.len() as u64);
            continue;
        };
        let mut tries = Vec::new();
        for t in tasks {
            check_cancel(progress)?;
            let method = t.round.scoring_method(key.method);
            let mut graded = HuntTry {
                id: t.id.clone(),
                round: t.round,
                passage: t.passage.clone(),
                question: None,
                at: None,
                method: method.label().to_string(),
                rank: None,
                points: 0,
                note: None,
            };
            match handed.get(&t.id) {
                None => {
                    graded.note = Some("not handed in".into());
                    needs_a_look.push(Unread {
                        at: "answers".into(),
                        student: Some(student.clone()),
                        why: format!("no question for {} ({})", t.id, t.round.title()),
                    });
                }
                Some((value, at)) => {
                    graded.at = Some(at.clone());
                    let question = match value {
                        serde_json::Value::String(s) => s.trim().to_string(),
                        serde_json::Value::Number(n) => n.to_string(),
                        _ => String::new(),
                    };
                    if question.is_empty() {
                        graded.note = Some("not a question".into());
                        needs_a_look.push(Unread {
                            at: at.clone(),
                            student: Some(student.clone()),
                            why: format!("{}: expected a question as text, found {value}", t.id),
                        });
                    } else {
                        let doc = workbench.corpus().lookup(&t.passage).ok_or_else(|| {
                            Error::invalid("key", format!("passage {} is not in the corpus", t.passage))
                        })?;
                        let a = score_try(workbench, key.method, settings, t.round, doc, &question, progress)?;
                        graded.method = a.method;
                        graded.rank = a.rank;
                        graded.points = a.points;
                        graded.note = a.refused;
                        graded.question = Some(question);
                    }
                }
            }
            tries.push(graded);
            progress.advance(1);
        }
        let points = tries.iter().map(|t| t.points).sum();
        students.push(HuntGrade { student: student.clone(), tries, points, max, absent: None });
    }
    let graded: Vec<&HuntGrade> = students.iter().filter(|s| s.absent.is_none()).collect();
    let rounds: Vec<RoundReport> = ROUNDS
        .iter()
        .map(|r| {
            let tries: Vec<&HuntTry> = graded.iter().flat_map(|s| s.tries.iter().filter(|t| t.round == *r)).collect();
            let points: u32 = tries.iter().map(|t| t.points).sum();
            RoundReport {
                round: *r,
                title: r.title().to_string(),
                handed_in: tries.iter().filter(|t| t.question.is_some()).count(),
                scored: tries.iter().filter(|t| t.points > 0).count(),
                mean_points: if graded.is_empty() { 0.0 } else { f64::from(points) / graded.len() as f64 },
            }
        })
        .collect();
    let hardest = if graded.is_empty() {
        None
    } else {
        rounds.iter().min_by(|a, b| a.mean_points.total_cmp(&b.mean_points)).map(|r| r.round)
    };
    Ok(HuntGradebook {
        seed: key.seed,
        method: key.method.label().to_string(),
        students,
        rounds,
        hardest,
        needs_a_look,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::Corpus;

    fn workbench() -> Workbench {
        let texts: Vec<(String, String)> = (0..12)
            .map(|i| (format!("p{i}"), format!("passage {i} tells of the river crossing number {i} and its ferry")))
            .collect();
        Workbench::new(Corpus::from_texts("t", texts.iter().map(|(a, b)| (a.as_str(), b.as_str()))))
    }

    #[test]
    fn each_student_gets_five_rounds_of_different_passages_the_same_for_the_same_seed() {
        let wb = workbench();
        let roster = vec!["Ada".to_string(), "Ben".to_string()];
        let key = draw_class(&wb, &roster, 7, MethodKind::Bm25).unwrap();
        assert_eq!(key, draw_class(&wb, &roster, 7, MethodKind::Bm25).unwrap(), "the same seed, the same draw");
        for tasks in key.students.values() {
            let rounds: Vec<Round> = tasks.iter().map(|t| t.round).collect();
            assert_eq!(rounds, ROUNDS);
            let ids: Vec<&str> = tasks.iter().map(|t| t.id.as_str()).collect();
            assert_eq!(ids, ["r1", "r2", "r3", "r4", "r5"]);
            let passages: std::collections::BTreeSet<&str> = tasks.iter().map(|t| t.passage.as_str()).collect();
            assert_eq!(passages.len(), 5, "five passages, none twice: {tasks:?}");
        }
        assert_ne!(key.students["Ada"], key.students["Ben"], "each student their own passages");
        let other = draw_class(&wb, &roster, 8, MethodKind::Bm25).unwrap();
        assert_ne!(key.students, other.students, "another seed, another draw");
        // The key reads back; an edit is refused.
        let text = key.to_json().unwrap();
        assert_eq!(HuntKey::parse(text.as_bytes(), "key.json").unwrap(), key);
        let edited = text.replacen("\"seed\": 7", "\"seed\": 9", 1);
        let e = HuntKey::parse(edited.as_bytes(), "key.json").unwrap_err().to_string();
        assert!(e.contains("key.json: checksum") && e.contains("edited"), "{e}");
        let e = draw_class(&wb, &roster, 7, MethodKind::Boolean).unwrap_err().to_string();
        assert!(e.contains("scores every passage"), "{e}");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::proptest_cases()))]

        /// Any bytes read as a key: a key, or an error naming the file; any roster's key written
        /// reads back as itself, and one changed byte of its seed is refused.
        #[test]
        fn a_key_reads_back_or_names_its_file(
            bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200),
            names in proptest::collection::btree_set("[A-Za-z][a-z]{0,8}", 1..4),
            seed in 0u64..1000,
        ) {
            if let Err(e) = HuntKey::parse(&bytes, "key.json") {
                proptest::prop_assert!(e.to_string().contains("key.json"), "{}", e);
            }
            let roster: Vec<String> = names.into_iter().collect();
            let key = draw_class(&workbench(), &roster, seed, MethodKind::Bm25).unwrap();
            let text = key.to_json().unwrap();
            proptest::prop_assert_eq!(HuntKey::parse(text.as_bytes(), "key.json").unwrap(), key);
            let edited = text.replacen(&format!("\"seed\": {seed}"), &format!("\"seed\": {}", seed + 1), 1);
            proptest::prop_assert!(HuntKey::parse(edited.as_bytes(), "key.json").is_err());
        }
    }
}
