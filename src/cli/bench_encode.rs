//! `ranklens bench-encode`: passages per second for the dense and SPLADE encoders on a corpus
//! (each passage read to the model's limit, as the PyTorch side of `scripts/bench-encode.sh`
//! reads it), per precision with its vectors' cosines to f32's, and the memory of the
//! late-interaction token index.

use std::fmt::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::bail;
use clap::Args;
use serde::Serialize;

use super::Found;
use super::args::FormatArg;
use super::model_args::ModelArgs;
use super::printer::{Printable, print};
use super::table::Table;
use crate::corpus::{self, Corpus, LoadOptions};
use crate::index::encoded::{DenseIndex, SpladeIndex, TokenTarget, build_dense, build_splade};
use crate::models::WindowSpec;
use crate::models::{Precision, Role, SparseVector};
use crate::progress::NoProgress;
use crate::workbench::Workbench;

/// `ranklens bench-encode`
#[derive(Debug, Args)]
pub struct BenchEncodeArgs {
    /// A BEIR folder (its corpus.jsonl is encoded), e.g. ../shared/data/scifact.
    #[arg(long, value_name = "DIR|NAME", value_parser = super::args::dataset)]
    dataset: PathBuf,
    /// Encode the first N passages (0: all).
    #[arg(long, default_value_t = 1000)]
    limit: usize,
    /// Also keep every passage's token vectors (the late-interaction index) and report its memory.
    #[arg(long)]
    late: bool,
    /// Precisions to measure besides f32 (which always runs first: the others are compared with
    /// it), comma-separated.
    #[arg(long = "compare", value_name = "PRECISIONS", value_delimiter = ',', default_value = "bf16,int16,auto")]
    precisions: Vec<String>,
    #[command(flatten)]
    models: ModelArgs,
    #[command(flatten)]
    format: FormatArg,
}

#[derive(Debug, Serialize)]
struct EncodeBenchReport {
    /// The CPU, as the operating system names it (every figure is this CPU's).
    cpu: String,
    dataset: String,
    passages: usize,
    dense_model: String,
    splade_model: String,
    /// One entry per precision, f32 first (the others are compared with it).
    precisions: Vec<PrecisionRun>,
    late_index_bytes: Option<usize>,
    late_tokens: Option<usize>,
    late_secs: Option<f64>,
    peak_rss_bytes_before_late: Option<u64>,
    peak_rss_bytes_after_late: Option<u64>,
    threads: usize,
}

/// The speed of one precision and how far its vectors are from f32's.
#[derive(Debug, Serialize)]
struct PrecisionRun {
    /// The precision asked for.
    precision: String,
    /// What ran (`bf16 (AVX512-BF16, f32 sums)`, or f32 where the CPU lacks the kernel's
    /// instructions).
    kernels: String,
    dense_secs: f64,
    dense_passages_per_sec: f64,
    splade_secs: f64,
    splade_passages_per_sec: f64,
    /// The smallest and the mean cosine of a row's dense vector with f32's (1 for f32 itself).
    dense_min_cosine: f64,
    dense_mean_cosine: f64,
    /// The same for the SPLADE vectors (as sparse vectors over the vocabulary).
    splade_min_cosine: f64,
    splade_mean_cosine: f64,
}

impl Printable for EncodeBenchReport {
    fn table(&self) -> String {
        let mut out = String::new();
        let _ =
            writeln!(out, "{} passages of {} on {} ({} threads)", self.passages, self.dataset, self.cpu, self.threads);
        let header = ["precision", "kernels", "dense p/s", "SPLADE p/s", "dense cos min", "SPLADE cos min"];
        let mut t = Table::new(header.map(String::from).to_vec(), 2);
        for r in &self.precisions {
            t.row(vec![
                r.precision.clone(),
                r.kernels.clone(),
                format!("{:.1}", r.dense_passages_per_sec),
                format!("{:.1}", r.splade_passages_per_sec),
                format!("{:.6}", r.dense_min_cosine),
                format!("{:.6}", r.splade_min_cosine),
            ]);
        }
        out.push_str(&t.render());
        let _ = writeln!(out, "dense {}, SPLADE {}", self.dense_model, self.splade_model);
        if let (Some(b), Some(t)) = (self.late_index_bytes, self.late_tokens) {
            let _ = writeln!(out, "late-interaction index: {t} token vectors, {:.1} MiB", b as f64 / 1048576.0);
        }
        if let (Some(b), Some(a)) = (self.peak_rss_bytes_before_late, self.peak_rss_bytes_after_late) {
            let _ = writeln!(
                out,
                "peak resident memory: {:.0} MiB before, {:.0} MiB after building it",
                b as f64 / 1048576.0,
                a as f64 / 1048576.0
            );
        }
        out
    }
}

/// The cosine of two vectors (1 for two zero vectors: nothing differs).
fn cosine(a: &[f32], b: &[f32]) -> f64 {
    use crate::index::dot::dot;
    ratio(dot(a, b), dot(a, a), dot(b, b))
}

/// The cosine of two sparse vectors.
fn sparse_cosine(a: &SparseVector, b: &SparseVector) -> f64 {
    ratio(a.dot(b), a.dot(a), b.dot(b))
}

/// ab / √(aa·bb), in f64; 1 when both norms are 0.
fn ratio(ab: f32, aa: f32, bb: f32) -> f64 {
    let (ab, aa, bb) = (ab as f64, aa as f64, bb as f64);
    if aa == 0.0 && bb == 0.0 { 1.0 } else { ab / (aa * bb).sqrt().max(f64::MIN_POSITIVE) }
}

/// (min, mean) of a list of cosines (1, 1 when empty).
fn min_mean(c: impl Iterator<Item = f64>) -> (f64, f64) {
    let (mut min, mut sum, mut n) = (1f64, 0f64, 0usize);
    for x in c {
        min = min.min(x);
        sum += x;
        n += 1;
    }
    (min, if n == 0 { 1.0 } else { sum / n as f64 })
}

/// The process's peak resident memory (Linux `VmHWM`), when the system reports it.
fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// `ranklens bench-encode`
pub fn bench_encode(a: BenchEncodeArgs) -> anyhow::Result<Found> {
    let all = corpus::load(&a.dataset, LoadOptions::default())?;
    let take = if a.limit == 0 { all.len() } else { a.limit.min(all.len()) };
    let corpus = Corpus::from_docs(all.name.clone(), all.docs()[..take].iter().cloned());
    let mut precisions = vec![Precision::F32];
    for p in &a.precisions {
        let p = Precision::parse(p)?;
        if !precisions.contains(&p) {
            precisions.push(p);
        }
    }
    // The same work as the PyTorch side: each passage read to the model's limit (256 tokens), no
    // windows. (The late-interaction index below is cut into windows, as the app builds it.)
    let truncated = WindowSpec { truncate: true, ..WindowSpec::default() };
    let mut runs = Vec::new();
    let mut reference: Option<(DenseIndex, SpladeIndex)> = None;
    let (mut dense_model, mut splade_model) = (String::new(), String::new());
    let (mut late_index_bytes, mut late_tokens, mut late_secs, mut before, mut after) = (None, None, None, None, None);
    for (at, &precision) in precisions.iter().enumerate() {
        let manager = a.models.manager().with_precision(precision);
        let engine = Workbench::new(corpus.clone());
        for role in [Role::Dense, Role::Splade] {
            engine.load_model(&manager, role, !a.models.offline, &NoProgress)?;
        }
        let neural = engine.neural();
        let (Some(dense), Some(splade)) = (neural.dense, neural.splade) else { bail!("the models did not load") };
        dense_model.clone_from(&dense.model.spec.id);
        splade_model.clone_from(&splade.model.spec.id);
        let corpus = engine.corpus();
        let t = Instant::now();
        let (dense_index, _) = build_dense(corpus, &dense.encoder, None, truncated, None, &NoProgress)?;
        let dense_secs = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let splade_index = build_splade(corpus, splade.encoder.as_ref(), None, truncated, &NoProgress)?;
        let splade_secs = t.elapsed().as_secs_f64();
        let ((dense_min_cosine, dense_mean_cosine), (splade_min_cosine, splade_mean_cosine)) = match &reference {
            None => ((1.0, 1.0), (1.0, 1.0)),
            Some((d, s)) => {
                if d.vectors.len() != dense_index.vectors.len() || s.rows.len() != splade_index.rows.len() {
                    bail!("{precision} cut the passages into other windows than f32");
                }
                let dense = d.vectors.chunks(d.dim.max(1)).zip(dense_index.vectors.chunks(d.dim.max(1)));
                (
                    min_mean(dense.map(|(x, y)| cosine(x, y))),
                    min_mean(s.rows.iter().zip(&splade_index.rows).map(|(x, y)| sparse_cosine(x, y))),
                )
            }
        };
        let n = corpus.len();
        runs.push(PrecisionRun {
            precision: precision.name().to_string(),
            kernels: match precision {
                // What auto chose for each model on this CPU: the precision its id names.
                Precision::Auto => {
                    let ran = |id: &str| {
                        [Precision::Bf16, Precision::Int16]
                            .into_iter()
                            .find(|p| id.ends_with(p.id_suffix()))
                            .map_or("f32", Precision::name)
                    };
                    use crate::models::{SparseEncoder, TextEncoder};
                    format!(
                        "auto chose: dense {}, SPLADE {}",
                        ran(dense.encoder.model_id()),
                        ran(splade.encoder.model_id())
                    )
                }
                p => crate::models::precision::describe(p),
            },
            dense_secs,
            dense_passages_per_sec: n as f64 / dense_secs,
            splade_secs,
            splade_passages_per_sec: n as f64 / splade_secs,
            dense_min_cosine,
            dense_mean_cosine,
            splade_min_cosine,
            splade_mean_cosine,
        });
        // The late-interaction index once, at the last (the default-most) precision asked for.
        if a.late && at + 1 == precisions.len() {
            before = peak_rss_bytes();
            let t = Instant::now();
            let target = TokenTarget { bits: a.models.token_bits(), ..Default::default() };
            let (_, late) =
                build_dense(corpus, &dense.encoder, None, WindowSpec::default(), Some(&target), &NoProgress)?;
            late_secs = Some(t.elapsed().as_secs_f64());
            after = peak_rss_bytes();
            late_index_bytes = late.as_ref().map(|l| l.size_bytes());
            late_tokens = late.as_ref().map(|l| l.total_tokens() as usize);
        }
        if reference.is_none() {
            reference = Some((dense_index, splade_index));
        }
    }
    let report = EncodeBenchReport {
        cpu: crate::models::auto_precision::cpu_model(),
        dataset: a.dataset.display().to_string(),
        passages: corpus.len(),
        dense_model,
        splade_model,
        precisions: runs,
        late_index_bytes,
        late_tokens,
        late_secs,
        peak_rss_bytes_before_late: before,
        peak_rss_bytes_after_late: after,
        threads: std::thread::available_parallelism().map(|p| p.get()).unwrap_or(1),
    };
    print(&report, a.format.value)?;
    Ok(Found::Some)
}
