//! Explain → Why not?, answered with what would bring the passage in: for a passage the chosen
//! method ranks outside the top k, a button searches the smallest changes (question edits, and
//! for BM25 and TF-IDF the knobs), each verified by ranking again (`compare::fixes`); one click
//! puts a fix's question in the question bar (with its knobs) and asks it.

use egui::{RichText, Ui};

use crate::compare::fixes::{Edit, Fix, KnobValue, SCORING_EVERY_PASSAGE, rank_text};
use crate::corpus::DocId;
use crate::gui::command::{RankCommand, ShellCommand, ToolCommand};
use crate::gui::context::ViewContext;
use crate::gui::jobs::JobKind;
use crate::gui::theme;
use crate::retrieve::MethodKind;

/// The methods whose fixes can be searched (every passage scored, so a rank to reach).
pub fn fixable(kind: MethodKind) -> bool {
    SCORING_EVERY_PASSAGE.contains(&kind)
}

/// The section, for a passage outside the chosen method's top k.
pub fn fixes_ui(ui: &mut Ui, ctx: &ViewContext<'_>, doc: DocId, kind: MethodKind, outside: bool) {
    if !outside || !fixable(kind) {
        return;
    }
    ui.group(|ui| {
        ui.label(RichText::new("What would bring it in?").strong());
        let shown = ctx.jobs.fixes.latest().filter(|f| {
            ctx.workbench().and_then(|e| e.corpus().lookup(&f.passage)) == Some(doc)
                && f.question == ctx.data.persisted.question
        });
        if ctx.jobs.fixes.is_running() {
            ui.horizontal(|ui| {
                crate::gui::widgets::spinner_ui(ui);
                ui.label("Ranking changed questions again…");
                if ui.button("Stop").clicked() {
                    ctx.send(ShellCommand::Cancel(JobKind::Fixes));
                }
            });
            return;
        }
        if let Some(e) = ctx.jobs.fixes.failure() {
            ui.colored_label(theme::ERROR, e.report());
        }
        let Some(found) = shown else {
            ui.label(
                RichText::new(
                    "Searches the smallest changes — a word of the passage added, a question word dropped or swapped, \
                     for BM25 and TF-IDF k1, b or the analyzer — and ranks each again with the same code.",
                )
                .small()
                .weak(),
            );
            if ui.button("Find the smallest fix").clicked() {
                ctx.send(ToolCommand::FindFixes { doc, kind });
            }
            return;
        };
        let now = rank_text(found.rank);
        ui.label(format!("Now {now}; {} changes ranked again in {:.2} s.", found.tried, found.seconds));
        if let Some(n) = &found.note {
            ui.label(RichText::new(n).weak());
        }
        for f in &found.fixes {
            fix_ui(ui, ctx, f);
        }
    });
}

fn fix_ui(ui: &mut Ui, ctx: &ViewContext<'_>, f: &Fix) {
    ui.horizontal_wrapped(|ui| {
        ui.colored_label(theme::LITERAL, format!("✔ rank {} (verified)", f.rank));
        let edits: Vec<String> = f.edits.iter().map(|e| e.text()).collect();
        ui.label(RichText::new(edits.join(" + ")).strong());
        ui.label(RichText::new(format!("\"{}\"", f.question)).monospace().small());
        if ui
            .button("Use this question")
            .on_hover_text("Puts it in the question bar, with its knobs, and asks it")
            .clicked()
        {
            // The knobs the fix turned, applied as typed (nothing parsed back from text).
            let turned: Vec<KnobValue> = f
                .edits
                .iter()
                .filter_map(|e| match e {
                    Edit::Turn { to, .. } => Some(*to),
                    _ => None,
                })
                .collect();
            if !turned.is_empty() {
                let mut s = ctx.data.persisted.settings.clone();
                for knob in &turned {
                    knob.apply(&mut s);
                }
                ctx.send(RankCommand::SetSettings(Box::new(s)));
            }
            ctx.send(RankCommand::AskQuestion(f.question.clone()));
        }
    });
}
