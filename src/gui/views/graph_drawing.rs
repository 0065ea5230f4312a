//! A graph drawn as nodes and links, the same way for the hand-built knowledge graph and for the
//! graph a language model extracted: each entity a circle with its name, each link an arrow
//! labelled with its relation, and what both graphs hold marked in both (a green ring and the other
//! graph's name for it). The layout is a plain data struct ([`GraphDrawing`]) computed once when the
//! graph changes; [`drawing_ui`] only paints it and says what was clicked.
//!
//! The hand-built graph is laid out in layers by the direction of its links (a node one layer right
//! of everything linking to it); the model's, larger and with no such order, by a deterministic
//! force layout (Fruchterman and Reingold: linked nodes pull together, every pair pushes apart),
//! the same picture on every machine.

use std::collections::{BTreeMap, BTreeSet};

use egui::{Align2, Color32, FontId, Pos2, Sense, Stroke, Ui, vec2};

use crate::graphrag::{GraphOverlap, ModelGraph};
use crate::gui::theme;
use crate::structured::KnowledgeGraph;

/// One entity as drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct DrawNode {
    /// Its name (the hand-built graph's id, the model's name as first written).
    pub label: String,
    /// Its type.
    pub kind: String,
    /// When the other graph holds it too: its name there.
    pub shared: Option<String>,
}

/// One link as drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct DrawEdge {
    /// Its subject (a node's index).
    pub from: usize,
    /// Its object.
    pub to: usize,
    /// The relation.
    pub relation: String,
    /// The other graph holds this link too.
    pub shared: bool,
    /// Its index among its graph's facts or edges.
    pub index: usize,
}

/// A graph laid out for drawing.
#[derive(Debug, Clone, PartialEq)]
pub struct GraphDrawing {
    /// Its entities.
    pub nodes: Vec<DrawNode>,
    /// Its links.
    pub edges: Vec<DrawEdge>,
    /// Each node's place, both coordinates within 0..=1.
    pub at: Vec<(f32, f32)>,
    /// The height the drawing asks for, in points.
    pub height: f32,
}

/// What a click picked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Picked {
    /// An entity (its index).
    Node(usize),
    /// A link (its index).
    Edge(usize),
}

impl GraphDrawing {
    /// The hand-built graph, its entities that the model also found (ids → the model's names)
    /// marked, and its facts that the model also linked.
    pub fn hand(graph: &KnowledgeGraph, overlap: Option<&GraphOverlap>, model: Option<&ModelGraph>) -> Self {
        let entities = graph.entities();
        let index: BTreeMap<&str, usize> = entities.iter().enumerate().map(|(i, e)| (e.id.as_str(), i)).collect();
        let mut named: BTreeMap<&str, String> = BTreeMap::new();
        if let (Some(o), Some(m)) = (overlap, model) {
            for (i, id) in &o.shared_nodes {
                if let Some(n) = m.nodes().get(*i) {
                    named.entry(id.as_str()).or_insert_with(|| n.name.clone());
                }
            }
        }
        let shared_facts: BTreeSet<&str> =
            overlap.map(|o| o.edges_both.iter().map(String::as_str).collect()).unwrap_or_default();
        let nodes = entities
            .iter()
            .map(|e| DrawNode { label: e.id.clone(), kind: e.kind.clone(), shared: named.get(e.id.as_str()).cloned() })
            .collect();
        let edges = graph
            .facts()
            .iter()
            .enumerate()
            .filter_map(|(i, f)| {
                let line = format!("{} {} {}", f.subject, f.relation, f.object);
                Some(DrawEdge {
                    from: *index.get(f.subject.as_str())?,
                    to: *index.get(f.object.as_str())?,
                    relation: f.relation.clone(),
                    shared: shared_facts.contains(line.as_str()),
                    index: i,
                })
            })
            .collect();
        let mut d = GraphDrawing { nodes, edges, at: Vec::new(), height: 0.0 };
        d.layered();
        d
    }

    /// The model's graph, its entities and links that the hand-built graph holds marked.
    pub fn model(graph: &ModelGraph, overlap: Option<&GraphOverlap>) -> Self {
        let shared_nodes: BTreeMap<usize, &str> =
            overlap.map(|o| o.shared_nodes.iter().map(|(i, id)| (*i, id.as_str())).collect()).unwrap_or_default();
        let shared_edges: BTreeSet<usize> =
            overlap.map(|o| o.shared_edges.iter().map(|(i, _)| *i).collect()).unwrap_or_default();
        let nodes = graph
            .nodes()
            .iter()
            .enumerate()
            .map(|(i, n)| DrawNode {
                label: n.name.clone(),
                kind: n.kind.clone(),
                shared: shared_nodes.get(&i).map(|s| s.to_string()),
            })
            .collect();
        let edges = graph
            .edges()
            .iter()
            .enumerate()
            .map(|(i, e)| DrawEdge {
                from: e.source,
                to: e.target,
                relation: e.relation.clone(),
                shared: shared_edges.contains(&i),
                index: i,
            })
            .collect();
        let mut d = GraphDrawing { nodes, edges, at: Vec::new(), height: 0.0 };
        d.forces();
        d
    }

    /// Layers by link direction, ordered by type within a layer.
    fn layered(&mut self) {
        let n = self.nodes.len();
        let mut layer = vec![0usize; n];
        for _ in 0..n {
            let mut changed = false;
            for e in &self.edges {
                let next = layer[e.from] + 1;
                if layer[e.to] < next && next < n {
                    layer[e.to] = next;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let layers = layer.iter().copied().max().unwrap_or(0) + 1;
        let mut columns: Vec<Vec<usize>> = vec![Vec::new(); layers];
        for (i, &l) in layer.iter().enumerate() {
            columns[l].push(i);
        }
        for c in &mut columns {
            c.sort_by(|&a, &b| {
                self.nodes[a].kind.cmp(&self.nodes[b].kind).then(self.nodes[a].label.cmp(&self.nodes[b].label))
            });
        }
        self.at = vec![(0.5, 0.5); n];
        for (ci, column) in columns.iter().enumerate() {
            for (ri, &i) in column.iter().enumerate() {
                self.at[i] = ((ci as f32 + 0.5) / layers as f32, (ri as f32 + 0.5) / column.len().max(1) as f32);
            }
        }
        let tallest = columns.iter().map(Vec::len).max().unwrap_or(1);
        self.height = (tallest as f32 * 46.0 + 40.0).max(200.0);
    }

    /// Fruchterman–Reingold in the unit square from a circle, a fixed number of steps with a
    /// falling temperature: the same places for the same graph on every machine.
    fn forces(&mut self) {
        let n = self.nodes.len();
        let tau = std::f64::consts::TAU;
        let mut p: Vec<(f64, f64)> = (0..n)
            .map(|i| {
                let a = tau * i as f64 / n.max(1) as f64;
                (0.5 + 0.4 * a.cos(), 0.5 + 0.4 * a.sin())
            })
            .collect();
        let k = (1.0 / n.max(1) as f64).sqrt() * 0.9;
        let steps = 200;
        for step in 0..steps {
            let mut push = vec![(0.0f64, 0.0f64); n];
            for i in 0..n {
                for j in i + 1..n {
                    let (dx, dy) = (p[i].0 - p[j].0, p[i].1 - p[j].1);
                    let d2 = (dx * dx + dy * dy).max(1e-6);
                    let f = k * k / d2;
                    push[i].0 += dx * f;
                    push[i].1 += dy * f;
                    push[j].0 -= dx * f;
                    push[j].1 -= dy * f;
                }
            }
            for e in &self.edges {
                let (a, b) = (e.from, e.to);
                if a == b || a >= n || b >= n {
                    continue;
                }
                let (dx, dy) = (p[a].0 - p[b].0, p[a].1 - p[b].1);
                let d = (dx * dx + dy * dy).sqrt().max(1e-6);
                let f = d / k;
                push[a].0 -= dx * f;
                push[a].1 -= dy * f;
                push[b].0 += dx * f;
                push[b].1 += dy * f;
            }
            // A weak pull to the middle keeps the unlinked from drifting to the edges.
            for (i, q) in p.iter().enumerate() {
                push[i].0 += (0.5 - q.0) * 0.5;
                push[i].1 += (0.5 - q.1) * 0.5;
            }
            let temperature = 0.1 * (1.0 - step as f64 / steps as f64) + 0.002;
            for (q, d) in p.iter_mut().zip(&push) {
                let len = (d.0 * d.0 + d.1 * d.1).sqrt().max(1e-12);
                let moved = len.min(temperature);
                q.0 = (q.0 + d.0 / len * moved).clamp(0.0, 1.0);
                q.1 = (q.1 + d.1 / len * moved).clamp(0.0, 1.0);
            }
        }
        // Spread to the square's margins.
        let (lo_x, hi_x) = p.iter().fold((f64::MAX, f64::MIN), |(l, h), q| (l.min(q.0), h.max(q.0)));
        let (lo_y, hi_y) = p.iter().fold((f64::MAX, f64::MIN), |(l, h), q| (l.min(q.1), h.max(q.1)));
        let fit = |v: f64, lo: f64, hi: f64| if hi - lo < 1e-9 { 0.5 } else { 0.1 + 0.8 * (v - lo) / (hi - lo) };
        self.at = p.iter().map(|q| (fit(q.0, lo_x, hi_x) as f32, fit(q.1, lo_y, hi_y) as f32)).collect();
        self.height = (140.0 + 16.0 * (n as f32).sqrt() * 6.0).clamp(260.0, 520.0);
    }

    /// How many of its nodes and links the other graph holds too.
    pub fn shared_counts(&self) -> (usize, usize) {
        (self.nodes.iter().filter(|n| n.shared.is_some()).count(), self.edges.iter().filter(|e| e.shared).count())
    }
}

/// The model's graph beside the hand-built one: both drawings and what they share, computed once
/// per pair of graphs.
pub struct GraphPair {
    /// The hand-built graph drawn, what the model also holds marked.
    pub hand: Option<GraphDrawing>,
    /// The model's graph drawn, what the person also wrote marked.
    pub model: Option<GraphDrawing>,
    /// The two compared.
    pub overlap: Option<GraphOverlap>,
}

impl GraphPair {
    /// Lay out both graphs and compare them.
    pub fn of(workbench: &crate::workbench::Workbench, model: Option<&ModelGraph>) -> Self {
        let hand = workbench.structured().graph.as_ref();
        let overlap = match (model, hand) {
            (Some(m), Some(h)) => Some(crate::graphrag::compare(m, h)),
            _ => None,
        };
        GraphPair {
            hand: hand.map(|h| GraphDrawing::hand(h, overlap.as_ref(), model)),
            model: model.map(|m| GraphDrawing::model(m, overlap.as_ref())),
            overlap,
        }
    }
}

/// The distance from `p` to the segment `a`–`b`.
fn to_segment(p: Pos2, a: Pos2, b: Pos2) -> f32 {
    let ab = b - a;
    let t = if ab.length_sq() < 1e-6 { 0.0 } else { ((p - a).dot(ab) / ab.length_sq()).clamp(0.0, 1.0) };
    p.distance(a + ab * t)
}

/// Paint `d`; `hot` links drawn thick (a pattern's path), `picked` outlined. Returns what a click
/// picked: the nearest node within reach, else the nearest link.
pub fn drawing_ui(ui: &mut Ui, d: &GraphDrawing, hot: &[usize], picked: Option<Picked>, hint: &str) -> Option<Picked> {
    let size = vec2(ui.available_width().min(640.0), d.height);
    let (rect, response) = ui.allocate_exact_size(size, Sense::click());
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 4.0, ui.visuals().extreme_bg_color);
    let inner = rect.shrink2(vec2(0.0, 20.0));
    let pos: Vec<Pos2> =
        d.at.iter()
            .map(|&(x, y)| Pos2::new(inner.left() + inner.width() * x, inner.top() + inner.height() * y))
            .collect();
    let text = ui.visuals().text_color();
    let many = d.nodes.len() > 40;
    let picked_node = match picked {
        Some(Picked::Node(i)) => Some(i),
        _ => None,
    };
    for (i, e) in d.edges.iter().enumerate() {
        let (Some(&a), Some(&b)) = (pos.get(e.from), pos.get(e.to)) else { continue };
        let chosen = picked == Some(Picked::Edge(i)) || picked_node.is_some_and(|n| n == e.from || n == e.to);
        let stroke = if hot.contains(&i) || chosen {
            Stroke::new(3.0, theme::HIGHLIGHT)
        } else if e.shared {
            Stroke::new(2.0, theme::SHARED)
        } else {
            Stroke::new(1.0, Color32::from_gray(150))
        };
        let dir = (b - a).normalized();
        let (from, to) = (a + dir * 9.0, b - dir * 9.0);
        painter.line_segment([from, to], stroke);
        let back = -dir * 7.0;
        for angle in [0.45f32, -0.45] {
            let (sin, cos) = angle.sin_cos();
            painter.line_segment([to, to + vec2(back.x * cos - back.y * sin, back.x * sin + back.y * cos)], stroke);
        }
        if !many || chosen || e.shared {
            painter.text(
                from + (to - from) * 0.5,
                Align2::CENTER_BOTTOM,
                &e.relation,
                FontId::proportional(10.0),
                if chosen || hot.contains(&i) { theme::HIGHLIGHT } else { Color32::from_gray(110) },
            );
        }
    }
    // The ends of a highlighted link are highlighted too (a pattern's path).
    let hot_nodes: BTreeSet<usize> = hot.iter().filter_map(|&i| d.edges.get(i)).flat_map(|e| [e.from, e.to]).collect();
    for (i, n) in d.nodes.iter().enumerate() {
        let Some(&p) = pos.get(i) else { continue };
        let fill = if picked_node == Some(i) || hot_nodes.contains(&i) {
            theme::HIGHLIGHT
        } else {
            Color32::from_rgb(200, 220, 240)
        };
        let ring =
            if n.shared.is_some() { Stroke::new(3.0, theme::SHARED) } else { Stroke::new(1.0, Color32::DARK_GRAY) };
        painter.circle(p, if many { 6.0 } else { 8.0 }, fill, ring);
        if !many || n.shared.is_some() || picked_node == Some(i) {
            let label = if many { n.label.clone() } else { format!("{} ({})", n.label, n.kind) };
            painter.text(p + vec2(0.0, 9.0), Align2::CENTER_TOP, label, FontId::proportional(10.0), text);
        }
    }
    let mut clicked = None;
    if response.clicked()
        && let Some(q) = response.interact_pointer_pos()
    {
        let node = pos
            .iter()
            .enumerate()
            .map(|(i, &p)| (i, q.distance(p)))
            .filter(|(_, d)| *d < 12.0)
            .min_by(|a, b| a.1.total_cmp(&b.1));
        clicked = match node {
            Some((i, _)) => Some(Picked::Node(i)),
            None => d
                .edges
                .iter()
                .enumerate()
                .filter_map(|(i, e)| Some((i, to_segment(q, *pos.get(e.from)?, *pos.get(e.to)?))))
                .filter(|(_, dist)| *dist < 6.0)
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .map(|(i, _)| Picked::Edge(i)),
        };
    }
    response.on_hover_text(hint);
    clicked
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graphrag::{ExtractedEntity, ExtractedRelation, Extraction};

    fn graphs() -> (KnowledgeGraph, ModelGraph) {
        let (hand, _) = KnowledgeGraph::parse(
            "node e2e | plugin | e2e-encrypt\nnode sodium | library | libsodium\nnode links | plugin | share-links\n\
             fact e2e depends_on sodium | p1\nfact links depends_on sodium | p2\n",
            std::path::Path::new("graph.txt"),
        );
        let rel =
            |s: &str, r: &str, t: &str| ExtractedRelation { source: s.into(), relation: r.into(), target: t.into() };
        let x = Extraction {
            entities: vec![ExtractedEntity { name: "e2e-encrypt".into(), kind: "plugin".into() }],
            relations: vec![rel("e2e-encrypt", "needs", "libsodium"), rel("libsodium", "written_in", "C")],
            dropped: Vec::new(),
        };
        (hand, ModelGraph::from_extractions("c", "m", "h", &[("p1".into(), x)], vec![]))
    }

    #[test]
    fn what_both_graphs_hold_is_marked_in_both_drawings() {
        let (hand, model) = graphs();
        let o = crate::graphrag::compare(&model, &hand);
        let m = GraphDrawing::model(&model, Some(&o));
        let h = GraphDrawing::hand(&hand, Some(&o), Some(&model));
        // e2e and sodium are in both; the model's C and the person's links are not.
        let marked = |d: &GraphDrawing| -> Vec<(String, String)> {
            d.nodes.iter().filter_map(|n| n.shared.clone().map(|s| (n.label.clone(), s))).collect()
        };
        assert_eq!(marked(&m), [("e2e-encrypt".to_string(), "e2e".to_string()), ("libsodium".into(), "sodium".into())]);
        assert_eq!(marked(&h), [("e2e".to_string(), "e2e-encrypt".to_string()), ("sodium".into(), "libsodium".into())]);
        // One link in both: the model's `needs`, the person's `depends_on` between the same two.
        assert_eq!(m.shared_counts(), (2, 1));
        assert_eq!(h.shared_counts(), (2, 1));
        assert!(m.edges.iter().find(|e| e.shared).is_some_and(|e| e.relation == "needs"));
        assert!(h.edges.iter().find(|e| e.shared).is_some_and(|e| m.nodes.len() == 3 && e.relation == "depends_on"));
        // With no model graph, nothing is marked.
        assert_eq!(GraphDrawing::hand(&hand, None, None).shared_counts(), (0, 0));
    }

    #[test]
    fn layouts_stay_in_the_square_and_are_the_same_every_time() {
        let (hand, model) = graphs();
        for d in [GraphDrawing::model(&model, None), GraphDrawing::hand(&hand, None, None)] {
            assert_eq!(d.at.len(), d.nodes.len());
            assert!(d.at.iter().all(|&(x, y)| (0.0..=1.0).contains(&x) && (0.0..=1.0).contains(&y)), "{:?}", d.at);
            // No two nodes at one place.
            for i in 0..d.at.len() {
                for j in i + 1..d.at.len() {
                    let (a, b) = (d.at[i], d.at[j]);
                    assert!((a.0 - b.0).abs() + (a.1 - b.1).abs() > 0.05, "{a:?} {b:?}");
                }
            }
        }
        assert_eq!(GraphDrawing::model(&model, None), GraphDrawing::model(&model, None));
        // The hand-built graph in layers by direction: both plugins left of the library.
        let h = GraphDrawing::hand(&hand, None, None);
        let x = |label: &str| h.at[h.nodes.iter().position(|n| n.label == label).unwrap()].0;
        assert!(x("e2e") < x("sodium") && x("links") < x("sodium"));
        // Linked nodes end closer than unlinked ones in the model's layout: e2e-encrypt–libsodium
        // and libsodium–C are linked, e2e-encrypt–C is not.
        let m = GraphDrawing::model(&model, None);
        let p = |label: &str| m.at[m.nodes.iter().position(|n| n.label == label).unwrap()];
        let dist = |a: (f32, f32), b: (f32, f32)| ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt();
        assert!(dist(p("e2e-encrypt"), p("C")) > dist(p("e2e-encrypt"), p("libsodium")));
    }

    #[test]
    fn a_point_near_a_link_is_on_it() {
        let (a, b) = (Pos2::new(0.0, 0.0), Pos2::new(10.0, 0.0));
        assert_eq!(to_segment(Pos2::new(5.0, 3.0), a, b), 3.0);
        assert_eq!(to_segment(Pos2::new(-4.0, 3.0), a, b), 5.0, "past the end: the distance to the end");
        assert_eq!(to_segment(Pos2::new(2.0, 2.0), a, a), Pos2::new(2.0, 2.0).distance(a));
    }
}
