//! Runs: ranked lists per query, readable and writable in TREC format.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::corpus::{IdFormat, check_id};
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
    /// spaces and punctuation replaced, since TREC columns are separated by whitespace. An id that
    /// a whitespace-separated line cannot carry (one holding a space) is refused with the id
    /// named: [`Run::to_tsv`] carries it.
    pub fn to_trec(&self) -> Result<String> {
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
            check_id(q, "query", IdFormat::Trec)?;
            for (i, (d, s)) in docs.iter().enumerate() {
                check_id(d, "document", IdFormat::Trec)?;
                out.push_str(&format!("{q} Q0 {d} {} {s} {tag}\n", i + 1));
            }
        }
        Ok(out)
    }

    /// Tab-separated with a header (`query-id`, `corpus-id`, `score`, `rank`): ids may hold
    /// spaces. Refuses an id with a tab or a line break in it, or white space at either end.
    pub fn to_tsv(&self) -> Result<String> {
        let mut out = String::from("query-id\tcorpus-id\tscore\trank\n");
        for (q, docs) in &self.results {
            check_id(q, "query", IdFormat::Tsv)?;
            for (i, (d, s)) in docs.iter().enumerate() {
                check_id(d, "document", IdFormat::Tsv)?;
                out.push_str(&format!("{q}\t{d}\t{s}\t{}\n", i + 1));
            }
        }
        Ok(out)
    }

    /// Write TREC format to a file (atomically: all of it or, on an error, nothing new).
    pub fn write_trec(&self, path: &Path) -> Result<()> {
        crate::fsutil::write_atomic(path, self.to_trec()?)
    }

    /// Write the run into `dir` as `<stem>.trec`, or as `<stem>.tsv` when an id holds a space
    /// (which a TREC line cannot carry); returns the path written.
    pub fn write_into(&self, dir: &Path, stem: &str) -> Result<std::path::PathBuf> {
        match self.to_trec() {
            Ok(text) => {
                let path = dir.join(format!("{stem}.trec"));
                crate::fsutil::write_atomic(&path, text)?;
                Ok(path)
            }
            Err(_) => {
                let path = dir.join(format!("{stem}.tsv"));
                crate::fsutil::write_atomic(&path, self.to_tsv()?)?;
                Ok(path)
            }
        }
    }

    /// Parse a TREC run; a malformed line is an error naming it, since a partial run would give
    /// silently wrong metrics. (Other systems' run files, in any of their formats, are read by
    /// [`crate::eval::RunFile`].)
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
        let text = r.to_trec().unwrap();
        assert_eq!(text, "1 Q0 a 1 2.5 bm25\n1 Q0 b 2 0.30000000000000004 bm25\n");
        assert_eq!(Run::parse_trec(&text, "r").expect("parses"), r);
        let spaced = Run { tag: "BM25 (lucene, k1=0.9)".into(), ..r };
        assert!(spaced.to_trec().unwrap().ends_with(" BM25_lucene_k1_0.9\n"));
        let mut blank = Run::new(" ()");
        blank.insert("1", vec![("a".into(), 1.0)]);
        assert_eq!(blank.to_trec().unwrap(), "1 Q0 a 1 1 ranklens\n");
        assert!(Run::parse_trec("1 Q0 a 1 x t\n", "r.txt").expect_err("bad").to_string().contains("r.txt:1"));
    }

    #[test]
    fn an_id_a_line_cannot_carry_is_refused_with_the_id_named() {
        let mut r = Run::new("x");
        r.insert("q 1", vec![("doc one".into(), 1.0)]);
        let e = r.to_trec().unwrap_err().to_string();
        assert!(e.contains("query id \"q 1\"") && e.contains("white space"), "{e}");
        assert_eq!(r.to_tsv().unwrap(), "query-id\tcorpus-id\tscore\trank\nq 1\tdoc one\t1\t1\n");
        let mut tab = Run::new("x");
        tab.insert("q", vec![("a\tb".into(), 1.0)]);
        let e = tab.to_tsv().unwrap_err().to_string();
        assert!(e.contains("document id \"a\\tb\"") && e.contains("tab"), "{e}");
        let mut padded = Run::new("x");
        padded.insert("q", vec![(" a".into(), 1.0)]);
        assert!(padded.to_tsv().unwrap_err().to_string().contains("ends with white space"));
        let mut empty = Run::new("x");
        empty.insert("", vec![("a".into(), 1.0)]);
        assert!(empty.to_trec().unwrap_err().to_string().contains("is empty"));
        // A run with spaced ids goes to TSV on its own.
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(r.write_into(dir.path(), "m").unwrap(), dir.path().join("m.tsv"));
        let mut plain = Run::new("x");
        plain.insert("q", vec![("a".into(), 1.0)]);
        assert_eq!(plain.write_into(dir.path(), "p").unwrap(), dir.path().join("p.trec"));
    }
}
