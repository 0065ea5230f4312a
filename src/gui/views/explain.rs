//! The explain panel: why the selected passage got its score under each method — term bars and a
//! formula card with the real numbers for TF-IDF and BM25, shared and expansion terms for SPLADE,
//! token alignments and a heatmap for late interaction, the cosine for dense, each input's part for
//! fusion, the rank before and after for reranking — and "why not?" for any passage.

use egui::{RichText, Ui};

use super::explain_detail::{detail_ui, window_ui};
use super::{Memo, View, method_tag_ui};
use crate::compare::ColumnId;
use crate::corpus::DocId;
use crate::gui::command::RankCommand;
use crate::gui::context::ViewContext;
use crate::gui::state::Explained;
use crate::gui::theme;
use crate::gui::widgets::{ellipsis, labelled_text_ui};
use crate::retrieve::{Detail, MethodKind, TokenPart};

/// The explain view; it keeps the text of its "why not?" picker and what it draws (built when
/// the explanations land or another column is picked).
#[derive(Default)]
pub struct ExplainView {
    why_not_filter: String,
    data: Memo<(u64, Option<ColumnId>), ExplainData>,
    /// The last reading's view of the selected passage, when the reader read it.
    reading: ReadingMemo,
}

impl View for ExplainView {
    fn ui(&mut self, ui: &mut Ui, ctx: &ViewContext<'_>) {
        self.why_not_picker_ui(ui, ctx);
        ui.separator();
        explain_ui(ui, ctx, &mut self.data, &mut self.reading);
    }

    fn corpus_changed(&mut self) {
        self.why_not_filter.clear();
    }
}

/// One method's line in the list beside the detail.
#[derive(Debug, Clone, PartialEq)]
pub struct MethodLine {
    /// The column (what picking it sends).
    pub column: ColumnId,
    /// The column's label.
    pub label: String,
    /// Its family.
    pub kind: MethodKind,
    /// What the list calls it.
    pub name: String,
    /// Its rank of the passage, or that it is not in the top k.
    pub rank: String,
    /// The score and the summary, or why there is no explanation.
    pub line: Result<String, String>,
}

/// A stretch of a passage's text and the part of a dense cosine its token holds (`None` between
/// tokens).
#[derive(Debug, Clone, PartialEq)]
pub struct Segment {
    /// The text.
    pub text: String,
    /// Its token's share of the cosine.
    pub part: Option<f64>,
}

/// What the Explain view shows for a passage, built when its explanations land or another
/// column is picked; `ui` only lays it out.
#[derive(Debug, Clone)]
pub struct ExplainData {
    /// `id — title`.
    pub heading: String,
    /// The passage's text, shortened.
    pub excerpt: String,
    /// The passage's whole text (windows are read from it).
    pub text: String,
    /// Every method's line.
    pub methods: Vec<MethodLine>,
    /// Which item's detail is shown.
    pub chosen: Option<usize>,
    /// For a dense column, the scoring window's text with each token's part of the cosine.
    pub highlight: Vec<Segment>,
}

impl ExplainData {
    /// The view's data for a passage's explanations, with `column` picked (or the first).
    pub fn build(explained: &Explained, doc: Option<&crate::corpus::Doc>, column: Option<&ColumnId>) -> ExplainData {
        let methods: Vec<MethodLine> = explained
            .items
            .iter()
            .map(|item| MethodLine {
                column: item.id.clone(),
                label: item.label.clone(),
                kind: item.kind,
                name: ellipsis(if item.kind.is_external() { item.label.as_str() } else { item.kind.label() }, 30),
                rank: item.rank.map_or_else(|| "not in the top k".into(), |r| format!("rank {r}")),
                line: item
                    .explanation
                    .as_ref()
                    .map(|e| format!("{:.4} · {}", e.value, e.summary))
                    .map_err(Clone::clone),
            })
            .collect();
        let chosen = match column {
            Some(c) => methods.iter().position(|m| m.column == *c),
            None => (!methods.is_empty()).then_some(0),
        };
        let text = doc.map(|d| d.full_text()).unwrap_or_default();
        let highlight = match chosen.and_then(|i| explained.items.get(i)) {
            Some(crate::compare::ExplainedItem { explanation: Ok(e), .. }) => match &e.detail {
                Detail::Dense { tokens, .. } => dense_segments(&text, tokens),
                _ => Vec::new(),
            },
            _ => Vec::new(),
        };
        ExplainData {
            heading: doc.map(|d| format!("{} — {}", d.id, d.title)).unwrap_or_default(),
            excerpt: doc.map(|d| ellipsis(&d.text, 400)).unwrap_or_default(),
            text,
            methods,
            chosen,
            highlight,
        }
    }
}

/// The passage's text cut at its tokens, each piece with its token's part of the cosine; the
/// stretch the tokens cover (the scoring window) only.
pub fn dense_segments(text: &str, tokens: &[TokenPart]) -> Vec<Segment> {
    let mut spans: Vec<(usize, usize, f64)> =
        tokens.iter().filter_map(|t| Some((t.start?, t.end?, t.contribution))).collect();
    spans.sort_by_key(|s| s.0);
    let mut out = Vec::new();
    let mut at = spans.first().map_or(0, |s| s.0);
    for (start, end, part) in spans {
        if start < at || end > text.len() {
            continue;
        }
        if let Some(gap) = text.get(at..start).filter(|g| !g.is_empty()) {
            out.push(Segment { text: gap.to_string(), part: None });
        }
        if let Some(piece) = text.get(start..end) {
            out.push(Segment { text: piece.to_string(), part: Some(part) });
        }
        at = end;
    }
    out
}

/// The last reading's view of one passage.
type ReadingMemo = Memo<(Option<super::Same<crate::read::Readout>>, DocId), Option<super::reader::PassageData>>;

fn explain_ui(
    ui: &mut Ui,
    ctx: &ViewContext<'_>,
    memo: &mut Memo<(u64, Option<ColumnId>), ExplainData>,
    reading: &mut ReadingMemo,
) {
    let Some(sel) = &ctx.data.selection else {
        ui.label("Select a passage in the Compare view, or pick any passage above to ask every method why (not).");
        return;
    };
    let Some(engine) = ctx.workbench() else { return };
    let Some(explained) = ctx.jobs.explain.ready().filter(|e| e.doc == sel.doc) else {
        if let Some(d) = engine.corpus().doc(sel.doc) {
            ui.heading(format!("{} — {}", d.id, d.title));
        }
        super::evaluate::grade_buttons_ui(ui, ctx);
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
    let data = memo.get((explained.revision, sel.column.clone()), || {
        ExplainData::build(explained, engine.corpus().doc(sel.doc), sel.column.as_ref())
    });
    ui.heading(&data.heading);
    ui.label(RichText::new(&data.excerpt).italics());
    super::evaluate::grade_buttons_ui(ui, ctx);
    ui.separator();
    // The list of methods takes a little over a third; the chosen method's detail (term tables,
    // token heatmaps, an engine's tree) gets the rest.
    let height = ui.available_height();
    let left_width = (ui.available_width() * 0.36).clamp(300.0, 520.0);
    ui.horizontal_top(|ui| {
        let layout = egui::Layout::top_down(egui::Align::Min);
        ui.allocate_ui_with_layout(egui::vec2(left_width, height), layout, |left| methods_ui(left, ctx, data));
        ui.separator();
        let Some(crate::compare::ExplainedItem { kind, explanation: Ok(e), rank, .. }) =
            data.chosen.and_then(|i| explained.items.get(i))
        else {
            return;
        };
        let width = ui.available_width();
        ui.allocate_ui_with_layout(egui::vec2(width, height), layout, |right| {
            egui::ScrollArea::vertical().id_salt("why-detail").show(right, |ui| {
                super::fixes::fixes_ui(ui, ctx, sel.doc, *kind, rank.is_none());
                if let Some(w) = &e.window {
                    window_ui(ui, w, &data.text);
                }
                detail_ui(ui, *kind, e);
                if !data.highlight.is_empty() {
                    highlight_ui(ui, &data.highlight);
                }
                let last = ctx.jobs.read.latest().cloned();
                let read = reading.get((last.clone().map(super::Same), sel.doc), || {
                    let id = engine.corpus().external_id(sel.doc);
                    last.and_then(|r| super::reader::passage_of(&r, engine.corpus(), id))
                });
                if let Some(p) = read {
                    ui.add_space(6.0);
                    ui.label(RichText::new("How the reader read this passage (Compare → Read)").strong());
                    super::reader::passage_ui(ui, p);
                }
            });
        });
    });
}

/// Every method's score and summary of the passage; picking one shows its detail.
fn methods_ui(ui: &mut Ui, ctx: &ViewContext<'_>, data: &ExplainData) {
    ui.label(RichText::new("Every method on this passage").strong());
    egui::ScrollArea::vertical().id_salt("why-list").show(ui, |ui| {
        for (i, m) in data.methods.iter().enumerate() {
            ui.horizontal(|ui| {
                method_tag_ui(ui, m.kind, &m.name);
                if ui.selectable_label(data.chosen == Some(i), &m.rank).clicked() {
                    ctx.send(RankCommand::PickColumn(m.column.clone()));
                }
            });
            match &m.line {
                Ok(line) => {
                    ui.label(RichText::new(line).small());
                }
                Err(err) => {
                    ui.colored_label(theme::ERROR, err);
                }
            }
            ui.label(RichText::new(ellipsis(&m.label, 70)).small().weak());
            ui.add_space(4.0);
        }
    });
}

/// The scoring window's text, each token shaded by its part of the cosine (blue adds, red takes
/// away), the parts summing to the score.
fn highlight_ui(ui: &mut Ui, segments: &[Segment]) {
    ui.add_space(6.0);
    ui.label(RichText::new("The passage's tokens, shaded by their part of the cosine").strong());
    let max = segments.iter().filter_map(|s| s.part).map(f64::abs).fold(0.0f64, f64::max);
    let mut job = egui::text::LayoutJob::default();
    let font = egui::TextStyle::Body.resolve(ui.style());
    for s in segments {
        let mut format = egui::TextFormat::simple(font.clone(), ui.visuals().text_color());
        if let (Some(p), true) = (s.part, max > 0.0) {
            let strength = ((p.abs() / max) * 200.0) as u8;
            format.background = if p >= 0.0 {
                egui::Color32::from_rgba_unmultiplied(0, 114, 178, strength)
            } else {
                egui::Color32::from_rgba_unmultiplied(213, 94, 0, strength)
            };
        }
        job.append(&s.text, 0.0, format);
    }
    job.wrap.max_width = ui.available_width();
    ui.label(job);
}

impl ExplainView {
    /// Pick any passage by id or title and explain it under every method.
    fn why_not_picker_ui(&mut self, ui: &mut Ui, ctx: &ViewContext<'_>) {
        let Some(engine) = ctx.workbench() else { return };
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
            ctx.send(RankCommand::Select { column: ctx.data.selection.as_ref().and_then(|s| s.column.clone()), doc });
            self.why_not_filter.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retrieve::Explanation;

    #[test]
    fn dense_tokens_cut_the_window_text_into_shaded_pieces() {
        let text = "Cached results stay valid.";
        let part = |token: &str, start, end, contribution| TokenPart {
            token: token.into(),
            start: Some(start),
            end: Some(end),
            contribution,
        };
        let tokens = [
            TokenPart { token: "[CLS]".into(), start: None, end: None, contribution: 0.01 },
            part("cached", 0, 6, 0.2),
            part("results", 7, 14, 0.3),
            part("valid", 20, 25, -0.05),
        ];
        let segments = dense_segments(text, &tokens);
        let pieces: Vec<(&str, Option<f64>)> = segments.iter().map(|s| (s.text.as_str(), s.part)).collect();
        assert_eq!(
            pieces,
            [("Cached", Some(0.2)), (" ", None), ("results", Some(0.3)), (" stay ", None), ("valid", Some(-0.05))]
        );
    }

    #[test]
    fn the_data_lists_every_method_and_the_picked_one() {
        let e = Explanation::new("BM25", 1.5, "f", "because");
        let explained = Explained {
            doc: crate::corpus::DocId(0),
            items: vec![
                crate::compare::ExplainedItem {
                    id: ColumnId("tfidf".into()),
                    label: "TF-IDF (x)".into(),
                    kind: MethodKind::TfIdf,
                    explanation: Err("no index".into()),
                    rank: None,
                },
                crate::compare::ExplainedItem {
                    id: ColumnId("bm25".into()),
                    label: "BM25 (lucene)".into(),
                    kind: MethodKind::Bm25,
                    explanation: Ok(e),
                    rank: Some(2),
                },
            ],
            revision: 1,
        };
        let data = ExplainData::build(&explained, None, Some(&ColumnId("bm25".into())));
        assert_eq!(data.chosen, Some(1));
        assert_eq!(data.methods[1].rank, "rank 2");
        assert_eq!(data.methods[1].line, Ok("1.5000 · because".to_string()));
        assert_eq!(data.methods[0].rank, "not in the top k");
        assert_eq!(ExplainData::build(&explained, None, None).chosen, Some(0));
        assert_eq!(ExplainData::build(&explained, None, Some(&ColumnId("gone".into()))).chosen, None);
        assert_eq!(data.methods[1].label, "BM25 (lucene)");
    }
}
