//! The evaluate view: grade passages (keys 0–3), see every method's metrics for the question
//! update as grades change (unjudged passages counted), and evaluate the whole question set — the
//! methods and the runs shown — with wins, losses and paired significance tests against a baseline
//! corrected for testing many systems, and a per-question triage across all of them.

use egui::{RichText, Ui};

use super::{Memo, Same, View, method_tag_ui};
use crate::compare::QuestionMetrics;
use crate::compare::{Study, Triage, TriageOrder};
use crate::eval::{Correction, MAX_GRADE};
use crate::gui::command::FileCommand;
use crate::gui::command::RankCommand;
use crate::gui::command::StudyCommand;
use crate::gui::context::ViewContext;
use crate::gui::dialog::DialogPurpose;
use crate::gui::theme;
use crate::gui::widgets::ellipsis;
use crate::retrieve::MethodKind;

/// Grade buttons for the selected passage.
pub fn grade_buttons_ui(ui: &mut Ui, ctx: &ViewContext<'_>) {
    let Some(doc) = ctx.data.selected_doc() else {
        ui.weak("Select a passage to grade it (keys 0–3).");
        return;
    };
    let Some(engine) = ctx.workbench() else { return };
    let id = engine.corpus().external_id(doc).to_string();
    let current = ctx.data.grades.get(&id).copied();
    ui.horizontal(|ui| {
        ui.label(RichText::new(format!("Grade {id}:")).strong());
        for g in 0..=MAX_GRADE {
            if ui.selectable_label(current == Some(g), format!("{g}")).on_hover_text(grade_name(g)).clicked() {
                ctx.send(StudyCommand::SetGrade { doc, grade: Some(g) });
            }
        }
        if ui.button("Clear grade").clicked() {
            ctx.send(StudyCommand::SetGrade { doc, grade: None });
        }
        ui.weak("keys 0–3, Delete clears");
    });
}

fn grade_name(g: i32) -> &'static str {
    match g {
        0 => "not relevant",
        1 => "related",
        2 => "relevant",
        _ => "perfect answer",
    }
}

/// The evaluate view; it keeps the order of its per-question triage, and what it draws: the
/// question's metrics (built when a ranking lands or a grade changes) and the triage (built when
/// a study lands or the order changes).
pub struct EvaluateView {
    order: TriageOrder,
    metrics: Memo<(u64, u64), Option<QuestionMetrics>>,
    triage: Memo<(Same<Study>, TriageOrder), Triage>,
    judge: super::model_judge::JudgePanel,
    answers: super::answer_curve::AnswerCurvePanel,
}

impl Default for EvaluateView {
    fn default() -> Self {
        Self {
            order: TriageOrder::Disagreement,
            metrics: Memo::default(),
            triage: Memo::default(),
            judge: Default::default(),
            answers: Default::default(),
        }
    }
}

impl View for EvaluateView {
    fn ui(&mut self, ui: &mut Ui, ctx: &ViewContext<'_>) {
        // The question, the question set and the model's judgements are taller than a window.
        egui::ScrollArea::vertical().id_salt("evaluate").auto_shrink([false, false]).show(ui, |ui| self.body(ui, ctx));
    }
}

impl EvaluateView {
    fn body(&mut self, ui: &mut Ui, ctx: &ViewContext<'_>) {
        ui.heading("This question");
        grade_buttons_ui(ui, ctx);
        let ranked = ctx.ranked();
        let key = (ranked.map_or(0, |r| r.revision), ctx.data.grades_revision);
        match self.metrics.get(key, || {
            let engine = ctx.workbench()?;
            Some(ranked?.run.comparison.question_metrics(engine.corpus(), &ctx.data.grades))
        }) {
            None => {
                ui.label("Run a question to see its metrics.");
            }
            Some(m) => question_metrics_ui(ui, m, ctx.data.grades.len()),
        }
        ui.horizontal(|ui| {
            for (label, purpose) in [
                ("Export grades (qrels)…", DialogPurpose::ExportQrels),
                ("Import grades (qrels)…", DialogPurpose::ImportQrels),
                ("Export report…", DialogPurpose::SaveReport),
            ] {
                if ui.button(label).clicked() {
                    ctx.send(FileCommand::OpenDialog(purpose));
                }
            }
        });
        ui.separator();
        ui.heading("The question set");
        let judged = ctx.data.judged_questions;
        ui.label(format!("{judged} question(s) with judgements in this corpus (shipped and your own)."));
        study_controls_ui(ui, ctx);
        if let Some(study) = ctx.jobs.study.ready() {
            study_table_ui(ui, study);
            ui.separator();
            self.triage_ui(ui, ctx, study);
        }
        ui.separator();
        self.answers.ui(ui, ctx);
        ui.separator();
        self.judge.ui(ui, ctx);
    }
}

/// Every column's metrics for the question, and how many of each top k are unjudged.
fn question_metrics_ui(ui: &mut Ui, m: &QuestionMetrics, graded: usize) {
    ui.label(format!("{graded} passage(s) graded for this question. Unjudged passages count as not relevant; the last column says how many there are in each top k."));
    egui::Grid::new("question-metrics").striped(true).show(ui, |ui| {
        ui.label(RichText::new("method").strong());
        for metric in &m.metrics.0 {
            ui.label(RichText::new(metric.to_string()).strong());
        }
        ui.label(RichText::new("unjudged in top k").strong());
        ui.end_row();
        for c in &m.columns {
            ui.horizontal(|ui| method_tag_ui(ui, c.kind, &ellipsis(&c.label, 40)));
            for metric in &m.metrics.0 {
                ui.label(RichText::new(format!("{:.4}", c.values.get(metric).copied().unwrap_or(0.0))).monospace());
            }
            let color = if c.unjudged > 0 { theme::WARNING } else { ui.visuals().text_color() };
            ui.colored_label(color, c.unjudged.to_string());
            ui.end_row();
        }
    });
}

/// The baseline, the correction and the button that evaluates the question set.
fn study_controls_ui(ui: &mut Ui, ctx: &ViewContext<'_>) {
    ui.horizontal(|ui| {
        let mut baseline = ctx.data.baseline.clone();
        // Any ranked method but the reranker, and every run.
        let mut systems: Vec<String> = MethodKind::RANKED
            .into_iter()
            .filter(|k| *k != MethodKind::Rerank)
            .map(|k| k.label().to_string())
            .collect();
        systems.extend(ctx.data.systems.iter().map(|r| r.name().to_string()));
        egui::ComboBox::from_label("Baseline").selected_text(ellipsis(&baseline, 30)).show_ui(ui, |ui| {
            for name in systems {
                ui.selectable_value(&mut baseline, name.clone(), name);
            }
        });
        if baseline != ctx.data.baseline {
            ctx.send(StudyCommand::SetBaseline(baseline));
        }
        let mut correction = ctx.data.correction;
        egui::ComboBox::from_label("Correction").selected_text(correction.name()).show_ui(ui, |ui| {
            for c in Correction::ALL {
                ui.selectable_value(&mut correction, c, c.name());
            }
        });
        if correction != ctx.data.correction {
            ctx.send(StudyCommand::SetCorrection(correction));
        }
        if ctx.jobs.study.is_running() {
            crate::gui::widgets::spinner_ui(ui);
        } else if ui.button("Evaluate every method shown").clicked() {
            ctx.send(StudyCommand::Run);
        }
    });
}

/// Every system's metrics, with its paired test against the baseline.
fn study_table_ui(ui: &mut Ui, study: &Study) {
    ui.label(format!(
        "{} judged questions · paired randomisation tests on {} against the baseline, p corrected by {} over {} test(s)",
        study.num_queries,
        study.primary,
        study.correction.name(),
        study.methods.len().saturating_sub(1)
    ));
    egui::Grid::new("study").striped(true).show(ui, |ui| {
        ui.label(RichText::new("method").strong());
        for metric in &study.metrics.0 {
            ui.label(RichText::new(metric.to_string()).strong());
        }
        let adjusted = format!("p ({})", study.correction.name());
        for h in ["wins/losses/ties", "p (randomisation)", adjusted.as_str(), "p (t-test)"] {
            ui.label(RichText::new(h).strong());
        }
        ui.end_row();
        for (i, m) in study.methods.iter().enumerate() {
            ui.horizontal(|ui| method_tag_ui(ui, m.kind, &ellipsis(&m.label, 40)));
            for metric in &study.metrics.0 {
                ui.label(
                    RichText::new(format!("{:.4}", m.summary.mean.get(metric).copied().unwrap_or(0.0))).monospace(),
                );
            }
            match &m.versus_baseline {
                Some(p) => {
                    ui.label(format!("{}/{}/{}", p.wins, p.losses, p.ties));
                    ui.label(format!("{:.4}", p.p_randomisation));
                    let strong = p.p_adjusted < 0.05;
                    let color = if strong { theme::LITERAL } else { ui.visuals().text_color() };
                    ui.label(RichText::new(format!("{:.4}", p.p_adjusted)).strong().color(color));
                    ui.label(format!("{:.4}", p.p_t_test));
                }
                None if i == study.baseline => {
                    ui.label("baseline");
                    for _ in 0..3 {
                        ui.label("");
                    }
                }
                None => {}
            }
            ui.end_row();
        }
        for m in &study.missing {
            ui.horizontal(|ui| method_tag_ui(ui, m.kind, &ellipsis(&m.label, 40)));
            ui.colored_label(theme::WARNING, "not run");
            ui.end_row();
        }
    });
    for m in &study.missing {
        ui.colored_label(
            theme::WARNING,
            format!("{} was not run: {}", m.label, m.message.lines().next().unwrap_or("")),
        );
    }
}

impl EvaluateView {
    /// Queries × systems on the primary metric, in the chosen order; a cell opens its question in
    /// Compare with the first relevant document that system found selected.
    fn triage_ui(&mut self, ui: &mut Ui, ctx: &ViewContext<'_>, study: &std::sync::Arc<Study>) {
        let names: Vec<&str> = study.methods.iter().map(|m| m.label.as_str()).collect();
        ui.horizontal(|ui| {
            ui.label(RichText::new(format!("Per question ({})", study.primary)).strong());
            let describe = |o: TriageOrder| match o {
                TriageOrder::Disagreement => "largest disagreement first".to_string(),
                TriageOrder::Gain(i) => format!("largest gain of {} first", ellipsis(names.get(i).unwrap_or(&"?"), 30)),
                TriageOrder::Loss(i) => format!("largest loss of {} first", ellipsis(names.get(i).unwrap_or(&"?"), 30)),
            };
            egui::ComboBox::from_label("Order").selected_text(describe(self.order)).show_ui(ui, |ui| {
                ui.selectable_value(&mut self.order, TriageOrder::Disagreement, describe(TriageOrder::Disagreement));
                for i in (0..names.len()).filter(|&i| i != study.baseline) {
                    for o in [TriageOrder::Gain(i), TriageOrder::Loss(i)] {
                        ui.selectable_value(&mut self.order, o, describe(o));
                    }
                }
            });
        });
        let order = self.order;
        let triage = self.triage.get((Same(study.clone()), order), || study.triage(order));
        egui::ScrollArea::both().id_salt("triage").max_height(320.0).show(ui, |ui| {
            egui::Grid::new("triage-grid").striped(true).show(ui, |ui| {
                ui.label(RichText::new("query").strong());
                for (i, n) in names.iter().enumerate() {
                    let n = ellipsis(n, 18);
                    ui.label(RichText::new(if i == study.baseline { format!("{n} (base)") } else { n }).strong());
                }
                ui.label(RichText::new("spread").strong());
                ui.label(RichText::new("question").strong());
                ui.end_row();
                for row in triage.rows.iter().take(TRIAGE_ROWS) {
                    ui.label(RichText::new(&row.qid).monospace());
                    let base = row.values.get(study.baseline).copied().unwrap_or(0.0);
                    for (i, v) in row.values.iter().enumerate() {
                        let color = if i == study.baseline || (v - base).abs() < 1e-12 {
                            ui.visuals().text_color()
                        } else if *v > base {
                            theme::LITERAL
                        } else {
                            theme::ERROR
                        };
                        let cell = ui
                            .add(egui::Button::new(RichText::new(format!("{v:.3}")).monospace().color(color)).small());
                        if cell.clicked() {
                            open_in_compare(ctx, study, i, &row.qid, &row.question);
                        }
                    }
                    ui.label(RichText::new(format!("{:.3}", row.spread)).monospace());
                    ui.label(ellipsis(&row.question, 70));
                    ui.end_row();
                }
            });
        });
        if triage.rows.len() > TRIAGE_ROWS {
            ui.weak(format!(
                "the first {TRIAGE_ROWS} of {} questions; `ranklens eval --triage` gives them all",
                triage.rows.len()
            ));
        }
    }
}

/// Rows the triage table shows.
const TRIAGE_ROWS: usize = 200;

/// Ask the question and select the first relevant document system `i` ranked (or, when it ranked
/// none, the best judged one), so Compare highlights it in every column and Explain says why each
/// ranked it where it did.
fn open_in_compare(ctx: &ViewContext<'_>, study: &Study, i: usize, qid: &str, question: &str) {
    let Some(engine) = ctx.workbench() else { return };
    let corpus = engine.corpus();
    let qrels = ctx.data.all_qrels();
    let judged = qrels.for_query(qid).cloned().unwrap_or_default();
    let relevant = |d: &str| judged.get(d).is_some_and(|g| *g >= 1);
    let ranked = study.methods.get(i).and_then(|m| m.run.results.get(qid));
    let first_found = ranked.and_then(|l| l.iter().find(|(d, _)| relevant(d)).and_then(|(d, _)| corpus.lookup(d)));
    let best_judged = || {
        let mut by_grade: Vec<(&String, &i32)> = judged.iter().filter(|(_, g)| **g >= 1).collect();
        by_grade.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
        by_grade.into_iter().find_map(|(d, _)| corpus.lookup(d))
    };
    ctx.send(RankCommand::AskQuestion(question.to_string()));
    if let Some(doc) = first_found.or_else(best_judged) {
        let column = study.methods.get(i).map(|m| crate::compare::ColumnId::of(m.kind, &m.label));
        ctx.send(RankCommand::Select { column, doc });
    }
}
