//! The explain panel: why the selected passage got its score under each method — term bars and a
//! formula card with the real numbers for TF-IDF and BM25, shared and expansion terms for SPLADE,
//! token alignments and a heatmap for late interaction, the cosine for dense, each input's part for
//! fusion, the rank before and after for reranking — and "why not?" for any passage.

use egui::{RichText, Ui};

use super::{Memo, View, method_tag_ui};
use crate::corpus::DocId;
use crate::gui::command::Command;
use crate::gui::context::ViewContext;
use crate::gui::state::Explained;
use crate::gui::theme;
use crate::gui::widgets::{bar_ui, ellipsis, heatmap_ui, labelled_text_ui, signed_bar_ui};
use crate::retrieve::{
    ClauseMatch, ClauseNode, Detail, Explanation, FusionPart, MethodKind, SparseTermMatch, TermTable, TokenAlignment,
    TokenPart, fmt_param,
};

/// The explain view; it keeps the text of its "why not?" picker and what it draws (built when
/// the explanations land or another column is picked).
#[derive(Default)]
pub struct ExplainView {
    why_not_filter: String,
    data: Memo<(u64, Option<String>), ExplainData>,
}

impl View for ExplainView {
    fn ui(&mut self, ui: &mut Ui, ctx: &ViewContext<'_>) {
        self.why_not_picker_ui(ui, ctx);
        ui.separator();
        explain_ui(ui, ctx, &mut self.data);
    }

    fn corpus_changed(&mut self) {
        self.why_not_filter.clear();
    }
}

/// One method's line in the list beside the detail.
#[derive(Debug, Clone, PartialEq)]
pub struct MethodLine {
    /// The column's label (what picking it sends).
    pub column: String,
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
    pub fn build(explained: &Explained, doc: Option<&crate::corpus::Doc>, column: Option<&str>) -> ExplainData {
        let methods: Vec<MethodLine> = explained
            .items
            .iter()
            .map(|(label, kind, e, rank)| MethodLine {
                column: label.clone(),
                kind: *kind,
                name: ellipsis(if kind.is_external() { label.as_str() } else { kind.label() }, 30),
                rank: rank.map_or_else(|| "not in the top k".into(), |r| format!("rank {r}")),
                line: e.as_ref().map(|e| format!("{:.4} · {}", e.value, e.summary)).map_err(Clone::clone),
            })
            .collect();
        let chosen = match column {
            Some(c) => methods.iter().position(|m| m.column == c),
            None => (!methods.is_empty()).then_some(0),
        };
        let text = doc.map(|d| d.full_text()).unwrap_or_default();
        let highlight = match chosen.and_then(|i| explained.items.get(i)) {
            Some((_, _, Ok(e), _)) => match &e.detail {
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

fn explain_ui(ui: &mut Ui, ctx: &ViewContext<'_>, memo: &mut Memo<(u64, Option<String>), ExplainData>) {
    let Some(sel) = &ctx.data.selection else {
        ui.label("Select a passage in the Compare view, or pick any passage above to ask every method why (not).");
        return;
    };
    let Some(engine) = ctx.engine() else { return };
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
        ExplainData::build(explained, engine.corpus().doc(sel.doc), sel.column.as_deref())
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
        let Some((_, kind, Ok(e), _)) = data.chosen.and_then(|i| explained.items.get(i)) else { return };
        let width = ui.available_width();
        ui.allocate_ui_with_layout(egui::vec2(width, height), layout, |right| {
            egui::ScrollArea::vertical().id_salt("why-detail").show(right, |ui| {
                if let Some(w) = &e.window {
                    window_ui(ui, w, &data.text);
                }
                detail_ui(ui, *kind, e);
                if !data.highlight.is_empty() {
                    highlight_ui(ui, &data.highlight);
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
                    ctx.send(Command::PickColumn(m.column.clone()));
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
            ui.label(RichText::new(ellipsis(&m.column, 70)).small().weak());
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
        Detail::Clauses { clauses, tree } => clauses_ui(ui, clauses, tree.as_ref()),
        Detail::Sparse { matches, query_terms } => sparse_ui(ui, matches, query_terms),
        Detail::MaxSim { alignments, query_tokens, doc_tokens, matrix } => {
            maxsim_ui(ui, alignments, query_tokens, doc_tokens, matrix)
        }
        Detail::Dense { cosine, rank_among_all, of, tokens, query_tokens } => {
            dense_ui(ui, *cosine, (*rank_among_all, *of), tokens, query_tokens)
        }
        Detail::Fusion { parts } => fusion_ui(ui, parts),
        Detail::Rerank { before, after } => {
            let f = |r: &Option<usize>| r.map(|x| x.to_string()).unwrap_or_else(|| "—".into());
            ui.label(RichText::new(format!("rank {} → {}", f(before), f(after))).size(16.0));
        }
        Detail::Engine(d) => super::engine_explain::engine_detail_ui(ui, d, e.value),
        Detail::None => {}
    }
    if let Some(why) = &e.unsplit {
        ui.label(RichText::new(format!("No parts: {why}.")).small().weak());
    }
    if !e.children.is_empty() && !matches!(e.detail, Detail::Terms(_)) {
        for c in &e.children {
            ui.label(format!("{}: {:.4} ({})", c.method, c.value, c.formula));
        }
    }
}

/// A Boolean query as the passage meets it: each clause, nested as written, held (✔) or not (✘),
/// or dropped (the analyzer left nothing of it).
fn clauses_ui(ui: &mut Ui, clauses: &[ClauseMatch], tree: Option<&ClauseNode>) {
    let Some(tree) = tree else {
        for c in clauses {
            let (mark, color) = if c.satisfied { ("✔", theme::LITERAL) } else { ("✘", theme::ERROR) };
            ui.horizontal(|ui| {
                ui.colored_label(color, mark);
                ui.label(&c.clause);
            });
        }
        return;
    };
    let mut stack = vec![(0usize, tree)];
    while let Some((depth, node)) = stack.pop() {
        let (mark, color) = match node.satisfied {
            Some(true) => ("✔", theme::LITERAL),
            Some(false) => ("✘", theme::ERROR),
            None => ("–", theme::WARNING),
        };
        ui.horizontal(|ui| {
            ui.add_space(18.0 * depth as f32);
            ui.colored_label(color, mark);
            ui.label(RichText::new(&node.text).monospace());
            if node.satisfied.is_none() {
                ui.label(RichText::new("dropped: the analyzer left nothing of it").small().weak());
            }
        });
        for c in node.children.iter().rev() {
            stack.push((depth + 1, c));
        }
    }
}

/// SPLADE's shared terms (question weight × passage weight) and the question's top terms.
fn sparse_ui(ui: &mut Ui, matches: &[SparseTermMatch], query_terms: &[(String, f32)]) {
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

/// Late interaction: each question token's best passage token, and the whole similarity matrix.
fn maxsim_ui(
    ui: &mut Ui,
    alignments: &[TokenAlignment],
    query_tokens: &[String],
    doc_tokens: &[String],
    matrix: &[f32],
) {
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

/// A dense cosine: its value, its rank, and its parts over the passage's and the question's
/// tokens (the highlighted text follows the detail).
fn dense_ui(ui: &mut Ui, cosine: f32, (rank, of): (usize, usize), tokens: &[TokenPart], question: &[TokenPart]) {
    ui.label(format!("cosine = {cosine:.4}"));
    bar_ui(ui, cosine.max(0.0), 240.0, theme::method_color(MethodKind::Dense));
    ui.label(format!("{rank} of {of} passages by cosine"));
    if tokens.is_empty() {
        return;
    }
    let sum: f64 = tokens.iter().map(|t| t.contribution).sum();
    ui.label(format!(
        "The passage vector is the mean of its {} token states, so the cosine splits over them: each token's part is q·hᵢ / (n·|h̄|); they sum to {sum:.4}.",
        tokens.len()
    ));
    let top = |parts: &[TokenPart]| {
        let mut v: Vec<&TokenPart> = parts.iter().collect();
        v.sort_by(|a, b| b.contribution.total_cmp(&a.contribution));
        v.into_iter().take(8).map(|t| format!("{} {:+.4}", t.token, t.contribution)).collect::<Vec<_>>().join(" · ")
    };
    ui.label(RichText::new(format!("most: {}", top(tokens))).small());
    if !question.is_empty() {
        ui.label(RichText::new(format!("the question's tokens against the passage vector: {}", top(question))).small());
    }
}

/// A fused score's parts, one per input.
fn fusion_ui(ui: &mut Ui, parts: &[FusionPart]) {
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
            ui.label(r.dl_text());
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

#[cfg(test)]
mod tests {
    use super::*;

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
                ("TF-IDF (x)".into(), MethodKind::TfIdf, Err("no index".into()), None),
                ("BM25 (lucene)".into(), MethodKind::Bm25, Ok(e), Some(2)),
            ],
            revision: 1,
        };
        let data = ExplainData::build(&explained, None, Some("BM25 (lucene)"));
        assert_eq!(data.chosen, Some(1));
        assert_eq!(data.methods[1].rank, "rank 2");
        assert_eq!(data.methods[1].line, Ok("1.5000 · because".to_string()));
        assert_eq!(data.methods[0].rank, "not in the top k");
        assert_eq!(ExplainData::build(&explained, None, None).chosen, Some(0));
        assert_eq!(ExplainData::build(&explained, None, Some("gone")).chosen, None);
    }
}
