//! The app's panels and views. Each view is one file with a `*_ui` function; [`view_ui`]
//! dispatches over [`ViewId::ALL`], which the navigation and the tests iterate too.

mod atlas;
mod compare;
mod corpus;
mod evaluate;
mod explain;
pub mod lessons;
mod map;
mod models;
mod structured;

use egui::{Color32, RichText, Ui};

use super::app::RankLensApp;
use super::jobs::Slot;
use super::judging::DialogPurpose;
use super::state::{CorpusChoice, ViewId};
use super::theme;
use super::widgets::labelled_text_ui;
use crate::analysis::{AnalyzerConfig, Preset};
use crate::config::FusionMethod;
use crate::corpus::{FieldFilter, Split};
use crate::retrieve::{Bm25Variant, MethodKind, TfIdfVariant};

/// State of views that keep more than the shared app state.
#[derive(Default)]
pub struct ExtraState {
    /// How folders opened by dialog or drop are cut.
    pub open_split: Split,
    /// Time spent in `logic` this frame, for the frame log.
    pub logic_ms: f32,
    /// The filter text as typed (applied when it parses).
    pub filter_text: String,
    /// Why the filter text does not parse.
    pub filter_error: Option<String>,
    /// The graph node picked in the graph drawing.
    pub graph_node: Option<String>,
    /// The lessons view.
    pub lessons: lessons::LessonsState,
    /// The atlas and RAG views.
    pub atlas: atlas::AtlasState,
}

/// Draw a view.
pub fn view_ui(app: &mut RankLensApp, view: ViewId, ui: &mut Ui) {
    match view {
        ViewId::Lessons => return lessons::lessons_ui(app, ui),
        ViewId::Atlas => return atlas::atlas_ui(app, ui),
        _ => {}
    }
    if app.engine.is_none() {
        ui.centered_and_justified(|ui| {
            ui.label(if app.jobs.is_running(&Slot::Corpus) {
                "Loading the corpus…"
            } else {
                "Open a corpus from the File menu."
            });
        });
        return;
    }
    match view {
        ViewId::Compare => compare::compare_ui(app, ui),
        ViewId::Explain => explain::explain_ui(app, ui),
        ViewId::Map => map::map_ui(app, ui),
        ViewId::Structured => structured::structured_ui(app, ui),
        ViewId::Evaluate => evaluate::evaluate_ui(app, ui),
        ViewId::Corpus => corpus::corpus_ui(app, ui),
        ViewId::Models => models::models_ui(app, ui),
        ViewId::Rag => atlas::rag_ui(app, ui),
        ViewId::Lessons | ViewId::Atlas => {}
    }
}

/// Reset view state when the corpus changes; offer the corpus's own SQL and graph examples.
pub fn on_corpus_changed(app: &mut RankLensApp) {
    app.extra.graph_node = None;
    app.doc_filter.clear();
    app.why_not_filter.clear();
    let Some(engine) = &app.engine else { return };
    let templates = &engine.corpus().templates;
    if engine.structured().sql.is_some()
        && app.state.sql.trim().is_empty()
        && let Some(sql) = templates.values().find_map(|t| t.sql.clone())
    {
        app.state.sql = sql;
    }
    if engine.structured().graph.is_some()
        && app.state.pattern.trim().is_empty()
        && let Some(p) = templates.values().find_map(|t| t.graph.clone())
    {
        app.state.pattern = p;
    }
}

/// Menu bar: open corpora, toggle the overlay; the corpus name on the right.
pub fn top_bar_ui(app: &mut RankLensApp, ui: &mut Ui) {
    egui::Panel::top("menu").show(ui, |ui| {
        egui::MenuBar::new().ui(ui, |ui| {
            ui.menu_button("File", |ui| {
                if ui.button("Open folder…").clicked() {
                    app.open_file_dialog(DialogPurpose::OpenFolder);
                    ui.close();
                }
                if ui.button("Open file…").clicked() {
                    app.open_file_dialog(DialogPurpose::OpenFile);
                    ui.close();
                }
                let mut by_paragraph = app.extra.open_split == Split::Paragraph;
                if ui.checkbox(&mut by_paragraph, "Folders: one passage per paragraph").changed() {
                    app.extra.open_split = if by_paragraph { Split::Paragraph } else { Split::File };
                }
                ui.separator();
                if ui.button("Acme Sync sample").clicked() {
                    app.open_corpus(CorpusChoice::Sample);
                    ui.close();
                }
                for lesson in ["isro", "mozart"] {
                    if ui.button(format!("Lesson corpus: {lesson}")).clicked() {
                        app.open_corpus(CorpusChoice::Lesson(lesson.into()));
                        ui.close();
                    }
                }
                ui.separator();
                if ui.button("Export report…").clicked() {
                    app.open_file_dialog(DialogPurpose::SaveReport);
                    ui.close();
                }
                if ui.button("Open report…").clicked() {
                    app.open_file_dialog(DialogPurpose::OpenReport);
                    ui.close();
                }
                if ui.button("Export grades (TREC qrels)…").clicked() {
                    app.open_file_dialog(DialogPurpose::ExportQrels);
                    ui.close();
                }
                if ui.button("Import grades (qrels)…").clicked() {
                    app.open_file_dialog(DialogPurpose::ImportQrels);
                    ui.close();
                }
                ui.separator();
                if ui.button("Quit").clicked() {
                    ui.ctx().send_viewport_cmd(egui::ViewportCommand::Close);
                }
            });
            ui.menu_button("View", |ui| {
                for v in ViewId::ALL {
                    if ui.button(v.label()).clicked() {
                        app.state.view = v;
                        ui.close();
                    }
                }
                ui.separator();
                ui.checkbox(&mut app.state.debug_overlay, "Frame-time overlay");
            });
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                if let Some(e) = &app.engine {
                    let c = e.corpus();
                    ui.label(RichText::new(format!("{} · {} passages", c.name, c.len())).strong());
                }
            });
        });
    });
}

/// The question and every knob; a change re-ranks.
pub fn question_bar_ui(app: &mut RankLensApp, ui: &mut Ui) {
    egui::Panel::top("question").show(ui, |ui| {
        ui.add_space(4.0);
        ui.horizontal(|ui| {
            let label = ui.label(RichText::new("Question").strong());
            let edit = ui.add(
                egui::TextEdit::singleline(&mut app.state.question)
                    .hint_text("Ask the corpus something…")
                    .desired_width((ui.available_width() - 90.0).max(200.0)),
            );
            let edit = edit.labelled_by(label.id);
            let entered = edit.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            if ui.button("Run").clicked() || entered {
                app.mark_dirty();
            }
        });
        let before = app.state.settings.clone();
        ui.horizontal_wrapped(|ui| {
            ui.spacing_mut().slider_width = 80.0;
            let s = &mut app.state.settings;
            ui.add(egui::Slider::new(&mut s.k, 1..=50).text("k"));
            let mut preset = s.analyzer.preset;
            egui::ComboBox::from_label("Analyzer").selected_text(preset.name()).show_ui(ui, |ui| {
                for p in Preset::ALL {
                    ui.selectable_value(&mut preset, p, p.name());
                }
            });
            if preset != s.analyzer.preset {
                s.analyzer = AnalyzerConfig::preset(preset);
            }
            ui.checkbox(&mut s.analyzer.stopwords, "Stop words");
            let mut variant = s.bm25_variant;
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
            ui.add_enabled(!fixed, egui::Slider::new(&mut s.bm25.k1, 0.0..=3.0).fixed_decimals(2).text("k1"));
            ui.add_enabled(!fixed, egui::Slider::new(&mut s.bm25.b, 0.0..=1.0).fixed_decimals(2).text("b"));
            if s.bm25_variant.uses_delta() {
                ui.add(egui::Slider::new(&mut s.bm25.delta, 0.0..=2.0).fixed_decimals(2).text("δ"));
            }
            egui::ComboBox::from_label("TF-IDF").selected_text(s.tfidf.name()).show_ui(ui, |ui| {
                for v in TfIdfVariant::ALL {
                    ui.selectable_value(&mut s.tfidf, v, v.name());
                }
            });
            egui::ComboBox::from_label("Fusion").selected_text(s.fusion.method.name()).show_ui(ui, |ui| {
                for m in FusionMethod::ALL {
                    ui.selectable_value(&mut s.fusion.method, m, m.name());
                }
            });
            if s.fusion.method == FusionMethod::Rrf {
                ui.add(egui::Slider::new(&mut s.fusion.rrf_k, 0.0..=100.0).integer().text("RRF k"));
            }
            for kind in s.fusion.inputs.clone() {
                let mut w = s.fusion.weight(kind);
                if ui
                    .add(
                        egui::Slider::new(&mut w, 0.0..=2.0).fixed_decimals(2).text(format!("{} weight", kind.label())),
                    )
                    .changed()
                {
                    s.fusion.weights.retain(|(k, _)| *k != kind);
                    s.fusion.weights.push((kind, w));
                }
            }
        });
        ui.horizontal_wrapped(|ui| {
            ui.label("Methods:");
            for kind in crate::config::Settings::default().methods {
                let mut on = app.state.settings.methods.contains(&kind);
                let text = RichText::new(kind.label()).color(theme::method_color(kind));
                if ui.checkbox(&mut on, text).changed() {
                    let all = crate::config::Settings::default().methods;
                    let methods = &mut app.state.settings.methods;
                    if on {
                        methods.push(kind);
                        methods.sort_by_key(|k| all.iter().position(|x| x == k));
                    } else {
                        methods.retain(|k| *k != kind);
                    }
                }
            }
            ui.separator();
            let r = labelled_text_ui(ui, "Filter", &mut app.extra.filter_text, 140.0);
            if r.changed() {
                let text = app.extra.filter_text.trim();
                if text.is_empty() {
                    app.state.settings.filter = None;
                    app.extra.filter_error = None;
                } else {
                    match text.parse::<FieldFilter>() {
                        Ok(f) => {
                            app.state.settings.filter = Some(f);
                            app.extra.filter_error = None;
                        }
                        Err(e) => app.extra.filter_error = Some(e.to_string()),
                    }
                }
            }
            if let Some(e) = &app.extra.filter_error {
                ui.colored_label(theme::ERROR, e);
            } else if app.state.settings.filter.is_some() {
                ui.weak("(e.g. release >= 4)");
            }
        });
        if app.state.settings != before {
            if app.state.settings.analyzer != before.analyzer {
                app.start_index();
            }
            app.mark_dirty();
        }
        ui.add_space(2.0);
    });
}

/// Views, and the work in progress with a cancel button per job.
pub fn nav_ui(app: &mut RankLensApp, ui: &mut Ui) {
    egui::Panel::left("nav").resizable(false).exact_size(170.0).show(ui, |ui| {
        ui.add_space(6.0);
        for v in ViewId::ALL {
            if ui.selectable_label(app.state.view == v, v.label()).clicked() {
                app.state.view = v;
            }
        }
        ui.separator();
        ui.label(RichText::new("Work").strong());
        let views = app.jobs.views();
        if views.is_empty() {
            ui.weak("idle");
        }
        for job in views {
            ui.label(job.slot.label());
            let p = &job.progress;
            let text = match (p.total, p.eta_secs()) {
                (0, _) => format!("{} · {:.0} s", p.stage, job.elapsed_secs),
                (t, Some(eta)) => format!("{}/{t} · {eta:.0} s left", p.done),
                (t, None) => format!("{}/{t}", p.done),
            };
            let bar = if p.total == 0 {
                egui::ProgressBar::new(0.0).animate(true)
            } else {
                egui::ProgressBar::new(p.fraction())
            };
            ui.add(bar.text(text).desired_width(150.0));
            if ui.small_button(format!("Cancel {}", job.slot.label().to_lowercase())).clicked() {
                app.jobs.cancel(&job.slot);
            }
        }
    });
}

/// Errors and warnings, newest last, each dismissable.
pub fn messages_ui(app: &mut RankLensApp, ui: &mut Ui) {
    if app.messages.is_empty() {
        return;
    }
    egui::Panel::bottom("messages").show(ui, |ui| {
        ui.horizontal(|ui| {
            ui.label(RichText::new(format!("{} message(s)", app.messages.len())).strong());
            if ui.small_button("Dismiss all").clicked() {
                app.messages.clear();
            }
        });
        egui::ScrollArea::vertical().max_height(90.0).show(ui, |ui| {
            let mut remove = None;
            for (i, m) in app.messages.iter().enumerate() {
                ui.horizontal(|ui| {
                    let color = if m.error { theme::ERROR } else { theme::WARNING };
                    ui.colored_label(color, if m.error { "error" } else { "warning" });
                    ui.label(&m.text);
                    if ui.small_button("Dismiss").clicked() {
                        remove = Some(i);
                    }
                });
            }
            if let Some(i) = remove {
                app.messages.remove(i);
            }
        });
    });
}

/// Frame times, to check that background work never blocks drawing.
pub fn debug_overlay_ui(app: &mut RankLensApp, ctx: &egui::Context) {
    let f = &app.frames;
    let mut sorted: Vec<f32> = f.recent_ms.iter().copied().collect();
    sorted.sort_by(f32::total_cmp);
    let p99 = sorted.get(sorted.len().saturating_sub(1) * 99 / 100).copied().unwrap_or(0.0);
    let last = f.recent_ms.back().copied().unwrap_or(0.0);
    egui::Window::new("Frame times").default_pos([900.0, 80.0]).show(ctx, |ui| {
        ui.label(format!("frames: {}", f.frames));
        ui.label(format!("last: {last:.1} ms · p99 (recent): {p99:.1} ms · max: {:.1} ms", f.max_ms));
        ui.label(format!("background jobs: {}", app.jobs.views().len()));
        let color = if f.max_ms > 50.0 { theme::WARNING } else { Color32::from_rgb(0, 158, 115) };
        ui.colored_label(color, "(the UI thread never runs indexing or encoding)");
    });
}

pub use atlas::current_prompt;
pub use evaluate::grade_buttons_ui;

/// A small coloured swatch and label for a method family.
pub fn method_tag_ui(ui: &mut Ui, kind: MethodKind, label: &str) {
    let (rect, _) = ui.allocate_exact_size(egui::vec2(10.0, 10.0), egui::Sense::hover());
    ui.painter().rect_filled(rect, 2.0, theme::method_color(kind));
    ui.label(RichText::new(label).strong());
}
