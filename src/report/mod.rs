//! Reports people can share: one question compared across methods, or a question set evaluated.
//!
//! Every report carries a [`Stamp`] with what makes it reproducible (RankLens version, corpus
//! fingerprint, analyzer, model ids and file hashes, every parameter, the date) and is written as
//! self-contained HTML (inline SVG charts, no external assets, no scripts), Markdown, JSON (all
//! that is needed to re-open it, with a checksum so a modified or truncated file is refused) or
//! CSV (one row per question, method, rank, passage, score).

mod body;
mod build;
mod csv_out;
mod format;
mod html;
mod markdown;
mod svg;
mod time;

pub use body::{
    AnswersReport, ComparisonReport, ExplainedHit, GraphReport, MapSection, ModelSqlReport, PassageInfo,
    ReadPassageRow, ReadingReport, ReportBody, Stamp, StudyReport,
};
pub use build::{comparison_report, study_report};
pub use format::{ReportFormat, load, parse, render, write};
pub use time::{format_utc, now_utc};
