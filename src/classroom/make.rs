//! Making an assignment: a lesson's drawer ([`crate::lessons::LessonEntry`]'s assignment) run
//! once per student of the roster, each with the student's own stream of SplitMix64 (the same
//! numbers on every machine), no two students given the same data for a question.

use std::collections::{BTreeMap, BTreeSet};

use super::files::{Assignment, Sheet};
use crate::lcg::SplitMix64;
use crate::lessons::{DrawFn, Drawer, lesson, with_assignments};
use crate::progress::Progress;
use crate::workbench::Workbench;
use crate::{Error, Result};

/// A student's own stream: the seed mixed with the name (FNV-1a), so adding a student to the
/// roster does not change anyone else's variant.
fn student_rng(seed: u64, student: &str, attempt: u64) -> SplitMix64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in student.as_bytes() {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    SplitMix64::new(seed ^ h ^ attempt.wrapping_mul(0xA24B_AED4_963E_E407))
}

/// Make an assignment of a lesson by id: one variant per student, drawn from `workbench`'s
/// corpus with `seed` (see [`make`]).
pub fn make_assignment(
    id: &str,
    roster: &[String],
    seed: u64,
    workbench: &Workbench,
    progress: &dyn Progress,
) -> Result<Assignment> {
    let entry = lesson(id)?;
    let Some(assignment) = &entry.assignment else {
        return Err(Error::invalid(
            "lesson",
            format!(
                "no assignment for the lesson {id:?}; choose one of {}",
                with_assignments().map(|(l, _)| l.id).collect::<Vec<_>>().join(", ")
            ),
        ));
    };
    make(entry.id, entry.title, assignment.draw, roster, seed, workbench, progress)
}

/// Make an assignment of the lesson `lesson` (titled `title`): one variant per student of its
/// questions, drawn by `draw` from the workbench's corpus with the seed. No two students get the
/// same data for a question.
pub fn make(
    lesson: &str,
    title: &str,
    draw_one: DrawFn,
    roster: &[String],
    seed: u64,
    workbench: &Workbench,
    progress: &dyn Progress,
) -> Result<Assignment> {
    let draw = Drawer::new(workbench)?;
    let mut sheets = Vec::new();
    let mut seen: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    progress.stage("drawing each student's variant", roster.len() as u64);
    for student in roster {
        crate::progress::check_cancel(progress)?;
        let mut found = None;
        for attempt in 0..200 {
            let mut rng = student_rng(seed, student, attempt);
            let questions = draw_one(&draw, &mut rng)?;
            let fresh = questions
                .iter()
                .all(|c| !seen.get(&c.question.id).is_some_and(|s| s.contains(&c.question.data.to_string())));
            if fresh {
                found = Some(questions);
                break;
            }
        }
        let Some(questions) = found else {
            return Err(Error::invalid(
                "corpus",
                format!(
                    "{} has too few passages to give {student} data no other student has: use a larger corpus (--corpus)",
                    workbench.corpus().name
                ),
            ));
        };
        for c in &questions {
            seen.entry(c.question.id.clone()).or_default().insert(c.question.data.to_string());
        }
        sheets.push(Sheet { student: student.clone(), questions });
        progress.advance(1);
    }
    let mut texts = BTreeMap::new();
    for c in sheets.iter().flat_map(|s| &s.questions) {
        let d = &c.question.data;
        let ids = d.get("passage").and_then(|v| v.as_str()).into_iter().chain(
            d.get("passages").and_then(|p| p.as_array()).into_iter().flatten().filter_map(|p| p.get("id")?.as_str()),
        );
        for id in ids {
            if let Some(doc) = workbench.corpus().lookup(id).and_then(|x| workbench.corpus().doc(x)) {
                texts.entry(id.to_string()).or_insert_with(|| doc.full_text());
            }
        }
    }
    Ok(Assignment {
        lesson: lesson.to_string(),
        title: title.to_string(),
        seed,
        corpus: workbench.corpus().name.clone(),
        sheets,
        texts,
    })
}
