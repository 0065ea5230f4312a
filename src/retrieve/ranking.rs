//! What a method returns for a question: a `Ranking` of `Hit`s (best first, ties by ascending
//! `DocId`), the documents of a run the corpus does not hold (`AbsentHit`), and the top k.

use serde::{Deserialize, Serialize};

use super::MethodKind;
use crate::corpus::DocId;
use crate::topk::{key_doc, key_score, rank_key, smallest_keys};

/// One ranked document.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Hit {
    /// The document.
    pub doc: DocId,
    /// Its score under the method.
    pub score: f64,
}

/// What a method returned for a question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ranking {
    /// The method label with its variant (`BM25 (lucene)`).
    pub method: String,
    /// The method family.
    pub kind: MethodKind,
    /// Best first; ties broken by ascending DocId. For unranked sets (Boolean) ordered by DocId.
    pub hits: Vec<Hit>,
    /// Number of documents that matched at all (may exceed the list's length).
    pub total_matches: usize,
    /// True when the order carries no meaning (Boolean sets).
    pub unranked: bool,
    /// Documents an external run ranked that the corpus does not hold, at their ranks (they
    /// count in the ranks of the hits around them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub absent: Vec<AbsentHit>,
    /// Ranked over a first stage's candidates only, while the corpus is being encoded
    /// ([`ProvisionalRetriever`]); the label says so too.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub provisional: bool,
    /// What a reader should know about how the column ranked, said beside its name (a provisional
    /// column: over which first stage, and how far the encoding is).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The text a language model wrote for this column (a rewrite, a draft), shown with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generated: Option<ModelText>,
    /// The agent's whole run, for the Agent column (its trace view).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<Box<super::agent::AgentRun>>,
}

/// What a language model's text for a column is. Written as its name (`rewrite`, `draft`,
/// `reasoning`, `agent answer`), as reports always held it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum TextTask {
    /// The question rewritten (query rewriting).
    #[serde(rename = "rewrite")]
    Rewrite,
    /// A hypothetical answer to search with (HyDE).
    #[serde(rename = "draft")]
    Draft,
    /// Reasoning that expands the question.
    #[serde(rename = "reasoning")]
    Reasoning,
    /// The agent's answer.
    #[serde(rename = "agent answer")]
    AgentAnswer,
}

impl TextTask {
    /// `rewrite`, `draft`, `reasoning` or `agent answer`.
    pub fn name(self) -> &'static str {
        match self {
            TextTask::Rewrite => "rewrite",
            TextTask::Draft => "draft",
            TextTask::Reasoning => "reasoning",
            TextTask::AgentAnswer => "agent answer",
        }
    }
}

impl std::fmt::Display for TextTask {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A text a language model wrote for a column, with what wrote it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelText {
    /// What the text is.
    pub task: TextTask,
    /// The text.
    pub text: String,
    /// The model that wrote it (its label).
    pub model: String,
    /// What to know about the model's text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caveat: Option<String>,
}

/// A document a run ranked that the corpus does not hold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AbsentHit {
    /// Its rank in the run's list (1-based).
    pub rank: usize,
    /// Its id in the run.
    pub id: String,
    /// Its score in the run.
    pub score: f64,
}

/// One place of a ranked list.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Entry<'a> {
    /// A passage of the corpus.
    Hit(&'a Hit),
    /// A document the corpus does not hold.
    Absent(&'a AbsentHit),
}

impl Ranking {
    /// The places of the list in rank order, with their 1-based ranks.
    pub fn entries(&self) -> Vec<(usize, Entry<'_>)> {
        let mut out = Vec::with_capacity(self.hits.len() + self.absent.len());
        let (mut hits, mut absent) = (self.hits.iter().peekable(), self.absent.iter().peekable());
        let mut rank = 1;
        loop {
            let entry = match (absent.peek(), hits.peek()) {
                (Some(a), _) if a.rank <= rank => absent.next().map(Entry::Absent),
                (_, Some(_)) => hits.next().map(Entry::Hit),
                (Some(_), None) => absent.next().map(Entry::Absent),
                (None, None) => None,
            };
            let Some(entry) = entry else { break };
            out.push((rank, entry));
            rank += 1;
        }
        out
    }

    /// The first `k` places of another system's list, in its order: documents of the corpus
    /// become hits, the others stay at their ranks as [`AbsentHit`]s. `total` is the list's length.
    pub fn of_list(
        method: String,
        kind: MethodKind,
        list: impl IntoIterator<Item = (Option<DocId>, String, f64)>,
        k: usize,
        total: usize,
    ) -> Ranking {
        let (mut hits, mut absent) = (Vec::new(), Vec::new());
        for (i, (doc, id, score)) in list.into_iter().take(k).enumerate() {
            match doc {
                Some(doc) => hits.push(Hit { doc, score }),
                None => absent.push(AbsentHit { rank: i + 1, id, score }),
            }
        }
        Ranking {
            method,
            kind,
            hits,
            total_matches: total,
            unranked: false,
            absent,
            provisional: false,
            note: None,
            generated: None,
            agent: None,
        }
    }

    /// Rank (1-based) of a document in this list.
    pub fn rank_of(&self, doc: DocId) -> Option<usize> {
        if self.absent.is_empty() {
            return self.hits.iter().position(|h| h.doc == doc).map(|i| i + 1);
        }
        self.entries().into_iter().find_map(|(r, e)| matches!(e, Entry::Hit(h) if h.doc == doc).then_some(r))
    }

    /// The documents in order.
    pub fn docs(&self) -> Vec<DocId> {
        self.hits.iter().map(|h| h.doc).collect()
    }

    /// The list as ranked, by external id with scores — a run's documents the corpus does not
    /// hold included: what metrics are computed on.
    pub fn ids_and_scores(&self, corpus: &crate::corpus::Corpus) -> Vec<(String, f64)> {
        self.entries()
            .into_iter()
            .map(|(_, e)| match e {
                Entry::Hit(h) => (corpus.external_id(h.doc).to_string(), h.score),
                Entry::Absent(a) => (a.id.clone(), a.score),
            })
            .collect()
    }
}

impl Ranking {
    /// The k best of the candidates' keys (see [`rank_key`]); every candidate counts as a match.
    pub fn from_keys(method: String, kind: MethodKind, keys: Vec<u128>, k: usize) -> Ranking {
        let total_matches = keys.len();
        let hits =
            smallest_keys(keys, k).into_iter().map(|key| Hit { doc: key_doc(key), score: key_score(key) }).collect();
        Ranking {
            method,
            kind,
            hits,
            total_matches,
            unranked: false,
            absent: Vec::new(),
            provisional: false,
            note: None,
            generated: None,
            agent: None,
        }
    }

    /// The k best (score desc, DocId asc) of scored candidates.
    pub fn top(method: String, kind: MethodKind, scored: impl IntoIterator<Item = (DocId, f64)>, k: usize) -> Ranking {
        Ranking::from_keys(method, kind, scored.into_iter().map(|(d, s)| rank_key(s, d)).collect(), k)
    }
}

/// Keep the k best (score desc, DocId asc) of scored candidates, sorted.
pub fn top_k(scored: Vec<Hit>, k: usize) -> Vec<Hit> {
    Ranking::top(String::new(), MethodKind::Bm25, scored.into_iter().map(|h| (h.doc, h.score)), k).hits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_model_texts_task_is_written_as_its_name_and_read_back() {
        for (task, name) in [
            (TextTask::Rewrite, "rewrite"),
            (TextTask::Draft, "draft"),
            (TextTask::Reasoning, "reasoning"),
            (TextTask::AgentAnswer, "agent answer"),
        ] {
            assert_eq!(task.to_string(), name);
            let written = serde_json::to_string(&task).unwrap_or_default();
            assert_eq!(written, format!("\"{name}\""));
            assert_eq!(serde_json::from_str::<TextTask>(&written).ok(), Some(task));
        }
    }
    use crate::formula::fmt_param;

    fn hit(d: u32, s: f64) -> Hit {
        Hit { doc: DocId(d), score: s }
    }

    #[test]
    fn params_print_short() {
        assert_eq!(fmt_param(1.2000000000000002), "1.2");
        assert_eq!(fmt_param(0.75), "0.75");
        assert_eq!(fmt_param(60.0), "60");
        assert_eq!(fmt_param(0.0), "0");
    }

    #[test]
    fn both_selection_paths_agree_with_a_full_sort() {
        let mut seed = 7u64;
        let keys: Vec<u128> = (0..500)
            .map(|i| {
                seed = crate::lcg::lcg(seed);
                rank_key(((seed >> 40) % 50) as f64, DocId(i))
            })
            .collect();
        let mut sorted = keys.clone();
        sorted.sort_unstable();
        for k in [1, 10, 64, 100, 499, 500, 600] {
            assert_eq!(smallest_keys(keys.clone(), k), sorted[..k.min(500)].to_vec(), "k={k}");
        }
    }

    #[test]
    fn rank_key_orders_negative_zero_and_positive_scores() {
        let hits = vec![hit(5, -1.5), hit(2, 0.0), hit(1, 3.0), hit(0, -0.0), hit(3, 3.0)];
        let top = top_k(hits, 5);
        assert_eq!(top.iter().map(|h| h.doc.0).collect::<Vec<_>>(), [1, 3, 2, 0, 5]);
        assert_eq!(top[4].score, -1.5);
    }

    #[test]
    fn a_key_gives_back_its_score_and_document_bit_for_bit() {
        let scores = [
            0.0,
            -0.0,
            1.5,
            -1.5,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
            5e-324,
            f64::MAX,
            f64::INFINITY,
            -f64::INFINITY,
        ];
        for (i, s) in scores.into_iter().enumerate() {
            let key = rank_key(s, DocId(i as u32 * 7919));
            assert_eq!(key_score(key).to_bits(), s.to_bits(), "{s}");
            assert_eq!(key_doc(key), DocId(i as u32 * 7919));
        }
    }

    #[test]
    fn entries_put_absent_documents_at_their_ranks() {
        let r = Ranking {
            method: "run".into(),
            kind: MethodKind::Run,
            hits: vec![hit(7, 3.0), hit(2, 1.0)],
            total_matches: 4,
            unranked: false,
            absent: vec![
                AbsentHit { rank: 2, id: "x".into(), score: 2.0 },
                AbsentHit { rank: 4, id: "y".into(), score: 0.5 },
            ],
            provisional: false,
            note: None,
            generated: None,
            agent: None,
        };
        let e = r.entries();
        let ranks: Vec<(usize, bool)> = e.iter().map(|(r, e)| (*r, matches!(e, Entry::Hit(_)))).collect();
        assert_eq!(ranks, [(1, true), (2, false), (3, true), (4, false)]);
        assert_eq!((r.rank_of(DocId(7)), r.rank_of(DocId(2)), r.rank_of(DocId(9))), (Some(1), Some(3), None));
    }

    #[test]
    fn top_k_orders_by_score_then_doc() {
        let hits = vec![hit(3, 1.0), hit(1, 2.0), hit(2, 1.0), hit(0, 1.0), hit(4, 0.5)];
        let top = top_k(hits.clone(), 3);
        assert_eq!(top.iter().map(|h| h.doc.0).collect::<Vec<_>>(), [1, 0, 2]);
        assert_eq!(top_k(hits.clone(), 10).len(), 5);
        assert!(top_k(hits, 0).is_empty());
    }
}
