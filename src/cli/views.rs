//! Result pieces several commands print: a ranked passage, an explanation under it, SQL rows and
//! graph bindings.

use std::fmt::Write;

use serde::Serialize;

use super::table::Table;
use crate::corpus::Corpus;
use crate::retrieve::{Detail, Explanation, Ranking};
use crate::structured::{GraphResult, SqlResult};

/// A hit as printed: external id, title and, when asked, the explanation.
#[derive(Debug, Serialize)]
pub struct HitView {
    /// 1-based rank.
    pub rank: usize,
    /// External id.
    pub id: String,
    /// Score.
    pub score: f64,
    /// Title, or the text when there is no title.
    pub title: String,
    /// Why it scored what it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explanation: Option<Explanation>,
    /// The parts its score is made of, the same for every method (from the explanation).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub split: Option<SplitView>,
}

/// How a score is made of its parts, as printed: a sum of named parts, a Boolean clause tree
/// that holds or not, or no split and why.
#[derive(Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SplitView {
    /// The score is the sum of the parts.
    Sum {
        /// Each part: what it is (a term, a token, a method) and its value.
        parts: Vec<PartView>,
    },
    /// The score is 1 when the query's clause tree holds.
    Clauses {
        /// Whether it holds.
        holds: Option<bool>,
    },
    /// The score has no parts.
    Unsplit {
        /// Why.
        why: String,
    },
}

/// One part of a score.
#[derive(Debug, Serialize)]
pub struct PartView {
    /// The term, token or method.
    pub name: String,
    /// Its share of the score.
    pub value: f64,
}

impl From<&Explanation> for SplitView {
    fn from(e: &Explanation) -> Self {
        match e.split() {
            crate::retrieve::ScoreSplit::Sum(parts) => {
                SplitView::Sum { parts: parts.into_iter().map(|(name, value)| PartView { name, value }).collect() }
            }
            crate::retrieve::ScoreSplit::Clauses(tree) => SplitView::Clauses { holds: tree.evaluate() },
            crate::retrieve::ScoreSplit::Unsplit(why) => SplitView::Unsplit { why },
        }
    }
}

/// The hits of a ranking, each explained by `explain` when given.
pub fn hit_views(
    corpus: &Corpus,
    ranking: &Ranking,
    explain: Option<&dyn Fn(crate::corpus::DocId) -> crate::Result<Explanation>>,
) -> anyhow::Result<Vec<HitView>> {
    ranking
        .hits
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let doc = corpus.doc(h.doc);
            Ok(HitView {
                rank: i + 1,
                id: corpus.external_id(h.doc).to_string(),
                score: h.score,
                title: doc
                    .map(|d| if d.title.is_empty() { d.text.clone() } else { d.title.clone() })
                    .unwrap_or_default(),
                explanation: None,
                split: None,
            }
            .explained(explain.map(|f| f(h.doc)).transpose()?))
        })
        .collect()
}

impl HitView {
    fn explained(mut self, e: Option<Explanation>) -> Self {
        self.split = e.as_ref().map(SplitView::from);
        self.explanation = e;
        self
    }
}

/// One line: whitespace collapsed, cut at `n` characters.
pub fn truncate(s: &str, n: usize) -> String {
    let flat = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= n { flat } else { format!("{}…", flat.chars().take(n - 1).collect::<String>()) }
}

/// An explanation's formula, summary and term table under a result.
pub fn explanation_text(e: &Explanation, out: &mut String) {
    let _ = writeln!(out, "      {}", e.formula);
    let _ = writeln!(out, "      {}", e.summary);
    if let Detail::Terms(t) = &e.detail {
        let mut table = Table::new(
            ["term", "qtf", "tf", "df", "idf", "|d|", "avgdl", "k1", "b", "tf weight", "contribution"]
                .map(String::from)
                .to_vec(),
            1,
        );
        for r in &t.rows {
            table.row(vec![
                r.term.clone(),
                r.qtf.to_string(),
                r.tf.to_string(),
                r.df.to_string(),
                format!("{:.4}", r.idf),
                r.dl_text(),
                format!("{:.2}", r.avgdl),
                r.k1.map(|v| v.to_string()).unwrap_or_else(|| "—".into()),
                r.b.map(|v| v.to_string()).unwrap_or_else(|| "—".into()),
                format!("{:.4}", r.tf_weight),
                format!("{:.4}", r.contribution),
            ]);
        }
        for line in table.render().lines() {
            let _ = writeln!(out, "      {line}");
        }
        let _ = writeln!(out, "      N = {}, Σ contributions = {:.4}", t.n, e.value);
    }
    if let Detail::Clauses { clauses, .. } = &e.detail {
        for c in clauses {
            let _ = writeln!(out, "      {} {}", if c.satisfied { "✓" } else { "✗" }, c.clause);
        }
    }
}

/// SQL rows as text.
pub fn rows_text(r: &SqlResult, out: &mut String) {
    let _ = writeln!(out, "SQL (rows, not a ranking): {}", r.sql);
    if !r.conditions.is_empty() {
        let _ = writeln!(out, "  conditions: {}", r.conditions.join("  AND  "));
    }
    let mut t = Table::new(r.columns.clone(), 99);
    for row in &r.rows {
        t.row(row.iter().map(ToString::to_string).collect());
    }
    for line in t.render().lines() {
        let _ = writeln!(out, "  {line}");
    }
    let _ = writeln!(out, "  {} row(s){}", r.rows.len(), if r.truncated { " (cut at the row cap)" } else { "" });
}

/// Graph bindings as text.
pub fn bindings_text(b: &GraphResult, out: &mut String) {
    let _ = writeln!(out, "Graph: {}", b.pattern);
    for g in &b.matches {
        let vars: Vec<String> = g.bindings.iter().map(|(k, v)| format!("{k} = {v}")).collect();
        let path: Vec<String> = g.path.iter().map(|f| format!("{f} [{}]", f.passages.join(", "))).collect();
        let _ = writeln!(out, "  {}   via {}", vars.join(", "), path.join(" → "));
    }
    if b.matches.is_empty() {
        let _ = writeln!(out, "  no bindings");
    }
    let _ = writeln!(out, "  {}", b.note);
}
