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
    /// The passages drawn as density cells, for the map they were binned from (by its address).
    density: Option<(usize, std::sync::Arc<Density>)>,
}

/// Maps with more passages than this draw them as a density (one point per occupied cell of a
/// grid, darker where more passages fall) rather than one point each.
pub const DENSITY_ABOVE: usize = 20_000;
const GRID: (usize, usize) = (240, 160);

/// Passages binned into a grid over the map's extent: cell centres in four shades by count.
pub struct Density {
    /// Cell centres per shade (lightest first).
    pub shades: [Vec<[f64; 2]>; 4],
    /// Occupied cells.
    pub cells: usize,
}

impl Density {
    /// Bin `points` into the grid.
    pub fn of(points: &[[f64; 2]]) -> Density {
        let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for p in points {
            (x0, x1, y0, y1) = (x0.min(p[0]), x1.max(p[0]), y0.min(p[1]), y1.max(p[1]));
        }
        let (w, h) = ((x1 - x0).max(1e-12), (y1 - y0).max(1e-12));
        let mut counts = vec![0u32; GRID.0 * GRID.1];
        for p in points {
            let cx = (((p[0] - x0) / w) * (GRID.0 - 1) as f64).round() as usize;
            let cy = (((p[1] - y0) / h) * (GRID.1 - 1) as f64).round() as usize;
            counts[cy.min(GRID.1 - 1) * GRID.0 + cx.min(GRID.0 - 1)] += 1;
        }
        let mut shades: [Vec<[f64; 2]>; 4] = Default::default();
        let mut cells = 0;
        for (i, &c) in counts.iter().enumerate() {
            if c == 0 {
                continue;
            }
            cells += 1;
            let (cx, cy) = (i % GRID.0, i / GRID.0);
            let centre = [x0 + cx as f64 / (GRID.0 - 1) as f64 * w, y0 + cy as f64 / (GRID.1 - 1) as f64 * h];
            // 1, 2–4, 5–16, more.
            let shade = match c {
                1 => 0,
                2..=4 => 1,
                5..=16 => 2,
                _ => 3,
            };
            shades[shade].push(centre);
        }
        Density { shades, cells }
    }
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
        let density = (map.points.len() > DENSITY_ABOVE).then(|| {
            let key = std::sync::Arc::as_ptr(&map) as usize;
            match &self.density {
                Some((k, d)) if *k == key => d.clone(),
                _ => {
                    let d = std::sync::Arc::new(Density::of(&map.points));
                    self.density = Some((key, d.clone()));
                    d
                }
            }
        });
        if let Some(d) = &density {
            ui.label(
                RichText::new(format!(
                    "{} passages drawn as a density: one dot per occupied cell of a {}×{} grid ({} cells), darker where more passages fall (1, 2–4, 5–16, more).",
                    map.points.len(),
                    GRID.0,
                    GRID.1,
                    d.cells
                ))
                .small()
                .weak(),
            );
        }
        let mut legend: Vec<(String, egui::Color32, MarkerShape)> =
            vec![("passages".into(), egui::Color32::from_gray(150), MarkerShape::Circle)];
        let mut hovered: Option<DocId> = None;
        ui.columns(2, |cols| {
            let ui = &mut cols[0];
            let points = &map.points;
            // The legend goes under the plot, never over the points.
            let response = Plot::new("pca-map")
                .x_axis_label(format!("PC1 ({:.1}% of variance)", 100.0 * sx))
                .y_axis_label(format!("PC2 ({:.1}% of variance)", 100.0 * sy))
                .height((ui.available_height() - 110.0).max(300.0))
                .show(ui, |plot| {
                    match &density {
                        Some(d) => {
                            for (i, cells) in d.shades.iter().enumerate() {
                                let gray = [190, 150, 105, 60][i];
                                plot.points(
                                    Points::new("passages", PlotPoints::new(cells.clone()))
                                        .radius(1.5)
                                        .color(egui::Color32::from_gray(gray)),
                                );
                            }
                        }
                        None => plot.points(
                            Points::new("passages", PlotPoints::new(points.clone()))
                                .radius(3.0)
                                .color(egui::Color32::from_gray(150)),
                        ),
                    }
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
                            let name =
                                if run.kind.is_external() { run.label.clone() } else { run.kind.label().to_string() };
                            let (color, shape) = (theme::method_color(run.kind), shapes[i % shapes.len()]);
                            legend.push((name.clone(), color, shape));
                            plot.points(
                                Points::new(name, PlotPoints::new(pts))
                                    .radius(6.0 - i as f32 * 0.4)
                                    .filled(false)
                                    .shape(shape)
                                    .color(color),
                            );
                        }
                    }
                    if let Some(q) = &placed {
                        legend.push(("question".into(), theme::HIGHLIGHT, MarkerShape::Asterisk));
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
            legend_ui(ui, &legend);
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

/// The plot's legend as a row under it: each series' marker in its colour, then its name.
fn legend_ui(ui: &mut Ui, items: &[(String, egui::Color32, MarkerShape)]) {
    ui.horizontal_wrapped(|ui| {
        for (name, color, shape) in items {
            let symbol = match shape {
                MarkerShape::Circle => "○",
                MarkerShape::Square => "□",
                MarkerShape::Diamond => "◇",
                MarkerShape::Up => "△",
                MarkerShape::Down => "▽",
                MarkerShape::Cross => "×",
                MarkerShape::Asterisk => "✱",
                _ => "•",
            };
            ui.label(RichText::new(symbol).color(*color).strong());
            ui.label(RichText::new(name).small());
            ui.add_space(6.0);
        }
    });
}
