//! Judgements (qrels), runs and the metrics computed from them, with trec_eval's semantics:
//! linear gain, log2(rank+1) discount, ties ordered by score descending then docno descending, and
//! means taken over every judged query (a query the run misses counts 0).

mod metrics;
mod qrels;
mod run;

pub use metrics::{EvalSummary, Metric, MetricSet, evaluate, evaluate_query};
pub use qrels::Qrels;
pub use run::Run;
