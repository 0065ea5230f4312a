//! RankLens's `lucene` BM25 and `english` analyzer against real Lucene: Anserini 1.7.1 (Lucene
//! 9.9.1) runs and analyzer output recorded by `scripts/lucene-reference.sh` under
//! `tests/fixtures/lucene/` (the tests read the files; they need no Java).

mod common;

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use ranklens::analysis::{Analyzer, AnalyzerConfig};
use ranklens::corpus::{Corpus, Qrels};
use ranklens::eval::{Metric, MetricSet, Run, evaluate};
use ranklens::index::{IndexLocation, SparseIndex};
use ranklens::progress::NoProgress;
use ranklens::retrieve::{Bm25Params, Bm25Variant, LexicalModel, LexicalRetriever, QueryContext, Retriever};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/lucene").join(name)
}

/// `id<TAB>term term …` lines, as DumpTokens.java writes them.
fn tokens_file(name: &str) -> Vec<(String, Vec<String>)> {
    let text = std::fs::read_to_string(fixture(name)).unwrap();
    text.lines()
        .map(|l| {
            let (id, terms) = l.split_once('\t').unwrap();
            (id.to_string(), terms.split(' ').filter(|t| !t.is_empty()).map(String::from).collect())
        })
        .collect()
}

/// The judged questions of a collection, id → text, as the reference script gave them to Lucene
/// (whitespace runs made one space).
fn judged_questions(corpus: &Corpus, qrels: &Qrels) -> BTreeMap<String, String> {
    corpus
        .queries
        .iter()
        .filter(|q| qrels.judged(&q.id))
        .map(|q| (q.id.clone(), q.text.split_whitespace().collect::<Vec<_>>().join(" ")))
        .collect()
}

#[test]
fn the_english_analyzer_makes_the_terms_lucene_makes() {
    let analyzer = Analyzer::new(AnalyzerConfig::default());
    let cases =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/lucene/cases.tsv")).unwrap();
    let inputs: BTreeMap<&str, &str> = cases.lines().filter_map(|l| l.split_once('\t')).collect();
    let mut compared = 0;
    for (id, want) in tokens_file("analyzer-cases.tokens") {
        assert_eq!(analyzer.terms(inputs[id.as_str()]), want, "case {id}: {:?}", inputs[id.as_str()]);
        compared += 1;
    }
    assert_eq!(compared, inputs.len());
    for name in ["scifact", "cranfield", "vaswani"] {
        let corpus = ranklens::corpus::load(&common::shared_data(name), Default::default()).unwrap();
        let qrels = corpus.qrels.clone().unwrap();
        let questions = judged_questions(&corpus, &qrels);
        let recorded = tokens_file(&format!("{name}-queries.tokens"));
        assert_eq!(recorded.len(), questions.len(), "{name}");
        for (id, want) in recorded {
            assert_eq!(analyzer.terms(&questions[&id]), want, "{name} question {id}: {:?}", questions[&id]);
        }
    }
}

/// Anserini's run: question → [(doc, score)] in its order.
fn anserini_run(name: &str) -> BTreeMap<String, Vec<(String, f64)>> {
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(fixture(&format!("{name}-bm25-flat.run.gz"))).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    let mut run: BTreeMap<String, Vec<(String, f64)>> = BTreeMap::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split(' ').collect();
        assert_eq!(f.len(), 6, "{line}");
        let rank: usize = f[3].parse().unwrap();
        let hits = run.entry(f[0].to_string()).or_default();
        assert_eq!(hits.len() + 1, rank, "{line}");
        hits.push((f[2].to_string(), f[4].parse().unwrap()));
    }
    run
}

/// What comparing RankLens's ranking with Anserini's found over a collection's questions.
struct Agreement {
    questions: usize,
    /// Questions whose top 10 are the same documents in the same order.
    same_top10: usize,
    /// The questions that differ, with both top 10s.
    differing: Vec<(String, Vec<String>, Vec<String>)>,
    /// The largest difference between a document's score and Anserini's printed one, over every
    /// document both rank in their top 100.
    max_score_diff: f64,
    /// RankLens's run (top 100 per question), for nDCG.
    run: Run,
    /// Lines of Anserini's run, and how many RankLens prints the same (rank, document and score
    /// to its 6 decimals) once its scores go through Anserini's rounding.
    lines: usize,
    lines_equal: usize,
}

/// Anserini's `ScoreTiesAdjusterReranker`, written again from its source: each score rounded to
/// 4 decimals (in double, kept as float), then 1e-6 taken off for each tie after the first,
/// a tie being a score within 1e-4 of the one above, in float arithmetic.
fn as_anserini_prints(ranked: &[(String, f64)]) -> Vec<(String, f64)> {
    let mut out: Vec<(String, f32)> = Vec::with_capacity(ranked.len());
    let mut dup = 0u32;
    for (i, (d, s)) in ranked.iter().enumerate() {
        let mut score = ((f64::from(*s as f32) * 1e4 + 0.5).floor() / 1e4) as f32;
        if i == 0 || out[i - 1].1 - score > 1e-4f32 {
            dup = 0;
        } else {
            dup += 1;
            score -= 1e-6f32 * dup as f32;
        }
        out.push((d.clone(), score));
    }
    out.into_iter().map(|(d, s)| (d, f64::from(s))).collect()
}

/// Ranks every judged question with Lucene's BM25 (k1 0.9, b 0.4) over `corpus` and compares
/// with Anserini's recorded run. Anserini sorts equal float scores by document id (its
/// `BREAK_SCORE_TIES_BY_DOCID`) and drops a document whose id is the question's
/// (`-removeQuery`); RankLens's ranking is put in that order before comparing.
fn agreement(name: &str, corpus: Corpus, qrels: &Qrels) -> Agreement {
    let questions = judged_questions(&corpus, qrels);
    let index = std::sync::Arc::new(
        SparseIndex::build(&corpus, AnalyzerConfig::default(), &IndexLocation::Ram, &NoProgress).unwrap(),
    );
    let params = Bm25Params { k1: 0.9, b: 0.4, ..Bm25Variant::Lucene.default_params() };
    let bm25 = LexicalRetriever::new(index, LexicalModel::Bm25 { variant: Bm25Variant::Lucene, params }).unwrap();
    let reference = anserini_run(name);
    let mut out = Agreement {
        questions: 0,
        same_top10: 0,
        differing: Vec::new(),
        max_score_diff: 0.0,
        run: Run::new("ranklens"),
        lines: 0,
        lines_equal: 0,
    };
    for (qid, text) in &questions {
        let ranking = bm25.search(&QueryContext::new(text.as_str()), 120).unwrap();
        // The top 10 is ranked another way (contributions made with the retriever, a top-k
        // heap); the 120 by scoring every posting at question time. Same documents, same bits.
        let top10 = bm25.search(&QueryContext::new(text.as_str()), 10).unwrap();
        let pairs = |hits: &[ranklens::retrieve::Hit]| -> Vec<(usize, u64)> {
            hits.iter().map(|h| (h.doc.index(), h.score.to_bits())).collect()
        };
        assert_eq!(pairs(&top10.hits), pairs(&ranking.hits[..ranking.hits.len().min(10)]), "{name} question {qid}");
        let mut ours: Vec<(String, f64)> =
            ranking.hits.iter().map(|h| (corpus.docs()[h.doc.index()].id.clone(), h.score)).collect();
        ours.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        // Anserini adjusts ties before it leaves out the question's own id: a document
        // dropped that way still counts as a tie (Cranfield question 184's rank 72).
        let printed_ours: Vec<(String, f64)> =
            as_anserini_prints(&ours).into_iter().filter(|(id, _)| id != qid).take(100).collect();
        ours.retain(|(id, _)| id != qid);
        ours.truncate(100);
        let theirs = reference.get(qid).cloned().unwrap_or_default();
        out.questions += 1;
        let top = |v: &[(String, f64)]| v.iter().take(10).map(|(d, _)| d.clone()).collect::<Vec<_>>();
        if top(&ours) == top(&theirs) {
            out.same_top10 += 1;
        } else {
            out.differing.push((qid.clone(), top(&ours), top(&theirs)));
        }
        let printed: BTreeMap<&str, f64> = theirs.iter().map(|(d, s)| (d.as_str(), *s)).collect();
        for (d, s) in &ours {
            if let Some(p) = printed.get(d.as_str()) {
                out.max_score_diff = out.max_score_diff.max((s - p).abs());
            }
        }
        let lines = |v: &[(String, f64)]| v.iter().map(|(d, s)| format!("{d} {s:.6}")).collect::<Vec<_>>();
        let (mine, recorded) = (lines(&printed_ours), lines(&theirs));
        out.lines += recorded.len();
        out.lines_equal += mine.iter().zip(&recorded).filter(|(a, b)| a == b).count();
        out.run.insert(qid.clone(), ours);
    }
    out
}

fn ndcg10(run: &Run, qrels: &Qrels) -> f64 {
    evaluate(run, qrels, &MetricSet::standard()).mean[&Metric::Ndcg(10)]
}

/// Anserini rounds each score to 4 decimals and takes 1e-6 off each tie after the first
/// (`ScoreTiesAdjusterReranker`), so a printed score is within 0.00005 + a few 1e-6 of Lucene's.
const PRINTED: f64 = 0.00005 + 2e-5;

#[test]
fn scifact_lucene_bm25_is_anserinis_run() {
    let corpus = ranklens::corpus::load(&common::shared_data("scifact"), Default::default()).unwrap();
    let qrels = corpus.qrels.clone().unwrap();
    let a = agreement("scifact", corpus, &qrels);
    assert_eq!(a.questions, 300);
    assert_eq!(a.same_top10, 300, "{} of 300 the same; differing: {:?}", a.same_top10, a.differing);
    assert!(a.max_score_diff <= PRINTED, "a score {:.6} away from Anserini's", a.max_score_diff);
    assert_eq!(a.lines_equal, a.lines, "every line of the run printed alike");
    let ndcg = ndcg10(&a.run, &qrels);
    eprintln!(
        "scifact: {} of 300 the same top 10, largest score difference {:.6}, {} of {} run lines printed alike, nDCG@10 {ndcg:.4}",
        a.same_top10, a.max_score_diff, a.lines_equal, a.lines
    );
    assert!((ndcg - 0.6789).abs() < 0.00005, "nDCG@10 {ndcg:.5}, Anserini 0.6789");
}

/// A BEIR collection indexed on its `text` alone (Cranfield's text repeats its title; Vaswani
/// has none), as the reference script gave it to Anserini.
fn text_only(name: &str) -> (Corpus, Qrels) {
    let full = ranklens::corpus::load(&common::shared_data(name), Default::default()).unwrap();
    let qrels = full.qrels.clone().unwrap();
    let mut corpus = Corpus::from_texts(name, full.docs().iter().map(|d| (d.id.as_str(), d.text.as_str())));
    corpus.queries = full.queries.clone();
    (corpus, qrels)
}

#[test]
fn cranfield_and_vaswani_lucene_bm25_are_anserinis_runs() {
    // Anserini's nDCG@10 with k1 0.9, b 0.4 (../shared/data/README.md).
    for (name, questions, anserini) in [("cranfield", 225, 0.3560), ("vaswani", 93, 0.4368)] {
        let (corpus, qrels) = text_only(name);
        let a = agreement(name, corpus, &qrels);
        let ndcg = ndcg10(&a.run, &qrels);
        eprintln!(
            "{name}: {} of {questions} the same top 10, largest score difference {:.6}, {} of {} run lines printed alike, nDCG@10 {ndcg:.4}",
            a.same_top10, a.max_score_diff, a.lines_equal, a.lines
        );
        assert_eq!(a.questions, questions, "{name}");
        assert_eq!(a.same_top10, questions, "{name}: {} the same; differing: {:?}", a.same_top10, a.differing);
        assert!(a.max_score_diff <= PRINTED, "{name}: a score {:.6} away from Anserini's", a.max_score_diff);
        assert_eq!(a.lines_equal, a.lines, "{name}: every line of the run printed alike");
        assert!((ndcg - anserini).abs() < 0.00005, "{name}: nDCG@10 {ndcg:.5}, Anserini {anserini}");
    }
}
