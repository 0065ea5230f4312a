//! Real weights, real numbers: the candle encoders against an independent NumPy implementation
//! (`scripts/reference_encoders.py`, run on the same files), for the two models reachable here.

use std::sync::OnceLock;

use ranklens::models::{
    BertDenseEncoder, BertSpladeEncoder, InputKind, ModelManager, ResolvedModel, SparseEncoder, TextEncoder,
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
