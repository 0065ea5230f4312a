//! `ranklens index`: build an on-disk index that `--corpus DIR` reopens later.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;

use super::Found;
use super::args::{CorpusArgs, report_load};
use super::progress::TermProgress;
use crate::corpus::{self, LoadOptions};
use crate::index::{IndexLocation, SparseIndex};

/// `ranklens index`
#[derive(Debug, Args)]
pub struct IndexArgs {
    #[command(flatten)]
    corpus: CorpusArgs,
    /// Analyzer to index with.
    #[arg(long, default_value = "english")]
    analyzer: String,
    /// Folder to write the index into (must not hold an index yet).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

/// `ranklens index`
pub fn index(a: IndexArgs) -> anyhow::Result<Found> {
    let analyzer = a.analyzer.parse()?;
    let corpus = corpus::load(&a.corpus.path()?, LoadOptions { split: a.corpus.split(), format: None })?;
    report_load(&corpus);
    let progress = TermProgress::new();
    let start = Instant::now();
    let idx = SparseIndex::build(&corpus, analyzer, &IndexLocation::Dir(a.out.clone()), &progress)?;
    drop(progress);
    let s = idx.stats();
    println!(
        "indexed {} documents ({} tokens, {} terms, avgdl {:.1}) with {} into {} in {:.2} s",
        s.n_docs,
        s.total_tokens,
        s.vocabulary,
        s.avgdl,
        analyzer,
        a.out.display(),
        start.elapsed().as_secs_f64()
    );
    println!("search it with: ranklens search --corpus {} \"your question\"", a.out.display());
    Ok(Found::Some)
}
