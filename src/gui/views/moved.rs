//! "What moved it": one passage under two states — two methods, or one method before and after a
//! change of k1, b, the analyzer or the variant — its rank and score in each, and the per-term
//! (per-token) differences, which sum to the score difference.

use egui::{RichText, Ui};

use super::View;
use crate::compare::moved::{Moved, State};
use crate::gui::command::ToolCommand;
use crate::gui::context::ViewContext;
use crate::gui::theme;
use crate::gui::widgets::labelled_text_ui;
use crate::retrieve::{Bm25Variant, MethodKind};

/// The two states and the passage.
#[derive(Default)]
pub struct MovedView {
    /// Before (none until the settings are read).
    pub before: Option<State>,
    /// After.
    pub after: Option<State>,
    /// The passage's id.
    pub passage: String,
    requested: Option<(String, String, String)>,
}

fn state_ui(ui: &mut Ui, name: &str, s: &mut State) {
    ui.vertical(|ui| {
        ui.label(RichText::new(name).strong());
        egui::ComboBox::from_label(format!("{name}: method")).selected_text(s.kind.label()).show_ui(ui, |ui| {
            for m in MethodKind::RANKED {
                ui.selectable_value(&mut s.kind, m, m.label());
            }
        });
        if !MethodKind::NEURAL.contains(&s.kind) {
            egui::ComboBox::from_label(format!("{name}: analyzer"))
                .selected_text(s.settings.analyzer.to_string())
                .show_ui(ui, |ui| {
                    for a in crate::compare::analyzers::analyzers() {
                        ui.selectable_value(&mut s.settings.analyzer, a, a.to_string());
                    }
                });
        }
        if s.kind == MethodKind::Bm25 {
            let before = s.settings.bm25_variant;
            egui::ComboBox::from_label(format!("{name}: variant")).selected_text(before.name()).show_ui(ui, |ui| {
                for v in Bm25Variant::ALL {
                    ui.selectable_value(&mut s.settings.bm25_variant, v, v.name());
                }
            });
            if s.settings.bm25_variant != before {
                s.settings.bm25 = s.settings.bm25_variant.default_params();
            }
            ui.add(egui::Slider::new(&mut s.settings.bm25.k1, 0.0..=3.0).fixed_decimals(2).text(format!("{name}: k1")));
            ui.add(egui::Slider::new(&mut s.settings.bm25.b, 0.0..=1.0).fixed_decimals(2).text(format!("{name}: b")));
        }
    });
}

fn moved_ui(ui: &mut Ui, m: &Moved) {
    ui.label(RichText::new(&m.summary).size(16.0).strong());
    egui::Grid::new("moved-sides").striped(true).show(ui, |ui| {
        for h in ["", "state", "rank", "score"] {
            ui.label(RichText::new(h).strong());
        }
        ui.end_row();
        for (name, s) in [("before", &m.before), ("after", &m.after)] {
            ui.label(name);
            ui.label(&s.label);
            ui.label(s.rank.map_or_else(|| "not retrieved".into(), |r| r.to_string()));
            ui.label(RichText::new(format!("{:.4}", s.score)).monospace());
            ui.end_row();
        }
    });
    if let Some(why) = &m.unsplit {
        ui.colored_label(theme::WARNING, format!("No parts to compare: {why}."));
        return;
    }
    ui.add_space(6.0);
    ui.label(RichText::new("Part by part (the changes sum to the score's change)").strong());
    egui::ScrollArea::vertical().auto_shrink([false, false]).show(ui, |ui| {
        egui::Grid::new("moved-parts").striped(true).show(ui, |ui| {
            for h in ["term or token", "before", "after", "change"] {
                ui.label(RichText::new(h).strong());
            }
            ui.end_row();
            let shown = m.parts.iter().filter(|p| p.before != 0.0 || p.after != 0.0).take(30);
            for p in shown {
                ui.label(RichText::new(&p.part).monospace());
                ui.label(RichText::new(format!("{:.4}", p.before)).monospace());
                ui.label(RichText::new(format!("{:.4}", p.after)).monospace());
                let colour = if p.change() < 0.0 { theme::ERROR } else { theme::LITERAL };
                ui.colored_label(colour, RichText::new(format!("{:+.4}", p.change())).monospace());
                ui.end_row();
            }
            let (b, a): (f64, f64) = (m.parts.iter().map(|p| p.before).sum(), m.parts.iter().map(|p| p.after).sum());
            ui.label(RichText::new("sum").strong());
            ui.label(RichText::new(format!("{b:.4}")).monospace());
            ui.label(RichText::new(format!("{a:.4}")).monospace());
            ui.label(RichText::new(format!("{:+.4}", a - b)).monospace().strong());
            ui.end_row();
        });
    });
}

impl View for MovedView {
    fn ui(&mut self, ui: &mut Ui, ctx: &ViewContext<'_>) {
        ui.heading("What moved it");
        ui.label("One passage under two states: two methods, or one method before and after a change of k1, b, the analyzer or the variant.");
        let settings = &ctx.data.persisted.settings;
        let before = self.before.get_or_insert_with(|| State { kind: MethodKind::Bm25, settings: settings.clone() });
        let after = self.after.get_or_insert_with(|| {
            let mut s = settings.clone();
            s.bm25.b = 0.2;
            State { kind: MethodKind::Bm25, settings: s }
        });
        ui.horizontal_top(|ui| {
            state_ui(ui, "Before", before);
            ui.add_space(24.0);
            state_ui(ui, "After", after);
        });
        if let Some(d) = ctx.data.selected_doc()
            && let Some(e) = ctx.workbench()
            && self.passage.is_empty()
        {
            self.passage = e.corpus().external_id(d).to_string();
        }
        labelled_text_ui(ui, "Passage", &mut self.passage, 240.0);
        let Some(engine) = ctx.workbench() else { return };
        let Some(doc) = engine.corpus().lookup(self.passage.trim()) else {
            ui.label("Pick a passage (select one in any column, or type its id).");
            return;
        };
        let (b, a) = (self.before.clone(), self.after.clone());
        let (Some(b), Some(a)) = (b, a) else { return };
        let wanted = (format!("{b:?}"), format!("{a:?}"), format!("{}|{}", self.passage, ctx.data.persisted.question));
        if self.requested.as_ref() != Some(&wanted) && !ctx.jobs.moved.is_running() {
            ctx.send(ToolCommand::WhatMoved { doc, before: Box::new(b), after: Box::new(a) });
            self.requested = Some(wanted);
        }
        ui.separator();
        if let Some(e) = ctx.jobs.moved.failure() {
            ui.colored_label(theme::ERROR, e.report());
        } else if let Some(m) = ctx.jobs.moved.latest() {
            moved_ui(ui, m);
        }
    }
}
