//! `ranklens bench-scale`: a generated corpus of real size (100,000 passages by default) through
//! every method — index time, memory and query time per method, and the approximate dense
//! search's recall@10 against exact search on the benchmark's own questions.

use std::fmt::Write;
use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use serde::Serialize;

use super::Found;
use super::args::FormatArg;
use super::model_args::ModelArgs;
use super::printer::{Printable, print};
use crate::config::Settings;
use crate::corpus::{Corpus, Doc};
use crate::index::NeuralOptions;
use crate::models::Role;
use crate::retrieve::{DenseRetriever, MethodKind, QueryContext, Retriever};
use crate::workbench::Workbench;

/// `ranklens bench-scale`
#[derive(Debug, Args)]
pub struct BenchScaleArgs {
    /// Passages to generate.
    #[arg(long, default_value_t = 100_000)]
    passages: usize,
    /// Questions to time each method with.
    #[arg(long, default_value_t = 100)]
    questions: usize,
    /// Methods, comma-separated (boolean, tfidf, bm25, dense, splade, late).
    #[arg(long, value_delimiter = ',', default_value = "boolean,tfidf,bm25,dense,splade,late")]
    methods: Vec<String>,
    /// Workspace folder for the token index file (default: a new temporary folder).
    #[arg(long, value_name = "DIR")]
    workspace: Option<PathBuf>,
    /// Also write the generated corpus here as JSON Lines (to open it in the app).
    #[arg(long, value_name = "FILE")]
    write_corpus: Option<PathBuf>,
    /// Also write the passages' dense vectors here (.npy, one row per passage: its first window),
    /// to open beside the corpus with --vectors (the map of every passage).
    #[arg(long, value_name = "FILE")]
    write_vectors: Option<PathBuf>,
    #[command(flatten)]
    models: ModelArgs,
    #[command(flatten)]
    format: FormatArg,
}

/// One method's figures.
#[derive(Debug, Serialize)]
struct MethodFigures {
    method: String,
    /// Seconds to build what the method searches (encoding included).
    index_secs: f64,
    /// Resident memory the build added (MiB), and the index's own size where it is known.
    rss_added_mib: f64,
    index_mib: Option<f64>,
    /// Mean milliseconds per question (prepare + top 10).
    query_ms: f64,
    note: String,
}

#[derive(Debug, Serialize)]
struct ScaleReport {
    passages: usize,
    questions: usize,
    words: usize,
    threads: usize,
    methods: Vec<MethodFigures>,
    peak_rss_mib: Option<f64>,
}

impl Printable for ScaleReport {
    fn table(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{} generated passages ({} words), {} questions, {} threads",
            self.passages, self.words, self.questions, self.threads
        );
        let _ = writeln!(
            out,
            "{:<44} {:>10} {:>12} {:>10} {:>10}  note",
            "method", "index s", "+RSS MiB", "index MiB", "ms/query"
        );
        for m in &self.methods {
            let _ = writeln!(
                out,
                "{:<44} {:>10.1} {:>12.0} {:>10} {:>10.2}  {}",
                fit(&m.method, 44),
                m.index_secs,
                m.rss_added_mib,
                m.index_mib.map(|b| format!("{b:.0}")).unwrap_or_else(|| "–".into()),
                m.query_ms,
                m.note
            );
        }
        if let Some(p) = self.peak_rss_mib {
            let _ = writeln!(out, "peak resident memory {p:.0} MiB");
        }
        out
    }
}

fn status_mib(field: &str) -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// Topics of a few dozen words each, over a shared vocabulary of everyday English, so the
/// tokenizers see real words.
const WORDS: &str = "account access address alarm album answer apple area arm army art audio august \
author autumn baby back bag bakery balance ball band bank bar base basket battery beach bean bear bed bee \
bell belt bench berry bike bill bird birth black blade blanket block blood board boat body bone book boot \
border bottle bowl box brain branch bread brick bridge brother brush bucket budget bug building bus butter \
button cabin cable cake camera camp candle canvas car card cargo carpet carrot cart castle cat cave ceiling \
cell chain chair chalk channel chart cheese chest chicken child chimney chip church circle city class clay \
clock cloud coach coast coat code coffee coin collar colour comb comet compass computer cookie copper cord \
corn cotton cough country court cousin cow crab crane cream credit crew crop crowd crown cup curtain cushion \
dance data date daughter deck deer desert desk device diamond diary dinner disk doctor dog doll door dragon \
drawer dream dress drill drink driver drum duck dust eagle ear earth egg engine error evening exam eye face \
factory fair family farm feather fence ferry field file film finger fire fish flag flame flight floor flour \
flower flute fog folder food foot forest fork fountain fox frame friend frog fruit fuel game garage garden \
gate gear gift glass glove goat gold grain grape grass guitar hair hall hammer hand harbour hat hay head \
heart heater hill hobby holiday honey hook horse hospital hotel house ice idea ink insect island jacket jam \
jar jeans jelly jewel job journey juice kettle key kitchen kite knee knife ladder lake lamp language laptop \
lawn leaf leather lemon letter library light lighthouse lion lock log lunch machine magnet mail map market \
meadow meal medicine memory metal milk mirror money monkey moon morning motor mountain mouse mouth movie \
museum music nail needle nest net network night noise nose note notebook number nurse oak ocean office oil \
onion orange orchard oven owl paint palace pan paper parcel park party passport password path pencil pepper \
phone photo piano picture pig pillow pilot pipe planet plant plate pocket poem police pond potato printer \
prize pump puzzle queen question rabbit radio rail rain record river road robot rock roof room root rope \
rose sail salt sand school screen sea seed server sheep shelf shell ship shirt shoe shop signal silver \
singer sister skin sky sleep snow soap sock sofa soil soldier song soup space spoon spring square stair \
star station steam stone storm story street string student sugar summer sun supper sweater table tail \
teacher team tent test thread ticket tiger timber toast token tomato tool tooth towel tower town toy train \
tree truck tunnel umbrella uncle update valley van vase village violin voice wall wallet watch water wave \
weather wheel whistle window wine winter wire wolf wood wool word worker yard year yogurt zebra";

const GLUE: &[&str] = &["the", "a", "of", "and", "to", "in", "is", "for", "on", "with", "by", "at", "from", "near"];

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = crate::lcg::lcg(self.0);
        self.0 >> 33
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// A corpus of `n` passages of 12–28 words: each on one of 500 topics (12 words each, drawn
/// from the vocabulary), mixing its topic's words, any words, and glue words. Deterministic.
pub fn generate(n: usize, questions: usize) -> (Corpus, Vec<String>) {
    let words: Vec<&str> = WORDS.split_whitespace().collect();
    let mut rng = Rng(42);
    let topics: Vec<Vec<&str>> = (0..500).map(|_| (0..12).map(|_| words[rng.below(words.len())]).collect()).collect();
    let sentence = |rng: &mut Rng, topic: &[&str], len: usize| {
        let mut out = Vec::with_capacity(len);
        for i in 0..len {
            let w = match rng.below(10) {
                0..=4 => topic[rng.below(topic.len())],
                5..=6 => words[rng.below(words.len())],
                _ => GLUE[rng.below(GLUE.len())],
            };
            out.push(if i == 0 { capitalise(w) } else { w.to_string() });
        }
        out.join(" ") + "."
    };
    let docs: Vec<Doc> = (0..n)
        .map(|i| {
            let topic = &topics[rng.below(topics.len())];
            let len = 12 + rng.below(17);
            let title = format!("{} {}", capitalise(topic[0]), topic[1]);
            Doc { id: format!("g{i}"), title, text: sentence(&mut rng, topic, len), fields: Default::default() }
        })
        .collect();
    let qs = (0..questions)
        .map(|_| {
            let topic = &topics[rng.below(topics.len())];
            (0..4).map(|_| topic[rng.below(topic.len())]).collect::<Vec<_>>().join(" ")
        })
        .collect();
    (Corpus::from_docs("generated", docs), qs)
}

fn capitalise(w: &str) -> String {
    let mut c = w.chars();
    c.next().map(|f| f.to_uppercase().collect::<String>() + c.as_str()).unwrap_or_default()
}

/// `ranklens bench-scale`
pub fn bench_scale(a: BenchScaleArgs) -> anyhow::Result<Found> {
    let (corpus, questions) = generate(a.passages, a.questions);
    if let Some(path) = &a.write_corpus {
        let mut out = String::new();
        for d in corpus.docs() {
            out.push_str(&serde_json::to_string(&serde_json::json!({"_id": d.id, "title": d.title, "text": d.text}))?);
            out.push('\n');
        }
        crate::fsutil::write_atomic(path, out)?;
    }
    let words: usize = corpus.docs().iter().map(|d| d.full_text().split_whitespace().count()).sum();
    let temp = tempfile_dir()?;
    let ws = a.workspace.clone().unwrap_or_else(|| temp.clone());
    let engine = Workbench::new(corpus).with_workspace(ws);
    let progress = super::progress::TermProgress::new();
    let settings = Settings::default();
    let want = |m: &str| a.methods.iter().any(|x| x == m);
    let time_queries = |r: &dyn Retriever| -> anyhow::Result<f64> {
        let t = Instant::now();
        for q in &questions {
            let ctx = QueryContext::new(q);
            std::hint::black_box(r.prepare(&ctx)?.search(10)?);
        }
        Ok(t.elapsed().as_secs_f64() * 1000.0 / questions.len().max(1) as f64)
    };
    let mut figures = Vec::new();
    let rss = || status_mib("VmRSS:").unwrap_or(0.0);
    // Seconds a build takes and the resident memory it adds.
    let measured = |build: &dyn Fn() -> crate::Result<()>| -> crate::Result<(f64, f64)> {
        let (before, t) = (rss(), Instant::now());
        build()?;
        Ok((t.elapsed().as_secs_f64(), rss() - before))
    };
    // Lexical: one index serves all three.
    if want("boolean") || want("tfidf") || want("bm25") {
        let (secs, added) = measured(&|| engine.index(settings.analyzer, &progress).map(|_| ()))?;
        for (name, kind) in [("boolean", MethodKind::Boolean), ("tfidf", MethodKind::TfIdf), ("bm25", MethodKind::Bm25)]
        {
            if !want(name) {
                continue;
            }
            let r = engine.retriever(kind, &settings)?;
            let ms = time_queries(r.as_ref())?;
            let note = "one tantivy index and plain postings serve the three lexical methods".to_string();
            figures.push(MethodFigures {
                method: r.label(),
                index_secs: secs,
                rss_added_mib: added,
                index_mib: None,
                query_ms: ms,
                note,
            });
        }
    }
    let manager = a.models.manager();
    let options = NeuralOptions { tokens: want("late"), token_bits: a.models.token_bits(), ..Default::default() };
    engine.set_neural_options(options)?;
    if want("dense") || want("late") {
        engine.load_model(&manager, Role::Dense, !a.models.offline, &progress)?;
        let (secs, added) = measured(&|| engine.build_dense(&progress))?;
        let n = engine.neural();
        if let (Some(index), Some(d)) = (&n.dense_index, &n.dense) {
            let approx = engine.retriever(MethodKind::Dense, &settings)?;
            let ms = time_queries(approx.as_ref())?;
            let exact =
                DenseRetriever::new(index.clone(), d.encoder.clone() as std::sync::Arc<dyn crate::models::TextEncoder>);
            let exact_ms = time_queries(&exact)?;
            // Recall@10 of the approximate column against exact search, on these questions.
            let mut hits = 0usize;
            for q in &questions {
                let ctx = QueryContext::new(q);
                let e = exact.search(&ctx, 10)?.docs();
                let f = approx.search(&ctx, 10)?.docs();
                hits += e.iter().filter(|x| f.contains(x)).count();
            }
            let recall = hits as f64 / (10 * questions.len().max(1)) as f64;
            let vectors_mib = (index.vectors.len() * 4) as f64 / 1048576.0;
            if let Some(path) = &a.write_vectors {
                let rows: Vec<f32> = (0..index.len() as u32)
                    .flat_map(|d| index.vector(crate::corpus::DocId(d)).unwrap_or(&[]).to_vec())
                    .collect();
                crate::fsutil::write_atomic(path, crate::external::write_npy(index.len(), index.dim, &rows))?;
            }
            let note = match &n.dense_ann {
                Some(ann) => format!(
                    "approximate (HNSW): recall@10 {recall:.3} on these questions, {:.3} on its build probes; exact search {exact_ms:.2} ms/query",
                    ann.recall_at_10
                ),
                None => "exact".into(),
            };
            let late_note = n.late_index.as_ref().map(|l| {
                format!(
                    "built in the same pass as dense: {} token vectors, {} ({:.1} KiB per passage)",
                    l.total_tokens(),
                    l.codec.describe(),
                    l.size_bytes() as f64 / l.windows.docs().max(1) as f64 / 1024.0
                )
            });
            figures.push(MethodFigures {
                method: approx.label(),
                index_secs: secs,
                rss_added_mib: added,
                index_mib: Some(vectors_mib),
                query_ms: ms,
                note,
            });
            if let (Some(late), Some(note)) = (&n.late_index, late_note) {
                let r = engine.retriever(MethodKind::LateInteraction, &settings)?;
                let ms = time_queries(r.as_ref())?;
                let size = late.size_bytes() as f64 / 1048576.0;
                figures.push(MethodFigures {
                    method: r.label(),
                    index_secs: secs,
                    rss_added_mib: added,
                    index_mib: Some(size),
                    query_ms: ms,
                    note,
                });
            }
        }
    }
    if want("splade") {
        engine.load_model(&manager, Role::Splade, !a.models.offline, &progress)?;
        let (secs, added) = measured(&|| engine.build_splade(&progress))?;
        let r = engine.retriever(MethodKind::Splade, &settings)?;
        let ms = time_queries(r.as_ref())?;
        figures.push(MethodFigures {
            method: r.label(),
            index_secs: secs,
            rss_added_mib: added,
            index_mib: None,
            query_ms: ms,
            note: "inverted index of the learned sparse vectors".into(),
        });
    }
    let report = ScaleReport {
        passages: a.passages,
        questions: questions.len(),
        words,
        threads: std::thread::available_parallelism().map(|p| p.get()).unwrap_or(1),
        methods: figures,
        peak_rss_mib: status_mib("VmHWM:"),
    };
    print(&report, a.format.value)?;
    if a.workspace.is_none() {
        let _ = std::fs::remove_dir_all(&temp);
    }
    Ok(Found::Some)
}

fn fit(s: &str, n: usize) -> String {
    if s.chars().count() <= n { s.to_string() } else { s.chars().take(n - 1).collect::<String>() + "…" }
}

fn tempfile_dir() -> anyhow::Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!("ranklens-bench-scale-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}
