//! `ranklens judge`: a language model judges the pool of a question set's methods, its κ against
//! the people's grades first; with `--stress`, the judge's report card.

use std::fmt::Write;
use std::path::PathBuf;

use anyhow::{Context, bail};
use clap::Args;
use serde::Serialize;

use super::Found;
use super::args::{FormatArg, MethodArg, RankArgs};
use super::model_args::ModelArgs;
use super::printer::{Printable, print};
use super::progress::TermProgress;
use crate::compare::judge;
use crate::compare::judge_stress::{self, StressCard};
use crate::corpus::{self, LoadOptions};
use crate::eval::Agreement;
use crate::generate::tasks::JudgePrompt;
use crate::retrieve::MethodKind;

/// `ranklens judge`
#[derive(Debug, Args)]
pub struct JudgeArgs {
    /// A BEIR folder with judgements (corpus.jsonl, queries.jsonl, qrels/test.tsv).
    #[arg(long, value_name = "DIR|NAME", value_parser = super::args::dataset)]
    dataset: PathBuf,
    /// The methods whose top k are pooled and judged (repeat for several).
    #[arg(long, value_enum, default_value = "bm25")]
    method: Vec<MethodArg>,
    /// Depth of each method's list in the pool.
    #[arg(short = 'k', long = "top", default_value_t = 10)]
    k: usize,
    /// Judge only the first N judged questions (0: all).
    #[arg(long, value_name = "N", default_value_t = 0)]
    questions: usize,
    /// A file holding the judge's prompt: the system message, a line `---`, then the template
    /// with {question} and {passage}.
    #[arg(long, value_name = "FILE")]
    prompt: Option<PathBuf>,
    /// Write the model's judgements here as qrels (TREC, or BEIR TSV for .tsv), apart from the
    /// people's.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Read the probability of "yes" from the model's first answer token (the embedded model's
    /// logits, a server's logprobs) as a graded judgement, and sweep its threshold against the
    /// people's grades.
    #[arg(long)]
    probabilities: bool,
    /// Then put the judge under attack and print its report card: the question's words pasted
    /// into passages it called not relevant, an instruction inside them, the same pairs asked a
    /// second way; τ over every method (give --method more than once) and over their best half,
    /// κ beside the raw agreement, and a verdict. Replies are kept: a stopped run resumes.
    #[arg(long)]
    stress: bool,
    /// With --stress: the passages of each question put under each attack (and asked again).
    #[arg(long, value_name = "N", default_value_t = judge_stress::PER_QUESTION, requires = "stress")]
    attacks: usize,
    #[command(flatten)]
    rank: RankArgs,
    #[command(flatten)]
    models: ModelArgs,
    #[command(flatten)]
    format: FormatArg,
}

/// The judge's report card as printed: the card's own figures at the top of the JSON
/// (`pasted_words`, `injected_instruction`, `stability`, `tau_all`, `tau_top_half`, `kappa`,
/// `raw_agreement`, `verdict`), the judging it stands on under `judging`.
#[derive(Debug, Serialize)]
struct StressView<'a> {
    #[serde(flatten)]
    card: &'a StressCard,
    judging: &'a JudgeView,
}

impl Printable for StressView<'_> {
    fn table(&self) -> String {
        let mut out = self.judging.table();
        out.push('\n');
        out.push_str(&card_table(self.card));
        out
    }
}

/// The card in lines (its rows, then the verdict).
pub fn card_table(c: &StressCard) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "The judge's report card — {}, {} questions", c.model, c.questions);
    for (figure, value) in c.rows() {
        let _ = writeln!(out, "  {figure:<48}{value}");
    }
    let _ = writeln!(out, "verdict: {}", c.verdict);
    out
}

/// A column of the pool: how many passages it added, or why it could not run here.
#[derive(Debug, Serialize)]
struct PoolColumnView {
    label: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    added: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    missing: Option<String>,
}

#[derive(Debug, Serialize)]
struct JudgeView {
    dataset: String,
    model: String,
    /// The columns that pooled.
    methods: Vec<String>,
    /// Every column asked for, with what it added or why it could not run.
    columns: Vec<PoolColumnView>,
    depth: usize,
    questions: usize,
    judged: usize,
    /// Replies that were neither yes nor no (left out of the agreement).
    unreadable: usize,
    agreement: Agreement,
    /// Pool passages the people never judged (counted as not relevant, BEIR's convention).
    unjudged_by_people: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    written: Option<String>,
    /// With --probabilities: the agreement at each threshold of P(yes).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    sweep: Vec<judge::SweepPoint>,
    seconds: f64,
}

impl Printable for JudgeView {
    fn table(&self) -> String {
        let a = &self.agreement;
        let mut out = String::new();
        let kappa = a.kappa.map(|k| format!("{k:.3}")).unwrap_or_else(|| "undefined (every pair alike)".into());
        let _ =
            writeln!(out, "Cohen's κ = {kappa} · observed agreement {:.3}, by chance {:.3}", a.observed, a.expected);
        let _ = writeln!(out, "                 people: relevant   not relevant");
        let _ = writeln!(out, "model: relevant        {:>8}   {:>12}", a.both, a.model_only);
        let _ = writeln!(out, "model: not relevant    {:>8}   {:>12}", a.people_only, a.neither);
        let _ = writeln!(
            out,
            "{} pairs from {} questions ({} pooled to depth {}), judged by {} in {:.0} s; {} replies unreadable; {} pool passages the people never judged count as not relevant",
            a.n,
            self.questions,
            self.methods.join(" + "),
            self.depth,
            self.model,
            self.seconds,
            self.unreadable,
            self.unjudged_by_people
        );
        if !self.sweep.is_empty() {
            let _ = writeln!(out, "P(yes) threshold   κ        agreement   model says relevant");
            for p in &self.sweep {
                let a = &p.agreement;
                let kappa = a.kappa.map_or_else(|| "—".to_string(), |k| format!("{k:+.3}"));
                let _ = writeln!(
                    out,
                    "{:>16.1}   {kappa:<7}  {:>9.3}   {}",
                    p.threshold,
                    a.observed,
                    a.both + a.model_only
                );
            }
        }
        for c in &self.columns {
            if let Some(m) = &c.missing {
                let _ = writeln!(out, "not pooled: {} — {m}", c.label);
            }
        }
        if let Some(w) = &self.written {
            let _ = writeln!(out, "the model's judgements: {w} (kept apart from the people's)");
        }
        out
    }
}

fn read_prompt(path: &std::path::Path) -> anyhow::Result<JudgePrompt> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let Some((system, template)) = text.split_once("\n---\n") else {
        bail!("{}: expected the system message, a line `---`, then the template", path.display());
    };
    let p = JudgePrompt { system: system.trim().to_string(), template: template.trim().to_string() };
    p.validate().map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    Ok(p)
}

/// `ranklens judge`
pub fn judge(a: JudgeArgs) -> anyhow::Result<Found> {
    let started = std::time::Instant::now();
    let prompt = match &a.prompt {
        Some(p) => read_prompt(p)?,
        None => JudgePrompt::default(),
    };
    let settings = a.rank.settings(a.k.max(1))?;
    let corpus = corpus::load(&a.dataset, LoadOptions::default())?;
    let Some(qrels) = corpus.qrels.clone() else {
        bail!("{}: no judgements (qrels/test.tsv) to compare the model's with", a.dataset.display());
    };
    let engine = crate::workbench::Workbench::new(corpus).with_workspace(crate::workspace_dir());
    let kinds: Vec<MethodKind> = a.method.iter().map(|m| m.kind()).collect();
    let progress = TermProgress::new();
    a.models.prepare(&engine, &kinds, &settings, true, &progress)?;
    let generator = a.models.generator(&progress)?;
    let plan = crate::compare::Plan::of_kinds(&settings, &kinds);
    let pooled = plan.judging_pool(&engine, &qrels, a.questions, a.k, &progress)?;
    let pool = &pooled.items;
    let methods: Vec<String> = pooled.ran().map(|c| c.label.clone()).collect();
    let columns: Vec<PoolColumnView> = pooled
        .columns
        .iter()
        .map(|c| PoolColumnView {
            label: c.label.clone(),
            added: c.added.as_ref().ok().copied(),
            missing: c.added.as_ref().err().cloned(),
        })
        .collect();
    let scope = pooled.scope();
    // The file fills as the model judges (TREC lines, or BEIR TSV for .tsv), so a stopped run
    // keeps its judgements.
    let model = generator.info().model.clone();
    let mut file = a.out.as_ref().map(|path| judge::QrelsFile::create(path, &model)).transpose()?;
    let mut write_each = |j: &judge::ModelJudgement| -> crate::Result<()> {
        match file.as_mut() {
            Some(f) => f.write(j),
            None => Ok(()),
        }
    };
    let judged = judge::judge(
        engine.corpus(),
        generator.as_ref(),
        &prompt,
        pool,
        &qrels,
        &scope,
        a.probabilities,
        &progress,
        &mut write_each,
    )?;
    drop(progress);
    let written = a.out.as_ref().map(|p| p.display().to_string());
    let view = JudgeView {
        dataset: a.dataset.display().to_string(),
        model: judged.model.clone(),
        methods,
        columns,
        depth: a.k,
        questions: pooled.questions,
        judged: judged.judgements.len() - judged.unreadable(),
        unreadable: judged.unreadable(),
        agreement: judged.agreement(),
        unjudged_by_people: judged.unjudged_by_people(),
        written,
        sweep: judged.sweep(),
        seconds: started.elapsed().as_secs_f64(),
    };
    if !a.stress {
        print(&view, a.format.value)?;
        return Ok(Found::Some);
    }
    let progress = TermProgress::new();
    let card = judge_stress::stress(
        engine.corpus(),
        generator.as_ref(),
        &prompt,
        &judged,
        &pooled.runs,
        &qrels,
        a.attacks,
        &progress,
        &mut |_| {},
    )?;
    drop(progress);
    print(&StressView { card: &card, judging: &view }, a.format.value)?;
    Ok(Found::Some)
}
