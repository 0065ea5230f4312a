//! Run many methods on one question and compare what they return: the plan of columns, running it,
//! how much the columns agree, and whole question sets (studies).

mod adapter;
pub mod analyzers;
mod comparison;
pub mod cost;
pub mod fixes;
mod graded;
pub mod judge;
pub mod judge_stress;
pub mod moved;
mod outside;
mod overlap;
mod plan;
mod pool;
mod rag;
pub mod reading;
mod study;

pub use adapter::{AdapterGain, HeldOutSplit, adapter_gain};
pub use comparison::{ColumnId, Comparison, MethodRun, Outcome};
pub use graded::{ColumnMetrics, QuestionMetrics};
pub use outside::{External, distinct_names};
pub use overlap::{OverlapMatrix, jaccard_at_k, rank_biased_overlap};
pub use plan::{Baseline, find_system, no_such_system};
pub use plan::{ColumnResult, ExplainedItem, Member, Plan, PlanRun};
pub use pool::{Pool, PoolColumn, judge_plan};
pub use rag::{best_list, rag_passages};
pub use reading::{AnswerStudy, CURVE_KS, CurvePoint, QuestionAnswers, answer_study, read_ranking};
pub use study::{Disagreement, MethodResult, Missing, Study, System, Triage, TriageOrder, TriageRow};
