//! The map: every passage's dense vector projected to 2-D by PCA, the question placed with the
//! same fitted transform, each method's top k marked in its colour, and beside it the true-cosine
//! nearest neighbours (2-D distances are only approximate).

use egui::{RichText, Ui};
use egui_plot::{MarkerShape, Plot, PlotPoints, Points};

use super::View;
use crate::compare::Outcome;
use crate::corpus::DocId;
use crate::gui::command::Command;
use crate::gui::context::ViewContext;
use crate::gui::theme;
use crate::gui::widgets::ellipsis;
use crate::models::Role;

/// The map view; it remembers which vectors it maps (the built-in dense model's, or a vector
/// file's by name).
#[derive(Default)]
pub struct MapView {
    source: Option<String>,
}

impl View for MapView {
    fn ui(&mut self, ui: &mut Ui, ctx: &ViewContext<'_>) {
        let Some(engine) = ctx.engine() else { return };
        let n = engine.neural();
        let sets: Vec<&std::sync::Arc<crate::external::VectorSet>> = ctx
            .data
            .systems
            .iter()
            .filter_map(|s| match s {
                crate::compare::External::Vectors(v) if v.map.is_some() => Some(v),
                _ => None,
            })
            .collect();
        if !sets.is_empty() {
            ui.horizontal(|ui| {
                let l = ui.label("Map of");
                let builtin = "the built-in dense model".to_string();
                let shown = self.source.clone().unwrap_or_else(|| builtin.clone());
                egui::ComboBox::from_id_salt("map-source")
                    .selected_text(&shown)
                    .show_ui(ui, |ui| {
                        ui.selectable_value(&mut self.source, None, builtin);
                        for s in &sets {
                            ui.selectable_value(&mut self.source, Some(s.name.clone()), format!("vectors: {}", s.name));
                        }
                    })
                    .response
                    .labelled_by(l.id);
            });
            if n.map.is_none() && self.source.is_none() {
                self.source = sets.first().map(|s| s.name.clone());
            }
        }
        let chosen = self.source.as_ref().and_then(|name| sets.iter().find(|s| &s.name == name));
        let (map, placed) = match chosen {
            Some(set) => {
                let placed = ctx
                    .ranked()
                    .and_then(|r| r.vector_maps.iter().find(|(n, _)| *n == set.name))
                    .map(|(_, q)| q.clone());
                (set.map.clone(), placed)
            }
            None => (n.map.clone().filter(|_| n.dense_index.is_some()), ctx.ranked().and_then(|r| r.map_query.clone())),
        };
        let Some(map) = map else {
            ui.label("The map needs the passages encoded with a dense model.");
            if n.dense.is_none() {
                ui.colored_label(
                    theme::WARNING,
                    crate::engine::missing(&n.missing, Role::Dense).lines().next().unwrap_or(""),
                );
                if ui.button("Fetch the dense model").clicked() {
                    ctx.send(Command::FetchModel(Role::Dense));
                }
            }
            return;
        };
        let corpus = engine.corpus().clone();
        let ranked = ctx.ranked();
        let [sx, sy] = map.variance_share;
        let whose = chosen.map(|s| format!(" from {}", s.passages_file.display())).unwrap_or_default();
        ui.label(format!(
            "PCA of {} passage vectors{whose}: the two axes explain {:.1}% + {:.1}% = {:.1}% of the total variance.",
            map.points.len(),
            100.0 * sx,
            100.0 * sy,
            100.0 * (sx + sy)
        ));
        let mut hovered: Option<DocId> = None;
        ui.columns(2, |cols| {
            let ui = &mut cols[0];
            let points = map.points.clone();
            let response = Plot::new("pca-map")
                .x_axis_label(format!("PC1 ({:.1}% of variance)", 100.0 * sx))
                .y_axis_label(format!("PC2 ({:.1}% of variance)", 100.0 * sy))
                .height((ui.available_height() - 80.0).max(300.0))
                .legend(egui_plot::Legend::default())
                .show(ui, |plot| {
                    let all: Vec<[f64; 2]> = points.clone();
                    plot.points(
                        Points::new("passages", PlotPoints::new(all)).radius(3.0).color(egui::Color32::from_gray(150)),
                    );
                    if let Some(r) = &ranked {
                        let shapes = [
                            MarkerShape::Circle,
                            MarkerShape::Square,
                            MarkerShape::Diamond,
                            MarkerShape::Up,
                            MarkerShape::Down,
                            MarkerShape::Cross,
                        ];
                        for (i, run) in r.run.comparison.runs.iter().enumerate() {
                            let Outcome::Ranked(ranking) = &run.outcome else { continue };
                            if ranking.unranked {
                                continue;
                            }
                            let pts: Vec<[f64; 2]> =
                                ranking.hits.iter().filter_map(|h| points.get(h.doc.index()).copied()).collect();
                            plot.points(
                                Points::new(
                                    if run.kind.is_external() {
                                        run.label.clone()
                                    } else {
                                        run.kind.label().to_string()
                                    },
                                    PlotPoints::new(pts),
                                )
                                .radius(6.0 - i as f32 * 0.4)
                                .filled(false)
                                .shape(shapes[i % shapes.len()])
                                .color(theme::method_color(run.kind)),
                            );
                        }
                    }
                    if let Some(q) = &placed {
                        plot.points(
                            Points::new("question", PlotPoints::new(vec![q.point]))
                                .radius(9.0)
                                .shape(MarkerShape::Asterisk)
                                .color(theme::HIGHLIGHT),
                        );
                    }
                    plot.pointer_coordinate().and_then(|p| {
                        let best = points
                            .iter()
                            .enumerate()
                            .map(|(i, q)| (i, (q[0] - p.x).powi(2) + (q[1] - p.y).powi(2)))
                            .min_by(|a, b| a.1.total_cmp(&b.1))?;
                        let b = plot.plot_bounds();
                        let scale = (b.width().powi(2) + b.height().powi(2)).sqrt();
                        (best.1.sqrt() < scale * 0.03).then_some(DocId(best.0 as u32))
                    })
                });
            hovered = response.inner;
            if let Some(doc) = hovered
                && let Some(d) = corpus.doc(doc)
            {
                ui.label(RichText::new(format!("{} — {}", d.id, d.title)).strong());
                ui.label(ellipsis(&d.text, 200));
                if response.response.clicked() {
                    ctx.send(Command::Select { column: None, doc });
                }
            }
            let ui = &mut cols[1];
            ui.label(RichText::new("True nearest neighbours of the question (cosine)").strong());
            match &placed {
                None => {
                    ui.label("Run a question to place it on the map.");
                }
                Some(q) => {
                    for (doc, cos) in &q.neighbours {
                        let d = corpus.doc(*doc);
                        ui.horizontal(|ui| {
                            if ui
                                .selectable_label(
                                    ctx.data.selection.as_ref().is_some_and(|s| s.doc == *doc),
                                    corpus.external_id(*doc),
                                )
                                .clicked()
                            {
                                ctx.send(Command::Select { column: None, doc: *doc });
                            }
                            ui.label(format!("{cos:.3}"));
                        });
                        if let Some(d) = d {
                            ui.label(RichText::new(ellipsis(&d.title, 50)).small());
                        }
                    }
                }
            }
        });
        if hovered.is_some() && hovered != ctx.data.hovered {
            ctx.send(Command::Hover(hovered));
        }
    }
}
