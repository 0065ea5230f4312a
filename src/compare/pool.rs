//! A question set's pool: the union of each ranked column's top k for each question (what a
//! judge, people or a language model, is given to judge). The app's judging and `ranklens judge`
//! both pool through [`Plan::pool`], so a column that cannot run is a row saying why in both,
//! never a column silently left out.

use std::collections::BTreeSet;

use super::judge::{self, PoolItem};
use super::plan::{Member, Plan, member_label};
use crate::corpus::Qrels;
use crate::eval::Run;
use crate::progress::{Progress, check_cancel};
use crate::retrieve::MethodKind;
use crate::workbench::Workbench;
use crate::{Error, Result};

/// One column of a pool: what it added, or why it could not run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoolColumn {
    /// The column's label (its method with its settings, or an outside system's name).
    pub label: String,
    /// Its family.
    pub kind: MethodKind,
    /// The passages it brought into the pool that no column before it had (summed over the
    /// questions), or why it could not run here and how to fix it.
    pub added: std::result::Result<usize, String>,
}

/// A pool with the columns it was made from.
#[derive(Debug, Clone, PartialEq)]
pub struct Pool {
    /// The passages to judge, in the order they first appear (question by question, then column
    /// by column, then rank).
    pub items: Vec<PoolItem>,
    /// Every column of the plan that ranks passages, in the plan's order.
    pub columns: Vec<PoolColumn>,
    /// The questions pooled.
    pub questions: usize,
    /// Depth of each column's list.
    pub depth: usize,
    /// Each column that ran, with its lists (its top `depth` for each question): what was
    /// pooled, as runs to evaluate the columns by (a judge's τ is computed over these).
    pub runs: Vec<(String, Run)>,
}

impl Pool {
    /// The columns that ran.
    pub fn ran(&self) -> impl Iterator<Item = &PoolColumn> {
        self.columns.iter().filter(|c| c.added.is_ok())
    }

    /// What was pooled, in words (`BM25 (lucene) + Dense top 10, pooled over 3 judged
    /// question(s)`).
    pub fn scope(&self) -> String {
        let names: Vec<&str> = self.ran().map(|c| c.label.as_str()).collect();
        format!("{} top {}, pooled over {} judged question(s)", names.join(" + "), self.depth, self.questions)
    }

    /// The columns that could not run, each as `label: why`.
    pub fn skipped(&self) -> Vec<String> {
        skipped(&self.columns)
    }
}

/// The columns of `columns` that could not run, each as `label: why`.
fn skipped(columns: &[PoolColumn]) -> Vec<String> {
    columns.iter().filter_map(|c| c.added.as_ref().err().map(|m| format!("{}: {m}", c.label))).collect()
}

impl Plan {
    /// The pool a judge is given for a question set: each column's top `depth` for the first
    /// `limit` of the corpus's questions that `people` judged (all of them when `limit` is 0); an
    /// error when they judged none of its questions.
    pub fn judging_pool(
        &self,
        workbench: &Workbench,
        people: &Qrels,
        limit: usize,
        depth: usize,
        progress: &dyn Progress,
    ) -> Result<Pool> {
        let questions = judge::judged_questions(workbench.corpus(), people, limit);
        if questions.is_empty() {
            return Err(Error::Unavailable(
                "no judged questions to pool: none of the corpus's questions has judgements (grade passages, or open a dataset with qrels)".into(),
            ));
        }
        self.pool(workbench, &questions, depth, progress)
    }

    /// Pool the top `depth` of every column that ranks passages over `questions` (id, text). A
    /// column that cannot run here is a [`PoolColumn`] with why; a pool with no column that runs is
    /// an error saying so.
    pub fn pool(
        &self,
        workbench: &Workbench,
        questions: &[(String, String)],
        depth: usize,
        progress: &dyn Progress,
    ) -> Result<Pool> {
        let mut columns = Vec::new();
        let mut retrievers = Vec::new();
        for member in self.members.iter().filter(|m| m.ranks_passages()) {
            let (label, kind) = (member_label(member), member.kind());
            match self.retriever(workbench, member, progress) {
                Some(Ok(r)) => {
                    columns.push(PoolColumn { label: r.label(), kind, added: Ok(0) });
                    retrievers.push((columns.len() - 1, r));
                }
                Some(Err(Error::Cancelled)) => return Err(Error::Cancelled),
                Some(Err(Error::Unavailable(m))) => columns.push(PoolColumn { label, kind, added: Err(m) }),
                Some(Err(e)) => columns.push(PoolColumn { label, kind, added: Err(e.report()) }),
                None => {}
            }
        }
        if retrievers.is_empty() {
            let why = skipped(&columns);
            return Err(Error::Unavailable(if why.is_empty() {
                "no column that ranks passages is switched on to pool from".into()
            } else {
                format!("no column can pool here — {}", why.join("; "))
            }));
        }
        let mut items = Vec::new();
        let mut runs: Vec<(String, Run)> =
            retrievers.iter().map(|(at, _)| (columns[*at].label.clone(), Run::default())).collect();
        progress.stage("Pooling the top passages", questions.len() as u64);
        for (qid, text) in questions {
            check_cancel(progress)?;
            let query = workbench.query_context(text, &self.settings);
            let mut seen = BTreeSet::new();
            for ((at, r), (_, run)) in retrievers.iter().zip(runs.iter_mut()) {
                let hits = r.search(&query, depth)?.hits;
                run.results.insert(
                    qid.clone(),
                    hits.iter().map(|h| (workbench.corpus().external_id(h.doc).to_string(), h.score)).collect(),
                );
                let mut added = 0;
                for h in hits {
                    if seen.insert(h.doc) {
                        items.push(PoolItem { qid: qid.clone(), question: text.clone(), doc: h.doc });
                        added += 1;
                    }
                }
                if let Some(Ok(n)) = columns.get_mut(*at).map(|c| c.added.as_mut()) {
                    *n += added;
                }
            }
            progress.advance(1);
        }
        Ok(Pool { items, columns, questions: questions.len(), depth, runs })
    }
}

/// The plan of a judge's pool: the ranked methods switched on in `settings`, but not those that
/// ask the language model itself (a judge that pooled its own rewrites would judge itself).
pub fn judge_plan(settings: &crate::config::Settings) -> Plan {
    let kinds: Vec<MethodKind> = MethodKind::RANKED
        .into_iter()
        .filter(|k| settings.methods.contains(k) && !MethodKind::GENERATED.contains(k))
        .collect();
    Plan::of_kinds(settings, &kinds)
}

impl Member {
    /// Does this column ask a language model (and so stay out of a model's judging pool)?
    pub fn asks_the_model(&self) -> bool {
        MethodKind::GENERATED.contains(&self.kind())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Settings;
    use crate::corpus::Corpus;
    use crate::progress::NoProgress;

    fn corpus() -> Corpus {
        Corpus::from_texts(
            "t",
            [("a", "sync token expired"), ("b", "the token was refreshed"), ("c", "sync pauses"), ("d", "nothing")],
        )
    }

    fn engine() -> Workbench {
        Workbench::new(corpus())
    }

    #[test]
    fn a_pool_is_the_union_in_first_appearance_order_and_a_column_that_cannot_run_says_why() {
        let settings = Settings::default();
        let plan = Plan::of_kinds(&settings, &[MethodKind::Bm25, MethodKind::TfIdf, MethodKind::Dense]);
        let qs = vec![("q1".to_string(), "sync token".to_string())];
        let pool = plan.pool(&engine(), &qs, 2, &NoProgress).unwrap();
        // BM25's top 2 for "sync token": a (both words), then b or c (one word each); TF-IDF adds
        // at most the one BM25 did not have.
        let docs: Vec<u32> = pool.items.iter().map(|i| i.doc.0).collect();
        assert_eq!(docs[0], 0, "{docs:?}");
        assert_eq!(docs.len(), docs.iter().collect::<BTreeSet<_>>().len(), "no passage twice");
        assert_eq!(pool.columns.len(), 3);
        assert_eq!(pool.columns[0].added, Ok(2));
        assert_eq!(pool.columns[0].added.clone().unwrap() + pool.columns[1].added.clone().unwrap(), docs.len());
        let dense = &pool.columns[2];
        assert_eq!(dense.kind, MethodKind::Dense);
        assert!(dense.added.as_ref().is_err_and(|m| m.contains("dense")), "{:?}", dense.added);
        assert_eq!(pool.ran().count(), 2);
        assert!(pool.scope().ends_with("top 2, pooled over 1 judged question(s)"), "{}", pool.scope());
        let skipped = pool.skipped();
        assert_eq!(skipped.len(), 1, "{skipped:?}");
        assert!(skipped[0].starts_with(&format!("{}: ", dense.label)), "{skipped:?}");
    }

    #[test]
    fn a_judging_pool_takes_the_judged_questions_up_to_the_limit_and_refuses_none() {
        let mut c = corpus();
        c.queries = ["sync", "token", "pauses"]
            .iter()
            .enumerate()
            .map(|(i, t)| crate::corpus::Query { id: format!("q{i}"), text: t.to_string() })
            .collect();
        let e = Workbench::new(c);
        let mut people = Qrels::default();
        for (q, d) in [("q0", "a"), ("q2", "c")] {
            people.insert(q, d, 1);
        }
        let plan = Plan::of_kinds(&Settings::default(), &[MethodKind::Bm25]);
        // q1 has no judgements: q0 and q2 are pooled; with a limit of 1, q0 alone.
        let all = plan.judging_pool(&e, &people, 0, 1, &NoProgress).unwrap();
        let qids: Vec<&str> = all.items.iter().map(|i| i.qid.as_str()).collect();
        assert_eq!((all.questions, qids), (2, vec!["q0", "q2"]));
        let one = plan.judging_pool(&e, &people, 1, 1, &NoProgress).unwrap();
        assert_eq!(one.questions, 1);
        let err = plan.judging_pool(&e, &Qrels::default(), 0, 1, &NoProgress).unwrap_err().to_string();
        assert!(err.contains("no judged questions to pool"), "{err}");
    }

    #[test]
    fn a_pool_with_no_column_that_runs_is_refused_with_each_reason() {
        let plan = Plan::of_kinds(&Settings::default(), &[MethodKind::Dense]);
        let e = plan.pool(&engine(), &[("q".into(), "sync".into())], 3, &NoProgress).unwrap_err().to_string();
        assert!(e.contains("no column can pool here") && e.contains("Dense"), "{e}");
    }

    #[test]
    fn the_judges_plan_leaves_out_the_columns_that_ask_the_model() {
        let settings = Settings {
            methods: vec![MethodKind::Bm25, MethodKind::Rewrite, MethodKind::Dense, MethodKind::Sql],
            ..Default::default()
        };
        let plan = judge_plan(&settings);
        let kinds: Vec<MethodKind> = plan.members.iter().map(Member::kind).collect();
        assert_eq!(kinds, [MethodKind::Bm25, MethodKind::Dense]);
        assert!(plan.members.iter().all(|m| !m.asks_the_model()));
    }
}
