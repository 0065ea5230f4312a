//! A search engine's explanation in the Explain view: its term rows (tf, df, N, idf, dl, avgdl, k1,
//! b, boost, contribution) with the sum beside the engine's score, the tree as it came (every
//! node with its value), an explanation that could not be read shown raw, Vespa's rank features,
//! and the engine's rows beside RankLens's own Lucene BM25 with every differing input named.

use egui::{RichText, Ui};

use crate::external::{EngineTermRow, ExplainNode};
use crate::gui::theme;
use crate::gui::widgets::signed_bar_ui;
use crate::retrieve::Bm25Comparison;
use crate::retrieve::{EngineDetail, MethodKind, fmt_param};

fn num(x: Option<f64>) -> String {
    x.map(fmt_param).unwrap_or_else(|| "—".into())
}

fn dl(r: &EngineTermRow) -> String {
    match r.dl {
        Some(d) if r.dl_approximate => format!("≈{}", fmt_param(d)),
        other => num(other),
    }
}

/// Everything an engine said about one hit.
pub fn engine_detail_ui(ui: &mut Ui, d: &EngineDetail, value: f64) {
    ui.label(RichText::new(format!("{} explanation", d.engine)).strong());
    let bd = &d.breakdown;
    if !bd.rows.is_empty() {
        rows_ui(ui, &bd.rows);
        for (what, v) in &bd.other {
            ui.label(format!("+ {v:.4} not a term weight: {what}"));
        }
        match bd.total() {
            Some(total) => {
                ui.label(format!("Σ contributions = {total:.4} · the engine's score = {value:.4}"));
            }
            None => {
                ui.colored_label(
                    theme::EXPANSION,
                    format!(
                        "Not a sum: `{}` combines its parts, so the rows do not add up to the score; the tree below \
                         is the explanation.",
                        bd.not_a_sum.as_deref().unwrap_or("?").trim_end_matches(':')
                    ),
                );
            }
        }
    }
    if !d.features.is_empty() {
        ui.label(RichText::new("Rank features").strong());
        egui::Grid::new("features").striped(true).show(ui, |ui| {
            for (name, v) in &d.features {
                ui.label(RichText::new(name).monospace());
                ui.label(format!("{v:.4}"));
                ui.end_row();
            }
        });
        let sum: f64 = d.features.values().sum();
        ui.label(format!(
            "Σ features = {sum:.4} · relevance = {value:.4} (the rank profile's expression combines them)"
        ));
    }
    if let Some(c) = &d.comparison {
        ui.add_space(6.0);
        comparison_ui(ui, c);
    }
    if let Some((raw, why)) = &d.raw {
        ui.add_space(6.0);
        ui.colored_label(theme::ERROR, format!("The explanation could not be read: {why}"));
        ui.label(RichText::new(raw).monospace().small());
    }
    if let Some(tree) = &d.tree {
        ui.add_space(6.0);
        ui.label(RichText::new("The engine's tree").strong());
        tree_ui(ui, tree, 0, &mut 0);
    }
}

fn rows_ui(ui: &mut Ui, rows: &[EngineTermRow]) {
    let max = rows.iter().filter_map(|r| r.contribution).map(f64::abs).fold(0.0f64, f64::max);
    egui::Grid::new("engine-terms").striped(true).show(ui, |ui| {
        for h in ["term", "field", "tf", "df", "N", "idf", "dl", "avgdl", "k1", "b", "boost", "contribution", ""] {
            ui.label(RichText::new(h).small().strong());
        }
        ui.end_row();
        for r in rows {
            ui.label(RichText::new(&r.term).monospace());
            ui.label(&r.field);
            ui.label(num(r.tf));
            ui.label(r.df_text());
            ui.label(num(r.n));
            ui.label(r.idf.map(|x| format!("{x:.3}")).unwrap_or_else(|| "—".into()));
            ui.label(dl(r));
            ui.label(r.avgdl.map(|x| format!("{x:.2}")).unwrap_or_else(|| "—".into()));
            ui.label(num(r.k1));
            ui.label(num(r.b));
            ui.label(num(r.boost));
            match (r.contribution, r.multiplier) {
                (Some(_), Some(0.0)) => ui.label(format!("0 (of {:.4})", r.weight)),
                (Some(c), Some(m)) if m != 1.0 => ui.label(format!("{c:.4} ({:.4} × {})", r.weight, fmt_param(m))),
                (Some(c), _) => ui.label(format!("{c:.4}")),
                (None, _) => ui.label(format!("({:.4}, an input)", r.weight)),
            }
            .on_hover_text("this row's part of the engine's score: its weight times what the nodes above scale it by");
            signed_bar_ui(ui, r.contribution.unwrap_or(0.0), max, 100.0, theme::method_color(MethodKind::Engine));
            ui.end_row();
        }
    });
}

/// The engine's rows beside RankLens's, and what differs.
fn comparison_ui(ui: &mut Ui, c: &Bm25Comparison) {
    ui.label(
        RichText::new(format!(
            "The engine beside RankLens's Lucene BM25 (k1 = {}, b = {}, the engine's)",
            fmt_param(c.k1),
            fmt_param(c.b)
        ))
        .strong(),
    );
    egui::Grid::new("engine-vs-ranklens").striped(true).show(ui, |ui| {
        for h in ["term", "", "field", "tf", "df", "N", "dl", "avgdl", "contribution"] {
            ui.label(RichText::new(h).small().strong());
        }
        ui.end_row();
        for p in &c.pairs {
            for e in &p.engine {
                ui.label(RichText::new(&p.term).monospace());
                ui.label(RichText::new("engine").small());
                ui.label(&e.field);
                ui.label(num(e.tf));
                ui.label(e.df_text());
                ui.label(num(e.n));
                ui.label(dl(e));
                ui.label(e.avgdl.map(|x| format!("{x:.2}")).unwrap_or_else(|| "—".into()));
                ui.label(e.contribution.map(|x| format!("{x:.4}")).unwrap_or_else(|| "—".into()));
                ui.end_row();
            }
            ranklens_row_ui(ui, &p.term, p.ranklens.as_ref(), c);
        }
        for r in c.only_ranklens.iter().filter(|r| r.tf > 0) {
            ranklens_row_ui(ui, &r.term, Some(r), c);
        }
    });
    let absent: Vec<&str> = c.only_ranklens.iter().filter(|r| r.tf == 0).map(|r| r.term.as_str()).collect();
    if !absent.is_empty() {
        ui.label(
            RichText::new(format!(
                "RankLens's other query terms ({}) do not occur in this passage.",
                absent.join(", ")
            ))
            .small()
            .weak(),
        );
    }
    ui.label(format!("engine {:.4} · RankLens {:.4}", c.engine_score, c.ranklens_score));
    if let Some(verdict) = c.verdict() {
        ui.colored_label(theme::LITERAL, verdict);
    }
    for d in &c.differences {
        ui.label(format!("• {}", d.says));
    }
}

fn ranklens_row_ui(ui: &mut Ui, term: &str, r: Option<&crate::retrieve::TermRow>, c: &Bm25Comparison) {
    ui.label(RichText::new(term).monospace());
    ui.label(RichText::new("RankLens").small());
    match r {
        Some(r) => {
            ui.label("title + text");
            ui.label(r.tf.to_string());
            ui.label(r.df.to_string());
            ui.label(c.ranklens_n.to_string());
            ui.label(fmt_param(r.dl));
            ui.label(format!("{:.2}", r.avgdl));
            ui.label(format!("{:.4}", r.contribution));
        }
        None => {
            ui.label("—");
            ui.weak("not a term of RankLens's analyzer");
            for _ in 0..5 {
                ui.label("");
            }
        }
    }
    ui.end_row();
}

/// One node per line, indented, each with its value; the first levels open.
fn tree_ui(ui: &mut Ui, node: &ExplainNode, depth: usize, shown: &mut usize) {
    *shown += 1;
    if *shown > 2_000 {
        return;
    }
    let text = format!("{:.4} = {}", node.value, node.description.replace('\n', " "));
    if node.details.is_empty() {
        ui.horizontal(|ui| {
            ui.add_space(14.0);
            ui.label(RichText::new(text).monospace().small());
        });
        return;
    }
    let id = ui.make_persistent_id(("engine-tree", depth, *shown));
    egui::collapsing_header::CollapsingState::load_with_default_open(ui.ctx(), id, depth < 3)
        .show_header(ui, |ui| {
            ui.label(RichText::new(text).monospace().small());
        })
        .body(|ui| {
            for d in &node.details {
                tree_ui(ui, d, depth + 1, shown);
            }
        });
}
