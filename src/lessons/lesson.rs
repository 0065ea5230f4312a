//! A lesson as data: headings, text, tables, curves and checkpoints, ready to draw or print.

use serde::{Deserialize, Serialize};

use super::checkpoint;

/// A piece of a lesson.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Block {
    /// A heading.
    Heading(String),
    /// A paragraph.
    Text(String),
    /// A caution.
    Warning(String),
    /// A table.
    Table {
        /// Caption.
        caption: String,
        /// Column names.
        header: Vec<String>,
        /// Rows of cells.
        rows: Vec<Vec<String>>,
    },
    /// Curves for a plot.
    Curves {
        /// Caption.
        caption: String,
        /// x axis label.
        x_label: String,
        /// y axis label.
        y_label: String,
        /// (name, points).
        series: Vec<(String, Vec<[f64; 2]>)>,
        /// Marked points (label, point).
        markers: Vec<(String, [f64; 2])>,
    },
    /// Predict, then reveal: a question answered before what follows it is shown.
    Checkpoint(checkpoint::Checkpoint),
}

/// A lesson ready to draw or print.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Lesson {
    /// Identifier (`tfidf`).
    pub id: String,
    /// Title.
    pub title: String,
    /// Content in order.
    pub blocks: Vec<Block>,
}

impl Lesson {
    pub(super) fn new(id: &str, title: &str) -> Self {
        Self { id: id.to_string(), title: title.to_string(), blocks: Vec::new() }
    }
    /// A page's blocks before it is named: the registry ([`super::build`]) gives it its entry's
    /// id and title, so a page never restates them.
    pub(super) fn untitled() -> Self {
        Self::new("", "")
    }
    pub(super) fn h(&mut self, s: impl Into<String>) {
        self.blocks.push(Block::Heading(s.into()));
    }
    pub(super) fn p(&mut self, s: impl Into<String>) {
        self.blocks.push(Block::Text(s.into()));
    }
    pub(super) fn warn(&mut self, s: impl Into<String>) {
        self.blocks.push(Block::Warning(s.into()));
    }
    pub(super) fn check(&mut self, c: checkpoint::Checkpoint) {
        self.blocks.push(Block::Checkpoint(c));
    }

    /// The lesson's checkpoints, in order.
    pub fn checkpoints(&self) -> impl Iterator<Item = &checkpoint::Checkpoint> {
        self.blocks.iter().filter_map(|b| match b {
            Block::Checkpoint(c) => Some(c),
            _ => None,
        })
    }

    pub(super) fn table(&mut self, caption: &str, header: &[&str], rows: Vec<Vec<String>>) {
        self.blocks.push(Block::Table {
            caption: caption.to_string(),
            header: header.iter().map(|h| h.to_string()).collect(),
            rows,
        });
    }

    /// The lesson as plain text (for the CLI).
    pub fn to_text(&self) -> String {
        let mut out = format!("{}\n{}\n", self.title, "=".repeat(self.title.chars().count()));
        for b in &self.blocks {
            match b {
                Block::Heading(h) => out.push_str(&format!("\n{h}\n{}\n", "-".repeat(h.chars().count()))),
                Block::Text(t) => out.push_str(&format!("{t}\n")),
                Block::Warning(w) => out.push_str(&format!("! {w}\n")),
                Block::Table { caption, header, rows } => {
                    out.push_str(&format!("{caption}\n"));
                    let cols = header.len();
                    let width = |c: usize| {
                        rows.iter()
                            .filter_map(|r| r.get(c))
                            .chain(std::iter::once(&header[c]))
                            .map(|s| s.chars().count())
                            .max()
                            .unwrap_or(0)
                    };
                    let widths: Vec<usize> = (0..cols).map(width).collect();
                    let line = |cells: &[String]| {
                        cells
                            .iter()
                            .enumerate()
                            .map(|(i, c)| format!("{c:<w$}", w = widths.get(i).copied().unwrap_or(0)))
                            .collect::<Vec<_>>()
                            .join("  ")
                    };
                    out.push_str(&format!("  {}\n", line(header).trim_end()));
                    for r in rows {
                        out.push_str(&format!("  {}\n", line(r).trim_end()));
                    }
                }
                Block::Checkpoint(c) => {
                    out.push_str(&format!("\n? [{}] {} ({})\n", c.question.id, c.question.prompt, c.tolerance_text()));
                    if !c.question.options.is_empty() {
                        out.push_str(&format!("  options: {}\n", c.question.options.join(", ")));
                    }
                    out.push_str(&format!("  answer: {}\n", c.solution.answer.to_text()));
                    for s in &c.solution.steps {
                        out.push_str(&format!("    {s}\n"));
                    }
                }
                Block::Curves { caption, series, markers, .. } => {
                    out.push_str(&format!("{caption}\n"));
                    for (name, pts) in series {
                        let sample: Vec<String> = pts
                            .iter()
                            .step_by((pts.len() / 6).max(1))
                            .map(|p| format!("({:.0}, {:.3})", p[0], p[1]))
                            .collect();
                        out.push_str(&format!("  {name}: {}\n", sample.join(" ")));
                    }
                    for (label, p) in markers {
                        out.push_str(&format!("  marked: {label} at ({:.0}, {:.3})\n", p[0], p[1]));
                    }
                }
            }
        }
        out
    }
}
