//! Inline SVG charts for the HTML report: drawn from the same explanation structs the app draws.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::{ComparisonReport, MapSection};
use crate::compare::Outcome;
use crate::markup::escape_html as escape;
use crate::retrieve::{Entry, MethodKind, SparseTermMatch, TermTable, TokenAlignment};

fn color(kind: MethodKind) -> String {
    let (r, g, b) = kind.color_rgb();
    format!("#{r:02x}{g:02x}{b:02x}")
}

const EXPANSION: &str = "#cc79a7";
const LITERAL: &str = "#0072b2";

/// Side-by-side rankings: one column per ranked method, a bar per passage, and grey lines
/// joining a passage's positions in neighbouring columns.
pub fn rankings(c: &ComparisonReport) -> String {
    let cols: Vec<(&str, MethodKind, &crate::retrieve::Ranking)> = c
        .comparison
        .runs
        .iter()
        .filter_map(|r| match &r.outcome {
            Outcome::Ranked(x) if !x.unranked && (!x.hits.is_empty() || !x.absent.is_empty()) => {
                Some((r.label.as_str(), r.kind, x))
            }
            _ => None,
        })
        .collect();
    let (cw, rh, top) = (178.0, 24.0, 44.0);
    let rows = cols.iter().map(|c| c.2.hits.len() + c.2.absent.len()).max().unwrap_or(0);
    let (w, h) = (cw * cols.len() as f64 + 10.0, top + rh * rows as f64 + 10.0);
    let mut s = format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" role="img" aria-label="rankings side by side">"##
    );
    let mut positions: Vec<BTreeMap<u32, f64>> = Vec::new();
    for (ci, (label, kind, r)) in cols.iter().enumerate() {
        let x = 5.0 + cw * ci as f64;
        let short = label.split(" (").next().unwrap_or(label);
        let _ = write!(
            s,
            r##"<rect x="{x}" y="6" width="10" height="10" fill="{}"/><text x="{}" y="15" font-size="12" font-weight="bold">{}</text>"##,
            color(*kind),
            x + 14.0,
            escape(short)
        );
        let _ = write!(
            s,
            r##"<text x="{x}" y="30" font-size="9" fill="#666">{}</text>"##,
            escape(&label.chars().take(34).collect::<String>())
        );
        let max = r.hits.iter().map(|h| h.score.abs()).fold(0.0f64, f64::max);
        let mut pos = BTreeMap::new();
        for (rank, entry) in r.entries() {
            let y = top + rh * (rank - 1) as f64;
            let hit = match entry {
                Entry::Hit(h) => h,
                Entry::Absent(a) => {
                    let _ = write!(
                        s,
                        r##"<text x="{x}" y="{}" font-size="11" fill="#a60">{rank}. {} (not in the corpus)</text>"##,
                        y + 10.0,
                        escape(&a.id)
                    );
                    continue;
                }
            };
            let id = c.passage(hit.doc).map(|p| p.id.as_str()).unwrap_or("?");
            let frac = if max > 0.0 { hit.score.abs() / max } else { 0.0 };
            let _ = write!(s, r##"<text x="{x}" y="{}" font-size="11">{rank}. {}</text>"##, y + 10.0, escape(id));
            let _ = write!(
                s,
                r##"<rect x="{x}" y="{}" width="{:.1}" height="5" fill="{}"/>"##,
                y + 14.0,
                120.0 * frac,
                color(*kind)
            );
            let _ = write!(
                s,
                r##"<text x="{}" y="{}" font-size="9" fill="#444">{:.3}</text>"##,
                x + 124.0,
                y + 19.0,
                hit.score
            );
            pos.insert(hit.doc.0, y + 7.0);
        }
        positions.push(pos);
    }
    for ci in 1..positions.len() {
        for (doc, y1) in &positions[ci] {
            if let Some(y0) = positions[ci - 1].get(doc) {
                let x0 = 5.0 + cw * (ci - 1) as f64 + 118.0;
                let x1 = 5.0 + cw * ci as f64 - 4.0;
                let _ =
                    write!(s, r##"<line x1="{x0}" y1="{y0}" x2="{x1}" y2="{y1}" stroke="#bbb" stroke-width="1"/>"##);
            }
        }
    }
    s.push_str("</svg>");
    s
}

/// One bar of a row starting at `(x, row_y)`, `width` long, with its value written after it.
fn bar_with_value(s: &mut String, (x, row_y): (f64, f64), width: f64, fill: &str, value: &str) {
    let _ = write!(s, r##"<rect x="{x}" y="{}" width="{width:.1}" height="12" fill="{fill}"/>"##, row_y + 2.0);
    let _ = write!(s, r##"<text x="{:.1}" y="{}" font-size="10">{value}</text>"##, x + 4.0 + width, row_y + 12.0);
}

/// Term contributions as horizontal bars.
pub fn term_bars(t: &TermTable, kind: MethodKind) -> String {
    let rows = t.rows.len();
    let (w, rh) = (460.0, 20.0);
    let h = rh * rows as f64 + 8.0;
    let max = t.rows.iter().map(|r| r.contribution.abs()).fold(0.0f64, f64::max);
    let mut s = format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" role="img" aria-label="term contributions">"##
    );
    for (i, r) in t.rows.iter().enumerate() {
        let y = 4.0 + rh * i as f64;
        let frac = if max > 0.0 { r.contribution.abs() / max } else { 0.0 };
        let _ = write!(
            s,
            r##"<text x="0" y="{}" font-size="11" font-family="monospace">{}</text>"##,
            y + 12.0,
            escape(&r.term)
        );
        let value = format!("{:.4}  (tf {}, df {})", r.contribution, r.tf, r.df);
        bar_with_value(&mut s, (110.0, y), 260.0 * frac, &color(kind), &value);
    }
    s.push_str("</svg>");
    s
}

/// SPLADE's shared terms, written terms in blue and model-added ones in pink.
pub fn sparse_overlap(matches: &[SparseTermMatch]) -> String {
    let (w, rh) = (520.0, 20.0);
    let h = rh * matches.len() as f64 + 8.0;
    let max = matches.iter().map(|m| m.product).fold(0.0f32, f32::max);
    let mut s = format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" role="img" aria-label="SPLADE term overlap">"##
    );
    for (i, m) in matches.iter().enumerate() {
        let y = 4.0 + rh * i as f64;
        let c = if m.query_expansion || m.doc_expansion { EXPANSION } else { LITERAL };
        let frac = if max > 0.0 { f64::from(m.product / max) } else { 0.0 };
        let _ = write!(s, r##"<text x="0" y="{}" font-size="11" fill="{c}">{}</text>"##, y + 12.0, escape(&m.term));
        let value = format!("{:.2} × {:.2} = {:.2}", m.query_weight, m.doc_weight, m.product);
        bar_with_value(&mut s, (110.0, y), 240.0 * frac, c, &value);
    }
    s.push_str("</svg>");
    s
}

/// Each question token joined to its best passage token, with the similarity as a bar.
pub fn maxsim(alignments: &[TokenAlignment]) -> String {
    let (w, rh) = (520.0, 20.0);
    let h = rh * alignments.len() as f64 + 8.0;
    let mut s = format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" role="img" aria-label="MaxSim alignment">"##
    );
    for (i, a) in alignments.iter().enumerate() {
        let y = 4.0 + rh * i as f64;
        let _ = write!(
            s,
            r##"<text x="0" y="{}" font-size="11" font-family="monospace">{}</text>"##,
            y + 12.0,
            escape(&a.query_token)
        );
        let _ = write!(s, r##"<line x1="100" y1="{}" x2="170" y2="{}" stroke="#888"/>"##, y + 8.0, y + 8.0);
        let _ = write!(
            s,
            r##"<text x="176" y="{}" font-size="11" font-family="monospace">{} (#{})</text>"##,
            y + 12.0,
            escape(&a.doc_token),
            a.doc_pos
        );
        let frac = f64::from(a.similarity.max(0.0));
        let value = format!("{:.3}", a.similarity);
        bar_with_value(&mut s, (330.0, y), 140.0 * frac, &color(MethodKind::LateInteraction), &value);
    }
    s.push_str("</svg>");
    s
}

/// The PCA map: passages in grey, each method's top k in its colour, the question as a star.
pub fn map(m: &MapSection, c: &ComparisonReport) -> String {
    let (w, h, pad) = (560.0, 420.0, 30.0);
    let xs = m.points.iter().map(|p| p.1).chain(m.query.map(|q| q[0]));
    let ys = m.points.iter().map(|p| p.2).chain(m.query.map(|q| q[1]));
    let (x0, x1) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)));
    let (y0, y1) = ys.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)));
    let sx = |x: f64| pad + (x - x0) / (x1 - x0).max(1e-9) * (w - 2.0 * pad);
    let sy = |y: f64| h - pad - (y - y0) / (y1 - y0).max(1e-9) * (h - 2.0 * pad);
    let mut s = format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" role="img" aria-label="PCA map"><rect width="{w}" height="{h}" fill="#fafafa" stroke="#ddd"/>"##
    );
    let _ = write!(
        s,
        r##"<text x="{}" y="{}" font-size="10" text-anchor="middle">PC1 ({:.1}% of variance)</text>"##,
        w / 2.0,
        h - 8.0,
        100.0 * m.variance_share[0]
    );
    let _ = write!(
        s,
        r##"<text x="12" y="{}" font-size="10" transform="rotate(-90 12 {})" text-anchor="middle">PC2 ({:.1}% of variance)</text>"##,
        h / 2.0,
        h / 2.0,
        100.0 * m.variance_share[1]
    );
    let index: BTreeMap<&str, (f64, f64)> = m.points.iter().map(|p| (p.0.as_str(), (p.1, p.2))).collect();
    for p in &m.points {
        let _ = write!(
            s,
            r##"<circle cx="{:.1}" cy="{:.1}" r="3" fill="#aaa"><title>{}</title></circle>"##,
            sx(p.1),
            sy(p.2),
            escape(&p.0)
        );
    }
    let mut legend = 0.0;
    for run in &c.comparison.runs {
        let Outcome::Ranked(r) = &run.outcome else { continue };
        if r.unranked {
            continue;
        }
        let col = color(run.kind);
        for h in &r.hits {
            if let Some((x, y)) = c.passage(h.doc).and_then(|p| index.get(p.id.as_str())) {
                let _ = write!(
                    s,
                    r##"<circle cx="{:.1}" cy="{:.1}" r="6" fill="none" stroke="{col}" stroke-width="1.5"/>"##,
                    sx(*x),
                    sy(*y)
                );
            }
        }
        let _ = write!(
            s,
            r##"<circle cx="{}" cy="{}" r="5" fill="none" stroke="{col}" stroke-width="1.5"/><text x="{}" y="{}" font-size="10">{}</text>"##,
            w - 130.0,
            14.0 + legend,
            w - 120.0,
            18.0 + legend,
            escape(run.kind.label())
        );
        legend += 14.0;
    }
    if let Some(q) = m.query {
        let _ = write!(
            s,
            r##"<text x="{:.1}" y="{:.1}" font-size="22" text-anchor="middle" fill="#d40">★</text>"##,
            sx(q[0]),
            sy(q[1]) + 7.0
        );
    }
    s.push_str("</svg>");
    s
}

/// A line of a plot: its name, colour and points.
type Series<'a> = (&'a str, &'a str, Vec<(f64, f64)>);

/// The k trade-off: answer recall@k and the reader's exact match (and F1) against k, on a log
/// axis of k, 0–100 %.
pub fn answer_curve(study: &crate::compare::AnswerStudy) -> String {
    let (w, h, pad) = (520.0, 260.0, 36.0);
    let ks: Vec<f64> = study.points.iter().map(|p| p.k as f64).collect();
    let (k0, k1) = (ks.first().copied().unwrap_or(1.0).max(1.0), ks.last().copied().unwrap_or(1.0).max(2.0));
    let sx = |k: f64| pad + (k.max(1.0).ln() - k0.ln()) / (k1.ln() - k0.ln()).max(1e-9) * (w - 2.0 * pad);
    let sy = |v: f64| h - pad - v.clamp(0.0, 100.0) / 100.0 * (h - 2.0 * pad);
    let mut s = format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" role="img" aria-label="answer recall and exact match against k"><rect width="{w}" height="{h}" fill="#fafafa" stroke="#ddd"/>"##
    );
    for v in [0.0, 25.0, 50.0, 75.0, 100.0] {
        let _ = write!(
            s,
            r##"<line x1="{pad}" x2="{}" y1="{y:.1}" y2="{y:.1}" stroke="#eee"/><text x="{}" y="{:.1}" font-size="9" text-anchor="end">{v:.0}%</text>"##,
            w - pad,
            pad - 4.0,
            sy(v) + 3.0,
            y = sy(v)
        );
    }
    for p in &study.points {
        let _ = write!(
            s,
            r##"<text x="{:.1}" y="{}" font-size="9" text-anchor="middle">{}</text>"##,
            sx(p.k as f64),
            h - pad + 14.0,
            p.k
        );
    }
    let _ = write!(
        s,
        r##"<text x="{}" y="{}" font-size="10" text-anchor="middle">k (passages read)</text>"##,
        w / 2.0,
        h - 6.0
    );
    let series: [Series<'_>; 3] = [
        ("answer recall@k", "#0072b2", study.points.iter().map(|p| (p.k as f64, p.recall)).collect()),
        ("exact match", "#d55e00", study.points.iter().filter_map(|p| Some((p.k as f64, p.exact_match?))).collect()),
        ("F1", "#009e73", study.points.iter().filter_map(|p| Some((p.k as f64, p.f1?))).collect()),
    ];
    for (i, (name, col, pts)) in series.iter().enumerate() {
        if pts.is_empty() {
            continue;
        }
        let path: Vec<String> = pts.iter().map(|(k, v)| format!("{:.1},{:.1}", sx(*k), sy(*v))).collect();
        let _ = write!(s, r##"<polyline points="{}" fill="none" stroke="{col}" stroke-width="2"/>"##, path.join(" "));
        for (k, v) in pts {
            let _ = write!(
                s,
                r##"<circle cx="{:.1}" cy="{:.1}" r="3" fill="{col}"><title>{name} at k = {k}: {v:.1}%</title></circle>"##,
                sx(*k),
                sy(*v)
            );
        }
        let _ = write!(
            s,
            r##"<rect x="{}" y="{}" width="10" height="3" fill="{col}"/><text x="{}" y="{}" font-size="10">{name}</text>"##,
            w - 150.0,
            pad + 14.0 * i as f64,
            w - 136.0,
            pad + 4.0 + 14.0 * i as f64
        );
    }
    s.push_str("</svg>");
    s
}
