//! Real weights, real numbers: the candle encoders against an independent NumPy implementation
//! (`scripts/reference_encoders.py`, run on the same files), for the two models reachable here.

mod common;

use std::sync::OnceLock;

use ranklens::models::fast_bert::Kernels;
use ranklens::models::{
    Backbone, Batch, BertDenseEncoder, BertSpladeEncoder, InputKind, ModelManager, Precision, ResolvedModel,
    SparseEncoder, TextEncoder,
};
use ranklens::progress::NoProgress;

fn fetch(id: &str) -> ResolvedModel {
    let manager = ModelManager::from_env();
    let spec = manager.manifest().get(id).unwrap().clone();
    manager.fetch(&spec, &NoProgress).unwrap_or_else(|e| panic!("fetching {id}: {e}"))
}

fn minilm() -> &'static BertDenseEncoder {
    static M: OnceLock<BertDenseEncoder> = OnceLock::new();
    M.get_or_init(|| {
        let m = fetch("sentence-transformers/all-MiniLM-L6-v2");
        BertDenseEncoder::load(&m.spec.id, &m.dir, &m.spec.arch).unwrap()
    })
}

fn cos(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[test]
fn minilm_embeddings_match_the_numpy_reference() {
    let sentences = [
        "How long before saved results expire?",
        "Cached results stay valid for 15 minutes",
        "The desktop app loads plugins at start",
    ];
    // First eight components and the sum of each embedding, from reference_encoders.py.
    let reference: [([f32; 8], f32); 3] = [
        ([-0.03151, 0.055005, -0.063346, 0.071254, 0.009644, 0.003953, -0.12431, 0.056564], 0.334646),
        ([-0.029431, 0.053723, 0.030074, 0.018932, -0.006207, -0.099577, -0.059664, -0.0539], 0.165275),
        ([-0.040295, -0.02404, 0.006068, -0.027935, 0.007581, 0.023733, -0.044995, 0.038613], -0.029159),
    ];
    let embs = minilm().encode(&sentences, InputKind::Document).unwrap();
    for (e, (first, sum)) in embs.iter().zip(reference) {
        assert_eq!(e.len(), 384);
        for (x, y) in e.iter().zip(first) {
            assert!((x - y).abs() < 1e-4, "{x} vs {y}");
        }
        assert!((e.iter().sum::<f32>() - sum).abs() < 1e-4);
        assert!((cos(e, e) - 1.0).abs() < 1e-5, "L2-normalised");
    }
    let (c01, c02) = (cos(&embs[0], &embs[1]), cos(&embs[0], &embs[2]));
    assert!((c01 - 0.5655687).abs() < 1e-4 && (c02 - 0.0377031).abs() < 1e-4, "{c01} {c02}");
    assert!(c01 > c02);
    // Batching (padding) does not change an embedding.
    let alone = minilm().encode(&sentences[2..], InputKind::Query).unwrap();
    assert!(cos(&alone[0], &embs[2]) > 0.99999);
}

#[test]
fn splade_tiny_top_terms_match_the_numpy_reference() {
    let m = fetch("splade-tiny");
    let splade = BertSpladeEncoder::load(&m.spec.id, &m.dir, &m.spec.arch).unwrap();
    let v = splade.encode(&["Cached results stay valid for 15 minutes"]).unwrap().remove(0);
    let mut terms: Vec<(String, f32)> = v.terms.iter().map(|&(id, w)| (splade.term(id), w)).collect();
    terms.sort_by(|a, b| b.1.total_cmp(&a.1));
    let expected = [("cache", 2.2036), ("results", 1.8574), ("long", 1.8178), ("stay", 1.4653), ("valid", 1.4287)];
    for ((term, w), (want, ww)) in terms.iter().zip(expected) {
        assert_eq!(term, want);
        assert!((w - ww).abs() < 1e-3, "{term}: {w} vs {ww}");
    }
    // `long` is an expansion: the text has no such word piece.
    let input = splade.input_ids("Cached results stay valid for 15 minutes").unwrap();
    let long = v.terms.iter().position(|&(id, _)| splade.term(id) == "long").unwrap();
    assert!(!input.contains(&v.terms[long].0));
    assert!(input.contains(&v.sources[long]), "the source token is one of the input tokens");
}

#[test]
fn an_explicit_folder_is_recognised_by_its_pinned_hashes() {
    // splade-tiny's files are pinned; the preferred SPLADE model's hashes are only recorded on first
    // download, so a folder holding splade-tiny must not be taken for it.
    let m = fetch("splade-tiny");
    let manager = ModelManager::from_env().offline(true).with_explicit(ranklens::models::Role::Splade, m.dir.clone());
    let found = manager.resolve(ranklens::models::Role::Splade, false, &NoProgress).unwrap();
    assert_eq!(found.spec.id, "splade-tiny");
    assert_eq!(found.dir, m.dir);
}

/// Mean-pooled, L2-normalised vectors of `texts` from a backbone (MiniLM's pooling).
fn pooled(b: &Backbone, texts: &[String]) -> Vec<Vec<f32>> {
    let mut out = Vec::new();
    for chunk in texts.chunks(16) {
        let mut batch = Batch::default();
        for t in chunk {
            batch.push(&b.encode(t).unwrap());
        }
        let (hidden, mask) = b.forward(&batch).unwrap();
        let (hidden, mask): (Vec<Vec<Vec<f32>>>, Vec<Vec<f32>>) = (hidden.to_vec3().unwrap(), mask.to_vec2().unwrap());
        for (rows, mask) in hidden.iter().zip(&mask) {
            let mut v = vec![0f64; rows[0].len()];
            let n: f64 = mask.iter().map(|&m| m as f64).sum();
            for (row, &m) in rows.iter().zip(mask) {
                for (a, x) in v.iter_mut().zip(row) {
                    *a += (m * x) as f64 / n;
                }
            }
            let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
            out.push(v.iter().map(|x| (x / norm) as f32).collect());
        }
    }
    out
}

fn cos64(a: &[f32], b: &[f32]) -> f64 {
    let dot: f64 = a.iter().zip(b).map(|(x, y)| *x as f64 * *y as f64).sum();
    let (na, nb) = (cos(a, a) as f64, cos(b, b) as f64);
    dot / (na * nb).sqrt()
}

/// SciFact's first `n` passages, title and text (long ones: most fill MiniLM's 256 word pieces).
fn first_scifact_passages(n: usize) -> Vec<String> {
    let corpus = ranklens::corpus::load(&common::shared_data("scifact"), Default::default()).unwrap();
    corpus.docs()[..n].iter().map(|d| format!("{} {}", d.title, d.text)).collect()
}

#[test]
fn bf16_products_keep_every_embedding_within_cosine_0_999_of_f32() {
    // The first 64 SciFact passages (long ones: most fill MiniLM's 256 word pieces), in f32, in
    // bf16 computed plainly (on any CPU), and with the AVX512-BF16 kernel where the CPU has it.
    let m = fetch("sentence-transformers/all-MiniLM-L6-v2");
    let texts = first_scifact_passages(64);
    let (mut backbone, _) = Backbone::load(&m.dir, 256, Precision::F32).unwrap();
    assert_eq!(backbone.model.precision(), Precision::F32);
    let exact = pooled(&backbone, &texts);
    backbone.model.set_kernels(Kernels::Bf16Portable).unwrap();
    assert_eq!(backbone.model.precision(), Precision::Bf16);
    let plain = pooled(&backbone, &texts);
    let cosines: Vec<f64> = exact.iter().zip(&plain).map(|(a, b)| cos64(a, b)).collect();
    let worst = cosines.iter().copied().fold(1.0, f64::min);
    assert!(worst >= 0.999, "bf16 moved an embedding to cosine {worst}");
    // bf16 did round: the vectors are not f32's (8 bits of mantissa move the third digit).
    let moved = exact.iter().zip(&plain).flat_map(|(a, b)| a.iter().zip(b)).map(|(x, y)| (x - y).abs());
    assert!(moved.fold(0f32, f32::max) > 1e-4, "bf16 left every component as f32 had it");
    match backbone.model.set_kernels(Kernels::Bf16) {
        Ok(()) => {
            assert!(ranklens::models::precision::bf16_instructions());
            // The kernel is the same arithmetic in another order of sums.
            let fast = pooled(&backbone, &texts);
            for (a, b) in fast.iter().zip(&plain) {
                assert!(cos64(a, b) > 0.99999, "kernel vs plain bf16: {}", cos64(a, b));
            }
        }
        Err(e) => {
            assert!(!ranklens::models::precision::bf16_instructions(), "{e}");
            assert_eq!(backbone.model.kernels(), Kernels::Bf16Portable, "a refused change leaves the model as it was");
            common::skipped("MiniLM through the AVX512-BF16 kernel against plain bf16 (no AVX512-BF16)");
        }
    }
}

#[test]
fn int16_products_keep_every_embedding_within_cosine_0_999_of_f32() {
    // The same 64 SciFact passages in f32 and in 16-bit integers (weights to ±1,023, i32 sums)
    // where the CPU has AVX2; the kernel itself is held bit for bit to plain loops in its unit tests.
    let m = fetch("sentence-transformers/all-MiniLM-L6-v2");
    let texts = first_scifact_passages(64);
    let (mut backbone, _) = Backbone::load(&m.dir, 256, Precision::F32).unwrap();
    let exact = pooled(&backbone, &texts);
    match backbone.model.set_kernels(Kernels::Int16) {
        Ok(()) => {
            assert!(ranklens::models::int16::int16_instructions());
            assert_eq!(backbone.model.precision(), Precision::Int16);
            let low = pooled(&backbone, &texts);
            let worst = exact.iter().zip(&low).map(|(a, b)| cos64(a, b)).fold(1.0, f64::min);
            assert!(worst >= 0.999, "int16 moved an embedding to cosine {worst}");
            let moved = exact.iter().zip(&low).flat_map(|(a, b)| a.iter().zip(b)).map(|(x, y)| (x - y).abs());
            assert!(moved.fold(0f32, f32::max) > 1e-4, "int16 left every component as f32 had it");
        }
        Err(e) => {
            assert!(!ranklens::models::int16::int16_instructions(), "{e}");
            assert_eq!(backbone.model.kernels(), Kernels::F32, "a refused change leaves the model as it was");
            common::skipped("MiniLM in int16 against f32 (no AVX2 and FMA, or f32 forced)");
        }
    }
}

/// SPLADE in 16-bit integers (the backbone's four products and the vocabulary projection, whose
/// maxima the kernel keeps as it goes) against f32 on the same 64 passages: every vector within
/// cosine 0.999, and each passage's ten heaviest terms mostly the same.
#[test]
fn int16_splade_vectors_stay_within_cosine_0_999_of_f32() {
    use ranklens::models::{ArchSettings, SparseEncoder};
    if !ranklens::models::precision::int16_supported() {
        // Nothing to compare: the int16 request runs f32 here, and says so (the unit tests of
        // `precision` and the listing test above).
        assert_eq!(Precision::Int16.effective(), Precision::F32);
        common::skipped("SPLADE in int16 against f32 (no AVX2 and FMA, or f32 forced)");
        return;
    }
    let m = fetch("splade-tiny");
    let texts = first_scifact_passages(64);
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let arch = |precision| ArchSettings { precision, ..m.spec.arch.clone() };
    let f = ranklens::models::BertSpladeEncoder::load("splade", &m.dir, &arch(Precision::F32)).unwrap();
    let q = ranklens::models::BertSpladeEncoder::load("splade", &m.dir, &arch(Precision::Int16)).unwrap();
    let (exact, low) = (f.encode(&refs).unwrap(), q.encode(&refs).unwrap());
    let dense = |v: &ranklens::models::SparseVector| -> std::collections::HashMap<u32, f64> {
        v.terms.iter().map(|&(t, w)| (t, w as f64)).collect()
    };
    let mut top_shared = 0;
    for (a, b) in exact.iter().zip(&low) {
        let (a, b) = (dense(a), dense(b));
        let dot: f64 = a.iter().map(|(t, w)| w * b.get(t).copied().unwrap_or(0.0)).sum();
        let norm = |v: &std::collections::HashMap<u32, f64>| v.values().map(|w| w * w).sum::<f64>().sqrt();
        let c = dot / (norm(&a) * norm(&b));
        assert!(c >= 0.999, "int16 moved a SPLADE vector to cosine {c}");
        let top = |v: &std::collections::HashMap<u32, f64>| {
            let mut t: Vec<(u32, f64)> = v.iter().map(|(k, w)| (*k, *w)).collect();
            t.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0)));
            t.into_iter().take(10).map(|x| x.0).collect::<std::collections::HashSet<u32>>()
        };
        top_shared += top(&a).intersection(&top(&b)).count();
    }
    assert!(top_shared >= 64 * 9, "{top_shared} of 640 top-ten terms kept");
}

#[test]
fn the_f32_kernels_can_be_forced_and_the_listing_says_what_runs() {
    let run = |force: bool| {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_ranklens"));
        c.args(["models", "list"]).env("RANKLENS_OFFLINE", "1");
        if force {
            c.env("RANKLENS_F32_KERNELS", "1");
        } else {
            c.env_remove("RANKLENS_F32_KERNELS");
        }
        let out = c.output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        text.lines()
            .find(|l| l.starts_with("precision: "))
            .unwrap_or_else(|| panic!("no precision line: {text}"))
            .to_string()
    };
    // The default is auto: forced to f32, it says so; free, it times where there is a choice.
    assert_eq!(run(true), "precision: auto: f32 (RANKLENS_F32_KERNELS forces f32)");
    let free = run(false);
    let others: Vec<&str> = [
        (ranklens::models::precision::bf16_instructions(), "bf16"),
        (ranklens::models::int16::int16_instructions(), "int16"),
    ]
    .iter()
    .filter_map(|&(has, name)| has.then_some(name))
    .collect();
    if others.is_empty() {
        assert_eq!(
            free,
            "precision: auto: f32 (this CPU has neither AVX512-BF16 nor AVX2, the other kernels RankLens builds)"
        );
    } else {
        let want = format!("precision: auto: each model's f32 and {} kernels timed", others.join(" and "));
        assert!(free.starts_with(&want), "{free}");
    }
}

/// `--precision auto` on the real MiniLM: each kernel this CPU has is timed on the calibration
/// texts, bf16 keeps every text's vector within the gate, the choice is one of the timed kernels
/// (bf16 only where it was faster than f32 beyond the noise margin, by the rule worked in the
/// unit tests), and it is remembered for this model, CPU and build: a second resolve reads it back
/// without timing again. Which kernel wins is a fact of the CPU, not asserted here.
#[test]
fn auto_times_the_kernels_this_cpu_has_and_remembers_its_choice() {
    use ranklens::models::auto_precision::{self, MIN_COSINE, NOISE};
    let m = fetch("sentence-transformers/all-MiniLM-L6-v2");
    let cache = tempfile::tempdir().unwrap();
    let id = "sentence-transformers/all-MiniLM-L6-v2";
    assert!(auto_precision::remembered(cache.path(), id).is_none());
    let c = auto_precision::resolve(cache.path(), id, &m.dir, 256, &NoProgress).unwrap();
    let mut want = vec![Precision::F32];
    if ranklens::models::precision::bf16_supported() {
        want.push(Precision::Bf16);
    }
    if ranklens::models::precision::int16_supported() {
        want.push(Precision::Int16);
    }
    let timed: Vec<Precision> = c.seconds.keys().copied().collect();
    assert_eq!(timed, want);
    assert!(c.seconds.values().all(|s| s.is_finite() && *s > 0.0), "{c:?}");
    assert!((c.min_cosine[&Precision::F32] - 1.0).abs() < 1e-9, "f32 against itself: {c:?}");
    // Every kernel passes the gate on these texts; the choice is the fastest beyond the noise
    // margin (worked independently here), f32 when none is.
    let f32_time = c.seconds[&Precision::F32];
    let mut best = (Precision::F32, f32_time * (1.0 - NOISE));
    for p in &want[1..] {
        assert!(c.min_cosine[p] >= MIN_COSINE, "{c:?}");
        if c.seconds[p] < best.1 {
            best = (*p, c.seconds[p]);
        }
    }
    assert_eq!(c.choice, best.0, "{c:?}");
    assert_eq!((c.texts, c.model.as_str()), (16, id));
    assert!(c.tokens > 16 * 60, "about a hundred word pieces a text: {}", c.tokens);
    // Remembered: the same record, read back.
    assert_eq!(auto_precision::remembered(cache.path(), id), Some(c.clone()));
    assert_eq!(auto_precision::resolve(cache.path(), id, &m.dir, 256, &NoProgress).unwrap(), c);
    assert!(c.describe().starts_with(c.choice.name()) && c.describe().contains(&c.cpu), "{}", c.describe());
    eprintln!("{}", c.describe());
}
