//! `ranklens lesson page-hunt`: one try of Page Hunt from the command line — the passage's rank
//! under the method, the points and the solver's par; without a question, the passage and the
//! round's rules (read them first, then ask).

use std::fmt::Write;

use anyhow::bail;

use super::Found;
use super::args::{CorpusArgs, MethodArg, OutputFormat};
use super::model_args::ModelArgs;
use super::printer::{Printable, print};
use super::progress::TermProgress;
use crate::compare::fixes::rank_text;
use crate::config::Settings;
use crate::lessons::page_hunt::{Attempt, METHODS, Round, draw_passage, play};

/// What `ranklens lesson page-hunt` was given.
pub struct PageHuntArgs<'a> {
    pub corpus: &'a CorpusArgs,
    pub models: &'a ModelArgs,
    pub passage: Option<&'a str>,
    pub seed: Option<u64>,
    pub method: MethodArg,
    pub round: &'a str,
    pub question: Option<&'a str>,
    pub format: OutputFormat,
}

impl Printable for Attempt {
    fn table(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "Page Hunt — {} ({})", self.round.title(), self.round.id());
        let _ = writeln!(out, "{}", self.rules);
        let _ = writeln!(out, "passage {}: {}", self.passage, self.text);
        let _ = writeln!(out, "question: {:?}", self.question);
        match &self.refused {
            Some(why) => {
                let _ = writeln!(out, "{why}");
            }
            None => {
                for r in &self.ranks {
                    let at = rank_text(r.rank);
                    let _ = writeln!(out, "  {:<24} {at}", r.method);
                }
            }
        }
        let _ = writeln!(out, "points: {} of {}", self.points, self.max_points);
        match (&self.par, &self.par_note) {
            (Some(p), _) => {
                let at = p.rank.map_or_else(|| "not found".to_string(), |r| format!("rank {r}"));
                let _ = writeln!(
                    out,
                    "par (the solver's shortest question, ranked again): {:?} — {} word(s), {at}, {} points",
                    p.question, p.words, p.points
                );
            }
            (None, Some(note)) => {
                let _ = writeln!(out, "{note}");
            }
            (None, None) => {}
        }
        out
    }
}

/// `ranklens lesson page-hunt`
pub fn page_hunt(a: PageHuntArgs<'_>) -> anyhow::Result<Found> {
    let round = Round::parse(a.round)?;
    let kind = a.method.kind();
    if !METHODS.contains(&kind) {
        bail!("--method: Page Hunt ranks with a method that scores every passage (bm25, tfidf, dense, splade, late)");
    }
    let progress = TermProgress::new();
    let engine = a.corpus.workbench(&progress)?;
    let doc = match (a.passage, a.seed) {
        (Some(id), _) => match engine.corpus().lookup(id) {
            Some(doc) => doc,
            None => bail!("--passage {id}: no passage of that id in {}", a.corpus.path()?.display()),
        },
        (None, Some(seed)) => match draw_passage(&engine, seed) {
            Some(doc) => doc,
            None => bail!("{}: the corpus has no passage to hunt", a.corpus.path()?.display()),
        },
        (None, None) => bail!("give --passage ID (or --seed N to draw one)"),
    };
    let Some(question) = a.question else {
        // Nothing asked yet: the passage and the rules, to read before asking.
        drop(progress);
        let passage = engine.corpus().external_id(doc).to_string();
        let text = engine.corpus().doc(doc).map(|d| d.passage_text()).unwrap_or_default();
        println!("Page Hunt — {} ({})", round.title(), round.id());
        println!("{}", round.rules(kind.label()));
        println!("passage {passage}: {text}");
        println!("Now ask: ranklens lesson page-hunt --passage {passage} --round {} \"YOUR QUESTION\"", round.id());
        return Ok(Found::Some);
    };
    let settings = Settings::default();
    a.models.prepare(&engine, &round.methods(kind), &settings, true, &progress)?;
    let attempt = play(&engine, kind, &settings, round, doc, question, &progress)?;
    drop(progress);
    print(&attempt, a.format)?;
    Ok(if attempt.points > 0 { Found::Some } else { Found::Nothing })
}

/// `ranklens lesson page-hunt --class ROSTER --seed N --out DIR`: the key and a sheet per student.
pub fn draw_class(
    corpus: &CorpusArgs,
    roster: &std::path::Path,
    out: &std::path::Path,
    seed: u64,
    method: MethodArg,
) -> anyhow::Result<Found> {
    let names = crate::classroom::read_roster(roster)?;
    let progress = TermProgress::new();
    let engine = corpus.workbench(&progress)?;
    drop(progress);
    let key = crate::classroom::hunt::draw_class(&engine, &names, seed, method.kind())?;
    std::fs::create_dir_all(out).map_err(|e| crate::Error::io(out, e))?;
    crate::fsutil::write_atomic(&out.join("key.json"), key.to_json()?)?;
    for student in key.students.keys() {
        if let Some(text) = crate::classroom::hunt::sheet(&key, student) {
            // The roster refuses names a file name cannot carry.
            let file = out.join(format!("{student}.md"));
            crate::fsutil::write_atomic(&file, text)?;
        }
    }
    println!(
        "{} students, five rounds each (seed {seed}): the key in {} and a sheet per student beside it; grade with \
         ranklens lesson page-hunt --grade {} --answers ANSWERS",
        key.students.len(),
        out.join("key.json").display(),
        out.join("key.json").display()
    );
    Ok(Found::Some)
}

impl Printable for crate::classroom::hunt::HuntGradebook {
    fn table(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "Page Hunt graded (seed {}, method {})", self.seed, self.method);
        for s in &self.students {
            match &s.absent {
                Some(why) => {
                    let _ = writeln!(out, "{:<16} not graded: {why}", s.student);
                }
                None => {
                    let rounds: Vec<String> = s
                        .tries
                        .iter()
                        .map(|t| match (&t.question, &t.note) {
                            (None, _) => format!("{} —", t.id),
                            (Some(_), Some(_)) if t.rank.is_none() => format!("{} refused", t.id),
                            _ => format!("{} {} ({})", t.id, rank_text(t.rank), t.points),
                        })
                        .collect();
                    let _ = writeln!(out, "{:<16} {:>3} of {}  {}", s.student, s.points, s.max, rounds.join(" · "));
                }
            }
        }
        let _ = writeln!(out, "\nround                      handed in  scored  mean points");
        for r in &self.rounds {
            let hard = if self.hardest == Some(r.round) { "  ← the hardest" } else { "" };
            let _ = writeln!(out, "{:<26} {:>9}  {:>6}  {:>11.1}{hard}", r.title, r.handed_in, r.scored, r.mean_points);
        }
        if !self.needs_a_look.is_empty() {
            let _ = writeln!(out, "\nNeeds a look:");
            for u in &self.needs_a_look {
                let _ = writeln!(out, "  {}", u.line());
            }
        }
        out
    }
}

/// `ranklens lesson page-hunt --grade KEY --answers FILE|DIR`: each question ranked, the class
/// report, and what needs a look (exit 1 when anything does).
pub fn grade_class(
    corpus: &CorpusArgs,
    models: &ModelArgs,
    key: &std::path::Path,
    answers: &std::path::Path,
    format: OutputFormat,
) -> anyhow::Result<Found> {
    let key = crate::classroom::hunt::HuntKey::read(key)?;
    let answers = crate::classroom::read_answers(answers)?;
    let progress = TermProgress::new();
    let engine = corpus.workbench(&progress)?;
    let settings = Settings::default();
    let mut kinds = vec![key.method];
    for r in crate::lessons::page_hunt::ROUNDS {
        kinds.extend(r.methods(key.method));
    }
    kinds.sort();
    kinds.dedup();
    models.prepare(&engine, &kinds, &settings, true, &progress)?;
    let book = crate::classroom::hunt::grade_hunt(&engine, &key, &answers, &settings, &progress)?;
    drop(progress);
    print(&book, format)?;
    Ok(if book.needs_a_look.is_empty() { Found::Some } else { Found::Nothing })
}
