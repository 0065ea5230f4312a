//! The map: every passage's dense vector projected to 2-D by PCA, the question placed with the
//! same fitted transform, each method's top k marked in its colour, and beside it the true-cosine
//! nearest neighbours (2-D distances are only approximate).

use egui::{RichText, Ui};
use egui_plot::{MarkerShape, Plot, PlotPoints, Points};

use super::{Memo, Same, View};
use crate::compare::Outcome;
use crate::corpus::DocId;
use crate::gui::command::ModelCommand;
use crate::gui::command::RankCommand;
use crate::gui::context::ViewContext;
use crate::gui::theme;
use crate::gui::widgets::ellipsis;
use crate::models::Role;
use crate::project::{PcaMap, QueryOnMap};
use crate::retrieve::MethodKind;

/// The map view; it remembers which vectors it maps (the built-in dense model's, or a vector
/// file's by name).
#[derive(Default)]
pub struct MapView {
    source: Option<String>,
    /// What it draws, built when the map or the ranking changes: (source, map, ranking revision).
    data: Memo<(usize, Same<PcaMap>, u64), MapData>,
}

/// Maps with more passages than this draw them as a density (one point per occupied cell of a
/// grid, darker where more passages fall) rather than one point each.
pub const DENSITY_ABOVE: usize = 20_000;
const GRID: (usize, usize) = (240, 160);

/// Passages binned into a grid over the map's extent: cell centres in four shades by count.
#[derive(Debug, Clone, PartialEq)]
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

/// One series of marks on the map: a method's top k in its colour and shape.
#[derive(Debug, Clone, PartialEq)]
pub struct MapSeries {
    /// The column's name.
    pub name: String,
    /// Its family (its colour).
    pub kind: MethodKind,
    /// Which of the marker shapes.
    pub shape: usize,
    /// Marker radius (later series smaller, so overlapping marks stay visible).
    pub radius: f32,
    /// Where its passages are.
    pub points: Vec<[f64; 2]>,
}

/// A passage near the question by true cosine.
#[derive(Debug, Clone, PartialEq)]
pub struct Neighbour {
    /// The passage.
    pub doc: DocId,
    /// Its id.
    pub id: String,
    /// Its title, shortened.
    pub title: String,
    /// Its cosine with the question (a long passage's best window, as the dense column scores).
    pub cosine: f32,
}

/// What the map shows, built when the map, the ranking or the choice of vectors changes; `ui`
/// only lays it out.
#[derive(Debug, Clone)]
pub struct MapData {
    /// The map drawn.
    pub map: std::sync::Arc<PcaMap>,
    /// What the axes explain, and where the vectors come from.
    pub caption: String,
    /// Which vector stands for each passage, and which the neighbours are scored with.
    pub vectors_note: String,
    /// The axes' labels.
    pub axes: (String, String),
    /// Above [`DENSITY_ABOVE`] passages, the density drawn instead of the points.
    pub density: Option<std::sync::Arc<Density>>,
    /// Each ranked column's top k.
    pub series: Vec<MapSeries>,
    /// The question's place.
    pub question: Option<[f64; 2]>,
    /// Its nearest passages.
    pub neighbours: Vec<Neighbour>,
}

impl MapData {
    /// The map's data for a ranking (its columns and the question placed on this map).
    pub fn build(
        map: std::sync::Arc<PcaMap>,
        source: Option<&std::path::Path>,
        runs: &[crate::compare::MethodRun],
        placed: Option<&QueryOnMap>,
        corpus: &crate::corpus::Corpus,
        long_docs: usize,
    ) -> MapData {
        let [sx, sy] = map.variance_share;
        let whose = source.map(|p| format!(" from {}", p.display())).unwrap_or_default();
        let caption = format!(
            "PCA of {} passage vectors{whose}: the two axes explain {:.1}% + {:.1}% = {:.1}% of the total variance.",
            map.points.len(),
            100.0 * sx,
            100.0 * sy,
            100.0 * (sx + sy)
        );
        let vectors_note = if long_docs > 0 {
            format!(
                "One point per passage: its first window's vector ({long_docs} passages are longer than one window). \
                 The nearest neighbours are scored by each passage's best window, as the dense column scores them."
            )
        } else {
            "One point per passage; the nearest neighbours' cosines are the dense column's scores.".to_string()
        };
        let density = (map.points.len() > DENSITY_ABOVE).then(|| std::sync::Arc::new(Density::of(&map.points)));
        let mut series = Vec::new();
        for run in runs {
            let Outcome::Ranked(ranking) = &run.outcome else { continue };
            if ranking.unranked {
                continue;
            }
            let i = series.len();
            series.push(MapSeries {
                name: if run.kind.is_external() { run.label.clone() } else { run.kind.label().to_string() },
                kind: run.kind,
                shape: i % SHAPES.len(),
                radius: 6.0 - i as f32 * 0.4,
                points: ranking.hits.iter().filter_map(|h| map.points.get(h.doc.index()).copied()).collect(),
            });
        }
        let neighbours = placed
            .map(|q| {
                q.neighbours
                    .iter()
                    .map(|&(doc, cosine)| Neighbour {
                        doc,
                        id: corpus.external_id(doc).to_string(),
                        title: corpus.doc(doc).map(|d| ellipsis(&d.title, 50)).unwrap_or_default(),
                        cosine,
                    })
                    .collect()
            })
            .unwrap_or_default();
        MapData {
            axes: (format!("PC1 ({:.1}% of variance)", 100.0 * sx), format!("PC2 ({:.1}% of variance)", 100.0 * sy)),
            map,
            caption,
            vectors_note,
            density,
            series,
            question: placed.map(|q| q.point),
            neighbours,
        }
    }
}

/// The markers of successive series.
const SHAPES: [MarkerShape; 6] = [
    MarkerShape::Circle,
    MarkerShape::Square,
    MarkerShape::Diamond,
    MarkerShape::Up,
    MarkerShape::Down,
    MarkerShape::Cross,
];

/// The map a view draws, chosen from the built-in dense model's and the vector files'.
struct Chosen {
    map: Option<std::sync::Arc<PcaMap>>,
    placed: Option<QueryOnMap>,
    source: Option<std::path::PathBuf>,
    key: usize,
}

impl View for MapView {
    fn ui(&mut self, ui: &mut Ui, ctx: &ViewContext<'_>) {
        let Some(engine) = ctx.workbench() else { return };
        let chosen = self.source_ui(ui, ctx);
        let Some(map) = chosen.map else {
            missing_map_ui(ui, ctx);
            return;
        };
        let ranked = ctx.ranked();
        let key = (chosen.key, Same(map.clone()), ranked.map_or(0, |r| r.revision));
        let long_docs = engine.neural().dense_index.as_ref().map_or(0, |i| i.windows.long_docs());
        let data = self.data.get(key, || {
            let runs = ranked.map(|r| r.run.comparison.runs.as_slice()).unwrap_or(&[]);
            MapData::build(
                map.clone(),
                chosen.source.as_deref(),
                runs,
                chosen.placed.as_ref(),
                engine.corpus(),
                long_docs,
            )
        });
        ui.label(&data.caption);
        ui.label(RichText::new(&data.vectors_note).small().weak());
        if let Some(d) = &data.density {
            ui.label(
                RichText::new(format!(
                    "{} passages drawn as a density: one dot per occupied cell of a {}×{} grid ({} cells), darker where more passages fall (1, 2–4, 5–16, more).",
                    data.map.points.len(),
                    GRID.0,
                    GRID.1,
                    d.cells
                ))
                .small()
                .weak(),
            );
        }
        let mut hovered: Option<DocId> = None;
        ui.columns(2, |cols| {
            hovered = plot_ui(&mut cols[0], ctx, data);
            neighbours_ui(&mut cols[1], ctx, data);
        });
        if hovered.is_some() && hovered != ctx.data.hovered {
            ctx.send(RankCommand::Hover(hovered));
        }
    }
}

impl MapView {
    /// The "Map of" choice when vector files have maps of their own; the map chosen.
    fn source_ui(&mut self, ui: &mut Ui, ctx: &ViewContext<'_>) -> Chosen {
        let n = ctx.workbench().map(|e| e.neural());
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
            if n.as_ref().is_none_or(|n| n.map.is_none()) && self.source.is_none() {
                self.source = sets.first().map(|s| s.name.clone());
            }
        }
        let chosen = self.source.as_ref().and_then(|name| sets.iter().position(|s| &s.name == name));
        match chosen {
            Some(i) => {
                let set = sets[i];
                let placed = ctx
                    .ranked()
                    .and_then(|r| r.vector_maps.iter().find(|(n, _)| *n == set.name))
                    .map(|(_, q)| q.clone());
                Chosen { map: set.map.clone(), placed, source: Some(set.passages_file.clone()), key: i + 1 }
            }
            None => Chosen {
                map: n.and_then(|n| n.map.clone().filter(|_| n.dense_index.is_some())),
                placed: ctx.ranked().and_then(|r| r.map_query.clone()),
                source: None,
                key: 0,
            },
        }
    }
}

/// What to do when there is no map yet.
fn missing_map_ui(ui: &mut Ui, ctx: &ViewContext<'_>) {
    ui.label("The map needs the passages encoded with a dense model.");
    let Some(engine) = ctx.workbench() else { return };
    let n = engine.neural();
    if n.dense.is_none() {
        ui.colored_label(
            theme::WARNING,
            crate::workbench::missing(&n.missing, Role::Dense).lines().next().unwrap_or(""),
        );
        if ui.button("Fetch the dense model").clicked() {
            ctx.send(ModelCommand::Fetch(Role::Dense));
        }
    }
}

/// The plot with its legend under it and the passage under the pointer; returns that passage.
fn plot_ui(ui: &mut Ui, ctx: &ViewContext<'_>, data: &MapData) -> Option<DocId> {
    let points = &data.map.points;
    let mut legend: Vec<(String, egui::Color32, MarkerShape)> =
        vec![("passages".into(), egui::Color32::from_gray(150), MarkerShape::Circle)];
    let response = Plot::new("pca-map")
        .x_axis_label(data.axes.0.clone())
        .y_axis_label(data.axes.1.clone())
        .height((ui.available_height() - 110.0).max(300.0))
        .show(ui, |plot| {
            match &data.density {
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
            for s in &data.series {
                let (color, shape) = (theme::method_color(s.kind), SHAPES[s.shape]);
                legend.push((s.name.clone(), color, shape));
                plot.points(
                    Points::new(s.name.clone(), PlotPoints::new(s.points.clone()))
                        .radius(s.radius)
                        .filled(false)
                        .shape(shape)
                        .color(color),
                );
            }
            if let Some(q) = data.question {
                legend.push(("question".into(), theme::HIGHLIGHT, MarkerShape::Asterisk));
                plot.points(
                    Points::new("question", PlotPoints::new(vec![q]))
                        .radius(9.0)
                        .shape(MarkerShape::Asterisk)
                        .color(theme::HIGHLIGHT),
                );
            }
            plot.pointer_coordinate().and_then(|p| {
                let b = plot.plot_bounds();
                nearest_point(points, [p.x, p.y], (b.width().powi(2) + b.height().powi(2)).sqrt() * 0.03)
            })
        });
    legend_ui(ui, &legend);
    let hovered = response.inner;
    if let Some(doc) = hovered
        && let Some(engine) = ctx.workbench()
        && let Some(d) = engine.corpus().doc(doc)
    {
        ui.label(RichText::new(format!("{} — {}", d.id, d.title)).strong());
        ui.label(ellipsis(&d.text, 200));
        if response.response.clicked() {
            ctx.send(RankCommand::Select { column: None, doc });
        }
    }
    hovered
}

/// The passage whose point is nearest `at`, if within `radius`.
pub fn nearest_point(points: &[[f64; 2]], at: [f64; 2], radius: f64) -> Option<DocId> {
    let (i, d2) = points
        .iter()
        .enumerate()
        .map(|(i, q)| (i, (q[0] - at[0]).powi(2) + (q[1] - at[1]).powi(2)))
        .min_by(|a, b| a.1.total_cmp(&b.1))?;
    (d2.sqrt() < radius).then_some(DocId(i as u32))
}

/// The question's true nearest neighbours, each selectable.
fn neighbours_ui(ui: &mut Ui, ctx: &ViewContext<'_>, data: &MapData) {
    ui.label(RichText::new("True nearest neighbours of the question (cosine)").strong());
    if data.question.is_none() {
        ui.label("Run a question to place it on the map.");
        return;
    }
    for n in &data.neighbours {
        ui.horizontal(|ui| {
            let selected = ctx.data.selection.as_ref().is_some_and(|s| s.doc == n.doc);
            if ui.selectable_label(selected, &n.id).clicked() {
                ctx.send(RankCommand::Select { column: None, doc: n.doc });
            }
            ui.label(format!("{:.3}", n.cosine));
        });
        ui.label(RichText::new(&n.title).small());
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::MethodRun;
    use crate::retrieve::{Hit, Ranking};

    fn run(kind: MethodKind, docs: &[u32]) -> MethodRun {
        let hits = docs.iter().map(|&d| Hit { doc: DocId(d), score: 1.0 }).collect();
        let ranking = Ranking {
            method: kind.label().into(),
            kind,
            hits,
            total_matches: docs.len(),
            unranked: kind == MethodKind::Boolean,
            absent: Vec::new(),
            provisional: false,
            note: None,
            generated: None,
            agent: None,
        };
        MethodRun { id: Default::default(), label: kind.label().into(), kind, outcome: Outcome::Ranked(ranking) }
    }

    #[test]
    fn the_data_places_each_columns_passages_and_the_questions_neighbours() {
        let corpus = crate::corpus::Corpus::from_texts("c", [("a", "x"), ("b", "y"), ("c", "z"), ("d", "w")]);
        let map = std::sync::Arc::new(PcaMap::from_points(vec![[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]));
        let runs = [run(MethodKind::Boolean, &[0]), run(MethodKind::Bm25, &[3, 1]), run(MethodKind::Dense, &[2])];
        let placed = QueryOnMap { point: [0.5, 0.5], neighbours: vec![(DocId(2), 0.75), (DocId(0), 0.5)] };
        let data = MapData::build(map, None, &runs, Some(&placed), &corpus, 1);
        // Boolean's set is unranked: not drawn. BM25 then dense, each in its own shape.
        let series: Vec<(&str, Vec<[f64; 2]>, usize)> =
            data.series.iter().map(|s| (s.name.as_str(), s.points.clone(), s.shape)).collect();
        assert_eq!(series, [("BM25", vec![[1.0, 1.0], [1.0, 0.0]], 0), ("Dense", vec![[0.0, 1.0]], 1)]);
        assert_eq!(data.question, Some([0.5, 0.5]));
        let n: Vec<(&str, f32)> = data.neighbours.iter().map(|n| (n.id.as_str(), n.cosine)).collect();
        assert_eq!(n, [("c", 0.75), ("a", 0.5)]);
        assert!(data.vectors_note.contains("first window") && data.vectors_note.contains("best window"));
        assert!(data.density.is_none());
        assert_eq!(nearest_point(&data.map.points, [0.95, 0.1], 0.2), Some(DocId(1)));
        assert_eq!(nearest_point(&data.map.points, [0.5, 0.5], 0.2), None);
    }
}
