//! The detail of a language model's order: each listwise window's order in and out with what
//! was mended and any passage that tries to steer the model; the three orders and their Kendall
//! τ; a pointwise P(yes) with the tokens it was read from.

use egui::{RichText, Ui};

use crate::generate::TokenChoice;
use crate::gui::theme;
use crate::gui::widgets::ellipsis;
use crate::retrieve::{ListOrder, ListWindow};

/// Ranks before and after, as one line.
pub fn moved_ui(ui: &mut Ui, first_stage: &str, before: Option<usize>, after: Option<usize>) {
    let f = |r: Option<usize>| r.map(|x| x.to_string()).unwrap_or_else(|| "—".into());
    ui.label(RichText::new(format!("rank {} in {} → {}", f(before), ellipsis(first_stage, 40), f(after))).size(15.0));
}

/// Every window of a listwise order, bottom first.
pub fn listwise_ui(ui: &mut Ui, windows: &[ListWindow], orders: &[ListOrder], tau: &[Vec<f64>]) {
    ui.label(
        RichText::new("The model's order is a guess: each window below shows what it was given and what it returned.")
            .small()
            .color(theme::WARNING),
    );
    for (i, w) in windows.iter().enumerate() {
        ui.add_space(4.0);
        let when = if w.stored {
            format!("from the store of replies (written in {:.1} s; not asked again)", w.seconds)
        } else {
            format!("{:.1} s", w.seconds)
        };
        ui.label(RichText::new(format!("Window {} (places {}–{}), {when}", i + 1, w.start + 1, w.end)).strong());
        ui.label(
            RichText::new(match &w.constrained {
                Some(c) => format!("the reply was held to {c} while it was written"),
                None => "the reply was read as the model wrote it (nothing held it to a shape)".to_string(),
            })
            .small()
            .weak(),
        );
        ui.label(RichText::new(format!("in:  {}", w.input.join(" > "))).small().monospace());
        ui.label(RichText::new(format!("out: {}", w.output.join(" > "))).small().monospace());
        if let Some(why) = &w.kept {
            ui.colored_label(theme::WARNING, format!("kept its order: {why}"));
        }
        let r = &w.repairs;
        if !r.is_empty() {
            let list = |v: &[usize]| v.iter().map(|x| format!("[{x}]")).collect::<Vec<_>>().join(" ");
            ui.colored_label(
                theme::WARNING,
                format!(
                    "mended: {} missing (put after the named ones: {}), {} repeated ({}), {} unknown ({})",
                    r.missing.len(),
                    list(&r.missing),
                    r.repeated.len(),
                    list(&r.repeated),
                    r.unknown.len(),
                    r.unknown.join(" ")
                ),
            );
        }
        for (id, words) in &w.instructions {
            ui.colored_label(
                theme::ERROR,
                format!("{id} holds words meant to steer a model (“{words}”); RankLens ignores them — did the model?"),
            );
        }
        if !w.reply.is_empty() {
            ui.label(RichText::new(format!("reply: {}", ellipsis(&w.reply, 200))).small().weak());
        }
    }
    if !orders.is_empty() {
        ui.add_space(6.0);
        ui.label(RichText::new("The same list in three orders (aggregated by Borda count)").strong());
        for o in orders {
            ui.label(RichText::new(format!("{}: {}", o.name, ellipsis(&o.ids.join(" > "), 160))).small().monospace());
        }
        egui::Grid::new("listwise-tau").striped(true).show(ui, |ui| {
            ui.label(RichText::new("Kendall τ").small().strong());
            for o in orders {
                ui.label(RichText::new(&o.name).small().strong());
            }
            ui.end_row();
            for (o, row) in orders.iter().zip(tau) {
                ui.label(RichText::new(&o.name).small().strong());
                for t in row {
                    ui.label(RichText::new(format!("{t:.3}")).monospace());
                }
                ui.end_row();
            }
        });
    }
}

/// A pointwise P(yes) and the first tokens it was read from.
pub fn pointwise_ui(ui: &mut Ui, p_yes: Option<f64>, source: &str, tokens: &[TokenChoice], reply: &str) {
    match p_yes {
        Some(p) => ui.label(RichText::new(format!("P(yes) = {p:.4}, read from the model's {source}")).size(15.0)),
        None => ui.colored_label(theme::WARNING, "the model's answer was neither yes nor no: no probability"),
    };
    if !tokens.is_empty() {
        egui::Grid::new("pointwise-tokens").striped(true).show(ui, |ui| {
            ui.label(RichText::new("first token").small().strong());
            ui.label(RichText::new("p").small().strong());
            ui.end_row();
            for t in tokens {
                ui.label(RichText::new(format!("{:?}", t.token)).monospace());
                ui.label(RichText::new(format!("{:.4}", t.logprob.exp())).monospace());
                ui.end_row();
            }
        });
    }
    if !reply.is_empty() {
        ui.label(RichText::new(format!("reply: {}", ellipsis(reply, 200))).small().weak());
    }
}
