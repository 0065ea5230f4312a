//! The detail of one column's explanation of a passage: its term table, clause tree, SPLADE
//! matches, token alignments, cosine parts, fused ranks or an engine's tree, and the window that
//! scored.

use egui::{RichText, Ui};

use super::method_tag_ui;
use crate::gui::theme;
use crate::gui::widgets::{bar_ui, ellipsis, heatmap_ui, signed_bar_ui};
use crate::retrieve::{
    ClauseMatch, ClauseNode, Detail, Explanation, FusionPart, MethodKind, SparseTermMatch, TermTable, TokenAlignment,
    TokenPart, fmt_param,
};

/// The window of a long document that gave the score: which one, and its text.
pub(super) fn window_ui(ui: &mut Ui, w: &crate::index::encoded::ScoredWindow, text: &str) {
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
        Detail::Listwise { first_stage, before, after, windows, orders, tau, .. } => {
            super::model_detail::moved_ui(ui, first_stage, *before, *after);
            super::model_detail::listwise_ui(ui, windows, orders, tau);
        }
        Detail::Pointwise { first_stage, before, after, p_yes, source, tokens, reply } => {
            super::model_detail::moved_ui(ui, first_stage, *before, *after);
            super::model_detail::pointwise_ui(ui, *p_yes, source, tokens, reply);
        }
        Detail::Agent { position, n, cited, steps, summary } => {
            let f = |r: &Option<usize>| r.map(|x| x.to_string()).unwrap_or_else(|| "—".into());
            ui.label(
                RichText::new(format!("place {} · shown as [{}] · cited {}", f(position), f(n), f(cited))).size(15.0),
            );
            super::agent_trace::steps_ui(ui, "explain", steps);
            ui.label(RichText::new(summary).small().weak());
        }
        Detail::GraphLocal { parts } => graph_local_ui(ui, parts, e.value),
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

/// GraphRAG local search: each entity of the question's neighbourhood the model extracted from
/// the passage, its weight, and how it joins the question; the weights sum to the score.
fn graph_local_ui(ui: &mut Ui, parts: &[crate::graphrag::EntityPart], value: f64) {
    egui::Grid::new("graph-local-parts").striped(true).show(ui, |ui| {
        for h in ["entity", "why it counts", "weight"] {
            ui.label(RichText::new(h).strong());
        }
        ui.end_row();
        for p in parts {
            ui.label(&p.entity);
            match (&p.via, &p.relation) {
                (None, _) => ui.label("the question names it"),
                (Some(v), Some(r)) => ui.label(format!("neighbour of {v}: {r}")),
                (Some(v), None) => ui.label(format!("neighbour of {v}")),
            };
            ui.label(format!("{}", p.weight));
            ui.end_row();
        }
        ui.label(RichText::new("sum").strong());
        ui.label("");
        ui.label(RichText::new(format!("{value}")).strong());
        ui.end_row();
    });
}
