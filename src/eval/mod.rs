//! Judgements (qrels), runs and the metrics computed from them, with trec_eval's semantics:
//! linear gain, log2(rank+1) discount, ties ordered by score descending then docno descending, and
//! means taken over every judged query (a query the run misses counts 0).

mod agreement;
pub mod answers;
mod judgements;
mod metrics;
mod run;
mod runfile;
mod significance;
mod validity;

pub use crate::corpus::{IdFormat, Qrels, check_id};
/// Judgements belong to a dataset and are loaded with it; evaluation reads them.
pub use agreement::{Agreement, agreement};
pub use answers::{AnswerScores, Rules as AnswerRules, exact_match, f1, has_answer, normalize_answer};
pub use judgements::{JudgementStore, MAX_GRADE, question_id};
pub use metrics::{EvalSummary, Metric, MetricSet, evaluate, evaluate_query, trec_order};
pub use run::Run;
pub use runfile::{MAX_RUN_BYTES, RunFile, RunFormat};
pub use significance::{Correction, PairedTest, paired_test, t_test_p};
pub use validity::{Conclusion, Flip, JudgedSystem, TRUSTED_TAU, VALIDITY_SEED, Validity, kendall_tau_b, validity};
