//! An agent's trace: each step's round, thought, tool, arguments, the passages it returned, its
//! tokens and seconds, and what went wrong; then the answer with its citations and why the run
//! stopped. Drawn in the RAG view for the Agent column's run and, one passage's steps, in its
//! explanation.

use egui::{RichText, Ui};

use crate::gui::theme;
use crate::gui::widgets::ellipsis;
use crate::retrieve::agent::{AgentRun, AgentStep, Protocol, Stop};

/// The steps as a table.
pub fn steps_ui(ui: &mut Ui, id: &str, steps: &[AgentStep]) {
    egui::Grid::new(("agent-steps", id)).striped(true).num_columns(7).show(ui, |ui| {
        for h in ["round", "thought", "tool", "arguments", "passages returned", "tokens", "seconds"] {
            ui.label(RichText::new(h).strong());
        }
        ui.end_row();
        for s in steps {
            ui.label(s.round.to_string());
            ui.label(ellipsis(&s.thought, 60));
            match &s.tool {
                Some(t) => ui.label(RichText::new(t).monospace()),
                None => ui.label(RichText::new("—").weak()),
            };
            let args = if s.arguments.is_null() { String::new() } else { s.arguments.to_string() };
            ui.label(RichText::new(ellipsis(&args, 60)).monospace().small());
            ui.label(if s.ids.is_empty() { "none".to_string() } else { s.ids.join(", ") });
            ui.label(s.tokens.to_string());
            ui.label(format!("{:.1}", s.seconds));
            ui.end_row();
            if let Some(p) = &s.problem {
                ui.label("");
                ui.colored_label(theme::WARNING, ellipsis(p, 160));
                ui.end_row();
            }
        }
    });
}

/// A whole run: how it was asked, the steps, the answer, and why it stopped.
pub fn run_ui(ui: &mut Ui, run: &AgentRun) {
    let how = match run.protocol {
        Protocol::Tools => "the chat API's tools",
        Protocol::Text => "the text protocol (Action: / Input: lines)",
    };
    ui.label(
        RichText::new(format!(
            "{} called {} through {how}. Tools offered: {}.",
            run.model,
            run.tool_calls(),
            run.tools.join(", ")
        ))
        .small(),
    );
    if let Some(c) = &run.caveat {
        ui.label(RichText::new(c).small().color(theme::WARNING));
    }
    steps_ui(ui, "run", &run.steps);
    ui.add_space(6.0);
    ui.label(RichText::new("Answer").strong());
    if run.answer.text.trim().is_empty() {
        ui.colored_label(theme::WARNING, "The model gave no answer.");
    } else {
        ui.label(&run.answer.text);
    }
    let cited = run.cited_ids();
    ui.label(
        RichText::new(format!("cites: {}", if cited.is_empty() { "nothing".into() } else { cited.join(", ") })).small(),
    );
    let stray = run.answer.stray();
    if !stray.is_empty() {
        ui.colored_label(
            theme::ERROR,
            format!(
                "cites passages it never read: {}",
                stray.iter().map(|n| format!("[{n}]")).collect::<Vec<_>>().join(" ")
            ),
        );
    }
    let color = if run.stopped == Stop::Answered { theme::LITERAL } else { theme::WARNING };
    ui.colored_label(color, format!("Stopped: {}.", run.stopped.describe()));
    ui.label(RichText::new(run.summary()).small().weak());
}
