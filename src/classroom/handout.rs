//! Handouts: a lesson, or an assignment's questions, as self-contained printable HTML (a print
//! stylesheet, nothing loaded from the network) and as Markdown. A checkpoint prints as a
//! question with its data, its tolerance and a space to answer; the answers, with their working,
//! follow at the end when asked for (a teacher's copy).

use std::fmt::Write as _;

use crate::lessons::checkpoint::{AnswerKind, Checkpoint};
use crate::lessons::{Block, Lesson};
use crate::markup::escape_html as escape;

/// The stylesheet of every handout: readable on screen, and on paper every table fits the page
/// (long cells wrap, tables never run wider than the text).
pub const STYLE: &str = r#"
body { font-family: "DejaVu Sans", "Helvetica", "Arial", sans-serif; max-width: 46em; margin: 2em auto; padding: 0 1em; line-height: 1.45; color: #111; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.25em; margin-top: 1.4em; border-bottom: 1px solid #999; }
table { border-collapse: collapse; margin: 0.6em 0; max-width: 100%; table-layout: auto; }
th, td { border: 1px solid #999; padding: 0.2em 0.45em; vertical-align: top; text-align: left; }
th, td.num { white-space: nowrap; }
td.long { overflow-wrap: anywhere; }
th { background: #eee; }
p.caption { font-weight: bold; margin: 0.8em 0 0.2em 0; break-after: avoid; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.warning { border-left: 4px solid #c77d00; padding: 0.2em 0.6em; background: #fff6e5; }
.checkpoint { border: 2px solid #335; border-radius: 6px; padding: 0.5em 0.8em; margin: 1em 0; break-inside: avoid; }
.checkpoint .id { font-family: monospace; color: #555; }
.tolerance { color: #444; font-size: 0.9em; }
.answer-box { border-bottom: 1px solid #333; height: 2em; margin-top: 0.6em; }
.answers { break-before: page; }
code, .mono { font-family: "DejaVu Sans Mono", monospace; }
svg { max-width: 100%; height: auto; }
@media print {
  body { margin: 0; max-width: none; font-size: 10.5pt; }
  .checkpoint, table, figure { break-inside: avoid; }
  a { color: inherit; text-decoration: none; }
}
@page { size: A4; margin: 16mm; }
"#;

fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n{body}</body>\n</html>\n",
        escape(title)
    )
}

/// Inline `code` in a lesson's text becomes <code>.
fn inline(s: &str) -> String {
    let mut out = String::new();
    for (i, part) in s.split('`').enumerate() {
        if i % 2 == 1 {
            let _ = write!(out, "<code>{}</code>", escape(part));
        } else {
            out.push_str(&escape(part));
        }
    }
    out
}

fn is_number(s: &str) -> bool {
    !s.is_empty() && s.trim_start_matches(['-', '#']).parse::<f64>().is_ok()
}

/// Numbers stay whole and right-aligned; a cell with a word too long for a column may break it
/// anywhere (else it would push the table off the page).
fn cell_class(c: &str) -> &'static str {
    if is_number(c) {
        " class=\"num\""
    } else if c.split_whitespace().any(|w| w.chars().count() > 28) {
        " class=\"long\""
    } else {
        ""
    }
}

fn table_html(caption: &str, header: &[String], rows: &[Vec<String>]) -> String {
    // The caption above the table, as wide as the text (a <caption> is as narrow as its table).
    let mut out = format!("<p class=\"caption\">{}</p>\n<table>\n<thead><tr>", inline(caption));
    for h in header {
        let _ = write!(out, "<th>{}</th>", inline(h));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for r in rows {
        out.push_str("<tr>");
        for c in r {
            let class = cell_class(c);
            let _ = write!(out, "<td{class}>{}</td>", escape(c));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
    out
}

/// A checkpoint's data as a person reads it: an object as a two-column table, a list of objects
/// with the same fields as a table, a list of plain values inline.
pub fn data_html(v: &serde_json::Value) -> String {
    use serde_json::Value;
    match v {
        Value::Object(m) => {
            let mut out = String::from("<table class=\"data\"><tbody>\n");
            for (k, x) in m {
                let _ = writeln!(out, "<tr><th>{}</th><td>{}</td></tr>", escape(k), data_html(x));
            }
            out.push_str("</tbody></table>");
            out
        }
        Value::Array(a) if !a.is_empty() && a.iter().all(Value::is_object) => {
            let mut keys: Vec<String> = Vec::new();
            for x in a {
                if let Value::Object(m) = x {
                    for k in m.keys() {
                        if !keys.contains(k) {
                            keys.push(k.clone());
                        }
                    }
                }
            }
            let mut out = String::from("<table class=\"data\"><thead><tr>");
            for k in &keys {
                let _ = write!(out, "<th>{}</th>", escape(k));
            }
            out.push_str("</tr></thead><tbody>\n");
            for x in a {
                out.push_str("<tr>");
                for k in &keys {
                    let cell = x.get(k).map(data_html).unwrap_or_default();
                    let _ = write!(out, "<td>{cell}</td>");
                }
                out.push_str("</tr>\n");
            }
            out.push_str("</tbody></table>");
            out
        }
        Value::Array(a) => a.iter().map(data_html).collect::<Vec<_>>().join(", "),
        Value::String(s) => escape(s),
        Value::Null => "—".into(),
        other => escape(&other.to_string()),
    }
}

/// A checkpoint's data in Markdown: `key: value` lines, lists of objects as tables.
pub fn data_markdown(v: &serde_json::Value, out: &mut String) {
    use serde_json::Value;
    let scalar = |x: &Value| match x {
        Value::String(s) => s.clone(),
        Value::Null => "—".into(),
        Value::Array(a) if a.iter().all(|y| !y.is_object() && !y.is_array()) => {
            a.iter().map(|y| y.as_str().map_or_else(|| y.to_string(), str::to_string)).collect::<Vec<_>>().join(", ")
        }
        other => other.to_string(),
    };
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                match x {
                    Value::Array(a) if !a.is_empty() && a.iter().all(Value::is_object) => {
                        let _ = writeln!(out, "- {k}:\n");
                        let mut keys: Vec<String> = Vec::new();
                        for y in a {
                            if let Value::Object(mm) = y {
                                keys.extend(mm.keys().filter(|kk| !keys.contains(kk)).cloned().collect::<Vec<_>>());
                            }
                        }
                        let _ = writeln!(out, "  | {} |", keys.join(" | "));
                        let _ = writeln!(out, "  |{}", " --- |".repeat(keys.len()));
                        for y in a {
                            let cells: Vec<String> = keys
                                .iter()
                                .map(|kk| y.get(kk).map(scalar).unwrap_or_default().replace('|', "\\|"))
                                .collect();
                            let _ = writeln!(out, "  | {} |", cells.join(" | "));
                        }
                        out.push('\n');
                    }
                    Value::Object(_) => {
                        let _ = writeln!(out, "- {k}: {}", scalar(x));
                    }
                    _ => {
                        let _ = writeln!(out, "- {k}: {}", scalar(x));
                    }
                }
            }
        }
        other => {
            let _ = writeln!(out, "- {}", scalar(other));
        }
    }
}

/// One checkpoint as a question (no answer).
pub fn question_html(n: usize, c: &Checkpoint) -> String {
    let mut out = format!(
        "<div class=\"checkpoint\">\n<p><strong>{n}.</strong> <span class=\"id\">[{}]</span> {}</p>\n",
        escape(&c.question.id),
        inline(&c.question.prompt)
    );
    if !c.question.data.is_null() {
        let _ = writeln!(out, "<div class=\"data\">{}</div>", data_html(&c.question.data));
    }
    if !c.question.options.is_empty() {
        let what = if c.question.kind == AnswerKind::Ordering { "Put in order" } else { "Options" };
        let _ = writeln!(
            out,
            "<p>{what}: {}</p>",
            c.question.options.iter().map(|o| escape(o)).collect::<Vec<_>>().join(" · ")
        );
    }
    let _ = writeln!(
        out,
        "<p class=\"tolerance\">{}</p>\n<div class=\"answer-box\"></div>\n</div>",
        escape(&c.tolerance_text())
    );
    out
}

fn answer_html(n: usize, c: &Checkpoint) -> String {
    let mut out = format!(
        "<li value=\"{n}\"><strong>{}</strong>: {}",
        escape(&c.question.id),
        escape(&c.solution.answer.to_text())
    );
    if !c.solution.steps.is_empty() {
        out.push_str("<ul>");
        for s in &c.solution.steps {
            let _ = write!(out, "<li>{}</li>", inline(s));
        }
        out.push_str("</ul>");
    }
    out.push_str("</li>\n");
    out
}

fn curves_svg(
    series: &[(String, Vec<[f64; 2]>)],
    markers: &[(String, [f64; 2])],
    x_label: &str,
    y_label: &str,
) -> String {
    let pts = series.iter().flat_map(|(_, p)| p.iter()).chain(markers.iter().map(|(_, p)| p));
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for p in pts {
        x0 = x0.min(p[0]);
        x1 = x1.max(p[0]);
        y0 = y0.min(p[1]);
        y1 = y1.max(p[1]);
    }
    if x1.partial_cmp(&x0) != Some(std::cmp::Ordering::Greater)
        || y1.partial_cmp(&y0).is_none_or(|o| o == std::cmp::Ordering::Less)
    {
        return String::new();
    }
    let y0 = y0.min(0.0);
    let span = (y1 - y0).max(f64::MIN_POSITIVE);
    let (w, h, m) = (600.0, 260.0, 40.0);
    let sx = |x: f64| m + (x - x0) / (x1 - x0) * (w - 2.0 * m);
    let sy = |y: f64| h - m - (y - y0) / span * (h - 2.0 * m);
    let colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"];
    let mut out = format!("<figure><svg viewBox=\"0 0 {w} {h}\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\">\n");
    let _ = writeln!(
        out,
        "<line x1=\"{m}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#333\"/><line x1=\"{m}\" y1=\"{m}\" x2=\"{m}\" y2=\"{}\" stroke=\"#333\"/>",
        h - m,
        w - m,
        h - m,
        h - m
    );
    let _ = writeln!(
        out,
        "<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">{}</text>",
        w / 2.0,
        h - 8.0,
        escape(x_label)
    );
    let _ = writeln!(
        out,
        "<text x=\"12\" y=\"{}\" font-size=\"11\" transform=\"rotate(-90 12 {})\" text-anchor=\"middle\">{}</text>",
        h / 2.0,
        h / 2.0,
        escape(y_label)
    );
    for (i, (name, p)) in series.iter().enumerate() {
        let c = colours[i % colours.len()];
        let path: Vec<String> = p.iter().map(|q| format!("{:.1},{:.1}", sx(q[0]), sy(q[1]))).collect();
        let _ =
            writeln!(out, "<polyline fill=\"none\" stroke=\"{c}\" stroke-width=\"2\" points=\"{}\"/>", path.join(" "));
        let _ = writeln!(
            out,
            "<text x=\"{}\" y=\"{}\" font-size=\"11\" fill=\"{c}\">{}</text>",
            m + 8.0,
            m + 14.0 * i as f64,
            escape(name)
        );
    }
    for (label, p) in markers {
        let _ = writeln!(
            out,
            "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"4\" fill=\"#000\"><title>{}</title></circle>",
            sx(p[0]),
            sy(p[1]),
            escape(label)
        );
    }
    out.push_str("</svg></figure>\n");
    out
}

/// A lesson as one self-contained, printable HTML page; with `answers`, the checkpoints' answers
/// and working follow on a page of their own.
pub fn lesson_html(l: &Lesson, answers: bool) -> String {
    let mut body = format!("<h1>{}</h1>\n", escape(&l.title));
    let mut n = 0;
    for b in &l.blocks {
        match b {
            Block::Heading(h) => {
                let _ = writeln!(body, "<h2>{}</h2>", inline(h));
            }
            Block::Text(t) => {
                let _ = writeln!(body, "<p>{}</p>", inline(t));
            }
            Block::Warning(w) => {
                let _ = writeln!(body, "<p class=\"warning\">{}</p>", inline(w));
            }
            Block::Table { caption, header, rows } => body.push_str(&table_html(caption, header, rows)),
            Block::Curves { caption, x_label, y_label, series, markers } => {
                let _ = writeln!(body, "<p><strong>{}</strong></p>", inline(caption));
                body.push_str(&curves_svg(series, markers, x_label, y_label));
                let rows: Vec<Vec<String>> = markers
                    .iter()
                    .map(|(label, p)| vec![label.clone(), format!("{:.0}", p[0]), format!("{:.3}", p[1])])
                    .collect();
                body.push_str(&table_html("Marked points", &[x_label.clone(), "x".into(), y_label.clone()], &rows));
            }
            Block::Checkpoint(c) => {
                n += 1;
                body.push_str(&question_html(n, c));
            }
        }
    }
    if answers && n > 0 {
        body.push_str("<section class=\"answers\">\n<h2>Answers</h2>\n<ol>\n");
        for (i, c) in l.checkpoints().enumerate() {
            body.push_str(&answer_html(i + 1, c));
        }
        body.push_str("</ol>\n</section>\n");
    }
    page(&l.title, &body)
}

fn md_cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// A lesson as Markdown; with `answers`, the answers and working at the end.
pub fn lesson_markdown(l: &Lesson, answers: bool) -> String {
    let mut out = format!("# {}\n\n", l.title);
    let mut n = 0;
    for b in &l.blocks {
        match b {
            Block::Heading(h) => {
                let _ = write!(out, "## {h}\n\n");
            }
            Block::Text(t) => {
                let _ = write!(out, "{t}\n\n");
            }
            Block::Warning(w) => {
                let _ = write!(out, "> **Note.** {w}\n\n");
            }
            Block::Table { caption, header, rows } => {
                let _ = writeln!(
                    out,
                    "**{caption}**\n\n| {} |\n|{}",
                    header.iter().map(|h| md_cell(h)).collect::<Vec<_>>().join(" | "),
                    " --- |".repeat(header.len())
                );
                for r in rows {
                    let _ = writeln!(out, "| {} |", r.iter().map(|c| md_cell(c)).collect::<Vec<_>>().join(" | "));
                }
                out.push('\n');
            }
            Block::Curves { caption, x_label, y_label, markers, .. } => {
                let _ = writeln!(
                    out,
                    "**{caption}**\n\n| point | {} | {} |\n| --- | --- | --- |",
                    md_cell(x_label),
                    md_cell(y_label)
                );
                for (label, p) in markers {
                    let _ = writeln!(out, "| {} | {:.0} | {:.3} |", md_cell(label), p[0], p[1]);
                }
                out.push('\n');
            }
            Block::Checkpoint(c) => {
                n += 1;
                out.push_str(&question_markdown(n, c));
            }
        }
    }
    if answers && n > 0 {
        out.push_str("## Answers\n\n");
        for (i, c) in l.checkpoints().enumerate() {
            let _ = writeln!(out, "{}. **{}**: {}", i + 1, c.question.id, c.solution.answer.to_text());
            for s in &c.solution.steps {
                let _ = writeln!(out, "   - {s}");
            }
        }
        out.push('\n');
    }
    out
}

/// One checkpoint as a Markdown question (no answer).
pub fn question_markdown(n: usize, c: &Checkpoint) -> String {
    let mut out = format!("**Question {n}** `[{}]` {}\n\n", c.question.id, c.question.prompt);
    if !c.question.data.is_null() {
        data_markdown(&c.question.data, &mut out);
        out.push('\n');
    }
    if !c.question.options.is_empty() {
        let _ = write!(out, "Options: {}\n\n", c.question.options.join(" · "));
    }
    let _ = write!(out, "*{}.* Answer: ______\n\n", c.tolerance_text());
    out
}

/// An assignment's questions for one student, as a printable page.
pub fn questions_page(title: &str, subtitle: &str, questions: &[Checkpoint]) -> String {
    let mut body = format!("<h1>{}</h1>\n<p>{}</p>\n", escape(title), inline(subtitle));
    for (i, c) in questions.iter().enumerate() {
        body.push_str(&question_html(i + 1, c));
    }
    page(title, &body)
}
