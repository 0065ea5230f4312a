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
    let names = tools.names();
    let specs = tools.specs();
    let info = generator.info().clone();
    let mut reading = Reading { read: Vec::new() };
    let mut steps: Vec<AgentStep> = Vec::new();
    let mut tokens = 0usize;
    let mut protocol = Protocol::Tools;
    let mut tool_messages =
        vec![Message::system(prompts::AGENT_TOOLS.system), Message::user(question.text().trim().to_string())];
    let mut text_messages = text_start(tools, question.text());
    let mut answer: Option<String> = None;
    let mut stopped = Stop::Rounds { rounds: limits.rounds };
    let mut constrained: Option<String> = None;
    let mut stored_turns = 0usize;
    let mut record = |steps: &mut Vec<AgentStep>, step: AgentStep| {
        on_step(&step);
        steps.push(step);
    };
    progress.stage("the agent is searching", limits.rounds as u64);
    for round in 1..=limits.rounds {
        check_cancel(progress)?;
        if tokens >= limits.max_tokens {
            stopped = Stop::Tokens { max_tokens: limits.max_tokens };
            break;
        }
        let turn_started = Instant::now();
        if protocol == Protocol::Tools {
            let request = ChatRequest::new(tool_messages.clone(), prompts::AGENT_TOOLS.max_tokens);
            match generator.chat_with_tools(&request, &specs, progress) {
                Ok(Some(turn)) if turn.calls.is_empty() && round == 1 => {
                    // A server that takes `tools` but whose chat format drops them (its model never
                    // sees them) answers from nothing: asked in words instead, as one that refuses.
                    tokens += turn.completion_tokens;
                    stored_turns += usize::from(turn.stored);
                    let step = unread(
                        round,
                        &turn.text,
                        "the model called no tool in the first round (its chat format may not pass tools on); \
                         asked again in the text protocol",
                        turn.completion_tokens,
                        turn.seconds,
                    );
                    record(&mut steps, step);
                    protocol = Protocol::Text;
                }
                Ok(Some(turn)) => {
                    tokens += turn.completion_tokens;
                    stored_turns += usize::from(turn.stored);
                    if turn.calls.is_empty() {
                        if turn.text.trim().is_empty() {
                            let step = unread(
                                round,
                                "",
                                "the model called no tool and wrote nothing",
                                turn.completion_tokens,
                                turn.seconds,
                            );
                            tool_messages.push(Message::assistant(""));
                            tool_messages.push(Message::user(prompts::AGENT_NUDGE_TOOLS));
                            record(&mut steps, step);
                            continue;
                        }
                        answer = Some(turn.text.clone());
                        stopped = Stop::Answered;
                        break;
                    }
                    tool_messages.push(Message::calls(turn.text.clone(), turn.calls.clone()));
                    for (i, call) in turn.calls.iter().enumerate() {
                        check_cancel(progress)?;
                        let call_started = Instant::now();
                        let step_index = steps.len();
                        let (result, observation) = if i < limits.calls_per_round {
                            let result = tools.call(&call.name, &call.arguments, question, limits.per_call);
                            let observation = reading.observe(tools, step_index, &result);
                            (result, observation)
                        } else {
                            let problem =
                                format!("only {} calls run per round; this one was skipped", limits.calls_per_round);
                            (ToolResult { problem: Some(problem.clone()), ..ToolResult::default() }, problem)
                        };
                        tool_messages.push(Message::tool(call.id.clone(), observation.clone()));
                        let step = call_step(
                            round,
                            &turn.text,
                            call,
                            &result,
                            observation,
                            &reading,
                            i == 0,
                            turn.completion_tokens,
                        );
                        let seconds = if i == 0 { turn.seconds } else { 0.0 } + call_started.elapsed().as_secs_f64();
                        record(&mut steps, AgentStep { seconds, ..step });
                    }
                    progress.advance(1);
                    continue;
                }
                Ok(None) => protocol = Protocol::Text,
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
                    record(&mut steps, step);
                    protocol = Protocol::Text;
                }
                Err(e) => return Err(e),
            }
        }
        // The text protocol, each turn held to it where the generator can be.
        let request = ChatRequest::new(text_messages.clone(), prompts::AGENT.max_tokens)
            .shaped(Shape::AgentTurn { tools: names.clone() });
        let generated = generator.chat(&request, &mut |_| {}, progress)?;
        tokens += generated.completion_tokens;
        stored_turns += usize::from(generated.stored);
        constrained = constrained.or(generated.constrained.clone());
        let turn = read_turn(&generated.text, &names);
        let repairs = (!turn.repairs.is_empty()).then(|| turn.repairs.join("; "));
        match (turn.action, turn.answer) {
            (Some((tool, input)), _) => {
                let call_started = Instant::now();
                let step_index = steps.len();
                let result = tools.call(&tool, &input, question, limits.per_call);
                let observation = reading.observe(tools, step_index, &result);
                text_messages
                    .push(Message::assistant(format!("Thought: {}\nAction: {tool}\nInput: {input}", turn.thought)));
                text_messages.push(Message::user(format!("Observation:\n{observation}")));
                let call = ToolCall { id: format!("step-{step_index}"), name: tool, arguments: input };
                let mut step = call_step(
                    round,
                    &turn.thought,
                    &call,
                    &result,
                    observation,
                    &reading,
                    true,
                    generated.completion_tokens,
                );
                step.seconds = generated.seconds + call_started.elapsed().as_secs_f64();
                step.problem = join(step.problem, repairs);
                record(&mut steps, step);
            }
            (None, Some(text)) if !text.trim().is_empty() => {
                if let Some(r) = repairs {
                    record(
                        &mut steps,
                        unread(round, &turn.thought, &r, generated.completion_tokens, generated.seconds),
                    );
                }
                answer = Some(text);
                stopped = Stop::Answered;
                break;
            }
            _ => {
                let problem = "the reply had neither an action nor an answer";
                record(
                    &mut steps,
                    unread(round, &generated.text, problem, generated.completion_tokens, generated.seconds),
                );
                text_messages.push(Message::assistant(generated.text.clone()));
                text_messages.push(Message::user(prompts::AGENT_NUDGE_TEXT));
            }
        }
        progress.advance(1);
    }
    // The bound was hit: the model answers from what it read (offered no tools).
    let answer = match answer {
        Some(a) => a,
        None => {
            check_cancel(progress)?;
            let request = match protocol {
                Protocol::Tools => {
                    let mut m = tool_messages.clone();
                    m.push(Message::user(prompts::AGENT_LAST_WORD));
                    ChatRequest::new(m, prompts::AGENT_TOOLS.max_tokens)
                }
                Protocol::Text => {
                    let mut m = text_messages.clone();
                    m.push(Message::user(format!(
                        "{}\n{}",
                        prompts::AGENT_LAST_WORD,
                        prompts::AGENT_START_WITH_ANSWER
                    )));
                    // No tool is offered now: the turn can only be an answer.
                    ChatRequest::new(m, prompts::AGENT_TOOLS.max_tokens).shaped(Shape::AgentTurn { tools: Vec::new() })
                }
            };
            let generated = generator.chat(&request, &mut |_| {}, progress)?;
            tokens += generated.completion_tokens;
            stored_turns += usize::from(generated.stored);
            let turn = read_turn(&generated.text, &[]);
            turn.answer.unwrap_or_default()
        }
    };
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
