//! The Models view's knobs for the methods a language model brings (which first stage the listwise
//! and pointwise columns reorder, how deep, in which windows), and the query adapter: training one
//! on the open corpus's judgements, with how it did on the questions held out.

use egui::{RichText, Ui};

use crate::gui::command::{Command, ModelCommand, RankCommand};
use crate::gui::context::ViewContext;
use crate::gui::jobs::JobKind;
use crate::gui::theme;
use crate::retrieve::MethodKind;

/// The knobs and the adapter, in one section.
pub fn model_methods_ui(ui: &mut Ui, ctx: &ViewContext<'_>) {
    ui.label(RichText::new("The language model's columns").strong());
    let mut s = ctx.data.persisted.settings.clone();
    let m = &mut s.model_rerank;
    ui.horizontal_wrapped(|ui| {
        egui::ComboBox::from_label("first stage").selected_text(m.first_stage.label()).show_ui(ui, |ui| {
            for k in MethodKind::RANKED.into_iter().filter(|k| *k != MethodKind::DenseAdapter) {
                ui.selectable_value(&mut m.first_stage, k, k.label());
            }
        });
        let l = ui.label("listwise depth");
        ui.add(egui::DragValue::new(&mut m.depth).range(1..=1000)).labelled_by(l.id);
        let l = ui.label("window");
        ui.add(egui::DragValue::new(&mut m.window).range(2..=100)).labelled_by(l.id);
        let l = ui.label("step");
        ui.add(egui::DragValue::new(&mut m.step).range(1..=m.window.max(1))).labelled_by(l.id);
        ui.checkbox(&mut m.three_orders, "three orders (as ranked, reversed, shuffled)");
        let l = ui.label("pointwise depth");
        ui.add(egui::DragValue::new(&mut m.pointwise_depth).range(1..=1000)).labelled_by(l.id);
    });
    ui.label(
        RichText::new(
            "Listwise: the model orders windows of passages from the bottom of the list up (RankGPT). Pointwise: \
             one request per passage, ranked by P(yes). Both are slow on two cores: the column fills in after \
             the others.",
        )
        .small()
        .weak(),
    );
    if s.model_rerank.validate().is_ok() && s != ctx.data.persisted.settings {
        ctx.send(RankCommand::SetSettings(Box::new(s)));
    }
    ui.add_space(6.0);
    ui.label(RichText::new("Query adapter").strong());
    ui.label(
        RichText::new(
            "A linear map on the dense model's question vectors, trained on this corpus's judgements (its qrels and \
             your grades) with in-batch negatives — seconds on the CPU, no GPU. One judged question in five is held \
             out to measure it.",
        )
        .small()
        .weak(),
    );
    let job = &ctx.jobs.adapter;
    ui.horizontal_wrapped(|ui| {
        if job.is_running() {
            crate::gui::widgets::spinner_ui(ui);
            if ui.button("Stop").clicked() {
                ctx.send(Command::Shell(crate::gui::command::ShellCommand::Cancel(JobKind::Adapter)));
            }
        } else if ui.button("Train an adapter on this corpus's judgements").clicked() {
            ctx.send(ModelCommand::TrainAdapter);
        }
        if ui
            .button("Use an adapter file…")
            .on_hover_text("One saved by ranklens adapter train or by the app")
            .clicked()
        {
            ctx.send(Command::Files(crate::gui::command::FileCommand::OpenDialog(
                crate::gui::dialog::DialogPurpose::ChooseAdapter,
            )));
        }
        if let Some(path) = &ctx.data.persisted.settings.adapter {
            ui.label(RichText::new(format!("in use: {}", path.display())).small());
        }
    });
    if let Some(e) = job.failure() {
        ui.colored_label(theme::WARNING, e.report());
    }
    if let Some(t) = job.ready() {
        let (n, dense, adapted) = t.held_out;
        ui.label(format!(
            "{} pairs of {} questions, {} epochs (loss {:.3} → {:.3}); on {n} held-out questions nDCG@10 {dense:.4} → \
             {adapted:.4} ({:+.4})",
            t.trained.pairs,
            t.trained.questions,
            t.trained.epochs,
            t.trained.loss.first().copied().unwrap_or(0.0),
            t.trained.loss.last().copied().unwrap_or(0.0),
            adapted - dense
        ));
    }
}
