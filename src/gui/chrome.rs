//! What surrounds every view: the menu bar, the question bar with every knob, the navigation with
//! the work in progress, the message strip and the frame-time overlay. Like the views, they read
//! the context and send commands.

use egui::{Color32, RichText, Ui};

use super::command::Command;
use super::context::ViewContext;
use super::dialog::DialogPurpose;
use super::engine_form::EngineForm;
use super::frames::FrameStats;
use super::state::{CorpusChoice, ViewId};
use super::theme;
use super::widgets::{ellipsis, labelled_text_ui, room_for};
use crate::analysis::{AnalyzerConfig, Preset};
use crate::corpus::{FieldFilter, Split};
use crate::gui::command::CorpusCommand;
use crate::gui::command::FileCommand;
use crate::gui::command::LessonCommand;
use crate::gui::command::OutsideCommand;
use crate::gui::command::RankCommand;
use crate::gui::command::ShellCommand;
use crate::retrieve::{Bm25Variant, FusionMethod, MethodKind, TfIdfVariant};

/// The question bar's own state: the filter as typed, which applies only once it parses; and the
/// search-engine form while it is open.
#[derive(Default)]
pub struct Chrome {
    filter_text: String,
    filter_error: Option<String>,
    engine_form: Option<EngineForm>,
}

impl Chrome {
    /// Menu bar: open corpora, toggle the overlay; the corpus name on the right.
    pub fn top_bar_ui(&mut self, ui: &mut Ui, ctx: &ViewContext<'_>) {
        egui::Panel::top("menu").show(ui, |ui| {
            egui::MenuBar::new().ui(ui, |ui| {
                ui.menu_button("File", |ui| {
                    if file_menu_ui(ui, ctx) {
                        self.engine_form = Some(EngineForm::default());
                    }
                });
                ui.menu_button("View", |ui| {
                    for v in ViewId::ALL {
                        if ui.button(v.label()).clicked() {
                            ctx.send(ShellCommand::ShowView(v));
                            ui.close();
                        }
                    }
                    ui.separator();
                    let mut on = ctx.data.persisted.debug_overlay;
                    if ui.checkbox(&mut on, "Frame-time overlay").changed() {
                        ctx.send(ShellCommand::SetDebugOverlay(on));
                    }
                    let mut class = ctx.data.class_mode;
                    if ui.checkbox(&mut class, "Class mode").changed() {
                        ctx.send(LessonCommand::SetClassMode(class));
                        ui.close();
                    }
                });
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                    if let Some(e) = ctx.workbench() {
                        let c = e.corpus();
                        ui.label(RichText::new(format!("{} · {} passages", c.name, c.len())).strong());
                    }
                });
            });
        });
    }

    /// The "Add a search engine" window, while it is open.
    pub fn engine_form_ui(&mut self, ui: &mut Ui, ctx: &ViewContext<'_>) {
        let Some(form) = &mut self.engine_form else { return };
        let mut close = false;
        egui::Window::new("Add a search engine").collapsible(false).show(ui.ctx(), |ui| {
            let (added, done) = form.ui(ui);
            if let Some(engine) = added {
                ctx.send(OutsideCommand::AddEngine(engine));
            }
            close = done;
        });
        if close {
            self.engine_form = None;
        }
    }

    /// The question and every knob; a change re-ranks.
    pub fn question_bar_ui(&mut self, ui: &mut Ui, ctx: &ViewContext<'_>) {
        egui::Panel::top("question").show(ui, |ui| {
            ui.add_space(4.0);
            ui.horizontal(|ui| {
                let label = ui.label(RichText::new("Question").strong());
                let mut question = ctx.data.persisted.question.clone();
                let edit = ui.add(
                    egui::TextEdit::singleline(&mut question)
                        .hint_text("Ask the corpus something…")
                        .desired_width((ui.available_width() - 90.0).max(200.0)),
                );
                let edit = edit.labelled_by(label.id);
                if edit.changed() {
                    ctx.send(RankCommand::SetQuestion(question));
                }
                let entered = edit.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
                if ui.button("Run").clicked() || entered {
                    ctx.send(RankCommand::Ask);
                }
            });
            if ctx.data.persisted.question.trim().is_empty()
                && let Some(engine) = ctx.workbench()
            {
                let corpus = engine.corpus();
                ui.horizontal_wrapped(|ui| {
                    ui.label(
                        RichText::new(format!(
                            "Type a question about {} ({} passages) and press Enter.",
                            corpus.name,
                            corpus.len()
                        ))
                        .weak(),
                    );
                    let examples = corpus.example_questions(4);
                    if !examples.is_empty() {
                        let from = if corpus.queries.is_empty() { "titles" } else { "its question set" };
                        ui.label(RichText::new(format!("Or try one ({from}):")).weak());
                    }
                    for q in examples {
                        if ui.link(ellipsis(&q, 60)).on_hover_text(&q).clicked() {
                            ctx.send(RankCommand::AskQuestion(q));
                        }
                    }
                });
            }
            let mut s = ctx.data.persisted.settings.clone();
            ui.horizontal_wrapped(|ui| knobs_ui(ui, &mut s));
            // The methods RankLens computes itself, then those a language model brings (each
            // name without its "(model)": the row says so).
            let all: Vec<MethodKind> = MethodKind::BUILT_IN
                .into_iter()
                .chain(MethodKind::TRAINED)
                .chain(MethodKind::GENERATED)
                .chain(MethodKind::EXTRACTED)
                .collect();
            let model_kinds: Vec<MethodKind> = MethodKind::GENERATED.into_iter().chain(MethodKind::EXTRACTED).collect();
            let mut method_box = |ui: &mut Ui, kind: MethodKind, text: &str| {
                let mut on = s.methods.contains(&kind);
                let text = RichText::new(text).color(theme::method_color(kind));
                if ui.checkbox(&mut on, text).on_hover_text(kind.label()).changed() {
                    if on {
                        // A new column goes last (the Compare view brings it into view); the
                        // columns' order is the user's (◀ ▶ above each column).
                        s.methods.push(kind);
                    } else {
                        s.methods.retain(|k| *k != kind);
                    }
                }
            };
            ui.horizontal_wrapped(|ui| {
                ui.label("Methods:");
                for kind in all.iter().copied().filter(|k| !model_kinds.contains(k)) {
                    method_box(ui, kind, kind.label());
                }
            });
            ui.horizontal_wrapped(|ui| {
                ui.label("With the language model:");
                for kind in model_kinds.iter().copied() {
                    let label = kind.label();
                    method_box(ui, kind, label.strip_suffix(" (model)").unwrap_or(label));
                }
                ui.separator();
                self.filter_ui(ui, &mut s.filter);
            });
            super::model_cost::model_cost_ui(ui, ctx, &s);
            if s != ctx.data.persisted.settings {
                ctx.send(RankCommand::SetSettings(Box::new(s)));
            }
            ui.add_space(2.0);
        });
    }

    /// The metadata filter as typed; it applies once it parses, and says why not otherwise.
    fn filter_ui(&mut self, ui: &mut Ui, filter: &mut Option<FieldFilter>) {
        let r = labelled_text_ui(ui, "Filter", &mut self.filter_text, 140.0);
        if r.changed() {
            let text = self.filter_text.trim();
            self.filter_error = None;
            if text.is_empty() {
                *filter = None;
            } else {
                match text.parse::<FieldFilter>() {
                    Ok(f) => *filter = Some(f),
                    Err(e) => self.filter_error = Some(e.report()),
                }
            }
        }
        if let Some(e) = &self.filter_error {
            ui.colored_label(theme::ERROR, e);
        } else if filter.is_some() {
            ui.weak("(e.g. release >= 4)");
        }
    }
}

/// The File menu; true when "Add search engine…" was chosen.
fn file_menu_ui(ui: &mut Ui, ctx: &ViewContext<'_>) -> bool {
    let item = |ui: &mut Ui, label: &str, command: Command| {
        if ui.button(label).clicked() {
            ctx.send(command);
            ui.close();
        }
    };
    item(ui, "Open folder…", Command::Files(FileCommand::OpenDialog(DialogPurpose::OpenFolder)));
    item(ui, "Open file…", Command::Files(FileCommand::OpenDialog(DialogPurpose::OpenFile)));
    item(ui, "Open run, engine response or vectors…", Command::Files(FileCommand::OpenDialog(DialogPurpose::OpenRuns)));
    let add_engine = ui.button("Add search engine…").clicked();
    if add_engine {
        ui.close();
    }
    let mut by_paragraph = ctx.data.open_split == Split::Paragraph;
    if ui.checkbox(&mut by_paragraph, "Folders: one passage per paragraph").changed() {
        ctx.send(CorpusCommand::SetOpenSplit(if by_paragraph { Split::Paragraph } else { Split::File }));
    }
    ui.menu_button("Open a test collection", |ui| {
        let data = crate::datasets::data_dir(ctx.data.workspace.as_deref().unwrap_or(&crate::workspace_dir()));
        for c in crate::datasets::COLLECTIONS {
            let here = crate::datasets::is_collection(&data.join(c.name));
            let label = if here {
                format!("{} — {} passages (here)", c.name, c.passages)
            } else {
                format!("{} — {} passages (download)", c.name, c.passages)
            };
            if ui.button(label).on_hover_text(c.about).clicked() {
                ctx.send(CorpusCommand::Open(CorpusChoice::Collection(c.name.into())));
                ui.close();
            }
        }
    });
    ui.separator();
    item(ui, "Acme Sync sample", Command::Corpus(CorpusCommand::Open(CorpusChoice::Sample)));
    for lesson in ["isro", "mozart"] {
        item(
            ui,
            &format!("Lesson corpus: {lesson}"),
            Command::Corpus(CorpusCommand::Open(CorpusChoice::Lesson(lesson.into()))),
        );
    }
    ui.separator();
    item(ui, "Export report…", Command::Files(FileCommand::OpenDialog(DialogPurpose::SaveReport)));
    item(ui, "Open report…", Command::Files(FileCommand::OpenDialog(DialogPurpose::OpenReport)));
    item(ui, "Export grades (TREC qrels)…", Command::Files(FileCommand::OpenDialog(DialogPurpose::ExportQrels)));
    item(ui, "Import grades (qrels)…", Command::Files(FileCommand::OpenDialog(DialogPurpose::ImportQrels)));
    ui.separator();
    if ui.button("Quit").clicked() {
        ui.ctx().send_viewport_cmd(egui::ViewportCommand::Close);
    }
    add_engine
}

/// k, the analyzer, the BM25 variant and its parameters, TF-IDF, fusion.
fn knobs_ui(ui: &mut Ui, s: &mut crate::config::Settings) {
    ui.spacing_mut().slider_width = 80.0;
    room_for(ui, 150.0);
    ui.add(egui::Slider::new(&mut s.k, 1..=50).text("k"));
    let mut preset = s.analyzer.preset;
    room_for(ui, 190.0);
    egui::ComboBox::from_label("Analyzer").selected_text(preset.name()).show_ui(ui, |ui| {
        for p in Preset::ALL {
            ui.selectable_value(&mut preset, p, p.name());
        }
    });
    if preset != s.analyzer.preset {
        s.analyzer = AnalyzerConfig::preset(preset);
    }
    room_for(ui, 100.0);
    ui.checkbox(&mut s.analyzer.stopwords, "Stop words");
    let mut variant = s.bm25_variant;
    room_for(ui, 160.0);
    egui::ComboBox::from_label("BM25").selected_text(variant.name()).show_ui(ui, |ui| {
        for v in Bm25Variant::ALL {
            ui.selectable_value(&mut variant, v, v.name());
        }
    });
    if variant != s.bm25_variant {
        s.set_bm25_variant(variant);
    }
    let fixed = s.bm25_variant == Bm25Variant::Tantivy;
    // No step_by: snapping would turn 1.2 into 1.2000000000000002 on the first frame.
    room_for(ui, 160.0);
    ui.add_enabled(!fixed, egui::Slider::new(&mut s.bm25.k1, 0.0..=3.0).fixed_decimals(2).text("k1"));
    room_for(ui, 160.0);
    ui.add_enabled(!fixed, egui::Slider::new(&mut s.bm25.b, 0.0..=1.0).fixed_decimals(2).text("b"));
    if s.bm25_variant.uses_delta() {
        room_for(ui, 160.0);
        ui.add(egui::Slider::new(&mut s.bm25.delta, 0.0..=2.0).fixed_decimals(2).text("δ"));
    }
    if s.bm25_variant == Bm25Variant::Lucene {
        room_for(ui, 120.0);
        ui.checkbox(&mut s.bm25.exact_lengths, "Exact lengths").on_hover_text(
            "Off: as Lucene scores (each passage's length kept in one byte, float32 arithmetic). \
             On: the exact length and f64, as the formula is written.",
        );
    }
    room_for(ui, 190.0);
    egui::ComboBox::from_label("TF-IDF").selected_text(s.tfidf.name()).show_ui(ui, |ui| {
        for v in TfIdfVariant::ALL {
            ui.selectable_value(&mut s.tfidf, v, v.name());
        }
    });
    room_for(ui, 190.0);
    egui::ComboBox::from_label("Fusion").selected_text(s.fusion.method.name()).show_ui(ui, |ui| {
        for m in FusionMethod::ALL {
            ui.selectable_value(&mut s.fusion.method, m, m.name());
        }
    });
    if s.fusion.method == FusionMethod::Rrf {
        room_for(ui, 180.0);
        ui.add(egui::Slider::new(&mut s.fusion.rrf_k, 0.0..=100.0).integer().text("RRF k"));
    }
    for kind in s.fusion.inputs.clone() {
        let mut w = s.fusion.weight(kind);
        let slider = egui::Slider::new(&mut w, 0.0..=2.0).fixed_decimals(2).text(format!("{} weight", kind.label()));
        room_for(ui, 230.0);
        if ui.add(slider).changed() {
            s.fusion.weights.retain(|(k, _)| *k != kind);
            s.fusion.weights.push((kind, w));
        }
    }
}

/// Views, and the work in progress with a cancel button per job.
pub fn nav_ui(ui: &mut Ui, ctx: &ViewContext<'_>) {
    egui::Panel::left("nav").resizable(false).exact_size(170.0).show(ui, |ui| {
        ui.add_space(6.0);
        for v in ViewId::ALL {
            if ui.selectable_label(ctx.data.persisted.view == v, v.label()).clicked() {
                ctx.send(ShellCommand::ShowView(v));
            }
        }
        ui.separator();
        ui.label(RichText::new("Work").strong());
        let running = ctx.jobs.running();
        if running.is_empty() {
            ui.weak("idle");
        }
        for job in running {
            let label = job.kind.label();
            ui.label(&label);
            let p = &job.progress;
            let text = match (p.total, p.eta_secs()) {
                (0, _) => format!("{} · {:.0} s", p.stage, job.elapsed_secs),
                (t, Some(eta)) => format!("{}/{t} · {eta:.0} s left", p.done),
                (t, None) => format!("{}/{t}", p.done),
            };
            // No total yet: a spinner beside an empty bar (an animated bar repaints every frame),
            // for short work only; long work shows its stage and seconds, once a second.
            if p.total == 0 && !job.kind.is_long() {
                crate::gui::widgets::spinner_ui(ui);
            }
            let bar = egui::ProgressBar::new(if p.total == 0 { 0.0 } else { p.fraction() });
            ui.add(bar.text(text).desired_width(150.0));
            if ui.small_button(format!("Cancel {}", label.to_lowercase())).clicked() {
                ctx.send(ShellCommand::Cancel(job.kind));
            }
        }
    });
}

/// Errors and warnings, newest last, each dismissable.
pub fn messages_ui(ui: &mut Ui, ctx: &ViewContext<'_>) {
    let messages = &ctx.data.messages;
    if messages.is_empty() {
        return;
    }
    egui::Panel::bottom("messages").show(ui, |ui| {
        ui.horizontal(|ui| {
            ui.label(RichText::new(format!("{} message(s)", messages.len())).strong());
            if ui.small_button("Dismiss all").clicked() {
                ctx.send(ShellCommand::Dismiss(None));
            }
        });
        egui::ScrollArea::vertical().max_height(90.0).show(ui, |ui| {
            for (i, m) in messages.iter().enumerate() {
                ui.horizontal(|ui| {
                    let color = if m.error { theme::ERROR } else { theme::WARNING };
                    ui.colored_label(color, if m.error { "error" } else { "warning" });
                    ui.label(&m.text);
                    if ui.small_button("Dismiss").clicked() {
                        ctx.send(ShellCommand::Dismiss(Some(i)));
                    }
                });
            }
        });
    });
}

/// Frame times, to check that background work never blocks drawing.
pub fn debug_overlay_ui(egui_ctx: &egui::Context, f: &FrameStats, ctx: &ViewContext<'_>) {
    let mut sorted: Vec<f32> = f.recent_ms.iter().copied().collect();
    sorted.sort_by(f32::total_cmp);
    let p99 = sorted.get(sorted.len().saturating_sub(1) * 99 / 100).copied().unwrap_or(0.0);
    let last = f.recent_ms.back().copied().unwrap_or(0.0);
    egui::Window::new("Frame times").default_pos([900.0, 80.0]).show(egui_ctx, |ui| {
        ui.label(format!("frames: {}", f.frames));
        ui.label(format!("last: {last:.1} ms · p99 (recent): {p99:.1} ms · max: {:.1} ms", f.max_ms));
        ui.label(format!("background jobs: {}", ctx.jobs.running().len()));
        let color = if f.max_ms > 50.0 { theme::WARNING } else { Color32::from_rgb(0, 158, 115) };
        ui.colored_label(color, "(the UI thread never runs indexing or encoding)");
    });
}
