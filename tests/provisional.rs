//! Provisional neural columns: on a corpus whose passages are not encoded yet, the dense, SPLADE and
//! late-interaction columns of one question rank BM25's top passages, encoded for the question with
//! the same model — each candidate with the score the full index gives it, every other passage
//! unscored and said to be so — and the label, the ranking and each explanation say it is
//! provisional. Checked against the full index built independently (every passage encoded).

mod common;

use std::collections::BTreeSet;

use ranklens::compare::{Outcome, Plan};
use ranklens::config::Settings;
use ranklens::corpus::{Corpus, DocId, LoadOptions, load};
use ranklens::index::NeuralOptions;
use ranklens::models::{ModelManager, Role};
use ranklens::progress::NoProgress;
use ranklens::retrieve::{MethodKind, PROVISIONAL_DEPTH, QueryContext};
use ranklens::workbench::Workbench;

const KINDS: [MethodKind; 3] = [MethodKind::Splade, MethodKind::Dense, MethodKind::LateInteraction];

/// An engine with the dense and SPLADE models loaded and f16 token vectors (so the full token index
/// holds the same values a provisional one does), encoded or not.
fn engine(corpus: Corpus, encoded: bool) -> Workbench {
    let engine = Workbench::new(corpus);
    engine.set_neural_options(NeuralOptions { token_bits: 16, ..NeuralOptions::default() }).unwrap();
    let manager = ModelManager::from_env().offline(false);
    for role in [Role::Dense, Role::Splade] {
        engine.load_model(&manager, role, true, &NoProgress).unwrap();
    }
    if encoded {
        engine.build_neural(&NoProgress).unwrap();
    }
    engine
}

/// A corpus with long documents (several windows each) beside short ones.
fn long_corpus() -> Corpus {
    let sentences = [
        "The harbour master logs every ferry that docks after dark.",
        "Tides at the north pier run two hours later than at the south pier.",
        "Fishing boats unload their catch at dawn on the east quay.",
        "The lighthouse lamp is cleaned each Sunday by the keeper.",
        "Storm warnings are posted on the board outside the harbour office.",
    ];
    let long = |twist: &str| {
        let mut parts: Vec<String> = Vec::new();
        for round in 0..14 {
            for s in sentences {
                parts.push(s.to_string());
            }
            if round == 11 {
                parts.push(twist.to_string());
            }
        }
        parts.join(" ")
    };
    let (a, b) = (
        long("The ferry to the island was cancelled because the harbour crane broke."),
        long("A storm warning closed the harbour and the ferry stayed at the north pier."),
    );
    Corpus::from_texts(
        "harbour",
        [
            ("log-a", a.as_str()),
            ("log-b", b.as_str()),
            ("bakery", "The bakery by the harbour sells rye bread and ferry tickets on Tuesdays."),
            ("choir", "The school choir rehearses in the church hall on Thursday evenings."),
            ("orchard", "Apple trees in the orchard are pruned in winter when the branches are bare."),
            ("museum", "The maritime museum shows the old ferry's bell and the harbour's first crane."),
        ],
    )
}

/// `question` on the unencoded engine: each neural column provisional and equal, candidate by
/// candidate, to the full index's scores; then the same engine encoded answers in full.
fn check(corpus: impl Fn() -> Corpus, question: &str) {
    let settings = Settings { k: 10, ..Settings::default() };
    let cold = engine(corpus(), false);
    let full = engine(corpus(), true);
    let q = QueryContext::new(question);
    let docs = cold.corpus().len();

    // BM25's candidates, from the full engine's own BM25 (the same index either way).
    let bm25 = full.retriever(MethodKind::Bm25, &settings).unwrap();
    let candidates: BTreeSet<DocId> = bm25.search(&q, PROVISIONAL_DEPTH).unwrap().docs().into_iter().collect();
    assert!(
        !candidates.is_empty() && candidates.len() < docs,
        "the question must leave some passages out of BM25's list: {} of {docs}",
        candidates.len()
    );
    let outside = (0..docs as u32).map(DocId).find(|d| !candidates.contains(d)).unwrap();

    for kind in KINDS {
        assert!(cold.answers_provisionally(kind), "{kind}: the model is loaded and nothing is encoded");
        assert!(!full.answers_provisionally(kind), "{kind}: encoded");
        assert!(cold.encodes_at_query_time(kind), "{kind}: the app ranks it in the second phase");
        // The app's first phase answers at once: the column says it is not encoded yet.
        let first = Plan::of_kinds(&settings, &[kind]).run_except(&cold, &q, &[], "", &NoProgress).unwrap();
        match &first.comparison.runs[0].outcome {
            Outcome::Unavailable { message } => assert_eq!(message, ranklens::workbench::NOT_ENCODED, "{kind}"),
            other => panic!("{kind}: the first phase encoded candidates: {other:?}"),
        }
        // Asked for one question, the plan ranks it provisionally.
        let run = Plan::of_kinds(&settings, &[kind]).run(&cold, &q, &NoProgress).unwrap();
        let column = &run.comparison.runs[0];
        let ranking = column.ranking().unwrap_or_else(|| panic!("{kind}: {:?}", column.outcome));
        assert!(ranking.provisional, "{kind}");
        let note = format!(
            "provisional — over BM25's top {PROVISIONAL_DEPTH} while the corpus is encoded (its encoding has not started)"
        );
        assert!(column.label.ends_with(&note) && ranking.method == column.label, "{kind}: {}", column.label);
        // The full index's score of every candidate, and the order they give.
        let prepared = full.retriever(kind, &settings).unwrap().prepare(&q).unwrap();
        // (SPLADE ranks the passages that share a term with the question; the others every passage.)
        let mut expected: Vec<(DocId, f64)> = candidates
            .iter()
            .map(|&d| (d, prepared.explain(d).unwrap().value))
            .filter(|(_, s)| kind != MethodKind::Splade || *s > 0.0)
            .collect();
        expected.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        expected.truncate(settings.k);
        assert_eq!(ranking.hits.len(), expected.len(), "{kind}: {:?} vs {expected:?}", ranking.hits);
        for (h, (_, s)) in ranking.hits.iter().zip(&expected) {
            assert!(candidates.contains(&h.doc), "{kind}: {:?} is not a BM25 candidate", h.doc);
            // Place by place the same scores; the same passages where no two are within 1e-4.
            assert!((h.score - s).abs() < 1e-4, "{kind}: {} vs the full index's {s}", h.score);
            let full_score = prepared.explain(h.doc).unwrap().value;
            assert!((h.score - full_score).abs() < 1e-4, "{kind}: {:?} {} vs {full_score}", h.doc, h.score);
        }
        // A candidate's explanation: the score, its parts adding up, and the word provisional.
        let p = &run.prepared[0].clone().unwrap();
        let top = ranking.hits[0];
        let e = p.explain(top.doc).unwrap();
        assert_eq!(e.value, top.score, "{kind}");
        assert!(e.summary.starts_with("Provisional: scored among BM25's top"), "{kind}: {}", e.summary);
        assert!(e.method.contains("provisional"), "{kind}: {}", e.method);
        let sum = e.parts_sum().unwrap_or_else(|| panic!("{kind}: no parts: {:?}", e.split()));
        assert!((sum - e.value).abs() < 1e-4, "{kind}: parts {sum} vs {}", e.value);
        // A passage BM25 did not bring: not scored, and said so.
        let e = p.explain(outside).unwrap();
        assert_eq!(e.value, 0.0, "{kind}");
        assert!(e.summary.starts_with("Provisional: not among the"), "{kind}: {}", e.summary);
    }

    // Once encoded, the same engine answers in full.
    cold.build_neural(&NoProgress).unwrap();
    for kind in KINDS {
        assert!(!cold.answers_provisionally(kind), "{kind}");
        let run = Plan::of_kinds(&settings, &[kind]).run(&cold, &q, &NoProgress).unwrap();
        let ranking = run.comparison.runs[0].ranking().unwrap();
        assert!(!ranking.provisional && !ranking.method.contains("provisional"), "{kind}: {}", ranking.method);
    }
}

#[test]
fn provisional_columns_rank_bm25s_candidates_as_the_full_index_does() {
    check(|| load(&common::sample("acme-sync"), LoadOptions::default()).unwrap(), "What is E140?");
}

#[test]
fn provisional_columns_encode_every_window_of_a_long_candidate() {
    check(long_corpus, "Why was the ferry cancelled?");
}

#[test]
fn a_column_without_its_model_has_no_provisional_ranking() {
    let corpus = load(&common::sample("acme-sync"), LoadOptions::default()).unwrap();
    let engine = Workbench::new(corpus);
    for kind in KINDS {
        assert!(!engine.answers_provisionally(kind), "{kind}");
    }
    for kind in [MethodKind::Bm25, MethodKind::Fusion, MethodKind::Rerank] {
        assert!(!engine.answers_provisionally(kind), "{kind}");
    }
    let settings = Settings::default();
    let run = Plan::of_kinds(&settings, &[MethodKind::Dense]).run(&engine, &QueryContext::new("E140"), &NoProgress);
    let column = &run.unwrap().comparison.runs[0];
    assert!(column.ranking().is_none(), "{:?}", column.outcome);
}
