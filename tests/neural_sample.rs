//! Neural methods on the sample corpus with real weights: every column present, every explanation
//! summing to its score; and, with no models at all, every sparse method still running while each
//! neural column says what is missing and how to get it.

mod common;

use std::sync::{Arc, OnceLock};

use ranklens::compare::{Outcome, Plan};
use ranklens::config::Settings;
use ranklens::corpus::{LoadOptions, load};
use ranklens::models::{ModelManager, Role};
use ranklens::progress::NoProgress;
use ranklens::retrieve::{Detail, MethodKind, QueryContext, Retriever};
use ranklens::workbench::Workbench;

fn engine_with_models() -> &'static Workbench {
    static E: OnceLock<Workbench> = OnceLock::new();
    E.get_or_init(|| {
        let corpus = load(&common::sample("acme-sync"), LoadOptions::default()).unwrap();
        let ws = tempfile::tempdir().unwrap().keep();
        let engine = Workbench::new(corpus).with_workspace(ws);
        let manager = ModelManager::from_env().offline(false);
        for role in [Role::Dense, Role::Splade] {
            engine.load_model(&manager, role, true, &NoProgress).unwrap();
        }
        engine.build_neural(&NoProgress).unwrap();
        engine
    })
}

fn retriever(kind: MethodKind) -> Arc<dyn Retriever> {
    engine_with_models().retriever(kind, &Settings::default()).unwrap_or_else(|e| panic!("{kind}: {e}"))
}

#[test]
fn dense_splade_and_late_interaction_sit_next_to_the_sparse_methods() {
    let e = engine_with_models();
    let settings = Settings::default();
    let kinds = [
        MethodKind::Boolean,
        MethodKind::TfIdf,
        MethodKind::Bm25,
        MethodKind::Splade,
        MethodKind::Dense,
        MethodKind::LateInteraction,
        MethodKind::Fusion,
    ];
    let settings = Settings { k: 5, ..settings };
    let q = QueryContext::new("Why does my phone say my login is stale?");
    let cmp = Plan::of_kinds(&settings, &kinds).run(e, &q, &NoProgress).unwrap().comparison;
    for run in &cmp.runs {
        assert!(matches!(run.outcome, Outcome::Ranked(_)), "{}: {:?}", run.label, run.outcome);
    }
    // The manager's default precision is auto: the kernel timed fastest on this CPU (and kept in
    // the model cache) runs, and the label names it — `@bf16` or `@int16` only where that kernel
    // was chosen, which needs its instructions.
    let dense_label = &cmp.runs.iter().find(|r| r.kind == MethodKind::Dense).unwrap().label;
    let manager = ranklens::models::ModelManager::from_env();
    let chosen =
        ranklens::models::auto_precision::remembered(manager.cache_dir(), "sentence-transformers/all-MiniLM-L6-v2")
            .expect("auto's choice is kept")
            .choice;
    use ranklens::models::Precision;
    assert!(chosen != Precision::Bf16 || ranklens::models::precision::bf16_supported());
    assert!(chosen != Precision::Int16 || ranklens::models::precision::int16_supported());
    for p in [Precision::Bf16, Precision::Int16] {
        let named = dense_label.contains(&format!("all-MiniLM-L6-v2{}", p.id_suffix()));
        assert_eq!(named, chosen == p, "{dense_label}");
    }
    assert!(dense_label.contains("all-MiniLM-L6-v2"), "{dense_label}");
    let late = cmp.runs.iter().find(|r| r.kind == MethodKind::LateInteraction).unwrap();
    assert!(late.label.contains("not a trained ColBERT"), "the fallback says what it is: {}", late.label);
    // Dense search finds the E104 passage that BM25 misses.
    let e104 = e.corpus().lookup("errors-2").unwrap();
    let dense = cmp.runs.iter().find(|r| r.kind == MethodKind::Dense).unwrap().ranking().unwrap();
    assert!(dense.rank_of(e104).is_some_and(|r| r <= 5), "{:?}", dense.docs());
}

#[test]
fn neural_explanations_sum_to_their_scores() {
    let e = engine_with_models();
    let q = QueryContext::new("How long before saved results expire?");
    for kind in [MethodKind::Splade, MethodKind::LateInteraction, MethodKind::Fusion, MethodKind::Dense] {
        let r = retriever(kind);
        let ranking = r.search(&q, 5).unwrap();
        assert!(!ranking.hits.is_empty(), "{kind}");
        for h in &ranking.hits {
            let ex = r.explain(&q, h.doc).unwrap();
            assert!((ex.value - h.score).abs() < 1e-9, "{kind}: explain {} vs search {}", ex.value, h.score);
            match kind {
                MethodKind::Dense => {
                    let Detail::Dense { cosine, rank_among_all, of, .. } = ex.detail else { panic!("dense detail") };
                    assert_eq!(f64::from(cosine), h.score);
                    assert_eq!(Some(rank_among_all), ranking.rank_of(h.doc));
                    assert_eq!(of, e.corpus().len());
                }
                _ => {
                    let parts = ex.parts_sum().unwrap();
                    assert!(
                        (parts - h.score).abs() < 1e-5 * h.score.abs().max(1.0),
                        "{kind}: parts {parts} vs {}",
                        h.score
                    );
                }
            }
            if let Detail::MaxSim { alignments, matrix, query_tokens, doc_tokens } = &ex.detail {
                assert_eq!(alignments.len(), query_tokens.len());
                assert_eq!(matrix.len(), query_tokens.len() * doc_tokens.len());
                for a in alignments {
                    let row = &matrix[a.query_pos * doc_tokens.len()..(a.query_pos + 1) * doc_tokens.len()];
                    let max = row.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
                    assert_eq!(a.similarity, max, "each alignment is its row's maximum");
                    assert_eq!(doc_tokens[a.doc_pos], a.doc_token);
                }
            }
        }
    }
    // The caching passage comes first for dense search on this question.
    let dense = retriever(MethodKind::Dense).search(&q, 1).unwrap();
    assert_eq!(e.corpus().external_id(dense.hits[0].doc), "caching-1");
}

#[test]
fn splade_marks_expansion_terms_and_their_sources() {
    let e = engine_with_models();
    let r = retriever(MethodKind::Splade);
    let q = QueryContext::new("How long before saved results expire?");
    let doc = e.corpus().lookup("caching-1").unwrap();
    let ex = r.explain(&q, doc).unwrap();
    let Detail::Sparse { matches, query_terms } = ex.detail else { panic!("sparse detail") };
    assert!(!query_terms.is_empty());
    assert!(matches.iter().any(|m| m.doc_expansion), "some shared terms are the model's additions: {matches:?}");
    assert!(matches.iter().all(|m| m.query_source.is_some() && m.doc_source.is_some()));
    let results = matches.iter().find(|m| m.term == "results").unwrap();
    assert!(!results.query_expansion && !results.doc_expansion, "`results` is written on both sides");
}

#[test]
fn the_pca_map_places_the_question_with_the_fitted_transform() {
    let e = engine_with_models();
    let n = e.neural();
    let (map, index) = (n.map.unwrap(), n.dense_index.unwrap());
    assert_eq!(map.points.len(), e.corpus().len());
    let total = map.variance_share[0] + map.variance_share[1];
    assert!(total > 0.0 && total < 1.0, "two axes explain part of the variance: {total}");
    // A passage's own vector projects onto its own point (same transform, no refit).
    let v = index.vector(ranklens::corpus::DocId(3)).unwrap();
    let p = map.project(v);
    assert!((p[0] - map.points[3][0]).abs() < 1e-9 && (p[1] - map.points[3][1]).abs() < 1e-9);
    let placed = map.place(&index, v, 3);
    assert_eq!(placed.neighbours[0].0, ranklens::corpus::DocId(3), "its own nearest neighbour");
}

#[test]
fn each_map_axis_is_oriented_by_its_largest_loading() {
    // Recover each axis from the points alone: with X the centred passage vectors and p the
    // points' coordinates on one axis, Xᵀp = λ·axis. Its largest loading must be positive (the
    // convention that makes the map the same on every machine), and the axes are orthogonal.
    let e = engine_with_models();
    let n = e.neural();
    let (map, index) = (n.map.unwrap(), n.dense_index.unwrap());
    let (rows, dim) = (index.len(), index.dim);
    let x: Vec<f64> = index.vectors.iter().map(|&v| f64::from(v)).collect();
    let mean: Vec<f64> = (0..dim).map(|d| (0..rows).map(|r| x[r * dim + d]).sum::<f64>() / rows as f64).collect();
    let mut axes = Vec::new();
    for axis in 0..2 {
        let v: Vec<f64> = (0..dim)
            .map(|d| (0..rows).map(|r| (x[r * dim + d] - mean[d]) * map.points[r][axis]).sum::<f64>())
            .collect();
        let largest = v.iter().copied().fold(0.0f64, |a, y| if y.abs() > a.abs() { y } else { a });
        assert!(largest > 0.0, "axis {axis}: its largest loading is {largest}");
        let norm = v.iter().map(|y| y * y).sum::<f64>().sqrt();
        axes.push(v.into_iter().map(|y| y / norm).collect::<Vec<f64>>());
    }
    let cos: f64 = axes[0].iter().zip(&axes[1]).map(|(a, b)| a * b).sum();
    assert!(cos.abs() < 1e-4, "the two axes are orthogonal: cos = {cos}");
}

#[test]
fn without_network_or_models_the_sparse_methods_run_and_neural_ones_say_why() {
    let corpus = load(&common::sample("acme-sync"), LoadOptions::default()).unwrap();
    let engine = Workbench::new(corpus);
    let empty = tempfile::tempdir().unwrap();
    let manager = ModelManager::from_env().with_cache_dir(empty.path().to_path_buf()).with_hf_cache(None).offline(true);
    engine.load_models(&manager, true, &NoProgress).unwrap();
    engine.build_neural(&NoProgress).unwrap();
    let settings = Settings { k: 5, ..Settings::default() };
    let plan = Plan::every_variant(&settings, None, None).with_structured_sources(&engine);
    assert_eq!(plan.members.len(), 16, "11 lexical variants and 5 neural methods; no table, no graph");
    let cmp = plan.run(&engine, &QueryContext::new("What does error E104 mean?"), &NoProgress).unwrap().comparison;
    for run in &cmp.runs {
        match (&run.outcome, run.kind) {
            (Outcome::Ranked(r), MethodKind::Boolean | MethodKind::TfIdf | MethodKind::Bm25) => {
                assert!(r.kind != MethodKind::Bm25 || !r.hits.is_empty(), "{}", run.label)
            }
            (
                Outcome::Unavailable { message },
                MethodKind::Splade | MethodKind::Dense | MethodKind::LateInteraction | MethodKind::Rerank,
            ) => {
                assert!(message.contains("ranklens models fetch --role"), "{}: {message}", run.label);
                assert!(message.contains("offline"), "says the network was off: {message}");
            }
            (Outcome::Unavailable { message }, MethodKind::Fusion) => {
                assert!(message.contains("fusion needs"), "{message}")
            }
            (other, kind) => panic!("{kind}: {other:?}"),
        }
    }
}

#[test]
fn late_interaction_waits_for_its_token_index_and_then_reads_every_passage() {
    // With the dense model loaded but the corpus not encoded yet, late interaction has no token
    // index: its column says so (there is no shortlist fallback); once the index exists it scores
    // every passage, and on a corpus this small it answers with the other columns.
    let corpus = load(&common::sample("acme-sync"), LoadOptions::default()).unwrap();
    let n = corpus.len();
    let engine = Workbench::new(corpus);
    let manager = ModelManager::from_env().offline(false);
    let settings = Settings::default();
    engine.load_model(&manager, Role::Dense, true, &NoProgress).unwrap();
    match engine.retriever(MethodKind::LateInteraction, &settings) {
        Err(ranklens::Error::Unavailable(m)) => assert_eq!(m, ranklens::workbench::NOT_ENCODED),
        Err(e) => panic!("{e}"),
        Ok(r) => panic!("{} without an index", r.label()),
    }
    engine.build_dense(&NoProgress).unwrap();
    let late = engine.retriever(MethodKind::LateInteraction, &settings).unwrap();
    let all = late.search(&ranklens::retrieve::QueryContext::new("stale login token"), n).unwrap();
    assert_eq!(all.hits.len(), n, "every passage scored");
    let index = engine.neural().late_index.unwrap();
    assert_eq!(index.windows.docs(), n);
    assert!(index.codec.describe().starts_with("2-bit residuals"), "{}", index.codec.describe());
    for kind in [MethodKind::Bm25, MethodKind::Dense, MethodKind::Fusion, MethodKind::LateInteraction] {
        assert!(!engine.encodes_at_query_time(kind), "{kind}");
    }
}
