//! Relevance judgements.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{IdFormat, LoadWarning, check_id};
use crate::{Error, Result};

/// Graded judgements: query id → document id → grade (0 = judged not relevant).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Qrels {
    /// The judgements, sorted for stable output.
    pub judgements: BTreeMap<String, BTreeMap<String, i32>>,
}

impl Qrels {
    /// Load BEIR TSV (`query-id<TAB>corpus-id<TAB>score`, header optional) or TREC
    /// (`qid iter docid rel`). A line with a tab is split on tabs only, so its ids may hold
    /// spaces; other lines on white space. Bad lines become warnings naming file and line.
    pub fn load(path: &Path) -> Result<(Qrels, Vec<LoadWarning>)> {
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        let text = String::from_utf8_lossy(&bytes);
        Ok(Self::parse(&text, path))
    }

    /// Parse qrels text; `path` only names the source in warnings. A document judged twice for
    /// one query is reported; the later grade is kept (as `trec_eval` does).
    pub fn parse(text: &str, path: &Path) -> (Qrels, Vec<LoadWarning>) {
        let mut qrels = Qrels::default();
        let mut warnings = Vec::new();
        let mut first_line = std::collections::HashMap::new();
        for (i, line) in text.lines().enumerate() {
            let n = i + 1;
            let fields: Vec<&str> = if line.contains('\t') {
                line.split('\t').map(str::trim).collect()
            } else {
                line.split_whitespace().collect()
            };
            if fields.iter().all(|f| f.is_empty()) {
                continue;
            }
            let (qid, docid, grade) = match fields.as_slice() {
                [q, d, g] => (q, d, g),
                [q, _iter, d, g] => (q, d, g),
                _ => {
                    warnings.push(LoadWarning {
                        file: path.to_path_buf(),
                        line: Some(n),
                        message: format!("expected 3 (BEIR) or 4 (TREC) fields, found {}; skipped", fields.len()),
                    });
                    continue;
                }
            };
            let Ok(grade) = grade.parse::<i32>() else {
                if n > 1 || !matches!(*qid, "query-id" | "qid" | "query_id") {
                    warnings.push(LoadWarning {
                        file: path.to_path_buf(),
                        line: Some(n),
                        message: format!("grade {grade:?} is not an integer; skipped"),
                    });
                }
                continue;
            };
            match first_line.insert((qid.to_string(), docid.to_string()), n) {
                Some(earlier) if qrels.grade(qid, docid) != Some(grade) => warnings.push(LoadWarning {
                    file: path.to_path_buf(),
                    line: Some(n),
                    message: format!(
                        "{docid:?} is judged again for query {qid:?} (first on line {earlier}) with another grade; \
                         this later grade {grade} is kept"
                    ),
                }),
                Some(earlier) => warnings.push(LoadWarning {
                    file: path.to_path_buf(),
                    line: Some(n),
                    message: format!("{docid:?} is judged again for query {qid:?} (first on line {earlier}); ignored"),
                }),
                None => {}
            }
            qrels.insert(qid, docid, grade);
        }
        (qrels, warnings)
    }

    /// Set one judgement (replacing any earlier grade).
    pub fn insert(&mut self, qid: &str, docid: &str, grade: i32) {
        self.judgements.entry(qid.to_string()).or_default().insert(docid.to_string(), grade);
    }

    /// Remove one judgement.
    pub fn remove(&mut self, qid: &str, docid: &str) {
        if let Some(q) = self.judgements.get_mut(qid) {
            q.remove(docid);
            if q.is_empty() {
                self.judgements.remove(qid);
            }
        }
    }

    /// The grade of a document for a query, if judged.
    pub fn grade(&self, qid: &str, docid: &str) -> Option<i32> {
        self.judgements.get(qid).and_then(|q| q.get(docid)).copied()
    }

    /// Does the query have any judgement?
    pub fn judged(&self, qid: &str) -> bool {
        self.judgements.contains_key(qid)
    }

    /// Judgements of one query.
    pub fn for_query(&self, qid: &str) -> Option<&BTreeMap<String, i32>> {
        self.judgements.get(qid)
    }

    /// Number of relevant (grade ≥ 1) documents of a query.
    pub fn num_relevant(&self, qid: &str) -> usize {
        self.judgements.get(qid).map(|q| q.values().filter(|&&g| g >= 1).count()).unwrap_or(0)
    }

    /// TREC format: `qid 0 docid grade`, sorted by query then document. An id holding white
    /// space is refused, named ([`Qrels::to_tsv`] carries it).
    pub fn to_trec(&self) -> Result<String> {
        let mut out = String::new();
        for (q, docs) in &self.judgements {
            check_id(q, "query", IdFormat::Trec)?;
            for (d, g) in docs {
                check_id(d, "document", IdFormat::Trec)?;
                out.push_str(&format!("{q} 0 {d} {g}\n"));
            }
        }
        Ok(out)
    }

    /// BEIR's TSV: `query-id<TAB>corpus-id<TAB>score` with that header; ids may hold spaces.
    pub fn to_tsv(&self) -> Result<String> {
        let mut out = String::from(Self::TSV_HEADER);
        for (q, docs) in &self.judgements {
            check_id(q, "query", IdFormat::Tsv)?;
            for (d, g) in docs {
                out.push_str(&Self::tsv_line(q, d, *g)?);
            }
        }
        Ok(out)
    }

    /// The header line of BEIR's qrels TSV.
    pub const TSV_HEADER: &str = "query-id\tcorpus-id\tscore\n";

    /// One line of BEIR's qrels TSV, refusing an id the format cannot carry.
    pub fn tsv_line(query: &str, doc: &str, grade: i32) -> Result<String> {
        check_id(query, "query", IdFormat::Tsv)?;
        check_id(doc, "document", IdFormat::Tsv)?;
        Ok(format!("{query}\t{doc}\t{grade}\n"))
    }

    /// The judgements in the format a file name asks for: BEIR TSV for `.tsv`, else TREC.
    pub fn to_file_format(&self, path: &Path) -> Result<String> {
        if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("tsv")) { self.to_tsv() } else { self.to_trec() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_beir_and_trec_and_warns_on_bad_lines() {
        let (q, w) = Qrels::parse("query-id\tcorpus-id\tscore\n1\td1\t1\n1\td2\t0\n2\td3\tx\n", Path::new("q.tsv"));
        assert_eq!(q.grade("1", "d1"), Some(1));
        assert_eq!(q.num_relevant("1"), 1);
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].line, Some(4));
        let (t, w) = Qrels::parse("7 0 a 2\n7 0 b 1\nbroken\n", Path::new("q.trec"));
        assert_eq!(t.grade("7", "a"), Some(2));
        assert_eq!(w[0].line, Some(3));
    }

    #[test]
    fn tab_separated_ids_may_hold_spaces() {
        let (q, w) = Qrels::parse("query-id\tcorpus-id\tscore\nq 1\tdoc one\t1\r\nq 1\td2\t0\n", Path::new("q.tsv"));
        assert!(w.is_empty(), "{w:?}");
        assert_eq!((q.grade("q 1", "doc one"), q.grade("q 1", "d2")), (Some(1), Some(0)));
        let tsv = q.to_tsv().unwrap();
        assert_eq!(tsv, "query-id\tcorpus-id\tscore\nq 1\td2\t0\nq 1\tdoc one\t1\n");
        assert_eq!(Qrels::parse(&tsv, Path::new("x")).0, q);
        let e = q.to_trec().unwrap_err().to_string();
        assert!(e.contains("\"q 1\"") && e.contains("white space"), "{e}");
    }

    #[test]
    fn trec_export_round_trips() {
        let (q, _) = Qrels::parse("q2 0 z 3\nq1 0 b 0\nq1 0 a 1\n", Path::new("x"));
        let text = q.to_trec().unwrap();
        assert_eq!(text, "q1 0 a 1\nq1 0 b 0\nq2 0 z 3\n");
        let (again, w) = Qrels::parse(&text, Path::new("x"));
        assert!(w.is_empty());
        assert_eq!(again, q);
    }

    #[test]
    fn a_second_judgement_of_the_same_pair_is_reported() {
        let (q, w) = Qrels::parse("1 0 a 1\n1 0 b 2\n1 0 a 0\n1 0 b 2\n", Path::new("q.trec"));
        assert_eq!((q.grade("1", "a"), q.grade("1", "b")), (Some(0), Some(2)));
        assert_eq!(w.iter().map(|w| w.line).collect::<Vec<_>>(), [Some(3), Some(4)]);
        assert!(w[0].message.contains("first on line 1") && w[0].message.contains("grade 0 is kept"), "{}", w[0]);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::proptest_cases()))]

        /// Any text: no panic; each line is a judgement, blank, the header, or named in a warning.
        #[test]
        fn every_line_is_read_or_reported(lines in proptest::collection::vec(
            proptest::prop_oneof!["\\PC{0,30}", "[a-c] 0 [x-z] (-?[0-3]|x|1.5)", "[a-c]\t[x-z]\t[0-2]"], 0..30)
        ) {
            let text = lines.join("\n");
            let (q, w) = Qrels::parse(&text, Path::new("q"));
            let mut reported: Vec<usize> = w.iter().filter_map(|w| w.line).collect();
            reported.dedup();
            let mut pairs = std::collections::HashSet::new();
            for (i, line) in text.lines().enumerate() {
                let f: Vec<&str> = line.split_whitespace().collect();
                let judged = match f.as_slice() {
                    [qid, d, g] | [qid, _, d, g] => g.parse::<i32>().ok().map(|g| (qid.to_string(), d.to_string(), g)),
                    _ => None,
                };
                let header = i == 0 && matches!(f.first(), Some(&("query-id" | "qid" | "query_id"))) && judged.is_none();
                let ok = f.is_empty() || header || judged.as_ref().is_some_and(|(qid, d, _)| pairs.insert((qid.clone(), d.clone())));
                proptest::prop_assert_eq!(!ok, reported.contains(&(i + 1)), "line {}: {:?} {:?}", i + 1, line, w);
                if let Some((qid, d, _)) = judged {
                    proptest::prop_assert!(q.grade(&qid, &d).is_some());
                }
            }
        }

        /// Written in either format, judgements read back exactly; an id the format cannot carry
        /// is refused, named, and nothing half-written comes back.
        #[test]
        fn writers_round_trip_through_the_reader_or_refuse(
            judged in proptest::collection::vec(
                (proptest::prop_oneof!["[a-z0-9]{1,6}", "\\PC{1,6}", "[a-z]{1,3}[ \t][a-z]{1,3}", " [a-z]"],
                 proptest::prop_oneof!["[a-z0-9]{1,6}", "\\PC{1,6}", "[a-z]{1,3} [a-z]{1,3}", "\t"], -1i32..4),
                0..20),
            trec in proptest::prelude::any::<bool>(),
        ) {
            let mut q = Qrels::default();
            for (qid, doc, g) in &judged {
                q.insert(qid, doc, *g);
            }
            let format = if trec { IdFormat::Trec } else { IdFormat::Tsv };
            let writable = q.judgements.iter().all(|(qid, docs)| {
                check_id(qid, "query", format).is_ok() && docs.keys().all(|d| check_id(d, "document", format).is_ok())
            });
            match if trec { q.to_trec() } else { q.to_tsv() } {
                Ok(text) => {
                    proptest::prop_assert!(writable);
                    let (back, w) = Qrels::parse(&text, Path::new("q"));
                    proptest::prop_assert!(w.is_empty(), "{:?}", w);
                    proptest::prop_assert_eq!(back, q);
                }
                Err(e) => {
                    proptest::prop_assert!(!writable);
                    proptest::prop_assert!(e.to_string().contains(" id \""), "{}", e);
                }
            }
        }
    }
}
