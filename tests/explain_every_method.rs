//! For every method kind, on the sample corpus: each hit `search` returns is explained, from the
//! same prepared question, with exactly its score (bit for bit for lexical methods, within 1e-6 for
//! neural ones); the parts an explanation lists add up to it; explaining afresh gives the same; and
//! every passage of the corpus can be explained ("why not?") without an error.
//!
//! The dense and SPLADE models are the real ones (all-MiniLM-L6-v2, splade-tiny). No cross-encoder
//! or ColBERT weights are reachable here, so the rerank and trained-ColBERT paths run on small
//! seeded random checkpoints written in the real file layouts and loaded by the real loaders.

mod common;

use std::sync::Arc;

use common::tiny_bert::{self, HIDDEN};
use ranklens::compare::External;
use ranklens::config::Settings;
use ranklens::corpus::{DocId, LoadOptions, load};
use ranklens::external::VectorFile;
use ranklens::index::encoded::{TokenTarget, build_late};
use ranklens::models::InputKind;
use ranklens::models::WindowSpec;
use ranklens::models::{
    ArchSettings, BertCrossEncoder, ColbertEncoder, ColbertSettings, ModelManager, Role, TokenEncoder,
};
use ranklens::progress::NoProgress;
use ranklens::retrieve::{
    Bm25Variant, FusionMethod, LateInteractionRetriever, MethodKind, QueryContext, RerankRetriever, Retriever,
    ScoreSplit, TfIdfVariant,
};
use ranklens::workbench::{SparseSpec, Workbench};
use std::collections::BTreeMap;

const QUESTIONS: [&str; 3] = [
    "How long before saved results expire?",
    "Why does my phone say my login is stale?",
    "Which version added end-to-end encryption, and which library does it use?",
];

/// The columns whose scores are cosines split over a passage's tokens (a dense model, with or
/// without a model's text or an adapter on the question).
const DENSE_LIKE: [MethodKind; 4] =
    [MethodKind::Dense, MethodKind::DenseAdapter, MethodKind::Hyde, MethodKind::ReasonDense];

/// A query in Boolean syntax that some passages of the sample satisfy.
const BOOLEAN_QUERY: &str = "\"sync token\" AND (expired OR stale) NOT android";

fn engine() -> Workbench {
    let corpus = load(&common::sample("acme-sync"), LoadOptions::default()).unwrap();
    let engine = Workbench::new(corpus).with_workspace(tempfile::tempdir().unwrap().keep());
    let manager = ModelManager::from_env().offline(false);
    for role in [Role::Dense, Role::Splade] {
        engine.load_model(&manager, role, true, &NoProgress).unwrap();
    }
    engine.build_neural(&NoProgress).unwrap();
    engine
}

/// A Lucene BM25 explanation as Elasticsearch 8 writes it (`sum of:` over `weight(text:TERM in
/// DOC)` nodes, each `boost * idf * tf` with idf's n and N and tf's freq, k1, b, dl, avgdl).
fn es8_tree(e: &ranklens::retrieve::Explanation) -> serde_json::Value {
    use serde_json::json;
    let ranklens::retrieve::Detail::Terms(t) = &e.detail else { panic!("term rows") };
    let node = |value: f64, description: &str, details: Vec<serde_json::Value>| json!({"value": value, "description": description, "details": details});
    let weights: Vec<serde_json::Value> = t
        .rows
        .iter()
        .filter(|r| r.tf > 0)
        .map(|r| {
            let (k1, b) = (r.k1.unwrap(), r.b.unwrap());
            let idf = node(
                r.idf,
                "idf, computed as log(1 + (N - n + 0.5) / (n + 0.5)) from:",
                vec![
                    node(r.df as f64, "n, number of documents containing term", vec![]),
                    node(t.n as f64, "N, total number of documents with field", vec![]),
                ],
            );
            let tf = node(
                r.tf_weight,
                "tf, computed as freq / (freq + k1 * (1 - b + b * dl / avgdl)) from:",
                vec![
                    node(f64::from(r.tf), "freq, occurrences of term within document", vec![]),
                    node(k1, "k1, term saturation parameter", vec![]),
                    node(b, "b, length normalization parameter", vec![]),
                    node(r.dl, "dl, length of field", vec![]),
                    node(r.avgdl, "avgdl, average length of field", vec![]),
                ],
            );
            let mut parts = vec![idf, tf];
            if r.qtf > 1 {
                parts.insert(0, node(f64::from(r.qtf), "boost", vec![]));
            }
            let score =
                node(r.contribution, &format!("score(freq={}.0), computed as boost * idf * tf from:", r.tf), parts);
            node(r.contribution, &format!("weight(text:{} in 0) [PerFieldSimilarity], result of:", r.term), vec![score])
        })
        .collect();
    node(weights.iter().map(|w| w["value"].as_f64().unwrap()).sum(), "sum of:", weights)
}

fn arch() -> ArchSettings {
    ArchSettings {
        max_length: 64,
        normalize: true,
        pooling: None,
        query_instruction: None,
        colbert: None,
        reader: None,
        precision: Default::default(),
    }
}

/// Every retriever RankLens has, each with what it is (lexical or not).
fn retrievers(engine: &Workbench, models: &std::path::Path) -> Vec<(Arc<dyn Retriever>, bool)> {
    let settings = Settings::default();
    let mut out: Vec<(Arc<dyn Retriever>, bool)> = Vec::new();
    let mut specs = SparseSpec::all_variants(settings.bm25_variant, settings.bm25);
    specs.push(SparseSpec::tfidf(TfIdfVariant::Textbook, false));
    for spec in specs {
        out.push((engine.sparse(spec, settings.analyzer, &NoProgress).unwrap(), true));
    }
    for kind in [MethodKind::Splade, MethodKind::Dense, MethodKind::LateInteraction] {
        out.push((engine.retriever(kind, &settings).unwrap(), false));
    }
    for method in FusionMethod::ALL {
        let mut s = settings.clone();
        s.fusion.method = method;
        out.push((engine.retriever(MethodKind::Fusion, &s).unwrap(), false));
    }
    let corpus = engine.corpus().clone();
    let bm25 = engine.retriever(MethodKind::Bm25, &settings).unwrap();
    let dense_tokens = engine.neural().late_encoder().unwrap();
    // The same token vectors uncompressed (f16), beside the engine's compressed index.
    let f16_index = Arc::new(ranklens::index::encoded::token_index_of(&corpus, dense_tokens.as_ref(), 16).unwrap());
    out.push((Arc::new(LateInteractionRetriever::over_index(f16_index, dense_tokens)), false));
    // A trained ColBERT's layout (seeded random weights): markers, projection, its own index.
    let colbert_dir = models.join("colbert");
    tiny_bert::write_model(&colbert_dir, "bert.", &[("linear.weight", vec![8, HIDDEN])], 13);
    let colbert = ColbertSettings {
        query_marker: "[unused0]".into(),
        doc_marker: "[unused1]".into(),
        query_length: 12,
        doc_length: 32,
        projection_dim: 8,
        mask_punctuation: true,
    };
    let colbert =
        ColbertEncoder::load("colbert-tiny", &colbert_dir, &ArchSettings { colbert: Some(colbert), ..arch() });
    let colbert: Arc<dyn TokenEncoder> = Arc::new(colbert.unwrap());
    // Its documents are longer than its 29-piece window: each is encoded in windows, compressed.
    let target = TokenTarget { bits: 2, ..Default::default() };
    let index =
        Arc::new(build_late(&corpus, colbert.as_ref(), None, WindowSpec::default(), &target, &NoProgress).unwrap());
    assert!(index.windows.long_docs() > 0, "the sample's passages exceed a 29-piece window");
    out.push((Arc::new(LateInteractionRetriever::over_index(index, colbert)), false));
    // A cross-encoder's layout (seeded random weights) reranking BM25.
    let ce_dir = models.join("cross-encoder");
    let extra = [
        ("bert.pooler.dense.weight", vec![HIDDEN, HIDDEN]),
        ("bert.pooler.dense.bias", vec![HIDDEN]),
        ("classifier.weight", vec![1, HIDDEN]),
        ("classifier.bias", vec![1]),
    ];
    tiny_bert::write_model(&ce_dir, "bert.", &extra, 15);
    let ce = Arc::new(BertCrossEncoder::load("ce-tiny", &ce_dir, &arch()).unwrap());
    out.push((Arc::new(RerankRetriever::new(bm25.clone(), ce, corpus.clone(), 10)), false));
    // Other systems: a run file, saved engine responses (one per query id, with a document the
    // corpus does not hold), and vectors from files, all made from BM25's and the dense model's
    // answers to the sample's questions.
    let run = engine.run_queries(bm25.as_ref(), &settings, 10, &NoProgress).unwrap();
    let dir = models.join("systems");
    std::fs::create_dir_all(&dir).unwrap();
    let run_path = dir.join("bm25.trec");
    run.write_trec(&run_path).unwrap();
    out.push((
        External::open(&run_path, None, Some(&corpus)).unwrap().retriever(engine, &settings, &NoProgress).unwrap(),
        false,
    ));
    // Each saved hit carries its explanation tree, in Elasticsearch 8's shape, written from
    // RankLens's own Lucene BM25 rows for that passage; the corpus does not hold `elsewhere-1`.
    let lucene = engine
        .sparse(
            SparseSpec::bm25(Bm25Variant::Lucene, Bm25Variant::Lucene.default_params()),
            settings.analyzer,
            &NoProgress,
        )
        .unwrap();
    let mut lines = String::new();
    for (qid, list) in &run.results {
        let question = &corpus.queries.iter().find(|q| &q.id == qid).unwrap().text;
        let mut hits: Vec<serde_json::Value> = list
            .iter()
            .map(|(id, _)| {
                let e = lucene.explain(&QueryContext::new(question.as_str()), corpus.lookup(id).unwrap()).unwrap();
                let tree = es8_tree(&e);
                serde_json::json!({"_id": id, "_score": tree["value"], "_explanation": tree})
            })
            .collect();
        hits.insert(1, serde_json::json!({"_id": "elsewhere-1", "_score": list.first().map_or(0.0, |h| h.1)}));
        lines.push_str(&serde_json::json!({"query_id": qid, "response": {"hits": {"hits": hits}}}).to_string());
        lines.push('\n');
    }
    let responses = dir.join("es.jsonl");
    std::fs::write(&responses, lines).unwrap();
    let es = External::open(&responses, None, Some(&corpus)).unwrap();
    assert_eq!(es.kind(), MethodKind::Engine);
    out.push((es.retriever(engine, &settings, &NoProgress).unwrap(), false));
    let index = engine.neural().dense_index.clone().unwrap();
    let ids: Vec<String> = corpus.docs().iter().map(|d| d.id.clone()).collect();
    VectorFile { ids: Some(ids), dim: index.dim, data: index.vectors.clone() }
        .write(&dir.join("passages.npy"))
        .unwrap();
    let encoder = engine.neural().dense.clone().unwrap().encoder;
    let texts: Vec<&str> = corpus.queries.iter().map(|q| q.text.as_str()).collect();
    let mut data = Vec::new();
    for t in &texts {
        data.extend(
            ranklens::models::TextEncoder::encode(encoder.as_ref(), &[*t], InputKind::Query).unwrap().remove(0),
        );
    }
    let qids = corpus.queries.iter().map(|q| q.id.clone()).collect();
    VectorFile { ids: Some(qids), dim: index.dim, data }.write(&dir.join("queries.npy")).unwrap();
    let vectors = External::open(&dir.join("passages.npy"), None, Some(&corpus)).unwrap();
    out.push((vectors.retriever(engine, &settings, &NoProgress).unwrap(), false));
    // A query adapter trained on the sample's own judgements.
    let adapter =
        engine.train_adapter(&corpus.qrels.clone().unwrap(), &corpus.queries, "the sample", &NoProgress).unwrap();
    let adapter_path = dir.join("adapter.safetensors");
    adapter.save(&adapter_path).unwrap();
    let with_adapter = Settings { adapter: Some(adapter_path), ..settings.clone() };
    out.push((engine.retriever(MethodKind::DenseAdapter, &with_adapter).unwrap(), false));
    // The language model's columns, over a loopback server scripted to answer every task.
    engine.set_generator(Arc::new(common::chat::client(scripted_model()))).unwrap();
    let mut llm = settings.clone();
    (llm.model_rerank.depth, llm.model_rerank.window, llm.model_rerank.step, llm.model_rerank.pointwise_depth) =
        (8, 4, 2, 5);
    for kind in MethodKind::GENERATED {
        out.push((engine.retriever(kind, &llm).unwrap(), false));
    }
    // GraphRAG's local search over the graph the scripted model extracts.
    let generator = engine.generator().unwrap();
    engine.build_model_graph(generator.as_ref(), Default::default(), &NoProgress).unwrap();
    out.push((engine.retriever(MethodKind::GraphLocal, &llm).unwrap(), false));
    out
}

/// A stand-in model on loopback: it rewrites, drafts and reasons with fixed texts, reverses every
/// listwise window, and gives P(yes) by the passage's length.
fn scripted_model() -> &'static common::http::Server {
    use common::chat::{self, Reply};
    static SERVER: std::sync::OnceLock<common::http::Server> = std::sync::OnceLock::new();
    SERVER.get_or_init(|| {
        chat::serve(|body| {
            let said = chat::said(body);
            // The agent: one BM25 search for the question, then an answer citing two passages.
            if body.get("tools").is_some() {
                if chat::tool_results(body).is_empty() {
                    let q = serde_json::json!({ "query": chat::last(body) }).to_string();
                    return Reply::Raw(chat::tool_calls(&[("bm25", &q)], 8));
                }
                return Reply::Text("It is in [2], and [1] says more.".into());
            }
            // GraphRAG's extraction: a passage's first four words of five letters or more, each
            // linked to the next.
            if said.contains("You extract the entities") {
                let passage = chat::last(body);
                let mut words: Vec<String> = Vec::new();
                for w in passage.split(|c: char| !c.is_alphanumeric()).filter(|w| w.len() >= 5 && *w != "Passage") {
                    if !words.iter().any(|x| x.eq_ignore_ascii_case(w)) && words.len() < 4 {
                        words.push(w.to_string());
                    }
                }
                let entities: Vec<serde_json::Value> = words.iter().map(|w| serde_json::json!({"name": w})).collect();
                let relations: Vec<serde_json::Value> = words
                    .windows(2)
                    .map(|p| serde_json::json!({"source": p[0], "relation": "next to", "target": p[1]}))
                    .collect();
                return Reply::Text(serde_json::json!({"entities": entities, "relations": relations}).to_string());
            }
            if body["logprobs"].as_bool() == Some(true) {
                let long = chat::last(body).len().is_multiple_of(2);
                let (y, n) = if long { (0.7f64, 0.2f64) } else { (0.3, 0.6) };
                return Reply::Logprobs(vec![(" yes".into(), y.ln()), (" no".into(), n.ln())]);
            }
            if said.contains("RankGPT") {
                let n = chat::window_size(body);
                return Reply::Text((1..=n).rev().map(|i| format!("[{i}]")).collect::<Vec<_>>().join(" > "));
            }
            if said.contains("keyword search queries") {
                return Reply::Text("sync token expired sign in".into());
            }
            if said.contains("what a good answer to this question needs") {
                return Reply::Text("An answer needs the error code, its cause and the fix.".into());
            }
            Reply::Text("Sign in again when the sync token expires; files upload after that.".into())
        })
    })
}

#[test]
fn every_hit_of_every_method_is_explained_with_its_own_score() {
    let engine = engine();
    let models = tempfile::tempdir().unwrap();
    let all = retrievers(&engine, models.path());
    let mut kinds: Vec<MethodKind> = all.iter().map(|(r, _)| r.kind()).collect();
    kinds.sort();
    kinds.dedup();
    assert_eq!(
        kinds,
        MethodKind::RANKED
            .iter()
            .copied()
            .chain(MethodKind::GENERATED)
            .chain(MethodKind::EXTRACTED)
            .chain([MethodKind::Boolean, MethodKind::Run, MethodKind::Engine, MethodKind::Vectors])
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect::<Vec<_>>()
    );
    let release_4: Vec<bool> =
        engine.corpus().docs().iter().map(|d| d.fields.get("release").is_some_and(|r| r.starts_with('4'))).collect();
    let mut checked = 0;
    let (mut splits, mut unsplit) = (BTreeMap::<MethodKind, usize>::new(), BTreeMap::<MethodKind, usize>::new());
    for (retriever, lexical) in &all {
        let label = retriever.label();
        let kind = retriever.kind();
        // Boolean retrieval also gets a query in its own syntax, which its set matches.
        let boolean = (kind == MethodKind::Boolean).then_some(BOOLEAN_QUERY);
        for (i, question) in QUESTIONS.iter().chain(boolean.iter()).enumerate() {
            // The last question also runs with a metadata filter.
            let mut query = QueryContext::new(*question);
            if i == 2 {
                query = query.with_filter(release_4.clone(), "release 4.x");
            }
            let prepared = retriever.prepare(&query).unwrap();
            let ranking = prepared.search(10).unwrap();
            assert!(
                !ranking.hits.is_empty() || retriever.kind() == MethodKind::Boolean,
                "{label}: nothing for {question}"
            );
            for hit in &ranking.hits {
                let e = prepared.explain(hit.doc).unwrap();
                if *lexical {
                    assert_eq!(
                        e.value.to_bits(),
                        hit.score.to_bits(),
                        "{label} {question} {}: {} vs {}",
                        hit.doc,
                        e.value,
                        hit.score
                    );
                } else {
                    assert!(
                        (e.value - hit.score).abs() <= 1e-6,
                        "{label} {question} {}: {} vs {}",
                        hit.doc,
                        e.value,
                        hit.score
                    );
                }
                // Every score is made of its parts, and says how; none is skipped.
                match e.split() {
                    ScoreSplit::Sum(parts) => {
                        let sum: f64 = parts.iter().map(|(_, v)| v).sum();
                        // tantivy adds its clauses in f32; a dense cosine's token parts come from
                        // encoding the passage again on its own; everything else sums in f64 the
                        // very numbers that scored.
                        // Read from the explanation, not the label: a model's column over BM25
                        // (a rewrite, a draft, reasoning) explains with Lucene's rows too.
                        let lucene = matches!(
                            &e.detail,
                            ranklens::retrieve::Detail::Terms(t) if matches!(
                                t.model,
                                Some(ranklens::retrieve::LexicalModel::Bm25 { variant: Bm25Variant::Lucene, params })
                                    if !params.exact_lengths
                            )
                        );
                        if lucene {
                            // Lucene sums its float parts in double and casts the sum to float.
                            assert_eq!((sum as f32) as f64, e.value, "{label}: the float of the parts' sum");
                        } else {
                            let tolerance = if label.contains("tantivy") {
                                1e-5 * e.value.abs().max(1.0)
                            } else if DENSE_LIKE.contains(&kind) {
                                1e-4
                            } else {
                                1e-9 * e.value.abs().max(1.0)
                            };
                            assert!(
                                (sum - e.value).abs() <= tolerance,
                                "{label} {question}: parts {sum} vs {}",
                                e.value
                            );
                        }
                        if DENSE_LIKE.contains(&kind) {
                            assert!(parts.len() > 2, "{label}: the cosine is split over the passage's tokens");
                            *splits.entry(kind).or_default() += 1;
                        }
                        if !parts.is_empty() {
                            *splits.entry(kind).or_default() += 1;
                        }
                    }
                    ScoreSplit::Clauses(tree) => {
                        assert_eq!(kind, MethodKind::Boolean, "{label}");
                        assert_eq!(tree.evaluate(), Some(e.value == 1.0), "{label} {question}: the tree is the score");
                        *splits.entry(kind).or_default() += 1;
                    }
                    ScoreSplit::Unsplit(why) => {
                        // Only scores that have no parts may say so: a cross-encoder's logit, a
                        // run file's score, vectors computed elsewhere.
                        assert!(
                            matches!(
                                kind,
                                MethodKind::Rerank
                                    | MethodKind::Run
                                    | MethodKind::Vectors
                                    | MethodKind::Listwise
                                    | MethodKind::Pointwise
                                    | MethodKind::Agent
                            ),
                            "{label} {question} {}: no split ({why})",
                            hit.doc
                        );
                        assert!(why.len() > 20, "{label}: says why ({why})");
                        *unsplit.entry(kind).or_default() += 1;
                    }
                }
                let again = retriever.explain(&query, hit.doc).unwrap();
                assert!((again.value - e.value).abs() <= 1e-6, "{label}: a fresh preparation explains the same");
                checked += 1;
            }
            // "Why not?": every passage, ranked or not, filtered out or not, has an explanation.
            for d in 0..engine.corpus().len() as u32 {
                let e = prepared.explain(DocId(d)).unwrap();
                if !query.allows(DocId(d)) {
                    assert_eq!(e.value, 0.0, "{label}: a filtered passage scores 0");
                }
            }
        }
    }
    // 12 lexical (Boolean, 3 TF-IDF, 8 BM25), 9 neural (SPLADE, dense, late interaction over
    // the index, reranking BM25, and on a trained ColBERT's index, 3 fusions, the cross-encoder),
    // 3 other systems (a run, saved engine responses, vectors from files), the adapted dense
    // model, the language model's 8 columns, and local search over the graph it extracted.
    assert_eq!(all.len(), 34);
    assert!(checked >= 400, "{checked} hits checked");
    // Every ranked kind split its hits' scores, except the three whose scores have no parts, and
    // those said so for every hit.
    let split_kinds: Vec<MethodKind> = splits.keys().copied().collect();
    assert_eq!(
        split_kinds,
        [
            MethodKind::Boolean,
            MethodKind::TfIdf,
            MethodKind::Bm25,
            MethodKind::Splade,
            MethodKind::Dense,
            MethodKind::LateInteraction,
            MethodKind::Fusion,
            MethodKind::Engine,
            MethodKind::Rewrite,
            MethodKind::Hyde,
            MethodKind::HydeText,
            MethodKind::ReasonBm25,
            MethodKind::ReasonDense,
            MethodKind::DenseAdapter,
            MethodKind::GraphLocal,
        ]
    );
    assert_eq!(
        unsplit.keys().copied().collect::<Vec<_>>(),
        [
            MethodKind::Rerank,
            MethodKind::Run,
            MethodKind::Vectors,
            MethodKind::Listwise,
            MethodKind::Pointwise,
            MethodKind::Agent
        ]
    );
}

#[test]
fn tantivy_rows_are_read_from_tantivy_and_add_up_to_its_score() {
    // A hand check of one row: `results` in caching-1, against tantivy's own formula with the
    // collection's statistics read independently from the index.
    let corpus = load(&common::sample("acme-sync"), LoadOptions::default()).unwrap();
    let engine = Workbench::new(corpus);
    let settings = Settings::default();
    let spec = SparseSpec::bm25(Bm25Variant::Tantivy, Bm25Variant::Tantivy.default_params());
    let r = engine.sparse(spec, settings.analyzer, &NoProgress).unwrap();
    let doc = engine.corpus().lookup("caching-1").unwrap();
    let e = r.explain(&QueryContext::new("How long before saved results expire?"), doc).unwrap();
    let ranklens::retrieve::Detail::Terms(table) = &e.detail else { panic!("term rows") };
    let row = table.rows.iter().find(|r| r.term == "result").unwrap();
    let index = engine.index(settings.analyzer, &NoProgress).unwrap();
    let (n, df) = (index.stats().n_docs as f64, index.doc_freq("result").unwrap() as f64);
    let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
    let tf = f64::from(row.tf);
    let want = 2.2 * idf * tf / (tf + 1.2 * (1.0 - 0.75 + 0.75 * row.dl / row.avgdl));
    assert!(row.tf > 0 && (row.contribution - want).abs() < 1e-5, "{} vs {want}", row.contribution);
    let sum: f64 = table.rows.iter().map(|r| r.contribution).sum();
    assert!((sum - e.value).abs() < 1e-5 && e.value > 0.0);
}

/// `ranklens search --method M --explain --format json`: every hit carries the parts its score
/// is made of, the same shape for every method, and they sum to the hit's score to 1e-4.
#[test]
fn the_cli_prints_parts_that_sum_to_every_score() {
    let workspace = tempfile::tempdir().unwrap();
    let sample = common::sample("acme-sync");
    for method in ["bm25", "tfidf", "splade", "dense", "late", "fusion"] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_ranklens"))
            .args(["search", "--corpus"])
            .arg(&sample)
            .args(["--method", method, "--explain", "--format", "json", "How long before saved results expire?"])
            .env("RANKLENS_WORKSPACE", workspace.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{method}: {}", String::from_utf8_lossy(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let hits = v["hits"].as_array().unwrap();
        assert!(!hits.is_empty(), "{method}");
        for h in hits {
            let score = h["score"].as_f64().unwrap();
            assert_eq!(h["split"]["kind"], "sum", "{method}: {}", h["split"]);
            let parts = h["split"]["parts"].as_array().unwrap();
            let sum: f64 = parts.iter().map(|p| p["value"].as_f64().unwrap()).sum();
            assert!((sum - score).abs() <= 1e-4, "{method} {}: parts {sum} vs score {score}", h["id"]);
            assert!(parts.iter().all(|p| p["name"].as_str().is_some_and(|n| !n.is_empty())));
        }
    }
}

/// SciFact's long scientific abstracts, many cut into windows: every dense hit's cosine splits
/// over its scoring window's tokens (and over the question's) to 1e-4. The first 250 passages
/// with 25 questions keep the encoding to about a minute; the split is per passage, so a larger
/// corpus would check nothing more.
#[test]
fn dense_token_parts_sum_to_every_scifact_score() {
    let full = load(&common::shared_data("scifact"), LoadOptions::default()).unwrap();
    let mut corpus = ranklens::corpus::Corpus::from_docs("scifact-250", full.docs().iter().take(250).cloned());
    corpus.queries = full.queries.iter().take(25).cloned().collect();
    let engine = Workbench::new(corpus).with_workspace(tempfile::tempdir().unwrap().keep());
    // Dense vectors only (no token index for late interaction).
    let options = ranklens::index::NeuralOptions { tokens: false, ..Default::default() };
    engine.set_neural_options(options).unwrap();
    engine.load_model(&ModelManager::from_env().offline(false), Role::Dense, true, &NoProgress).unwrap();
    engine.build_neural(&NoProgress).unwrap();
    let windows = engine.neural().dense_index.clone().unwrap().windows.long_docs();
    assert!(windows > 100, "{windows} of the 250 passages are longer than one window");
    let dense = engine.retriever(MethodKind::Dense, &Settings::default()).unwrap();
    let (mut hits, mut windowed) = (0, 0);
    for q in &engine.corpus().queries {
        let prepared = dense.prepare(&QueryContext::new(q.text.as_str())).unwrap();
        for hit in prepared.search(10).unwrap().hits {
            let e = prepared.explain(hit.doc).unwrap();
            let ranklens::retrieve::Detail::Dense { tokens, query_tokens, .. } = &e.detail else { panic!("dense") };
            let (doc_sum, question_sum): (f64, f64) =
                (tokens.iter().map(|t| t.contribution).sum(), query_tokens.iter().map(|t| t.contribution).sum());
            assert!((doc_sum - hit.score).abs() <= 1e-4, "{}: {doc_sum} vs {}", q.id, hit.score);
            assert!((question_sum - hit.score).abs() <= 1e-4, "{}: {question_sum} vs {}", q.id, hit.score);
            // The parts are the window's pieces, in the passage's text.
            let text = engine.corpus().doc(hit.doc).unwrap().full_text();
            let w = e.window.as_ref().map_or(0..text.len(), |w| w.start..w.end);
            windowed += usize::from(e.window.is_some());
            for t in tokens.iter().filter(|t| t.start.is_some()) {
                let (a, b) = (t.start.unwrap(), t.end.unwrap());
                assert!(w.start <= a && b <= w.end, "{} outside its window", t.token);
                let (piece, span) = (t.token.trim_start_matches("##"), text.get(a..b).expect("character boundaries"));
                // The tokenizer lower-cases and strips accents: an ASCII span holds its piece.
                assert!(
                    !span.is_ascii() || span.to_lowercase() == piece || piece == "[UNK]",
                    "{} at {span:?}",
                    t.token
                );
            }
            hits += 1;
        }
    }
    assert_eq!(hits, 250);
    assert!(windowed > 0, "some hits scored by a later window");
}
