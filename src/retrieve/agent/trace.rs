//! What an agent did: each step's thought, tool, arguments, the passages it returned, the tokens
//! and seconds it took; the answer with its citations; and why it stopped.

use serde::{Deserialize, Serialize};

use crate::generate::citations::CitedAnswer;

/// The bounds of one agent run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct AgentLimits {
    /// Turns in which the model may call tools (then it is asked to answer).
    pub rounds: usize,
    /// Tokens the model may write over the whole run (then it is asked to answer).
    pub max_tokens: usize,
    /// Passages one search returns.
    pub per_call: usize,
    /// Tool calls of one turn that run (a model that asks for more is told which were skipped).
    pub calls_per_round: usize,
}

impl Default for AgentLimits {
    fn default() -> Self {
        Self { rounds: 4, max_tokens: 2000, per_call: 4, calls_per_round: 3 }
    }
}

impl AgentLimits {
    /// Each bound at least 1, and rounds at most 20 (each round is a model call).
    pub fn validate(&self) -> crate::Result<()> {
        let field = |name: &str, v: usize, max: usize| {
            if v == 0 || v > max {
                Err(crate::Error::invalid(name, format!("{v} is outside 1–{max}")))
            } else {
                Ok(())
            }
        };
        field("agent-rounds", self.rounds, 20)?;
        field("agent-tokens", self.max_tokens, 100_000)?;
        field("agent-per-call", self.per_call, 50)?;
        field("agent-calls-per-round", self.calls_per_round, 10)
    }
}

/// How the model was asked to call tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Protocol {
    /// The chat API's `tools` (a server that takes them).
    Tools,
    /// The text protocol (`Action:` and `Input:` lines), read tolerantly.
    Text,
}

/// One step of a run: a tool call with what it returned, or a turn the reader could not act on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentStep {
    /// The round (1-based) the model wrote it in.
    pub round: usize,
    /// What the model said it was doing, as written.
    pub thought: String,
    /// The tool it called (as it named it), if it named one.
    pub tool: Option<String>,
    /// The arguments it gave, as read (an object).
    pub arguments: serde_json::Value,
    /// The passages the call returned, best first.
    pub ids: Vec<String>,
    /// What the model was told (the tool's result, or why there was none), as sent.
    pub observation: String,
    /// What went wrong, when something did: an unknown tool, arguments that were not JSON, a call
    /// over the round's limit, a turn with neither an action nor an answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    /// Tokens the model wrote for the turn (shared by the turn's calls: counted on the first).
    pub tokens: usize,
    /// Seconds the turn and the call took.
    pub seconds: f64,
}

impl AgentStep {
    /// One line: the round, the call and what it returned, or what went wrong
    /// (`round 1: bm25 {"query":"E104"} → 3 passages: errors-2, releases-5, accounts-3`).
    pub fn line(&self) -> String {
        let call = match &self.tool {
            Some(tool) => format!("{tool} {}", self.arguments),
            None => "no call".to_string(),
        };
        let got = match (&self.problem, self.ids.len()) {
            (Some(p), _) => p.clone(),
            (None, 0) => "nothing".to_string(),
            (None, n) => {
                let shown: Vec<&str> = self.ids.iter().take(3).map(String::as_str).collect();
                let more = if n > 3 { ", …" } else { "" };
                format!("{n} passage{}: {}{more}", if n == 1 { "" } else { "s" }, shown.join(", "))
            }
        };
        format!("round {}: {call} → {got}", self.round)
    }
}

/// Why a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "reason")]
pub enum Stop {
    /// The model answered by itself.
    Answered,
    /// The rounds ran out: the model was told to answer from what it had read.
    Rounds {
        /// The bound.
        rounds: usize,
    },
    /// The token budget ran out: the model was told to answer.
    Tokens {
        /// The bound.
        max_tokens: usize,
    },
}

impl Stop {
    /// `answered`, or which bound was hit.
    pub fn describe(&self) -> String {
        match self {
            Stop::Answered => "the model answered".into(),
            Stop::Rounds { rounds } => {
                format!("the bound of {rounds} rounds was hit; the model was told to answer from what it had read")
            }
            Stop::Tokens { max_tokens } => {
                format!("the bound of {max_tokens} tokens was hit; the model was told to answer from what it had read")
            }
        }
    }
}

/// One passage the agent read: the number it was shown with, and where it came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadPassage {
    /// The number the model saw (`[3]`), the same every time the passage came back.
    pub n: usize,
    /// Its id.
    pub id: String,
    /// The step (0-based, into [`AgentRun::steps`]) that first returned it.
    pub step: usize,
}

/// A whole run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentRun {
    /// The question.
    pub question: String,
    /// The model ([`crate::generate::GeneratorInfo::label`]).
    pub model: String,
    /// How it called tools.
    pub protocol: Protocol,
    /// The tools it was offered.
    pub tools: Vec<String>,
    /// Every step, in order.
    pub steps: Vec<AgentStep>,
    /// The answer, read against the passages read (its citations resolved to them).
    pub answer: CitedAnswer,
    /// Every passage read, in the order first read.
    pub read: Vec<ReadPassage>,
    /// The passages read in the order the answer used them: those it cites, in the order first
    /// cited, then the others in the order read (the Agent column).
    pub hits: Vec<String>,
    /// Why it ended.
    pub stopped: Stop,
    /// Tokens the model wrote in all.
    pub tokens: usize,
    /// Seconds in all.
    pub seconds: f64,
    /// What a reader should know about the model's text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caveat: Option<String>,
    /// What the model's turns were held to while written, when they were (the embedded model's
    /// protocol grammar).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub constrained: Option<String>,
    /// How many of the model's turns came from the workspace's store of replies.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub stored_turns: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl AgentRun {
    /// The steps that called a tool.
    pub fn tool_calls(&self) -> usize {
        self.steps.iter().filter(|s| s.tool.is_some()).count()
    }

    /// The numbers the answer cites that were read, in order.
    pub fn cited_ids(&self) -> Vec<String> {
        self.answer.citations.iter().filter_map(|c| c.id.clone()).collect()
    }

    /// One line: rounds, calls, tokens, seconds, and why it stopped.
    pub fn summary(&self) -> String {
        let rounds = self.steps.iter().map(|s| s.round).max().unwrap_or(0);
        format!(
            "{} tool call{} in {rounds} round{}, {} passage{} read, {} cited; {} tokens, {:.1} s; {}",
            self.tool_calls(),
            if self.tool_calls() == 1 { "" } else { "s" },
            if rounds == 1 { "" } else { "s" },
            self.read.len(),
            if self.read.len() == 1 { "" } else { "s" },
            self.cited_ids().len(),
            self.tokens,
            self.seconds,
            self.stopped.describe()
        )
    }
}
