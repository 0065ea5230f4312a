//! A lexical score's terms: one row per query term with its statistics and contribution, and the
//! formula of a row written out with its numbers.

use serde::{Deserialize, Serialize};

use crate::formula::{LexicalModel, TfIdfVariant};

/// One query term's part of a lexical score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TermRow {
    /// The analysed term.
    pub term: String,
    /// Occurrences in the query.
    pub qtf: u32,
    /// Occurrences in the document.
    pub tf: u32,
    /// Documents containing the term (n).
    pub df: u64,
    /// The term's inverse document frequency under this formula.
    pub idf: f64,
    /// Document length |d| in tokens (as this formula sees it).
    pub dl: f64,
    /// The exact length, where the formula reads another (Lucene's one-byte length norm).
    #[serde(default)]
    pub exact_dl: Option<f64>,
    /// Average document length.
    pub avgdl: f64,
    /// k1 (BM25 only).
    pub k1: Option<f64>,
    /// b (BM25 only).
    pub b: Option<f64>,
    /// The term-frequency factor (BM25's saturation, tf-idf's tf weight).
    pub tf_weight: f64,
    /// The normaliser the product is divided by (cosine norms), when there is one.
    pub norm: Option<f64>,
    /// This term's share of the score.
    pub contribution: f64,
}

impl TermRow {
    /// |d| as the formula reads it, with the exact length beside it where the two differ
    /// (Lucene's one-byte length norm): `112 (exact 118)`.
    pub fn dl_text(&self) -> String {
        match self.exact_dl {
            Some(exact) if exact != self.dl => format!("{} (exact {exact})", self.dl),
            _ => format!("{}", self.dl),
        }
    }
}

/// The lexical facts of an explanation: collection statistics and one row per query term.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TermTable {
    /// Documents in the collection (N).
    pub n: u64,
    /// Average document length.
    pub avgdl: f64,
    /// Rows in query-term order.
    pub rows: Vec<TermRow>,
    /// The formula that produced the rows.
    #[serde(default)]
    pub model: Option<super::LexicalModel>,
    /// Okapi's mean raw idf over the vocabulary (its floor for negative idf is ε times this).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub okapi_mean_idf: Option<f64>,
}

impl TermTable {
    /// The formula of one row written out with its numbers, line by line — what the formula card
    /// shows and what a student can check on paper. Every line is written by the formula module
    /// from the same functions that scored the row.
    pub fn worked(&self, row: &TermRow) -> Vec<String> {
        let (n, df, tf, qtf) = (self.n, row.df, row.tf, row.qtf);
        match self.model {
            Some(LexicalModel::Bm25 { variant, params }) => {
                let mut lines = vec![
                    variant.worked_idf(n, df, &params, self.okapi_mean_idf.unwrap_or(0.0)),
                    format!("weight = {}", variant.worked_tf_weight(tf, row.dl, row.avgdl, &params)),
                    format!(
                        "contribution = qtf × idf × weight = {qtf} × {:.4} × {:.4} = {:.4}",
                        row.idf, row.tf_weight, row.contribution
                    ),
                ];
                if let Some(exact) = row.exact_dl.filter(|_| !params.exact_lengths) {
                    lines.push(format!(
                        "as Lucene computes it: |d| = {exact} tokens kept in one byte, read back as {}; in float32, \
                         w = qtf·idf, contribution = w − w/(1 + tf/(k1·(1 − b + b·|d|/avgdl)))",
                        row.dl
                    ));
                }
                lines
            }
            Some(LexicalModel::TfIdf { variant: TfIdfVariant::CosineLog2, .. }) => vec![
                TfIdfVariant::CosineLog2.worked_idf(n, df),
                format!("w(t,d) = tf·idf = {tf} × {:.4} = {:.4}", row.idf, f64::from(tf) * row.idf),
                format!("w(t,q) = qtf·idf = {qtf} × {:.4} = {:.4}", row.idf, f64::from(qtf) * row.idf),
                format!(
                    "contribution = w(t,q)·w(t,d)/(|q|·|d|) = ({:.4} × {:.4}) / {:.4} = {:.4}",
                    f64::from(qtf) * row.idf,
                    f64::from(tf) * row.idf,
                    row.norm.unwrap_or(0.0),
                    row.contribution
                ),
            ],
            Some(LexicalModel::TfIdf { variant: TfIdfVariant::Textbook, normalize }) => {
                let norm =
                    if normalize { format!(" / |d| = … / {:.4}", row.norm.unwrap_or(0.0)) } else { String::new() };
                vec![
                    TfIdfVariant::Textbook.worked_idf(n, df),
                    format!("tf weight = log10(tf + 1) = log10({tf} + 1) = {:.4}", row.tf_weight),
                    format!("contribution = qtf × tf weight × idf{norm} = {:.4}", row.contribution),
                ]
            }
            None => vec![format!("contribution = {:.4}", row.contribution)],
        }
    }
}
