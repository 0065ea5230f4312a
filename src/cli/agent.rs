//! `ranklens agent`: a language model searches the corpus with RankLens's own methods as tools,
//! then answers with citations; the trace shows each step.

use std::fmt::Write;

use clap::Args;
use serde::Serialize;

use super::Found;
use super::args::FormatArg;
use super::args::QuestionArg;
use super::args::{CorpusArgs, OutputFormat, RankArgs};
use super::model_args::ModelArgs;
use super::printer::{Printable, print};
use super::progress::TermProgress;
use crate::progress::NoProgress;
use crate::retrieve::MethodKind;
use crate::retrieve::agent::{AgentRun, AgentStep, Stop};

/// `ranklens agent`
#[derive(Debug, Args)]
pub struct AgentArgs {
    #[command(flatten)]
    corpus: CorpusArgs,
    #[command(flatten)]
    rank: RankArgs,
    #[command(flatten)]
    models: ModelArgs,
    /// The search tools to offer besides SQL and the graph (which come when the corpus has them):
    /// bm25, dense, splade, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "bm25,dense")]
    tools: Vec<String>,
    /// Rounds in which the model may call tools before it is told to answer.
    #[arg(long, default_value_t = 4)]
    rounds: usize,
    /// Tokens the model may write over the run before it is told to answer.
    #[arg(long, default_value_t = 2000)]
    token_budget: usize,
    /// Passages each search returns.
    #[arg(long, default_value_t = 4)]
    per_call: usize,
    #[command(flatten)]
    format: FormatArg,
    #[command(flatten)]
    question: QuestionArg,
}

/// One step as printed.
#[derive(Serialize)]
struct StepView<'a> {
    round: usize,
    thought: &'a str,
    tool: Option<&'a str>,
    arguments: &'a serde_json::Value,
    ids: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    problem: Option<&'a str>,
    tokens: usize,
    seconds: f64,
}

#[derive(Serialize)]
struct AgentView<'a> {
    question: &'a str,
    model: &'a str,
    protocol: crate::retrieve::agent::Protocol,
    tools: &'a [String],
    trace: Vec<StepView<'a>>,
    answer: &'a str,
    citations: &'a [crate::generate::citations::Citation],
    hits: &'a [String],
    stopped: Stop,
    stop_reason: String,
    tokens: usize,
    seconds: f64,
}

impl<'a> AgentView<'a> {
    fn of(run: &'a AgentRun) -> Self {
        let step = |s: &'a AgentStep| StepView {
            round: s.round,
            thought: &s.thought,
            tool: s.tool.as_deref(),
            arguments: &s.arguments,
            ids: &s.ids,
            problem: s.problem.as_deref(),
            tokens: s.tokens,
            seconds: s.seconds,
        };
        AgentView {
            question: &run.question,
            model: &run.model,
            protocol: run.protocol,
            tools: &run.tools,
            trace: run.steps.iter().map(step).collect(),
            answer: &run.answer.text,
            citations: &run.answer.citations,
            hits: &run.hits,
            stopped: run.stopped,
            stop_reason: run.stopped.describe(),
            tokens: run.tokens,
            seconds: run.seconds,
        }
    }
}

impl Printable for AgentView<'_> {
    fn table(&self) -> String {
        let mut out = format!("{} searching with {}\n\n", self.model, self.tools.join(", "));
        for s in &self.trace {
            let _ = writeln!(
                out,
                "round {}  {}  {}  → {}  ({} tokens, {:.1} s)",
                s.round,
                s.tool.unwrap_or("—"),
                if s.arguments.is_null() { String::new() } else { s.arguments.to_string() },
                if s.ids.is_empty() { "nothing".to_string() } else { s.ids.join(", ") },
                s.tokens,
                s.seconds
            );
            if !s.thought.is_empty() {
                let _ = writeln!(out, "         thought: {}", s.thought);
            }
            if let Some(p) = s.problem {
                let _ = writeln!(out, "         ! {p}");
            }
        }
        let _ =
            writeln!(out, "\nanswer: {}", if self.answer.trim().is_empty() { "(none)" } else { self.answer.trim() });
        let cited: Vec<String> =
            self.citations.iter().map(|c| format!("[{}] {}", c.n, c.id.as_deref().unwrap_or("(never read)"))).collect();
        let _ = writeln!(out, "cites: {}", if cited.is_empty() { "nothing".into() } else { cited.join(", ") });
        let _ = writeln!(out, "Agent column: {}", self.hits.join(", "));
        let _ = writeln!(out, "stopped: {} ({} tokens, {:.1} s)", self.stop_reason, self.tokens, self.seconds);
        out
    }
}

/// `ranklens agent`
pub fn agent(a: AgentArgs) -> anyhow::Result<Found> {
    let mut settings = a.rank.settings(10)?;
    settings.agent.rounds = a.rounds;
    settings.agent.max_tokens = a.token_budget;
    settings.agent.per_call = a.per_call;
    settings.validate()?;
    let progress = TermProgress::new();
    let engine = a.corpus.workbench(&progress)?;
    let mut kinds = vec![MethodKind::Agent];
    for t in &a.tools {
        match t.trim() {
            "bm25" => {}
            "dense" => kinds.push(MethodKind::Dense),
            "splade" => kinds.push(MethodKind::Splade),
            other => anyhow::bail!("--tools: `{other}` is not a search tool (bm25, dense, splade)"),
        }
    }
    a.models.prepare(&engine, &kinds, &settings, true, &progress)?;
    if !engine.has_model(crate::models::Role::Generator) {
        engine.set_generator(a.models.generator(&progress)?)?;
    }
    drop(progress);
    let agent = engine.agent(&settings, Some(&a.tools))?;
    let names = agent.tool_names();
    for t in &a.tools {
        if !names.iter().any(|n| n == t.trim()) {
            eprintln!("note: the {t} tool cannot run here (its model is missing or the passages are not encoded)");
        }
    }
    let query = engine.query_context(&a.question.text, &settings);
    let streamed = a.format.value == OutputFormat::Table;
    let mut on_step = |s: &AgentStep| {
        if streamed {
            eprintln!("round {}: {} {}", s.round, s.tool.as_deref().unwrap_or("—"), s.ids.join(", "));
        }
    };
    let run = agent.run(&query, &mut on_step, &NoProgress)?;
    print(&AgentView::of(&run), a.format.value)?;
    Ok(if run.hits.is_empty() { Found::Nothing } else { Found::Some })
}
