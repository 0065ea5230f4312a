//! # RankLens
//!
//! Put one question through many retrieval methods side by side and see *why* each ranked what it
//! ranked.
//!
//! The layers, and the rule that no import runs back up them, are in `ARCHITECTURE.md` (checked
//! by `tests/code_rules.rs`).
//!
//! Every retriever implements [`retrieve::Retriever`]: it prepares a question once, and ranking and
//! explaining both read that prepared state, so each explanation sums to the score it explains.
//! A comparison is a [`compare::Plan`] of columns run on one question. See `ARCHITECTURE.md`.

#![warn(missing_docs)]
#![warn(clippy::unwrap_used, clippy::expect_used)]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]

pub mod analysis;
pub mod classroom;
pub mod cli;
pub mod compare;
pub mod config;
pub mod corpus;
pub mod datasets;
pub mod error;
pub mod eval;
pub mod external;
pub mod formula;
pub mod fsutil;
pub mod generate;
pub mod graphrag;
#[cfg(feature = "gui")]
pub mod gui;
pub mod index;
mod lcg;
pub mod lessons;
pub mod markup;
pub mod models;
pub mod progress;
pub mod project;
pub mod read;
pub mod report;
pub mod retrieve;
pub mod sample;
pub mod structured;
pub mod tally;
pub mod topk;
pub mod workbench;

pub use error::{Error, Result};

/// How many cases each property test runs: 1,000, or more in a soak run
/// (`RANKLENS_PROPTEST_CASES=100000 cargo test`). The knob raises the count and never lowers it:
/// a property that ran fewer cases would pass where it should fail.
#[cfg(test)]
pub(crate) fn proptest_cases() -> u32 {
    std::env::var("RANKLENS_PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(1000).max(1000)
}

/// A comparison a test could not make on this machine (a kernel the CPU lacks, or the f32 kernels
/// forced), written to `$RANKLENS_SKIPPED_LOG` when the test command sets it, so the run says
/// what it did not check here instead of passing in silence.
#[cfg(test)]
pub(crate) fn note_skipped(what: &str) {
    use std::io::Write;
    if let Some(path) = std::env::var_os("RANKLENS_SKIPPED_LOG")
        && let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(path)
    {
        let _ = writeln!(f, "{what}");
    }
}

/// The folder where RankLens keeps large indexes, caches and judgements: `$RANKLENS_WORKSPACE`, or
/// the per-user data folder (`~/.local/share/ranklens` on Linux).
pub fn workspace_dir() -> std::path::PathBuf {
    if let Some(dir) = std::env::var_os("RANKLENS_WORKSPACE") {
        return dir.into();
    }
    dirs::data_local_dir().unwrap_or_else(std::env::temp_dir).join("ranklens")
}
