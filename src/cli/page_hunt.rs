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
