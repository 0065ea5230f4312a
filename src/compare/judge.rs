//! Relevance judgements by a language model: a ranking's top k or a question set's pool judged
//! passage by passage with an editable prompt, and how far the model agrees with the people's
//! judgements. The model's judgements are their own record, named after the model: nothing here
//! merges them into anyone's grades.

use serde::{Deserialize, Serialize};

use crate::corpus::{Corpus, DocId, IdFormat, Qrels, check_id};
use crate::generate::tasks::{self, Agreement, JudgePrompt};
use crate::generate::{ChatRequest, Generator};
use crate::progress::Progress;
use crate::retrieve::{QueryContext, Retriever};
use crate::{Error, Result};

/// One passage to judge for one question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoolItem {
    /// The question's id.
    pub qid: String,
    /// The question.
    pub question: String,
    /// The passage.
    pub doc: DocId,
}

/// The corpus's questions that `people` judged, as (id, text) in the corpus's order; the first
/// `limit` of them when `limit` > 0.
pub fn judged_questions(corpus: &Corpus, people: &Qrels, limit: usize) -> Vec<(String, String)> {
    let judged = corpus.queries.iter().filter(|q| people.judged(&q.id)).map(|q| (q.id.clone(), q.text.clone()));
    if limit > 0 { judged.take(limit).collect() } else { judged.collect() }
}

/// The union of each ranking's top `k` for each question, in the order passages first appear
/// (question by question, then method by method, then rank).
pub fn pool(
    questions: &[(String, String)],
    retrievers: &[&dyn Retriever],
    context: &dyn Fn(&str) -> QueryContext,
    k: usize,
    progress: &dyn Progress,
) -> Result<Vec<PoolItem>> {
    let mut out = Vec::new();
    progress.stage("Pooling the top passages", questions.len() as u64);
    for (qid, text) in questions {
        crate::progress::check_cancel(progress)?;
        let ctx = context(text);
        let mut seen = std::collections::BTreeSet::new();
        for r in retrievers {
            for h in r.search(&ctx, k)?.hits {
                if seen.insert(h.doc) {
                    out.push(PoolItem { qid: qid.clone(), question: text.clone(), doc: h.doc });
                }
            }
        }
        progress.advance(1);
    }
    Ok(out)
}

/// What the model said about one passage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelJudgement {
    /// The question's id.
    pub qid: String,
    /// The passage's id.
    pub doc: String,
    /// The model's reply as written.
    pub reply: String,
    /// The reply read as a grade (1 relevant, 0 not); `None` when it was neither yes nor no.
    pub grade: Option<u8>,
    /// The people's grade when they judged the passage.
    pub people: Option<i32>,
}

/// A model's judgements of a pool, kept apart from the people's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelJudgements {
    /// The judge's name (what a qrels file's lines carry).
    #[serde(default)]
    pub name: String,
    /// The judge: model, size and where it ran.
    pub model: String,
    /// The prompt it was given.
    pub prompt: JudgePrompt,
    /// What was pooled ("bm25 top 10 of 3 questions").
    pub scope: String,
    /// Passages in the pool.
    pub pooled: usize,
    /// Each judgement, in pool order.
    pub judgements: Vec<ModelJudgement>,
}

impl ModelJudgements {
    /// Whether every pooled passage was judged (a stopped run keeps what it judged).
    pub fn finished(&self) -> bool {
        self.judgements.len() >= self.pooled
    }

    /// Agreement with the people over the readable replies; a passage the people never judged
    /// counts as not relevant (the convention of TREC and BEIR pools).
    pub fn agreement(&self) -> Agreement {
        tasks::agreement(self.judgements.iter().filter_map(|j| j.grade.map(|g| (g > 0, j.people.unwrap_or(0) > 0))))
    }

    /// Replies that were neither yes nor no.
    pub fn unreadable(&self) -> usize {
        self.judgements.iter().filter(|j| j.grade.is_none()).count()
    }

    /// Readable judgements of passages the people never judged.
    pub fn unjudged_by_people(&self) -> usize {
        self.judgements.iter().filter(|j| j.grade.is_some() && j.people.is_none()).count()
    }

    /// The model's readable judgements as qrels.
    pub fn qrels(&self) -> Qrels {
        let mut q = Qrels::default();
        for j in &self.judgements {
            if let Some(g) = j.grade {
                q.insert(&j.qid, &j.doc, i32::from(g));
            }
        }
        q
    }

    /// The judgements as a qrels file: TREC lines name the judge in their second column (the
    /// "iteration", which trec_eval and RankLens ignore); BEIR's TSV has no room for it, so its
    /// file name should say it.
    pub fn qrels_text(&self, tsv: bool) -> Result<String> {
        let q = self.qrels();
        if tsv {
            return q.to_tsv();
        }
        let mut out = String::new();
        for j in &self.judgements {
            if let Some(g) = j.grade {
                out.push_str(&trec_line(&j.qid, &j.doc, g, &self.name)?);
            }
        }
        Ok(out)
    }
}

/// The judge's name as one TREC column: each run of white space becomes `_`.
pub fn judge_tag(model: &str) -> String {
    model.split_whitespace().collect::<Vec<_>>().join("_")
}

/// One TREC qrels line naming the judge; ids a TREC line cannot carry are refused by name.
pub fn trec_line(qid: &str, doc: &str, grade: u8, model: &str) -> Result<String> {
    check_id(qid, "query", IdFormat::Trec)?;
    check_id(doc, "document", IdFormat::Trec)?;
    let tag = judge_tag(model);
    let tag = if tag.is_empty() { "model".to_string() } else { tag };
    Ok(format!("{qid} {tag} {doc} {grade}\n"))
}

/// Forwards only the cancel button to a generator (its own stages would replace the judging
/// bar's).
struct CancelOnly<'a>(&'a dyn Progress);

impl Progress for CancelOnly<'_> {
    fn stage(&self, _name: &str, _total: u64) {}
    fn advance(&self, _n: u64) {}
    fn is_cancelled(&self) -> bool {
        self.0.is_cancelled()
    }
}

/// The request that judges `item`.
pub fn request(prompt: &JudgePrompt, corpus: &Corpus, item: &PoolItem) -> Option<ChatRequest> {
    let d = corpus.doc(item.doc)?;
    Some(prompt.request(&item.question, &d.passage_text()))
}

/// Judge every pooled passage with `generator`, comparing each with `people`. `each` sees every
/// judgement as it is made (to show or save it at once). Stopping through `progress` keeps what
/// was judged: the result then has fewer judgements than `pooled`.
#[allow(clippy::too_many_arguments)]
pub fn judge(
    corpus: &Corpus,
    generator: &dyn Generator,
    prompt: &JudgePrompt,
    pool: &[PoolItem],
    people: &Qrels,
    scope: &str,
    progress: &dyn Progress,
    each: &mut dyn FnMut(&ModelJudgement) -> Result<()>,
) -> Result<ModelJudgements> {
    prompt.validate()?;
    let mut out = ModelJudgements {
        name: generator.info().model.clone(),
        model: generator.info().label(),
        prompt: prompt.clone(),
        scope: scope.to_string(),
        pooled: pool.len(),
        judgements: Vec::with_capacity(pool.len()),
    };
    progress.stage(&format!("Judging with {}", generator.info().model), pool.len() as u64);
    for item in pool {
        if progress.is_cancelled() {
            break;
        }
        let Some(d) = corpus.doc(item.doc) else { continue };
        let Some(req) = request(prompt, corpus, item) else { continue };
        let reply = match generator.chat(&req, &mut |_| {}, &CancelOnly(progress)) {
            Ok(r) => r,
            Err(Error::Cancelled) => break,
            Err(e) => return Err(e),
        };
        let j = ModelJudgement {
            qid: item.qid.clone(),
            doc: d.id.clone(),
            grade: tasks::read_judgement(&reply.text),
            reply: reply.text,
            people: people.grade(&item.qid, &d.id),
        };
        each(&j)?;
        out.judgements.push(j);
        progress.advance(1);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judged(grades: &[(Option<u8>, Option<i32>)]) -> ModelJudgements {
        ModelJudgements {
            name: "Tiny LM".into(),
            model: "Tiny LM (135M parameters, embedded)".into(),
            prompt: JudgePrompt::default(),
            scope: "bm25 top 2".into(),
            pooled: grades.len() + 1,
            judgements: grades
                .iter()
                .enumerate()
                .map(|(i, (g, p))| ModelJudgement {
                    qid: format!("q{}", i / 2),
                    doc: format!("d{i}"),
                    reply: format!("{g:?}"),
                    grade: *g,
                    people: *p,
                })
                .collect(),
        }
    }

    #[test]
    fn agreement_counts_readable_replies_and_unjudged_passages_as_not_relevant() {
        // model yes / people 2 → both; yes / unjudged → model only; no / 1 → people only;
        // no / 0 → neither; unreadable / 1 → left out.
        let m = judged(&[(Some(1), Some(2)), (Some(1), None), (Some(0), Some(1)), (Some(0), Some(0)), (None, Some(1))]);
        let a = m.agreement();
        assert_eq!((a.n, a.both, a.model_only, a.people_only, a.neither), (4, 1, 1, 1, 1));
        assert_eq!(m.unreadable(), 1);
        assert_eq!(m.unjudged_by_people(), 1);
        assert!(!m.finished());
        // κ of a 1/1/1/1 table: observed 0.5, chance 0.5 → 0.
        assert_eq!(a.kappa, Some(0.0));
        let q = m.qrels();
        assert_eq!(q.grade("q0", "d0"), Some(1));
        assert_eq!(q.grade("q1", "d2"), Some(0));
        assert_eq!(q.grade("q2", "d4"), None, "an unreadable reply is no grade");
    }

    #[test]
    fn the_trec_file_names_the_judge_on_every_line_and_reads_back() {
        let m = judged(&[(Some(1), Some(2)), (Some(0), None), (None, None)]);
        let text = m.qrels_text(false).unwrap();
        assert_eq!(text, "q0 Tiny_LM d0 1\nq0 Tiny_LM d1 0\n");
        let (back, warnings) = Qrels::parse(&text, std::path::Path::new("model.qrels"));
        assert!(warnings.is_empty());
        assert_eq!(back, m.qrels());
        let tsv = m.qrels_text(true).unwrap();
        assert_eq!(tsv, "query-id\tcorpus-id\tscore\nq0\td0\t1\nq0\td1\t0\n");
    }

    #[test]
    fn an_id_a_trec_line_cannot_carry_is_refused_by_name() {
        let e = trec_line("q 1", "d1", 1, "m").unwrap_err().to_string();
        assert!(e.contains("\"q 1\""), "{e}");
        assert!(trec_line("q1", "d\t1", 0, "m").is_err());
        assert_eq!(trec_line("q1", "d1", 0, "").unwrap(), "q1 model d1 0\n");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::proptest_cases()))]

        /// Any ids, replies and judge names: the TREC and TSV files either read back to the model's
        /// qrels, or are refused naming an id they cannot carry; never a broken line.
        #[test]
        fn the_model_qrels_read_back_or_name_the_id(
            rows in proptest::collection::vec(("\\PC{0,6}", "[ a-z0-9#\t\n-]{0,6}", proptest::option::of(0u8..2)), 0..8),
            name in "\\PC{0,12}",
        ) {
            let m = ModelJudgements {
                name,
                model: "m".into(),
                prompt: JudgePrompt::default(),
                scope: String::new(),
                pooled: rows.len(),
                judgements: rows
                    .iter()
                    .map(|(q, d, g)| ModelJudgement { qid: q.clone(), doc: d.clone(), reply: String::new(), grade: *g, people: None })
                    .collect(),
            };
            // Later lines win over earlier ones for the same pair, as in the qrels.
            for tsv in [false, true] {
                match m.qrels_text(tsv) {
                    Ok(text) => {
                        let path = std::path::Path::new(if tsv { "m.tsv" } else { "m.qrels" });
                        let (back, warnings) = Qrels::parse(&text, path);
                        proptest::prop_assert!(warnings.is_empty(), "{:?}", warnings);
                        proptest::prop_assert_eq!(back, m.qrels());
                        if !tsv {
                            proptest::prop_assert_eq!(text.lines().count(), m.judgements.iter().filter(|j| j.grade.is_some()).count());
                        }
                    }
                    Err(e) => {
                        let e = e.to_string();
                        proptest::prop_assert!(
                            m.judgements.iter().filter(|j| j.grade.is_some()).any(|j| e.contains(&format!("{:?}", j.qid)) || e.contains(&format!("{:?}", j.doc))),
                            "{}", e
                        );
                    }
                }
            }
        }
    }
}
