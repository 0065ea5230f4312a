//! Runs: ranked lists per query, readable and writable in TREC format.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::{Error, Result};

/// Query id → (document id, score) in the order the system ranked them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Run {
    /// The tag written in the sixth TREC column.
    pub tag: String,
    /// The ranked lists.
    pub results: BTreeMap<String, Vec<(String, f64)>>,
}

impl Run {
    /// An empty run with a tag.
    pub fn new(tag: impl Into<String>) -> Self {
        Self { tag: tag.into(), results: BTreeMap::new() }
    }

    /// Set the ranked list of one query.
    pub fn insert(&mut self, qid: impl Into<String>, ranked: Vec<(String, f64)>) {
        self.results.insert(qid.into(), ranked);
    }

    /// TREC format: `qid Q0 docid rank score tag`, ranks from 1. Scores are written in full
    /// (shortest round-trip form), so trec_eval sees the very ties RankLens saw; the tag has its
    /// spaces and punctuation replaced, since TREC columns are separated by whitespace.
    pub fn to_trec(&self) -> String {
        let mut out = String::new();
        // Each run of other characters becomes one underscore: "BM25 (lucene, k1=0.9)" → "BM25_lucene_k1_0.9".
        let mut tag = String::new();
        for c in self.tag.chars() {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                tag.push(c);
            } else if !tag.is_empty() && !tag.ends_with('_') {
                tag.push('_');
            }
        }
        let tag = tag.trim_end_matches('_');
        let tag = if tag.is_empty() { "ranklens" } else { tag };
        for (q, docs) in &self.results {
            for (i, (d, s)) in docs.iter().enumerate() {
                out.push_str(&format!("{q} Q0 {d} {} {s} {tag}\n", i + 1));
            }
        }
        out
    }

    /// Write TREC format to a file (atomically: all of it or, on an error, nothing new).
    pub fn write_trec(&self, path: &Path) -> Result<()> {
        crate::fsutil::write_atomic(path, self.to_trec())
    }

    /// Parse a TREC run; a malformed line is an error naming it, since a partial run would give
    /// silently wrong metrics.
    pub fn parse_trec(text: &str, source: &str) -> Result<Run> {
        let mut run = Run::default();
        for (i, line) in text.lines().enumerate() {
            let f: Vec<&str> = line.split_whitespace().collect();
            if f.is_empty() {
                continue;
            }
            let [q, _, d, _rank, score, tag] = f.as_slice() else {
                return Err(Error::invalid(format!("{source}:{}", i + 1), "expected `qid Q0 docid rank score tag`"));
            };
            let score: f64 = score.parse().map_err(|_| {
                Error::invalid(format!("{source}:{}", i + 1), format!("score {score:?} is not a number"))
            })?;
            run.tag = tag.to_string();
            run.results.entry(q.to_string()).or_default().push((d.to_string(), score));
        }
        Ok(run)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trec_round_trip() {
        let mut r = Run::new("bm25");
        r.insert("1", vec![("a".into(), 2.5), ("b".into(), 0.1 + 0.2)]);
        let text = r.to_trec();
        assert_eq!(text, "1 Q0 a 1 2.5 bm25\n1 Q0 b 2 0.30000000000000004 bm25\n");
        assert_eq!(Run::parse_trec(&text, "r").expect("parses"), r);
        let spaced = Run { tag: "BM25 (lucene, k1=0.9)".into(), ..r };
        assert!(spaced.to_trec().ends_with(" BM25_lucene_k1_0.9\n"));
        let mut blank = Run::new(" ()");
        blank.insert("1", vec![("a".into(), 1.0)]);
        assert_eq!(blank.to_trec(), "1 Q0 a 1 1 ranklens\n");
        assert!(Run::parse_trec("1 Q0 a 1 x t\n", "r.txt").expect_err("bad").to_string().contains("r.txt:1"));
    }
}
