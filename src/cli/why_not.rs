//! `ranklens why-not`: what would bring a passage a method missed into its top k — the smallest
//! question edits (and, for BM25 and TF-IDF, knob changes), each verified by ranking again.
//! With `--missed` instead of a question and passage: every relevant passage the method leaves
//! outside the top k over a question set, the share that gets a fix of at most two edits, and the
//! median seconds to find one.

use std::fmt::Write;

use anyhow::bail;
use clap::Args;

use super::Found;
use super::args::FormatArg;
use super::args::{CorpusArgs, MethodArg, RankArgs};
use super::model_args::ModelArgs;
use super::printer::{Printable, print};
use super::progress::TermProgress;
use crate::compare::fixes::{Fixes, Missed, SCORING_EVERY_PASSAGE, find_fixes, rank_text};

/// `ranklens why-not`
#[derive(Debug, Args)]
pub struct WhyNotArgs {
    #[command(flatten)]
    corpus: CorpusArgs,
    #[command(flatten)]
    rank: RankArgs,
    /// The method.
    #[arg(long, value_enum, default_value = "bm25")]
    method: MethodArg,
    /// The passage to bring in (its id).
    #[arg(long, value_name = "ID", required_unless_present = "missed")]
    passage: Option<String>,
    /// The top k it should enter.
    #[arg(short = 'k', long = "top", default_value_t = 10)]
    k: usize,
    /// Over the corpus's judged questions: every relevant passage outside the top k, how many get
    /// a fix of at most two edits, and the median seconds to find one.
    #[arg(long, conflicts_with_all = ["passage", "question"])]
    missed: bool,
    /// With --missed: only the first N judged questions.
    #[arg(long, value_name = "N", default_value_t = 50)]
    questions: usize,
    #[command(flatten)]
    models: ModelArgs,
    #[command(flatten)]
    format: FormatArg,
    /// The question; `-` reads it from standard input.
    #[arg(value_parser = super::args::text_or_stdin, required_unless_present = "missed")]
    question: Option<String>,
}

impl Printable for Fixes {
    fn table(&self) -> String {
        let mut out = String::new();
        let now = rank_text(self.rank);
        let _ = writeln!(out, "{} under {}: {now}; the top {} is the aim", self.passage, self.method, self.k);
        if let Some(n) = &self.note {
            let _ = writeln!(out, "{n}");
        }
        for f in &self.fixes {
            let edits: Vec<String> = f.edits.iter().map(|e| e.text()).collect();
            let _ = writeln!(out, "  rank {:>2}  {}  (verified)  \"{}\"", f.rank, edits.join(" + "), f.question);
        }
        let _ = writeln!(out, "{} changes ranked again in {:.2} s", self.tried, self.seconds);
        out
    }
}

/// `ranklens why-not`
pub fn why_not(a: WhyNotArgs) -> anyhow::Result<Found> {
    let settings = a.rank.settings(a.k.max(1))?;
    let kind = a.method.kind();
    use crate::retrieve::MethodKind as M;
    if !(SCORING_EVERY_PASSAGE.contains(&kind) || kind == M::DenseAdapter) {
        bail!(
            "--method: why-not searches the methods that score every passage (bm25, tfidf, dense, splade, late, dense-adapter)"
        );
    }
    let progress = TermProgress::new();
    let engine = a.corpus.workbench(&progress)?;
    a.models.prepare(&engine, &[kind], &settings, true, &progress)?;
    if a.missed {
        let report = crate::compare::fixes::missed(&engine, kind, &settings, a.k, a.questions, &progress)?;
        drop(progress);
        print(&report, a.format.value)?;
        return Ok(Found::Some);
    }
    let (Some(id), Some(question)) = (&a.passage, &a.question) else {
        bail!("give --passage ID and the question (or --missed)");
    };
    let Some(doc) = engine.corpus().lookup(id) else {
        bail!("--passage {id}: no passage of that id in {}", a.corpus.path()?.display());
    };
    let fixes = find_fixes(&engine, kind, &settings, question, doc, a.k, &progress)?;
    drop(progress);
    print(&fixes, a.format.value)?;
    Ok(if fixes.fixes.is_empty() { Found::Nothing } else { Found::Some })
}

impl Printable for Missed {
    fn table(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{}: {} relevant passages outside the top {} of {} judged questions; {} ({:.1} %) brought in by a \
             verified fix of at most two edits ({} by one); median {:.2} s a passage",
            self.method,
            self.outside,
            self.k,
            self.questions,
            self.fixed,
            100.0 * self.share,
            self.one_edit,
            self.median_seconds
        );
        for f in self.passages.iter().filter(|f| !f.fixes.is_empty()).take(10) {
            let best = &f.fixes[0];
            let edits: Vec<String> = best.edits.iter().map(|e| e.text()).collect();
            let _ = writeln!(out, "  {} → rank {} by {}", f.passage, best.rank, edits.join(" + "));
        }
        // The passages no fix brings in, every one: those are the ones to read.
        for f in self.passages.iter().filter(|f| f.fixes.is_empty()) {
            let rank = rank_text(f.rank);
            let why = f.note.as_deref().unwrap_or("no fix of at most two edits");
            let _ = writeln!(out, "  {} ({rank}) for {:?}: {why}", f.passage, f.question);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_passage_without_a_fix_is_named_with_its_question() {
        let unfixed = |passage: &str, rank: Option<usize>| Fixes {
            passage: passage.into(),
            method: "Dense".into(),
            question: format!("what about {passage}?"),
            k: 10,
            rank,
            fixes: Vec::new(),
            tried: 40,
            seconds: 1.0,
            note: None,
        };
        let m = Missed {
            method: "Dense".into(),
            k: 10,
            questions: 300,
            outside: 2,
            fixed: 0,
            one_edit: 0,
            share: 0.0,
            median_seconds: 1.0,
            passages: vec![unfixed("d7", Some(14)), unfixed("d9", None)],
        };
        let text = m.table();
        assert!(text.starts_with("Dense: 2 relevant passages outside the top 10 of 300 judged questions; 0 (0.0 %)"));
        assert!(text.contains("  d7 (rank 14) for \"what about d7?\": no fix of at most two edits\n"), "{text}");
        assert!(text.contains("  d9 (not in the first 1,000) for \"what about d9?\""), "{text}");
    }
}
