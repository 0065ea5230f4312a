//! One agent run: plan → call a tool → read → next step → answer with citations, bounded in rounds
//! and tokens. A server that takes the chat API's tools is offered them; any other generator (the
//! embedded model) is asked in the text protocol (`protocol.rs`). Either way each step is recorded
//! as it happens, with its tokens and seconds, and the answer is read against the passages the
//! tools returned: the numbers it cites are those the model was shown.

use std::time::Instant;

use serde_json::Value;

use super::super::QueryContext;
use super::protocol::read_turn;
use super::tools::{OBSERVATION_WORDS, ToolResult, Toolbox};
use super::trace::{AgentLimits, AgentRun, AgentStep, Protocol, ReadPassage, Stop};
use crate::corpus::DocId;
use crate::generate::citations::read_answer;
use crate::generate::{ChatRequest, Generator, Message, Shape, ToolCall, prompts};
use crate::progress::{Progress, check_cancel};
use crate::{Error, Result};

/// The passages read so far, numbered in the order first read.
struct Reading {
    read: Vec<(DocId, ReadPassage)>,
}

impl Reading {
    /// Number the passages of a call (a passage read before keeps its number) and write the
    /// observation the model is shown.
    fn observe(&mut self, tools: &Toolbox, step: usize, result: &ToolResult) -> String {
        let corpus = tools.corpus();
        let mut lines: Vec<String> = result.lines.clone();
        if let Some(p) = &result.problem {
            lines.insert(0, format!("Note: {p}"));
        }
        for &doc in &result.docs {
            let Some(d) = corpus.doc(doc) else { continue };
            let known = self.read.iter().find(|(x, _)| *x == doc).map(|(_, r)| r.n);
            match known {
                Some(n) => lines.push(format!("[{n}] ({}) read before", d.id)),
                None => {
                    let n = self.read.len() + 1;
                    self.read.push((doc, ReadPassage { n, id: d.id.clone(), step }));
                    let text = d.passage_text();
                    let words: Vec<&str> = text.split_whitespace().take(OBSERVATION_WORDS).collect();
                    lines.push(format!("[{n}] ({}) {}", d.id, words.join(" ")));
                }
            }
        }
        if result.docs.is_empty() && result.lines.is_empty() && result.problem.is_none() {
            lines.push("No passages found.".into());
        }
        lines.join("\n")
    }

    /// The passages as the answer's reader numbers them.
    fn passages(&self, tools: &Toolbox) -> Vec<(String, String)> {
        self.read
            .iter()
            .map(|(doc, r)| (r.id.clone(), tools.corpus().doc(*doc).map(|d| d.passage_text()).unwrap_or_default()))
            .collect()
    }
}

/// Run the agent on `question` with `tools`, within `limits`. Each step is passed to `on_step` as
/// it is recorded (the app shows the trace growing). Only a failure of the model itself (no
/// server, cancelled) is an error; a bad call is told to the model and recorded.
pub fn run_agent(
    generator: &dyn Generator,
    tools: &Toolbox,
    question: &QueryContext,
    limits: AgentLimits,
    on_step: &mut dyn FnMut(&AgentStep),
    progress: &dyn Progress,
) -> Result<AgentRun> {
    let started = Instant::now();
    let info = generator.info().clone();
    let mut run = Session {
        generator,
        tools,
        question,
        limits,
        progress,
        on_step,
        names: tools.names(),
        reading: Reading { read: Vec::new() },
        steps: Vec::new(),
        tokens: 0,
        constrained: None,
        stored_turns: 0,
        tool_messages: vec![
            Message::system(prompts::AGENT_TOOLS.system),
            Message::user(question.text().trim().to_string()),
        ],
        text_messages: text_start(tools, question.text()),
    };
    let mut protocol = Protocol::Tools;
    let mut answer: Option<String> = None;
    let mut stopped = Stop::Rounds { rounds: limits.rounds };
    progress.stage("the agent is searching", limits.rounds as u64);
    for round in 1..=limits.rounds {
        check_cancel(progress)?;
        if run.tokens >= limits.max_tokens {
            stopped = Stop::Tokens { max_tokens: limits.max_tokens };
            break;
        }
        let turn = match protocol {
            Protocol::Tools => match run.tools_turn(round)? {
                Turn::Text => {
                    protocol = Protocol::Text;
                    run.text_turn(round)?
                }
                other => other,
            },
            Protocol::Text => run.text_turn(round)?,
        };
        match turn {
            Turn::Answered(text) => {
                answer = Some(text);
                stopped = Stop::Answered;
                break;
            }
            Turn::Done => progress.advance(1),
            Turn::Again | Turn::Text => {}
        }
    }
    // The bound was hit: the model answers from what it read (offered no tools).
    let answer = match answer {
        Some(a) => a,
        None => run.last_word(protocol)?,
    };
    let Session { reading, steps, tokens, constrained, stored_turns, names, .. } = run;
    let passages = reading.passages(tools);
    let read = read_answer(&answer, &passages);
    let mut hits: Vec<String> = read.citations.iter().filter_map(|c| c.id.clone()).collect();
    for (_, r) in &reading.read {
        if !hits.contains(&r.id) {
            hits.push(r.id.clone());
        }
    }
    Ok(AgentRun {
        question: question.text().trim().to_string(),
        model: info.label(),
        protocol,
        tools: names,
        steps,
        answer: read,
        read: reading.read.into_iter().map(|(_, r)| r).collect(),
        hits,
        stopped,
        tokens,
        seconds: started.elapsed().as_secs_f64(),
        caveat: info.caveat,
        constrained,
        stored_turns,
    })
}

/// What became of one round.
enum Turn {
    /// The round ran its calls: the next round.
    Done,
    /// Nothing to act on; the model was nudged: the next round (not counted as done).
    Again,
    /// The model answered.
    Answered(String),
    /// The chat API's tools cannot be used: this round and the rest in the text protocol.
    Text,
}

/// One run's state: the conversation in each protocol, the passages read, the steps recorded.
struct Session<'a> {
    generator: &'a dyn Generator,
    tools: &'a Toolbox,
    question: &'a QueryContext,
    limits: AgentLimits,
    progress: &'a dyn Progress,
    on_step: &'a mut dyn FnMut(&AgentStep),
    names: Vec<String>,
    reading: Reading,
    steps: Vec<AgentStep>,
    tokens: usize,
    constrained: Option<String>,
    stored_turns: usize,
    tool_messages: Vec<Message>,
    text_messages: Vec<Message>,
}

impl Session<'_> {
    fn record(&mut self, step: AgentStep) {
        (self.on_step)(&step);
        self.steps.push(step);
    }

    /// A round of the chat API's tools: the model's calls run (up to the round's limit), or its
    /// answer; [`Turn::Text`] when the server cannot take tools.
    fn tools_turn(&mut self, round: usize) -> Result<Turn> {
        let turn_started = Instant::now();
        let request = ChatRequest::new(self.tool_messages.clone(), prompts::AGENT_TOOLS.max_tokens);
        let turn = match self.generator.chat_with_tools(&request, &self.tools.specs(), self.progress) {
            Ok(Some(turn)) => turn,
            Ok(None) => return Ok(Turn::Text),
            Err(Error::Cancelled) => return Err(Error::Cancelled),
            Err(e) if round == 1 => {
                // A server that refuses the `tools` field: ask it in words instead, and say so.
                let step = unread(
                    round,
                    "",
                    &format!("the server refused tools ({e}); the text protocol is used"),
                    0,
                    turn_started.elapsed().as_secs_f64(),
                );
                self.record(step);
                return Ok(Turn::Text);
            }
            Err(e) => return Err(e),
        };
        self.tokens += turn.completion_tokens;
        self.stored_turns += usize::from(turn.stored);
        if turn.calls.is_empty() && round == 1 {
            // A server that takes `tools` but whose chat format drops them (its model never
            // sees them) answers from nothing: asked in words instead, as one that refuses.
            let step = unread(
                round,
                &turn.text,
                "the model called no tool in the first round (its chat format may not pass tools on); \
                 asked again in the text protocol",
                turn.completion_tokens,
                turn.seconds,
            );
            self.record(step);
            return Ok(Turn::Text);
        }
        if turn.calls.is_empty() {
            if turn.text.trim().is_empty() {
                let step = unread(
                    round,
                    "",
                    "the model called no tool and wrote nothing",
                    turn.completion_tokens,
                    turn.seconds,
                );
                self.tool_messages.push(Message::assistant(""));
                self.tool_messages.push(Message::user(prompts::AGENT_NUDGE_TOOLS));
                self.record(step);
                return Ok(Turn::Again);
            }
            return Ok(Turn::Answered(turn.text.clone()));
        }
        self.tool_messages.push(Message::calls(turn.text.clone(), turn.calls.clone()));
        for (i, call) in turn.calls.iter().enumerate() {
            check_cancel(self.progress)?;
            let call_started = Instant::now();
            let step_index = self.steps.len();
            let (result, observation) = if i < self.limits.calls_per_round {
                let result = self.tools.call(&call.name, &call.arguments, self.question, self.limits.per_call);
                let observation = self.reading.observe(self.tools, step_index, &result);
                (result, observation)
            } else {
                let problem = format!("only {} calls run per round; this one was skipped", self.limits.calls_per_round);
                (ToolResult { problem: Some(problem.clone()), ..ToolResult::default() }, problem)
            };
            self.tool_messages.push(Message::tool(call.id.clone(), observation.clone()));
            let step =
                call_step(round, &turn.text, call, &result, observation, &self.reading, i == 0, turn.completion_tokens);
            let seconds = if i == 0 { turn.seconds } else { 0.0 } + call_started.elapsed().as_secs_f64();
            self.record(AgentStep { seconds, ..step });
        }
        Ok(Turn::Done)
    }

    /// A round of the text protocol, the turn held to it where the generator can be: the action
    /// run, or the answer, or a nudge when the reply was neither.
    fn text_turn(&mut self, round: usize) -> Result<Turn> {
        let request = ChatRequest::new(self.text_messages.clone(), prompts::AGENT.max_tokens)
            .shaped(Shape::AgentTurn { tools: self.names.clone() });
        let generated = self.generator.chat(&request, &mut |_| {}, self.progress)?;
        self.tokens += generated.completion_tokens;
        self.stored_turns += usize::from(generated.stored);
        self.constrained = self.constrained.take().or(generated.constrained.clone());
        let turn = read_turn(&generated.text, &self.names);
        let repairs = (!turn.repairs.is_empty()).then(|| turn.repairs.join("; "));
        match (turn.action, turn.answer) {
            (Some((tool, input)), _) => {
                let call_started = Instant::now();
                let step_index = self.steps.len();
                let result = self.tools.call(&tool, &input, self.question, self.limits.per_call);
                let observation = self.reading.observe(self.tools, step_index, &result);
                self.text_messages
                    .push(Message::assistant(format!("Thought: {}\nAction: {tool}\nInput: {input}", turn.thought)));
                self.text_messages.push(Message::user(format!("Observation:\n{observation}")));
                let call = ToolCall { id: format!("step-{step_index}"), name: tool, arguments: input };
                let mut step = call_step(
                    round,
                    &turn.thought,
                    &call,
                    &result,
                    observation,
                    &self.reading,
                    true,
                    generated.completion_tokens,
                );
                step.seconds = generated.seconds + call_started.elapsed().as_secs_f64();
                step.problem = join(step.problem, repairs);
                self.record(step);
                Ok(Turn::Done)
            }
            (None, Some(text)) if !text.trim().is_empty() => {
                if let Some(r) = repairs {
                    self.record(unread(round, &turn.thought, &r, generated.completion_tokens, generated.seconds));
                }
                Ok(Turn::Answered(text))
            }
            _ => {
                let problem = "the reply had neither an action nor an answer";
                self.record(unread(round, &generated.text, problem, generated.completion_tokens, generated.seconds));
                self.text_messages.push(Message::assistant(generated.text.clone()));
                self.text_messages.push(Message::user(prompts::AGENT_NUDGE_TEXT));
                Ok(Turn::Done)
            }
        }
    }

    /// The bound was hit: the model answers from what it read, offered no tools.
    fn last_word(&mut self, protocol: Protocol) -> Result<String> {
        check_cancel(self.progress)?;
        let request = match protocol {
            Protocol::Tools => {
                let mut m = self.tool_messages.clone();
                m.push(Message::user(prompts::AGENT_LAST_WORD));
                ChatRequest::new(m, prompts::AGENT_TOOLS.max_tokens)
            }
            Protocol::Text => {
                let mut m = self.text_messages.clone();
                m.push(Message::user(format!("{}\n{}", prompts::AGENT_LAST_WORD, prompts::AGENT_START_WITH_ANSWER)));
                // No tool is offered now: the turn can only be an answer.
                ChatRequest::new(m, prompts::AGENT_TOOLS.max_tokens).shaped(Shape::AgentTurn { tools: Vec::new() })
            }
        };
        let generated = self.generator.chat(&request, &mut |_| {}, self.progress)?;
        self.tokens += generated.completion_tokens;
        self.stored_turns += usize::from(generated.stored);
        Ok(read_turn(&generated.text, &[]).answer.unwrap_or_default())
    }
}

/// The text protocol's first messages: the instructions with the tools, the worked example, the
/// question.
fn text_start(tools: &Toolbox, question: &str) -> Vec<Message> {
    let p = &prompts::AGENT;
    let mut messages = vec![Message::system(prompts::fill(p.system, &[("tools", &tools.described())]))];
    for (user, assistant) in p.examples {
        messages.push(Message::user(*user));
        messages.push(Message::assistant(*assistant));
    }
    messages.push(Message::user(p.fill(&[("question", question.trim())])));
    messages
}

/// A turn the reader could not act on.
fn unread(round: usize, thought: &str, problem: &str, tokens: usize, seconds: f64) -> AgentStep {
    AgentStep {
        round,
        thought: thought.trim().to_string(),
        tool: None,
        arguments: Value::Null,
        ids: Vec::new(),
        observation: String::new(),
        problem: Some(problem.to_string()),
        tokens,
        seconds,
    }
}

/// The step of one call.
#[allow(clippy::too_many_arguments)]
fn call_step(
    round: usize,
    thought: &str,
    call: &ToolCall,
    result: &ToolResult,
    observation: String,
    reading: &Reading,
    first_of_turn: bool,
    tokens: usize,
) -> AgentStep {
    let ids = result
        .docs
        .iter()
        .filter_map(|d| reading.read.iter().find(|(x, _)| x == d).map(|(_, r)| r.id.clone()))
        .collect();
    AgentStep {
        round,
        thought: thought.split_whitespace().collect::<Vec<_>>().join(" "),
        tool: Some(call.name.clone()),
        arguments: result.arguments.clone(),
        ids,
        observation,
        problem: result.problem.clone(),
        tokens: if first_of_turn { tokens } else { 0 },
        seconds: 0.0,
    }
}

fn join(a: Option<String>, b: Option<String>) -> Option<String> {
    match (a, b) {
        (Some(a), Some(b)) => Some(format!("{a}; {b}")),
        (a, b) => a.or(b),
    }
}
