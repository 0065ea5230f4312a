//! BM25 against independent implementations: rank_bm25 (values computed in Python, outside this
//! code) and tantivy's own scorer.

use std::sync::Arc;

use ranklens::analysis::{AnalyzerConfig, Preset};
use ranklens::corpus::{Corpus, DocId};
use ranklens::index::{IndexLocation, SparseIndex};
use ranklens::progress::NoProgress;
use ranklens::retrieve::{
    Bm25Params, Bm25Variant, Detail, LexicalModel, LexicalRetriever, QueryContext, Retriever, TantivyBm25,
};

fn index(docs: &[&str], preset: Preset) -> Arc<SparseIndex> {
    let ids: Vec<String> = (0..docs.len()).map(|i| format!("d{i}")).collect();
    let corpus = Corpus::from_texts("t", ids.iter().map(String::as_str).zip(docs.iter().copied()));
    Arc::new(SparseIndex::build(&corpus, AnalyzerConfig::preset(preset), &IndexLocation::Ram, &NoProgress).unwrap())
}

fn all_scores(r: &dyn Retriever, n: usize, q: &str) -> Vec<f64> {
    (0..n as u32).map(|d| r.explain(&QueryContext::new(q), DocId(d)).unwrap().value).collect()
}

/// Expected values printed by rank_bm25 0.2.2 (`BM25Okapi(corpus_split).get_scores(query.split())`).
#[test]
fn okapi_equals_rank_bm25() {
    let docs = [
        "the cat sat on the mat",
        "the dog sat on the log",
        "cats and dogs are friends",
        "the mat is red and the log is brown",
        "a bird sang on the branch",
    ];
    let idx = index(&docs, Preset::Whitespace);
    assert!((idx.stats().avgdl - 6.4).abs() < 1e-12);
    assert!((idx.stats().okapi_mean_idf - 0.7469875880989975).abs() < 1e-12);
    let okapi = LexicalRetriever::new(
        idx,
        LexicalModel::Bm25 { variant: Bm25Variant::Okapi, params: Bm25Variant::Okapi.default_params() },
    )
    .unwrap();
    let expected: [(&str, [f64; 5]); 5] = [
        // "the" is in 4 of 5 documents: negative RSJ idf, floored at ε × mean idf.
        ("the cat", [1.4026555288319857, 0.27225060158505604, 0.0, 0.23596843849129237, 0.1921511480640508]),
        ("sat on the mat", [1.156820500252246, 0.8106111249506764, 0.0, 0.520436379624154, 0.3843022961281016]),
        ("log", [0.0, 0.3462093753015696, 0.0, 0.28446794113286167, 0.0]),
        ("the the dog", [0.5445012031701121, 1.6749061304170416, 0.0, 0.47193687698258474, 0.3843022961281016]),
        ("is red", [0.0, 0.0, 0.0, 2.3169909827684756, 0.0]),
    ];
    for (q, want) in expected {
        let got = all_scores(&okapi, docs.len(), q);
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() < 1e-9, "{q}: {got:?} vs {want:?}");
        }
        let ranking = okapi.search(&QueryContext::new(q), 10).unwrap();
        for h in &ranking.hits {
            assert_eq!(h.score, got[h.doc.index()], "search and explain agree for {q}");
        }
    }
}

#[test]
fn lucene_is_tantivy_over_k1_plus_1_up_to_40_tokens() {
    let docs = [
        "sync token expired sign in again",
        "cached results stay valid for fifteen minutes then the cache is replaced",
        "the desktop app loads the plugin at start and the plugin loads its library",
        "token token token refresh the sync token when the token expires after the sync",
    ];
    let idx = index(&docs, Preset::English);
    let lucene = LexicalRetriever::new(
        idx.clone(),
        LexicalModel::Bm25 { variant: Bm25Variant::Lucene, params: Bm25Variant::Lucene.default_params() },
    )
    .unwrap();
    let tantivy = TantivyBm25::new(idx.clone());
    for q in ["sync token", "the plugin loads", "cache minutes token", "token token sync"] {
        let l = all_scores(&lucene, docs.len(), q);
        let t = all_scores(&tantivy, docs.len(), q);
        for (a, b) in l.iter().zip(&t) {
            assert!((a * 2.2 - b).abs() <= 1e-5 * b.max(1.0), "{q}: lucene×2.2 {l:?} vs tantivy {t:?}");
        }
        let ranked = tantivy.search(&QueryContext::new(q), 10).unwrap();
        for h in ranked.hits {
            assert!((h.score - t[h.doc.index()]).abs() < 1e-6);
        }
    }
}

#[test]
fn beyond_40_tokens_only_the_length_norm_differs() {
    let long: String = (0..97).map(|i| format!("w{i} ")).collect::<String>() + "needle";
    let docs = ["needle in a short text", long.as_str(), "nothing here at all"];
    let idx = index(&docs, Preset::Whitespace);
    assert_eq!(idx.doc_len(DocId(1)), 98);
    let tantivy_len = idx.tantivy_doc_len(DocId(1)).unwrap();
    assert!(tantivy_len < 98, "tantivy's one-byte norm rounds 98 down (got {tantivy_len})");
    let lucene_with = |exact_lengths| {
        let params = Bm25Params { exact_lengths, ..Bm25Variant::Lucene.default_params() };
        LexicalRetriever::new(idx.clone(), LexicalModel::Bm25 { variant: Bm25Variant::Lucene, params }).unwrap()
    };
    let (lucene, exact) = (lucene_with(false), lucene_with(true));
    let tantivy = TantivyBm25::new(idx.clone());
    let q = QueryContext::new("needle");
    let t = tantivy.explain(&q, DocId(1)).unwrap().value;
    // tantivy keeps lengths in Lucene's one byte: RankLens's lucene variant, which reads them
    // as Lucene does, is tantivy over k1 + 1 for the long passage too (to float32).
    let l = lucene.explain(&q, DocId(1)).unwrap();
    assert!((l.value * 2.2 - t).abs() < 1e-5, "{} × 2.2 vs {t}", l.value);
    let Detail::Terms(table) = &l.detail else { panic!("{:?}", l.detail) };
    assert_eq!((table.rows[0].dl, table.rows[0].exact_dl), (f64::from(tantivy_len), Some(98.0)));
    // With exact lengths the scores part.
    let e = exact.explain(&q, DocId(1)).unwrap().value;
    assert!((e * 2.2 - t).abs() > 1e-4, "the exact and the one-byte length give different scores");
    // The exact length put into the formula by hand gives the exact-lengths score.
    let p = Bm25Variant::Lucene.default_params();
    let stats = idx.stats();
    let idf = Bm25Variant::Lucene.idf(stats.n_docs, 2, &p, 0.0);
    let by_hand = idf * Bm25Variant::Lucene.tf_weight(1.0, 98.0, stats.avgdl, &p);
    assert!((by_hand - e).abs() < 1e-12, "{by_hand} vs {e}");
    // Short documents are untouched.
    let l0 = lucene.explain(&q, DocId(0)).unwrap().value;
    let t0 = tantivy.explain(&q, DocId(0)).unwrap().value;
    assert!((l0 * 2.2 - t0).abs() < 1e-5);
}
