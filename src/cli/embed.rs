//! `ranklens embed`: RankLens's dense vectors of a corpus's passages and of its questions, written
//! in the formats `--vectors` reads, so they can be taken to another system and brought back.

use std::path::PathBuf;

use anyhow::bail;
use clap::Args;

use super::Found;
use super::args::CorpusArgs;
use super::model_args::ModelArgs;
use super::progress::TermProgress;
use crate::config::Settings;
use crate::external::{VectorFile, VectorFormat};
use crate::models::{InputKind, TextEncoder};
use crate::retrieve::MethodKind;

/// `ranklens embed`
#[derive(Debug, Args)]
pub struct EmbedArgs {
    #[command(flatten)]
    corpus: CorpusArgs,
    #[command(flatten)]
    models: ModelArgs,
    /// Folder to write `passages.<format>` and `queries.<format>` into (with `.ids.txt` beside
    /// `.npy` files).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// npy, jsonl or safetensors.
    #[arg(long, default_value = "npy")]
    format: String,
}

/// `ranklens embed`
pub fn embed(a: EmbedArgs) -> anyhow::Result<Found> {
    let format: VectorFormat = a.format.parse()?;
    let progress = TermProgress::new();
    let engine = a.corpus.workbench(&progress)?;
    a.models.prepare(&engine, &[MethodKind::Dense], &Settings::default(), true, &progress)?;
    let n = engine.neural();
    let (Some(dense), Some(index)) = (&n.dense, &n.dense_index) else {
        bail!(
            "no dense model: {}",
            n.missing.values().next().cloned().unwrap_or_else(|| "see `ranklens models list`".into())
        )
    };
    let corpus = engine.corpus();
    std::fs::create_dir_all(&a.out).map_err(|e| crate::Error::io(&a.out, e))?;
    let ext = format.extension();
    let passages = VectorFile {
        ids: Some(corpus.docs().iter().map(|d| d.id.clone()).collect()),
        dim: index.dim,
        data: index.vectors.clone(),
    };
    let passages_path = a.out.join(format!("passages.{ext}"));
    passages.write(&passages_path)?;
    println!("wrote {} ({} × {}, {})", passages_path.display(), passages.len(), passages.dim, dense.model.spec.id);
    if !corpus.queries.is_empty() {
        progress_stage(&progress, corpus.queries.len());
        let texts: Vec<&str> = corpus.queries.iter().map(|q| q.text.as_str()).collect();
        let mut data = Vec::with_capacity(texts.len() * index.dim);
        // One at a time, as the dense column encodes a question.
        for chunk in texts.chunks(1) {
            for v in dense.encoder.encode(chunk, InputKind::Query)? {
                data.extend(v);
            }
            crate::progress::Progress::advance(&progress, chunk.len() as u64);
        }
        let queries =
            VectorFile { ids: Some(corpus.queries.iter().map(|q| q.id.clone()).collect()), dim: index.dim, data };
        let queries_path = a.out.join(format!("queries.{ext}"));
        queries.write(&queries_path)?;
        println!("wrote {} ({} × {})", queries_path.display(), queries.len(), queries.dim);
    }
    drop(progress);
    println!(
        "bring them back with: ranklens eval --dataset DIR --vectors {} --query-vectors {}",
        passages_path.display(),
        a.out.join(format!("queries.{ext}")).display()
    );
    Ok(Found::Some)
}

fn progress_stage(progress: &TermProgress, n: usize) {
    crate::progress::Progress::stage(progress, "encoding the questions", n as u64);
}
