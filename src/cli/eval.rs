//! `ranklens eval`: methods over a dataset's questions and judgements, with paired tests.

use std::fmt::Write;
use std::path::PathBuf;

use anyhow::{Context, bail};
use clap::Args;
use serde::Serialize;

use super::Found;
use super::args::FormatArg;
use super::args::{MethodArg, RankArgs, RunArgs, report_load};
use super::model_args::ModelArgs;
use super::printer::{Printable, print};
use super::progress::TermProgress;
use super::table::Table;
use super::views::truncate;
use crate::compare::{Baseline, Plan, Study, Triage, TriageOrder, find_system, no_such_system};
use crate::corpus::{self, LoadOptions};
use crate::eval::{Correction, Qrels, Validity};
use crate::retrieve::MethodKind;
use crate::workbench::Workbench;

/// `ranklens eval`
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// A BEIR folder (corpus.jsonl, queries.jsonl, qrels/test.tsv), e.g. ../shared/data/scifact:
    /// RankLens's methods run over its questions.
    #[arg(long, visible_alias = "corpus", value_name = "DIR|NAME", value_parser = super::args::dataset)]
    dataset: Option<PathBuf>,
    /// A question set with answers: SQuAD's JSON, DPR's `.qa.csv`, or RankLens's answers `.tsv` /
    /// `.jsonl` (without a value: the corpus's own, such as the sample's answers.tsv). Measures each
    /// method's answer recall@k (a passage of the top k holds an answer) and, with --reader, the
    /// reader's exact match and F1 at each k, by SQuAD's official rules.
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "")]
    answers: Option<String>,
    /// With --answers: the reader (span, generator or toy).
    #[arg(long, value_name = "span|generator|toy", requires = "answers")]
    reader: Option<String>,
    /// With --answers: the numbers of passages read, comma-separated.
    #[arg(short = 'k', value_delimiter = ',', default_value = "1,2,3,5,10,20", requires = "answers")]
    ks: Vec<usize>,
    /// Judgements (TREC qrels or BEIR TSV): with only --run, no corpus is needed (default: the
    /// dataset's).
    #[arg(long, value_name = "FILE")]
    qrels: Option<PathBuf>,
    #[command(flatten)]
    run_files: RunArgs,
    #[command(flatten)]
    rank: RankArgs,
    /// Methods, comma-separated: boolean, tfidf, bm25, dense, splade, late, fusion, rerank, or all
    /// (default with --dataset and no --run: bm25).
    #[arg(long, value_delimiter = ',')]
    method: Vec<MethodArg>,
    /// The system the others are tested against: a method (bm25, dense, …) or a run's name
    /// (default: BM25 if it is evaluated, else the first system).
    #[arg(long)]
    baseline: Option<String>,
    /// How the p-values of several systems tested against one baseline are corrected: holm,
    /// bonferroni or none.
    #[arg(long, default_value = "holm")]
    correction: String,
    /// Print the per-query triage instead: every judged query × every system on nDCG@10, by the
    /// largest disagreement (`disagreement`), or by the largest gain or loss of one system against
    /// the baseline (`gain:NAME`, `loss:NAME`).
    #[arg(long, value_name = "ORDER")]
    triage: Option<String>,
    #[command(flatten)]
    models: ModelArgs,
    /// Retrieval depth per query.
    #[arg(long, default_value_t = 1000)]
    depth: usize,
    /// For listwise and pointwise: the column the language model reorders.
    #[arg(long, value_enum, default_value = "bm25")]
    first_stage: MethodArg,
    /// For listwise and pointwise: how many of the first stage's passages the language model
    /// reorders (listwise default 20, one window of 20; RankGPT reorders 100 in windows of 20 moving by 10; pointwise default 20).
    #[arg(long, value_name = "N")]
    model_depth: Option<usize>,
    /// Only the first N judged questions, in the dataset's order (the language model's methods
    /// take seconds a question).
    #[arg(long, value_name = "N")]
    questions: Option<usize>,
    /// Write one TREC run file per method into this folder.
    #[arg(long, value_name = "DIR")]
    runs: Option<PathBuf>,
    /// A second set of judgements (the language model's from `ranklens judge --out`, another
    /// assessor's, a pooled file): every system evaluated under it too, and whether it orders the
    /// systems as the people's judgements do — Kendall τ with a 95 % bootstrap interval, the pairs
    /// whose Holm-corrected paired test flips, κ (the JSON's `validity` object).
    #[arg(long, value_name = "FILE")]
    judge_qrels: Option<PathBuf>,
    #[command(flatten)]
    format: FormatArg,
}

/// `ranklens eval`
pub fn eval(a: EvalArgs) -> anyhow::Result<Found> {
    let mut settings = a.rank.settings(a.depth.max(1))?;
    settings.model_rerank.first_stage = a.first_stage.kind();
    if let Some(d) = a.model_depth {
        (settings.model_rerank.depth, settings.model_rerank.pointwise_depth) = (d, d);
    }
    settings.validate()?;
    if a.questions == Some(0) {
        bail!("--questions: give at least one");
    }
    if let Some(file) = &a.answers {
        // A question set's name finds its fetched file; an empty value is the corpus's own.
        let answers_file = match file.as_str() {
            "" => None,
            name if !std::path::Path::new(name).exists() && crate::datasets::qa_set(name).is_some() => {
                Some(super::args::dataset(name).map_err(anyhow::Error::msg)?)
            }
            name => Some(PathBuf::from(name)),
        };
        let corpus_args = super::args::CorpusArgs { corpus: a.dataset.clone(), split: super::args::SplitArg::File };
        let engine = corpus_args.workbench(&super::progress::TermProgress::new())?;
        let mut kinds: Vec<MethodKind> = if a.method.contains(&MethodArg::All) {
            MethodKind::RANKED.to_vec()
        } else {
            a.method.iter().map(|m| m.kind()).collect()
        };
        if kinds.is_empty() {
            kinds.push(MethodKind::Bm25);
        }
        let asked = super::eval_answers::AnswersAsked {
            file: answers_file.as_deref(),
            reader: a.reader.as_deref(),
            ks: &a.ks,
            questions: a.questions,
        };
        return super::eval_answers::eval_answers(&engine, &kinds, &settings, &a.models, &asked, a.format.value);
    }
    let correction: Correction = a.correction.parse()?;
    let judge = match &a.judge_qrels {
        Some(path) => {
            let (judge, warnings) = Qrels::load(path)?;
            for w in warnings.iter().take(20) {
                eprintln!("warning: {w}");
            }
            if judge.judgements.is_empty() {
                bail!("--judge-qrels {}: the file holds no judgement", path.display());
            }
            Some(judge)
        }
        None => None,
    };
    let corpus = a.dataset.as_deref().map(|d| corpus::load(d, LoadOptions::default())).transpose()?;
    if let Some(c) = &corpus {
        report_load(c);
    }
    let files = a.run_files.load(corpus.as_ref())?;
    let qrels = match (&a.qrels, corpus.as_ref().and_then(|c| c.qrels.clone())) {
        (Some(path), _) => {
            let (qrels, warnings) = Qrels::load(path)?;
            for w in warnings.iter().take(20) {
                eprintln!("warning: {w}");
            }
            qrels
        }
        (None, Some(q)) => q,
        (None, None) => match &a.dataset {
            Some(d) => bail!("{}: no qrels/test.tsv (or questions.tsv with judgements) found", d.display()),
            None => bail!("give --qrels FILE (judgements) to evaluate runs, or --dataset DIR"),
        },
    };
    if qrels.judgements.is_empty() {
        bail!("the judgements hold no judged query");
    }
    let qrels = match (a.questions, &corpus) {
        (Some(n), Some(c)) => first_judged(&qrels, &c.queries, n),
        (Some(n), None) => {
            let mut q = qrels.clone();
            let keep: Vec<String> = q.judgements.keys().take(n).cloned().collect();
            q.judgements.retain(|k, _| keep.contains(k));
            q
        }
        (None, _) => qrels,
    };
    let all = a.method.contains(&MethodArg::All);
    let mut kinds: Vec<MethodKind> =
        if all { MethodKind::RANKED.to_vec() } else { a.method.iter().map(|m| m.kind()).collect() };
    if kinds.is_empty() && files.is_empty() {
        if corpus.is_none() {
            bail!("nothing to evaluate: give --run FILE, or --dataset DIR with --method");
        }
        kinds.push(MethodKind::Bm25);
    }
    // With an adapter, dense is evaluated with it too: a row for each, side by side.
    if settings.adapter.is_some()
        && !kinds.contains(&MethodKind::DenseAdapter)
        && let Some(at) = kinds.iter().position(|k| *k == MethodKind::Dense)
    {
        kinds.insert(at + 1, MethodKind::DenseAdapter);
    }
    for f in files.iter().filter_map(|f| f.saved_system()) {
        let covered = qrels.judgements.keys().filter(|q| f.run.results.contains_key(*q)).count();
        if covered < qrels.judgements.len() {
            eprintln!(
                "note: {} ranks {covered} of the {} judged queries; the others count 0, as with trec_eval -c",
                f.label,
                qrels.judgements.len()
            );
        }
    }
    let progress = TermProgress::new();
    let mut questions = Vec::new();
    let engine = match corpus {
        Some(mut corpus) => {
            if a.questions.is_some() {
                // Only the questions kept are run (the language model's methods take seconds each).
                corpus.queries.retain(|q| qrels.judgements.contains_key(&q.id));
            }
            if corpus.queries.is_empty() && !kinds.is_empty() {
                bail!("the dataset has no queries to run the methods on");
            }
            questions = corpus.queries.clone();
            for f in files.iter().filter_map(|f| f.saved_system()) {
                let absent = f.run.results.values().flatten().filter(|(d, _)| corpus.lookup(d).is_none()).count();
                if absent > 0 {
                    eprintln!("note: {absent} of {}'s entries are documents the corpus does not hold", f.label);
                }
            }
            let engine = Workbench::new(corpus).with_workspace(crate::workspace_dir());
            if !kinds.is_empty() {
                a.models.prepare(&engine, &kinds, &settings, true, &progress)?;
            }
            Some(engine)
        }
        None if !kinds.is_empty() => bail!("--method needs --dataset DIR: the methods run over a corpus"),
        None => None,
    };
    let plan = Plan::of_kinds(&settings, &kinds).with_externals(&files);
    let baseline = a.baseline.clone().map_or(Baseline::Bm25, Baseline::Named);
    let study = plan.study(engine.as_ref(), &qrels, &questions, a.depth, &baseline, correction, &progress)?;
    drop(progress);
    if study.methods.is_empty() {
        let why: Vec<String> = study.missing.iter().map(|m| format!("{}: {}", m.label, m.message)).collect();
        bail!("no method could run ({})", why.join("; "));
    }
    let names: Vec<(String, MethodKind)> = study.methods.iter().map(|m| (m.label.clone(), m.kind)).collect();
    if let Some(dir) = &a.runs {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        for m in study.methods.iter().filter(|m| m.kind != MethodKind::Run) {
            let path = m.run.write_into(dir, &file_name(&m.label))?;
            if path.extension().is_some_and(|e| e == "tsv") {
                eprintln!(
                    "note: {} has ids with spaces, which TREC lines cannot carry: written as TSV",
                    path.display()
                );
            }
        }
    }
    match &a.triage {
        Some(order) => {
            let order = match order.split_once(':') {
                None if order == "disagreement" => TriageOrder::Disagreement,
                Some((dir @ ("gain" | "loss"), name)) => {
                    let i = find_system(&names, name)
                        .ok_or_else(|| anyhow::anyhow!("--triage {}", no_such_system(name, &names)))?;
                    if dir == "gain" { TriageOrder::Gain(i) } else { TriageOrder::Loss(i) }
                }
                _ => bail!("--triage {order}: use disagreement, gain:NAME or loss:NAME"),
            };
            print(&study.triage(order), a.format.value)?;
        }
        None => {
            let methods_ran = study.methods.iter().any(|m| !m.kind.is_external());
            let analyzer = methods_ran.then(|| settings.analyzer.to_string());
            let validity = judge.as_ref().map(|judge| study.validity(&qrels, judge));
            print(&StudyView { study: &study, analyzer, validity: validity.as_ref() }, a.format.value)?
        }
    }
    Ok(Found::Some)
}

/// The judgements of the first `n` judged questions, in the order the dataset lists them.
fn first_judged(qrels: &Qrels, queries: &[crate::corpus::Query], n: usize) -> Qrels {
    let keep: Vec<&str> =
        queries.iter().map(|q| q.id.as_str()).filter(|id| qrels.judgements.contains_key(*id)).take(n).collect();
    let mut out = qrels.clone();
    out.judgements.retain(|k, _| keep.contains(&k.as_str()));
    out
}

/// A method label as a file name: `BM25 (lucene, k1=0.9)` → `BM25_lucene_k1_0.9`.
fn file_name(label: &str) -> String {
    let mut out = String::new();
    for c in label.chars() {
        let c = if c.is_ascii_alphanumeric() || c == '.' { c } else { '_' };
        if !(c == '_' && out.ends_with('_')) {
            out.push(c);
        }
    }
    out.trim_matches('_').to_string()
}

/// A study as printed; its JSON is the study itself, with `validity` when a judge was given.
pub struct StudyView<'a> {
    /// The study.
    pub study: &'a Study,
    /// The analyzer RankLens's methods ran with (none when only runs were evaluated).
    pub analyzer: Option<String>,
    /// A second set of judgements measured against the people's (`--judge-qrels`).
    pub validity: Option<&'a Validity>,
}

impl Serialize for StudyView<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Out<'a> {
            #[serde(flatten)]
            study: &'a Study,
            #[serde(skip_serializing_if = "Option::is_none")]
            validity: Option<&'a Validity>,
        }
        Out { study: self.study, validity: self.validity }.serialize(s)
    }
}

/// A judge's validity as printed: its verdict first, then the two orders, the flips and κ.
fn validity_table(v: &Validity) -> String {
    let mut out = format!("\nThe judge against the people ({} questions both judged, {}):\n", v.questions, v.metric);
    let _ = writeln!(out, "  {}", v.verdict);
    let mut t = Table::new(vec!["method".into(), "people".into(), "judge".into()], 1);
    for s in &v.systems {
        t.row(vec![s.label.clone(), format!("{:.4}", s.people), format!("{:.4}", s.judge)]);
    }
    out.push_str(&t.render());
    let (tau, interval) = (v.tau_text(4), v.interval_text(4));
    let _ = writeln!(
        out,
        "Kendall τ {tau}, 95 % interval {interval} ({} of {} resamples of the questions ordered the systems, seed {:#x})",
        v.resamples_with_tau, v.resamples, v.seed
    );
    match v.flips.len() {
        0 => {
            let _ = writeln!(out, "No pair of the {} flips its paired-test conclusion (Holm, α 0.05).", v.pairs);
        }
        n => {
            let _ = writeln!(out, "{n} of {} pairs flip their paired-test conclusion (Holm, α 0.05):", v.pairs);
            for f in &v.flips {
                let _ = writeln!(out, "  {}", f.text);
            }
        }
    }
    let kappa = v.kappa.map_or("undefined".into(), |k| format!("{k:.3}"));
    let _ = writeln!(out, "Cohen's κ {kappa} over the {} passages the judge labelled; {}.", v.agreement.n, v.unjudged);
    out
}

impl Printable for StudyView<'_> {
    fn table(&self) -> String {
        let study = self.study;
        let mut out = String::new();
        let mut header = vec!["method".to_string(), "queries".to_string()];
        header.extend(study.metrics.0.iter().map(|m| m.to_string()));
        let adjusted = format!("p ({})", study.correction.name());
        header.extend(["W/L/T".to_string(), "p (rand)".to_string(), adjusted, "p (t)".to_string()]);
        let mut t = Table::new(header, 1);
        for (i, m) in study.methods.iter().enumerate() {
            let mut row = vec![m.label.clone(), m.summary.num_queries.to_string()];
            row.extend(study.metrics.0.iter().map(|x| format!("{:.4}", m.summary.mean.get(x).copied().unwrap_or(0.0))));
            match &m.versus_baseline {
                Some(p) => row.extend([
                    format!("{}/{}/{}", p.wins, p.losses, p.ties),
                    format!("{:.4}", p.p_randomisation),
                    format!("{:.4}", p.p_adjusted),
                    format!("{:.4}", p.p_t_test),
                ]),
                None if i == study.baseline => {
                    row.extend(["baseline".to_string(), String::new(), String::new(), String::new()])
                }
                None => {}
            }
            t.row(row);
        }
        for m in &study.missing {
            let mut row = vec![m.label.clone(), "not run".to_string()];
            row.extend(study.metrics.0.iter().map(|_| "—".to_string()));
            t.row(row);
        }
        let analyzer = self.analyzer.as_ref().map(|a| format!("analyzer {a} · ")).unwrap_or_default();
        let _ = writeln!(
            out,
            "{analyzer}{} judged queries · tests on {} against the baseline, 10000 permutations, {} correction over {} test(s)",
            study.num_queries,
            study.primary,
            study.correction.name(),
            study.methods.len().saturating_sub(1)
        );
        out.push_str(&t.render());
        for m in study.methods.iter().filter(|m| m.note.is_some()) {
            let _ = writeln!(out, "{}: {}", m.label, m.note.as_deref().unwrap_or(""));
        }
        for m in &study.missing {
            // The first line says what is missing and how to get it (the rest lists where it looked).
            let _ = writeln!(out, "{} was not run: {}", m.label, m.message.lines().next().unwrap_or(""));
        }
        let (a, b) = study.pair;
        if a != b && !study.disagreements.is_empty() {
            let _ = writeln!(
                out,
                "\nWhere {} and {} disagree most ({}):",
                study.methods[a].label, study.methods[b].label, study.primary
            );
            for d in &study.disagreements {
                let _ = writeln!(out, "  {:>8}  {:.3} vs {:.3}  {}", d.qid, d.a, d.b, truncate(&d.question, 80));
            }
        }
        if let Some(v) = self.validity {
            out.push_str(&validity_table(v));
        }
        out
    }

    fn csv(&self) -> Option<Vec<Vec<String>>> {
        let mut rows = vec![["method", "metric", "value"].map(String::from).to_vec()];
        for m in &self.study.methods {
            for metric in &self.study.metrics.0 {
                let v = m.summary.mean.get(metric).copied().unwrap_or(0.0);
                rows.push(vec![m.label.clone(), metric.to_string(), format!("{v:.4}")]);
            }
        }
        for m in &self.study.missing {
            rows.push(vec![m.label.clone(), "not run".to_string(), m.message.clone()]);
        }
        Some(rows)
    }
}

impl Printable for Triage {
    fn table(&self) -> String {
        let mut header = vec!["query".to_string(), "question".to_string()];
        for (i, s) in self.systems.iter().enumerate() {
            header.push(if i == self.baseline { format!("{s} (baseline)") } else { s.clone() });
        }
        header.push("spread".to_string());
        let mut t = Table::new(header, 2);
        for r in &self.rows {
            let mut row = vec![r.qid.clone(), truncate(&r.question, 60)];
            row.extend(r.values.iter().map(|v| format!("{v:.4}")));
            row.push(format!("{:.4}", r.spread));
            t.row(row);
        }
        format!("{} per query ({} queries)\n{}", self.metric, self.rows.len(), t.render())
    }

    fn csv(&self) -> Option<Vec<Vec<String>>> {
        let mut header = vec!["qid".to_string()];
        header.extend(self.systems.iter().cloned());
        header.extend(["spread".to_string(), "question".to_string()]);
        let mut rows = vec![header];
        for r in &self.rows {
            let mut row = vec![r.qid.clone()];
            row.extend(r.values.iter().map(|v| format!("{v:.6}")));
            row.push(format!("{:.6}", r.spread));
            row.push(r.question.clone());
            rows.push(row);
        }
        Some(rows)
    }
}
