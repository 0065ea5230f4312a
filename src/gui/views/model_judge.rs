//! Relevance judgements by the language model, in the evaluate view: what to judge (one column's
//! top k, or the question set's pool), the editable prompt, then the agreement with the people
//! (Cohen's κ and the confusion matrix) before any single judgement, and every judgement beside
//! the people's grade. Nothing here changes a grade: the model's judgements are their own record,
//! exported as qrels that name the model.

use egui::{RichText, Ui};

use crate::compare::judge::{ModelJudgements, SweepPoint};
use crate::eval::Agreement;
use crate::generate::tasks::JudgePrompt;
use crate::gui::command::FileCommand;
use crate::gui::command::LlmCommand;
use crate::gui::command::ShellCommand;
use crate::gui::command::{JudgeRequest, JudgeScope};
use crate::gui::context::ViewContext;
use crate::gui::dialog::DialogPurpose;
use crate::gui::jobs::JobKind;
use crate::gui::theme;
use crate::gui::widgets::ellipsis;
use crate::retrieve::MethodKind;

/// What the judging section remembers between frames.
pub struct JudgePanel {
    /// Judge the question set's pool (else one column's top k for this question).
    pub whole_set: bool,
    /// The column whose top k is judged (its label; BM25's until one is chosen).
    pub column: String,
    /// Depth.
    pub k: usize,
    /// Only the first N judged questions of the pool (0: all).
    pub questions: usize,
    /// The prompt being edited (taken from the settings at the first frame).
    pub prompt: Option<JudgePrompt>,
    /// Read P(yes) from the model's first answer token, and sweep its threshold.
    pub probabilities: bool,
    /// Whether the judge orders the methods as the people do, once measured.
    pub validity: super::judge_validity::ValidityState,
    /// The judgements' agreement with the people and its threshold sweep, computed when the
    /// judgements change (keyed by their revision), not while drawing.
    figures: super::view::Memo<u64, (Agreement, Vec<SweepPoint>)>,
}

impl Default for JudgePanel {
    fn default() -> Self {
        Self {
            whole_set: false,
            column: String::new(),
            k: 10,
            questions: 0,
            prompt: None,
            probabilities: false,
            validity: Default::default(),
            figures: Default::default(),
        }
    }
}

/// Landis and Koch's words for a κ (1977), the scale papers on judge agreement quote.
pub fn kappa_words(kappa: f64) -> &'static str {
    match kappa {
        k if k < 0.0 => "worse than chance",
        k if k <= 0.20 => "slight",
        k if k <= 0.40 => "fair",
        k if k <= 0.60 => "moderate",
        k if k <= 0.80 => "substantial",
        _ => "almost perfect",
    }
}

impl JudgePanel {
    /// The section.
    pub fn ui(&mut self, ui: &mut Ui, ctx: &ViewContext<'_>) {
        ui.heading("Judged by the language model");
        ui.label(
            "The model answers yes or no for each passage with the prompt below. Its judgements are kept apart \
             from your grades and never change them; read its agreement with the people's judgements before \
             trusting any one of them.",
        );
        let generator = ctx.workbench().and_then(|e| e.generator());
        match &generator {
            Some(g) => {
                ui.horizontal_wrapped(|ui| super::rag::generator_label_ui(ui, g.info(), "Judge: "));
            }
            None => super::rag::no_generator_ui(ui),
        }
        let request = self.controls_ui(ui, ctx);
        let running = ctx.jobs.judge.is_running();
        ui.horizontal(|ui| {
            if running {
                crate::gui::widgets::spinner_ui(ui);
                if ui.button("Stop judging").clicked() {
                    ctx.send(ShellCommand::Cancel(JobKind::Judge));
                }
                ui.label(RichText::new("what is judged is kept when you stop").small().weak());
            } else {
                let ready = generator.is_some() && request.is_ok();
                if ui.add_enabled(ready, egui::Button::new("Judge with the language model")).clicked()
                    && let Ok(r) = &request
                {
                    ctx.send(LlmCommand::Judge(r.clone()));
                }
                if let Err(why) = &request {
                    ui.colored_label(theme::WARNING, why);
                }
            }
        });
        if let Some(e) = ctx.jobs.judge.failure() {
            ui.colored_label(theme::WARNING, format!("The model could not judge: {}", e.report()));
        }
        if let Some(j) = ctx.data.model_judgements.as_ref() {
            ui.separator();
            let (agreement, sweep) = self.figures.get(ctx.data.judgements_revision, || (j.agreement(), j.sweep()));
            judgements_ui(ui, ctx, j, (agreement, sweep.as_slice()), running);
            self.validity.ui(ui, ctx, j);
            let can_ask = generator.is_some() && !running && !j.judgements.is_empty();
            super::judge_stress::stress_ui(ui, ctx, self.k, self.questions, can_ask);
        }
    }

    /// Scope, depth and prompt; the request they make, or why there is none.
    fn controls_ui(&mut self, ui: &mut Ui, ctx: &ViewContext<'_>) -> Result<JudgeRequest, String> {
        let prompt = self.prompt.get_or_insert_with(|| ctx.data.persisted.judge_prompt.clone());
        let ranked = ctx.ranked();
        // The columns of the current ranking that rank (an unranked set or a failed column has
        // no top k to judge).
        let columns: Vec<(String, MethodKind, Vec<crate::corpus::DocId>)> = ranked
            .map(|r| {
                r.run
                    .comparison
                    .runs
                    .iter()
                    .filter_map(|c| {
                        let crate::compare::Outcome::Ranked(rk) = &c.outcome else { return None };
                        Some((c.label.clone(), c.kind, rk.hits.iter().map(|h| h.doc).collect()))
                    })
                    .collect()
            })
            .unwrap_or_default();
        if !columns.iter().any(|(l, _, _)| *l == self.column)
            && let Some((l, _, _)) = columns.iter().find(|(_, k, _)| *k == MethodKind::Bm25).or(columns.first())
        {
            self.column = l.clone();
        }
        ui.horizontal_wrapped(|ui| {
            ui.radio_value(&mut self.whole_set, false, "This question: the top k of");
            let selected = ellipsis(&self.column, 32);
            egui::ComboBox::from_label("column").selected_text(selected).show_ui(ui, |ui| {
                for (label, _, _) in &columns {
                    ui.selectable_value(&mut self.column, label.clone(), label);
                }
            });
            ui.radio_value(&mut self.whole_set, true, "The question set: the pool of the columns shown");
        });
        ui.horizontal(|ui| {
            let l = ui.label("Depth k");
            ui.add(egui::DragValue::new(&mut self.k).range(1..=100)).labelled_by(l.id);
            if self.whole_set {
                let l = ui.label("Questions (0: every judged one)");
                ui.add(egui::DragValue::new(&mut self.questions).range(0..=100_000)).labelled_by(l.id);
            }
            ui.checkbox(&mut self.probabilities, "Read P(yes) from the first answer token (a graded judge)")
                .on_hover_text("The embedded model's logits, or a server's logprobs; then κ at each threshold");
        });
        egui::CollapsingHeader::new("The judge's prompt (editable)").id_salt("judge-prompt").show(ui, |ui| {
            ui.label(
                RichText::new(
                    "Two worked examples (one yes, one no) go before each passage, written with this template.",
                )
                .small()
                .weak(),
            );
            let l = ui.label("System message");
            ui.add(egui::TextEdit::multiline(&mut prompt.system).desired_rows(1).desired_width(f32::INFINITY))
                .labelled_by(l.id);
            let l = ui.label("Template ({question} and {passage} are filled in)");
            ui.add(egui::TextEdit::multiline(&mut prompt.template).desired_rows(4).desired_width(f32::INFINITY))
                .labelled_by(l.id);
            if *prompt != JudgePrompt::default() && ui.button("Restore the default prompt").clicked() {
                *prompt = JudgePrompt::default();
            }
        });
        prompt.validate().map_err(|e| e.to_string())?;
        let prompt = prompt.clone();
        if self.whole_set {
            return Ok(JudgeRequest {
                scope: JudgeScope::Pool { k: self.k, questions: self.questions },
                prompt,
                probabilities: self.probabilities,
            });
        }
        let Some(ranked) = ranked else { return Err("Ask a question first: its top k are judged.".into()) };
        let Some((column, _, docs)) = columns.iter().find(|(l, _, _)| *l == self.column) else {
            return Err(format!("The column {} did not rank this question: choose another.", self.column));
        };
        let question = ranked.run.comparison.question.clone();
        let qid = ctx.data.question_id().unwrap_or_else(|| question.clone());
        let docs = docs.iter().take(self.k).copied().collect();
        Ok(JudgeRequest {
            scope: JudgeScope::Ranking { column: column.clone(), qid, question, docs },
            prompt,
            probabilities: self.probabilities,
        })
    }
}

/// The agreement first (κ in words, the confusion matrix), then what was judged, then each
/// judgement beside the people's grade.
fn judgements_ui(
    ui: &mut Ui,
    ctx: &ViewContext<'_>,
    j: &ModelJudgements,
    (agreement, sweep): (&Agreement, &[SweepPoint]),
    running: bool,
) {
    agreement_ui(ui, agreement);
    sweep_ui(ui, sweep);
    for why in &j.skipped {
        ui.colored_label(crate::gui::theme::WARNING, format!("not pooled: {why}"));
    }
    let state = if running {
        "judging…"
    } else if j.finished() {
        "finished"
    } else {
        "stopped"
    };
    ui.label(format!(
        "{} of {} passages judged ({state}) by {} · {}. {} replies were neither yes nor no (left out); {} passages \
         the people never judged count as not relevant.",
        j.judgements.len(),
        j.pooled,
        j.model,
        j.scope,
        j.unreadable(),
        j.unjudged_by_people()
    ));
    ui.horizontal(|ui| {
        if ui
            .add_enabled(!j.judgements.is_empty(), egui::Button::new("Export the model's judgements (qrels)…"))
            .clicked()
        {
            ctx.send(FileCommand::OpenDialog(DialogPurpose::ExportModelQrels));
        }
        ui.label(
            RichText::new("TREC lines name the model; your grades are exported on their own above").small().weak(),
        );
    });
    let row_height = ui.text_style_height(&egui::TextStyle::Body) + 4.0;
    let corpus = ctx.workbench().map(|e| e.corpus());
    egui::ScrollArea::vertical().id_salt("model-judgements").max_height(row_height * 12.0).show_rows(
        ui,
        row_height,
        j.judgements.len(),
        |ui, rows| {
            egui::Grid::new("model-judgements-grid").striped(true).num_columns(5).show(ui, |ui| {
                for h in ["question", "passage", "model", "people", "reply"] {
                    ui.label(RichText::new(h).strong());
                }
                ui.end_row();
                for m in &j.judgements[rows] {
                    ui.label(ellipsis(&m.qid, 16));
                    let title = corpus
                        .and_then(|c| c.lookup(&m.doc).and_then(|id| c.doc(id)))
                        .map(|d| d.title.clone())
                        .filter(|t| !t.is_empty());
                    ui.label(ellipsis(&title.map_or_else(|| m.doc.clone(), |t| format!("{} · {t}", m.doc)), 40));
                    let model = match m.grade {
                        Some(1) => "relevant",
                        Some(_) => "not relevant",
                        None => "unreadable",
                    };
                    let people = match m.people {
                        Some(g) if g > 0 => format!("relevant ({g})"),
                        Some(_) => "not relevant".to_string(),
                        None => "not judged".to_string(),
                    };
                    let disagree = m.grade.is_some_and(|g| (g > 0) != (m.people.unwrap_or(0) > 0));
                    if disagree {
                        ui.colored_label(theme::WARNING, model);
                    } else {
                        ui.label(model);
                    }
                    ui.label(people);
                    ui.label(RichText::new(ellipsis(m.reply.trim(), 24)).monospace().small());
                    ui.end_row();
                }
            });
        },
    );
}

/// κ in words, the two agreement shares, and the confusion matrix.
fn agreement_ui(ui: &mut Ui, a: &Agreement) {
    let headline = match a.kappa {
        Some(k) => format!("Cohen's κ = {k:.3} ({} agreement)", kappa_words(k)),
        None if a.n == 0 => "Cohen's κ: nothing judged yet".to_string(),
        None => "Cohen's κ is undefined: every pair was judged alike by both sides".to_string(),
    };
    ui.label(RichText::new(headline).strong().size(16.0));
    if a.n == 0 {
        return;
    }
    ui.label(format!(
        "observed agreement {:.3}, expected by chance {:.3}, over {} passages",
        a.observed, a.expected, a.n
    ));
    egui::Grid::new("judge-confusion").striped(true).show(ui, |ui| {
        ui.label("");
        ui.label(RichText::new("people: relevant").strong());
        ui.label(RichText::new("people: not relevant").strong());
        ui.end_row();
        ui.label(RichText::new("model: relevant").strong());
        ui.label(a.both.to_string());
        ui.label(a.model_only.to_string());
        ui.end_row();
        ui.label(RichText::new("model: not relevant").strong());
        ui.label(a.people_only.to_string());
        ui.label(a.neither.to_string());
        ui.end_row();
    });
}

/// κ at each threshold of P(yes): where a graded judge agrees with the people best.
fn sweep_ui(ui: &mut Ui, sweep: &[SweepPoint]) {
    if sweep.is_empty() {
        return;
    }
    ui.label(RichText::new("P(yes) as a graded judge: κ with the people at each threshold").strong());
    egui::Grid::new("p-yes-sweep").striped(true).show(ui, |ui| {
        for h in ["P(yes) ≥", "κ", "agreement", "model: relevant"] {
            ui.label(RichText::new(h).small().strong());
        }
        ui.end_row();
        for p in sweep {
            let a = &p.agreement;
            ui.label(format!("{:.1}", p.threshold));
            ui.label(RichText::new(a.kappa.map_or_else(|| "—".into(), |k| format!("{k:+.3}"))).monospace());
            ui.label(RichText::new(format!("{:.3}", a.observed)).monospace());
            ui.label((a.both + a.model_only).to_string());
            ui.end_row();
        }
    });
}

#[cfg(test)]
mod tests {
    use super::kappa_words;

    #[test]
    fn kappa_is_named_on_landis_and_kochs_scale() {
        let named: Vec<&str> = [-0.1, 0.0, 0.2, 0.21, 0.4, 0.5, 0.6, 0.8, 0.81, 1.0].map(kappa_words).to_vec();
        assert_eq!(
            named,
            [
                "worse than chance",
                "slight",
                "slight",
                "fair",
                "fair",
                "moderate",
                "moderate",
                "substantial",
                "almost perfect",
                "almost perfect"
            ]
        );
    }
}
