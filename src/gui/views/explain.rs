//! The explain panel: why the selected passage got its score under each method — term bars and a
//! formula card with the real numbers for TF-IDF and BM25, shared and expansion terms for SPLADE,
//! token alignments and a heatmap for late interaction, the cosine for dense, each input's part for
//! fusion, the rank before and after for reranking — and "why not?" for any passage.

use egui::{RichText, Ui};

use super::{View, method_tag_ui};
use crate::corpus::DocId;
use crate::gui::command::Command;
use crate::gui::context::ViewContext;
use crate::gui::theme;
use crate::gui::widgets::{bar_ui, ellipsis, heatmap_ui, labelled_text_ui, signed_bar_ui};
use crate::retrieve::{Detail, Explanation, MethodKind, TermTable, fmt_param};

/// The explain view; it keeps the text of its "why not?" picker.
#[derive(Default)]
pub struct ExplainView {
    why_not_filter: String,
}

impl View for ExplainView {
    fn ui(&mut self, ui: &mut Ui, ctx: &ViewContext<'_>) {
        self.why_not_picker_ui(ui, ctx);
        ui.separator();
        explain_ui(ui, ctx);
    }

    fn corpus_changed(&mut self) {
        self.why_not_filter.clear();
    }
}

fn explain_ui(ui: &mut Ui, ctx: &ViewContext<'_>) {
    let Some(sel) = &ctx.data.selection else {
        ui.label("Select a passage in the Compare view, or pick any passage above to ask every method why (not).");
        return;
    };
    let Some(engine) = ctx.engine() else { return };
    let corpus = engine.corpus();
    if let Some(d) = corpus.doc(sel.doc) {
        ui.heading(format!("{} — {}", d.id, d.title));
        ui.label(RichText::new(ellipsis(&d.text, 400)).italics());
    }
    super::evaluate::grade_buttons_ui(ui, ctx);
    let Some(explained) = ctx.jobs.explain.ready().filter(|e| e.doc == sel.doc) else {
        ui.horizontal(|ui| {
            if ctx.jobs.explain.is_running() {
                crate::gui::widgets::spinner_ui(ui);
                ui.label("Explaining…");
            } else {
                ui.label("Run a question first.");
            }
        });
        return;
    };
    ui.separator();
    // The list of methods takes a little over a third; the chosen method's detail (term tables,
    // token heatmaps, an engine's tree) gets the rest.
    let height = ui.available_height();
    let left_width = (ui.available_width() * 0.36).clamp(300.0, 520.0);
    ui.horizontal_top(|ui| {
        let left_ui = |left: &mut Ui| {
            left.label(RichText::new("Every method on this passage").strong());
            egui::ScrollArea::vertical().id_salt("why-list").show(left, |ui| {
                for (label, kind, e, rank) in &explained.items {
                    ui.horizontal(|ui| {
                        let name = if kind.is_external() { label.as_str() } else { kind.label() };
                        method_tag_ui(ui, *kind, &ellipsis(name, 30));
                        let rank_text = match rank {
                            Some(r) => format!("rank {r}"),
                            None => "not in the top k".into(),
                        };
                        let selected = sel.column.as_deref() == Some(label.as_str());
                        if ui.selectable_label(selected, rank_text).clicked() {
                            ctx.send(Command::PickColumn(label.clone()));
                        }
                    });
                    match e {
                        Ok(e) => {
                            ui.label(RichText::new(format!("{:.4} · {}", e.value, e.summary)).small());
                        }
                        Err(err) => {
                            ui.colored_label(theme::ERROR, err);
                        }
                    }
                    ui.label(RichText::new(ellipsis(label, 70)).small().weak());
                    ui.add_space(4.0);
                }
            });
        };
        ui.allocate_ui_with_layout(egui::vec2(left_width, height), egui::Layout::top_down(egui::Align::Min), left_ui);
        ui.separator();
        let chosen = sel.column.as_ref().or(explained.items.first().map(|i| &i.0));
        if let Some((_, kind, Ok(e), _)) = explained.items.iter().find(|i| Some(&i.0) == chosen) {
            let width = ui.available_width();
            let text = corpus.doc(sel.doc).map(|d| d.full_text()).unwrap_or_default();
            ui.allocate_ui_with_layout(egui::vec2(width, height), egui::Layout::top_down(egui::Align::Min), |right| {
                egui::ScrollArea::vertical().id_salt("why-detail").show(right, |ui| {
                    if let Some(w) = &e.window {
                        window_ui(ui, w, &text);
                    }
                    detail_ui(ui, *kind, e)
                });
            });
        }
    });
}

impl ExplainView {
    /// Pick any passage by id or title and explain it under every method.
    fn why_not_picker_ui(&mut self, ui: &mut Ui, ctx: &ViewContext<'_>) {
        let Some(engine) = ctx.engine() else { return };
        ui.horizontal(|ui| {
            ui.label(RichText::new("Why not?").strong());
            labelled_text_ui(ui, "Find a passage", &mut self.why_not_filter, 220.0);
        });
        let needle = self.why_not_filter.trim().to_lowercase();
        if needle.is_empty() {
            return;
        }
        let mut chosen: Option<DocId> = None;
        ui.horizontal_wrapped(|ui| {
            for (id, d) in engine
                .corpus()
                .iter()
                .filter(|(_, d)| d.id.to_lowercase().contains(&needle) || d.title.to_lowercase().contains(&needle))
                .take(12)
            {
                if ui.button(format!("{} · {}", d.id, ellipsis(&d.title, 30))).clicked() {
                    chosen = Some(id);
                }
            }
        });
        if let Some(doc) = chosen {
            ctx.send(Command::Select { column: ctx.data.selection.as_ref().and_then(|s| s.column.clone()), doc });
            self.why_not_filter.clear();
        }
    }
}

/// The window of a long document that gave the score: which one, and its text.
fn window_ui(ui: &mut Ui, w: &crate::index::neural::ScoredWindow, text: &str) {
    egui::Frame::group(ui.style()).show(ui, |ui| {
        ui.label(
            RichText::new(format!(
                "Scored by its best window: {} of {}. The document is longer than the model reads at once, so each window was encoded on its own and the best one counts (MaxP).",
                w.index + 1,
                w.of
            ))
            .strong(),
        );
        let piece = text.get(w.start..w.end).unwrap_or_default();
        ui.label(RichText::new(format!("bytes {}–{} of {}:", w.start, w.end, text.len())).small().weak());
        egui::ScrollArea::vertical().id_salt("scored-window").max_height(120.0).show(ui, |ui| {
            ui.label(RichText::new(ellipsis(piece, 1200)).italics());
        });
    });
    ui.add_space(6.0);
}

/// The detailed drawing of one explanation.
pub fn detail_ui(ui: &mut Ui, kind: MethodKind, e: &Explanation) {
    ui.horizontal(|ui| method_tag_ui(ui, kind, &e.method));
    ui.label(RichText::new(format!("score {:.4}", e.value)).size(18.0).strong());
    ui.label(RichText::new(&e.formula).monospace());
    ui.label(&e.summary);
    if let Some(a) = &e.analyzer {
        ui.label(RichText::new(format!("analyzer: {a}")).small().weak());
    }
    ui.add_space(6.0);
    match &e.detail {
        Detail::Terms(t) => terms_ui(ui, kind, t, e.value),
        Detail::Clauses { clauses, .. } => {
            for c in clauses {
                let (mark, color) = if c.satisfied { ("✔", theme::LITERAL) } else { ("✘", theme::ERROR) };
                ui.horizontal(|ui| {
                    ui.colored_label(color, mark);
                    ui.label(&c.clause);
                });
            }
        }
        Detail::Sparse { matches, query_terms } => {
            ui.label(RichText::new("Shared terms (query weight × passage weight)").strong());
            let max = matches.iter().map(|m| m.product).fold(0.0f32, f32::max);
            egui::Grid::new("sparse").striped(true).show(ui, |ui| {
                for h in ["term", "query", "passage", "product", "", "from query token", "from passage token"] {
                    ui.label(RichText::new(h).small().strong());
                }
                ui.end_row();
                for m in matches {
                    let color = if m.query_expansion || m.doc_expansion { theme::EXPANSION } else { theme::LITERAL };
                    let tag = match (m.query_expansion, m.doc_expansion) {
                        (false, false) => "",
                        (true, false) => " (added to the query)",
                        (false, true) => " (added to the passage)",
                        (true, true) => " (added to both)",
                    };
                    ui.colored_label(color, format!("{}{tag}", m.term));
                    ui.label(format!("{:.3}", m.query_weight));
                    ui.label(format!("{:.3}", m.doc_weight));
                    ui.label(format!("{:.3}", m.product));
                    bar_ui(ui, if max > 0.0 { m.product / max } else { 0.0 }, 80.0, color);
                    ui.label(m.query_source.clone().unwrap_or_default());
                    ui.label(m.doc_source.clone().unwrap_or_default());
                    ui.end_row();
                }
            });
            ui.add_space(4.0);
            ui.label(RichText::new("The question as SPLADE sees it (top terms)").strong());
            ui.horizontal_wrapped(|ui| {
                for (t, w) in query_terms.iter().take(30) {
                    ui.label(RichText::new(format!("{t} {w:.2}")).small());
                }
            });
        }
        Detail::MaxSim { alignments, query_tokens, doc_tokens, matrix } => {
            ui.label(RichText::new("Each question token → its best passage token").strong());
            egui::Grid::new("maxsim").striped(true).show(ui, |ui| {
                for a in alignments {
                    ui.label(RichText::new(&a.query_token).monospace());
                    ui.label("→");
                    ui.label(RichText::new(format!("{} (#{})", a.doc_token, a.doc_pos)).monospace());
                    ui.label(format!("{:.3}", a.similarity));
                    bar_ui(ui, a.similarity.max(0.0), 80.0, theme::method_color(MethodKind::LateInteraction));
                    ui.end_row();
                }
            });
            ui.add_space(4.0);
            ui.label(RichText::new("Similarity of every token pair (maxima outlined)").strong());
            let highlight: Vec<(usize, usize)> = alignments.iter().map(|a| (a.query_pos, a.doc_pos)).collect();
            let cols: Vec<String> = doc_tokens.iter().take(120).cloned().collect();
            let trimmed: Vec<f32> = (0..query_tokens.len())
                .flat_map(|i| (0..cols.len()).map(move |j| (i, j)))
                .map(|(i, j)| matrix.get(i * doc_tokens.len() + j).copied().unwrap_or(0.0))
                .collect();
            egui::ScrollArea::horizontal().id_salt("heat").show(ui, |ui| {
                if let Some((i, j)) = heatmap_ui(ui, query_tokens, &cols, &trimmed, &highlight) {
                    ui.label(format!("{} · {} = {:.3}", query_tokens[i], cols[j], trimmed[i * cols.len() + j]));
                }
            });
        }
        Detail::Dense { cosine, rank_among_all, of, .. } => {
            ui.label(format!("cosine = {cosine:.4}"));
            bar_ui(ui, cosine.max(0.0), 240.0, theme::method_color(MethodKind::Dense));
            ui.label(format!("{rank_among_all} of {of} passages by cosine"));
        }
        Detail::Fusion { parts } => {
            let max = parts.iter().map(|p| p.contribution.abs()).fold(0.0f64, f64::max);
            egui::Grid::new("fusion").striped(true).show(ui, |ui| {
                for h in ["input", "rank", "raw score", "contribution", ""] {
                    ui.label(RichText::new(h).small().strong());
                }
                ui.end_row();
                for p in parts {
                    ui.label(ellipsis(&p.method, 40));
                    ui.label(p.rank.map(|r| r.to_string()).unwrap_or_else(|| "—".into()));
                    ui.label(p.raw_score.map(|s| format!("{s:.4}")).unwrap_or_else(|| "—".into()));
                    ui.label(format!("{:.5}", p.contribution));
                    signed_bar_ui(ui, p.contribution, max, 120.0, theme::method_color(MethodKind::Fusion));
                    ui.end_row();
                }
            });
        }
        Detail::Rerank { before, after } => {
            let f = |r: &Option<usize>| r.map(|x| x.to_string()).unwrap_or_else(|| "—".into());
            ui.label(RichText::new(format!("rank {} → {}", f(before), f(after))).size(16.0));
        }
        Detail::Engine(d) => super::engine_explain::engine_detail_ui(ui, d, e.value),
        Detail::None => {}
    }
    if !e.children.is_empty() && !matches!(e.detail, Detail::Terms(_)) {
        for c in &e.children {
            ui.label(format!("{}: {:.4} ({})", c.method, c.value, c.formula));
        }
    }
}

/// Term contribution bars and the formula card for the strongest term.
fn terms_ui(ui: &mut Ui, kind: MethodKind, t: &TermTable, value: f64) {
    ui.label(format!("N = {} passages · avgdl = {:.2} tokens", t.n, t.avgdl));
    let max = t.rows.iter().map(|r| r.contribution.abs()).fold(0.0f64, f64::max);
    egui::Grid::new("terms").striped(true).show(ui, |ui| {
        for h in ["term", "qtf", "tf", "df", "idf", "|d|", "k1", "b", "weight", "contribution", ""] {
            ui.label(RichText::new(h).small().strong());
        }
        ui.end_row();
        for r in &t.rows {
            ui.label(RichText::new(&r.term).monospace());
            ui.label(r.qtf.to_string());
            ui.label(r.tf.to_string());
            ui.label(r.df.to_string());
            ui.label(format!("{:.3}", r.idf));
            ui.label(format!("{}", r.dl));
            ui.label(r.k1.map(fmt_param).unwrap_or_else(|| "—".into()));
            ui.label(r.b.map(fmt_param).unwrap_or_else(|| "—".into()));
            ui.label(format!("{:.3}", r.tf_weight));
            ui.label(format!("{:.4}", r.contribution));
            signed_bar_ui(ui, r.contribution, max, 120.0, theme::method_color(kind));
            ui.end_row();
        }
    });
    ui.label(format!("Σ contributions = {value:.4}"));
    if let Some(best) = t.rows.iter().filter(|r| r.tf > 0).max_by(|a, b| a.contribution.total_cmp(&b.contribution)) {
        ui.add_space(6.0);
        egui::Frame::group(ui.style()).show(ui, |ui| {
            ui.label(RichText::new(format!("Formula card: `{}` in this passage", best.term)).strong());
            for line in t.worked(best) {
                ui.label(RichText::new(line).monospace());
            }
        });
    }
}
