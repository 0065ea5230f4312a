//! The exercises' keys and usual mistakes, each worked by hand (`exercises.rs`'s unit tests, kept
//! apart so the exercises stay under the lessons' file-size limit).

use super::checkpoint::{Answer, AnswerKind, Checkpoint};
use super::exercises::*;
use super::metric_exercises::*;
use crate::formula::{Bm25Params, Bm25Variant};
use std::collections::BTreeMap;

/// Each checkpoint answered with its key is right, and answered with each usual mistake's
/// value is wrong with that mistake named.
fn keys_and_mistakes_are_recognised(c: &Checkpoint) {
    assert!(c.check(&c.solution.answer).correct, "{}: its key", c.question.id);
    assert!(
        !c.solution.mistakes.is_empty() || c.question.kind != AnswerKind::Number || c.question.tolerance == 0.0,
        "{}",
        c.question.id
    );
    for m in &c.solution.mistakes {
        let v = c.check(&Answer::Number(m.value));
        assert!(!v.correct, "{}: {}", c.question.id, m.name);
        assert_eq!(v.mistake.as_deref(), Some(m.name.as_str()), "{}: {}", c.question.id, v.message);
    }
}

/// Every named mistake, and nothing else, is listed for `c`.
fn listed(c: &Checkpoint, names: &[&str]) {
    let got: Vec<&str> = c.solution.mistakes.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(got, names, "{}", c.question.id);
}

#[test]
fn every_named_mistake_is_recognised_from_a_wrong_value_worked_by_hand() {
    // tf-idf idf, N = 4, df = 1 (key log2 4 = 2): ln 4 = 1.3863, log10 4 = 0.6021,
    // log2(1/4) = −2, 4/1 = 4.
    let c = tfidf_idf("i", "mars", 4, 1);
    named(&c, 1.3863, "ln instead of log2");
    named(&c, 0.6021, "log10 instead of log2");
    named(&c, -2.0, "df/N instead of N/df");
    named(&c, 4.0, "N/df without the logarithm");
    // tf-idf weight, tf = 3 (key 3 × 2 = 6): 3 × ln 4 = 4.1589; (1 + log2 3) × 2 = 5.1699;
    // log10(3 + 1) × 2 = 1.2041; the idf left out, 3.
    let c = tfidf_weight("w", "mars", "D3", 3, 4, 1);
    listed(
        &c,
        &[
            "ln instead of log2",
            "1 + log2 tf instead of the raw tf",
            "the textbook's log10(tf + 1) instead of the raw tf",
            "the idf left out (raw tf only)",
        ],
    );
    named(&c, 4.1589, "ln instead of log2");
    named(&c, 5.1699, "1 + log2 tf instead of the raw tf");
    named(&c, 1.2041, "the textbook's log10(tf + 1) instead of the raw tf");
    named(&c, 3.0, "the idf left out (raw tf only)");
    // The cosine of q = (2, 1) and d = (2, 2) over mars, mission | mars, orbit (key 0.6325):
    // q·d = 4; 4/|d| = 4/√8 = 1.4142; 4/|q| = 4/√5 = 1.7889. In ln the weights are
    // (1.3863, 0.6931) and (1.3863, 1.3863): 1.9218 / (1.5499 × 1.9605) = 0.6325, the key —
    // not a mistake, and graded right.
    let q: TermCounts = [("mars".to_string(), (1, 1)), ("mission".to_string(), (1, 2))].into();
    let d: TermCounts = [("mars".to_string(), (1, 1)), ("orbit".to_string(), (1, 1))].into();
    let c = tfidf_cosine("c", "D3", &q, &d, 4);
    named(&c, 4.0, "the dot product without dividing by the lengths");
    named(&c, 2f64.sqrt(), "divided by |d| only"); // 4/√8 = √2
    named(&c, 1.7889, "divided by |q| only");
    assert!(c.check(&Answer::Number(0.6325)).correct);
    listed(&c, &["the dot product without dividing by the lengths", "divided by |d| only", "divided by |q| only"]);
    // Lucene's idf, N = 27, n = 5 (key ln(1 + 22.5/5.5) = 1.6275): ln(22.5/5.5) = 1.4088;
    // ln(1 + 22/5) = ln 5.4 = 1.6864, which is ln(27/5) too; log10 5.0909 = 0.7068;
    // log2 5.0909 = 2.3479.
    let c = bm25_idf("i", "sync", 27, 5);
    named(&c, 1.4088, "no 1 + inside the logarithm (the RSJ idf)");
    named(&c, 1.6864, "no + 0.5 smoothing (which leaves ln(N/n), the plain idf)");
    named(&c, 0.7068, "log10 instead of ln");
    named(&c, 2.3479, "log2 instead of ln");
    assert_eq!(c.solution.mistakes.len(), 4);
    // A contribution, tf = 3, dl = 40, avgdl = 20, k1 = 1.2, b = 0.75: the length part is
    // 0.25 + 0.75 × 2 = 1.75, the key 1.6275 × 3/(3 + 2.1) = 0.9573.
    let p = Bm25Params { k1: 1.2, b: 0.75, ..Bm25Variant::Lucene.default_params() };
    let c = bm25_contribution("t", "sync", "d1", 3, 27, 5, 40.0, 20.0, p);
    // b = 0: 1.6275 × 3/4.2 = 1.1625; Okapi: × 2.2 = 2.1061; avgdl/dl: length part
    // 0.25 + 0.375 = 0.625, 1.6275 × 3/3.75 = 1.3020; k1·tf: 1.6275 × 3/(3.6 + 1.75) = 0.9126;
    // no idf: 3/5.1 = 0.5882.
    named(&c, 1.1625, "no length normalisation (b taken as 0)");
    named(&c, 2.1061, "k1 + 1 in the numerator (the Okapi form Lucene dropped)");
    named(&c, 1.3020, "dl/avgdl upside down");
    named(&c, 0.9126, "k1 multiplying tf instead of the length part");
    named(&c, 0.5882, "the idf left out");
    // Dense, S = 2.4 over n = 6 pieces, |h̄| = 0.8 (key 2.4/4.8 = 0.5): 2.4/0.8 = 3;
    // 2.4/6 = 0.4; 2.4/(6 × 0.64) = 0.625.
    let c = dense_cosine("d", "d1", 2.4, 6, 0.8);
    assert!(c.check(&Answer::Number(0.5)).correct);
    named(&c, 3.0, "S not divided by n (a sum, not a mean)");
    named(&c, 0.4, "not divided by |h̄| (the mean left unnormalised)");
    named(&c, 0.625, "divided by |h̄|² instead of |h̄|");
    // 41 words, windows of 12 overlapping by 4: starts 0, 8, 16, 24, 32 (32 + 12 ≥ 41), 5
    // windows; ⌈41/12⌉ = 4; ⌈41/8⌉ = 6.
    let c = window_count("w", 41, 12, 4, 5);
    named(&c, 4.0, "the overlap ignored (words / size)");
    named(&c, 6.0, "words / step, counting windows past the end");
    // RRF of ranks 1 and 2, k = 60 (key 1/61 + 1/62 = 0.032522): 1/1 + 1/2 = 1.5;
    // 1/60 + 1/61 = 0.033060.
    let ranks = vec![("BM25".to_string(), Some(1)), ("Dense".to_string(), Some(2))];
    let c = rrf("r", "d", &ranks, 60.0, 1.0 / 61.0 + 1.0 / 62.0);
    named(&c, 1.5, "k left out (1/rank)");
    named(&c, 0.03306, "ranks counted from 0");
    // Jaro–Winkler of martha / marhta, J = 0.9444, 3 shared letters (key 0.9611):
    // 0.9444 + 0.3 = 1.2444; J alone 0.9444.
    let c = jaro_winkler("j", "martha", "marhta", 0.9444, 0.9444 + 0.3 * (1.0 - 0.9444));
    named(&c, 1.2444, "the bonus without (1 − J)");
    named(&c, 0.9444, "Jaro without the bonus");
    // A ranking a b c d e judged b = 3, d = 1 and z = 2 (not ranked).
    let ranking: Vec<String> = ["a", "b", "c", "d", "e"].map(String::from).to_vec();
    let grades: BTreeMap<String, i32> = [("b", 3), ("d", 1), ("z", 2)].map(|(d, g)| (d.to_string(), g)).into();
    let j = JudgedRanking { ranking: &ranking, grades: &grades };
    // P@4 = 2/4 (key 0.5): 2/3 = 0.6667 over the relevant; only b ≥ 2, 1/4 = 0.25; 2/5 = 0.4.
    let c = precision_at("p", &j, 4);
    named(&c, 0.6667, "divided by the number of relevant passages (that is recall)");
    named(&c, 0.25, "only grades ≥ 2 counted as relevant");
    named(&c, 0.4, "divided by every passage ranked instead of k");
    // R@5 = 2/3: 2/5 = 0.4.
    named(&recall_at("r", &j, 5), 0.4, "divided by k (that is precision)");
    // AP = (1/2 + 2/4)/3 = 0.3333: over the two found, 0.5.
    named(&average_precision("ap", &j), 0.5, "divided by the relevant passages found instead of all relevant");
    // nDCG@10 (key 2.3235/4.7619 = 0.4879): DCG = 3/log2 3 + 1/log2 5 = 2.3235; gains 2^g − 1:
    // (7/1.585 + 1/2.3219)/(7 + 3/1.585 + 1/2) = 4.8472/9.3928 = 0.5161; discount log2(rank),
    // rank 1 undiscounted: (3/1 + 1/2)/(3 + 2/1 + 1/1.585) = 3.5/5.6309 = 0.6216. ln instead
    // of log2 scales DCG and IDCG alike: 0.4879 again, graded right.
    let c = ndcg_at("n", &j, 10);
    named(&c, 2.3235, "DCG without dividing by the ideal ordering's");
    named(&c, 0.5161, "gain 2^grade − 1 instead of the grade");
    named(&c, 0.6216, "discount log2(rank), the first rank undiscounted");
    assert!(c.check(&Answer::Number(0.4879)).correct);
    assert_eq!(c.solution.mistakes.len(), 3);
}

#[test]
fn tfidf_keys_are_the_textbook_numbers_and_mistakes_are_named() {
    // The ISRO example: N = 4, `mars` in one document: idf = log2(4) = 2.
    let c = tfidf_idf("i", "mars", 4, 1);
    assert_eq!(c.solution.answer, Answer::Number(2.0));
    keys_and_mistakes_are_recognised(&c);
    let w = tfidf_weight("w", "mars", "D3", 2, 4, 1);
    assert_eq!(w.solution.answer, Answer::Number(4.0));
    keys_and_mistakes_are_recognised(&w);
    let q: TermCounts = [("mars".to_string(), (1, 1)), ("mission".to_string(), (1, 2))].into();
    let d: TermCounts = [("mars".to_string(), (1, 1)), ("orbit".to_string(), (1, 1))].into();
    let cos = tfidf_cosine("c", "D3", &q, &d, 4);
    // q = (2, 1), d = (2 for mars, 2 for orbit): q·d = 4, |q| = √5, |d| = √8.
    let Answer::Number(key) = cos.solution.answer else { panic!() };
    assert!((key - 4.0 / (5f64.sqrt() * 8f64.sqrt())).abs() < 1e-12);
    keys_and_mistakes_are_recognised(&cos);
}

#[test]
fn bm25_keys_follow_lucene_and_mistakes_are_named() {
    let c = bm25_idf("i", "sync", 27, 5);
    let Answer::Number(key) = c.solution.answer else { panic!() };
    assert!((key - (1.0 + 22.5f64 / 5.5).ln()).abs() < 1e-12);
    keys_and_mistakes_are_recognised(&c);
    let p = Bm25Params { k1: 1.2, b: 0.75, ..Bm25Variant::Lucene.default_params() };
    let c = bm25_contribution("t", "sync", "d1", 3, 27, 5, 40.0, 20.0, p);
    let Answer::Number(key) = c.solution.answer else { panic!() };
    let hand = (1.0 + 22.5f64 / 5.5).ln() * 3.0 / (3.0 + 1.2 * (0.25 + 0.75 * 2.0));
    assert!((key - hand).abs() < 1e-12, "{key} vs {hand}");
    keys_and_mistakes_are_recognised(&c);
}

#[test]
fn rrf_and_counts_state_their_tolerance_as_it_is() {
    let ranks = vec![("BM25".to_string(), Some(1)), ("Dense".to_string(), Some(2))];
    let c = rrf("r", "d", &ranks, 60.0, 1.0 / 61.0 + 1.0 / 62.0);
    assert_eq!(c.tolerance_text(), "right within ±0.00005");
    keys_and_mistakes_are_recognised(&c);
    // 1/61 + 1/63 (a rank off by one) is not within the tolerance.
    assert!(!c.check(&Answer::Number(1.0 / 61.0 + 1.0 / 63.0)).correct);
    // 40 words, windows of 12 every 8: they start at 0, 8, 16, 24 (ending at 36 < 40) and 32.
    let windows = crate::corpus::chunk::by_window(&"w ".repeat(40), 12, 4).len();
    assert_eq!(windows, 5);
    let w = window_count("w", 40, 12, 4, windows);
    assert_eq!(w.tolerance_text(), "exactly");
    assert!(w.check(&Answer::Number(5.0)).correct && !w.check(&Answer::Number(5.4)).correct);
    // ⌈40/12⌉ = 4: the overlap ignored.
    assert_eq!(w.check(&Answer::Number(4.0)).mistake.as_deref(), Some("the overlap ignored (words / size)"));
}

#[test]
fn metric_keys_are_trec_evals_and_mistakes_are_named() {
    let ranking: Vec<String> = ["a", "b", "c", "d", "e"].map(String::from).to_vec();
    let grades: BTreeMap<String, i32> = [("b", 3), ("d", 1), ("z", 2)].map(|(d, g)| (d.to_string(), g)).into();
    let j = JudgedRanking { ranking: &ranking, grades: &grades };
    let p = precision_at("p", &j, 5);
    assert_eq!(p.solution.answer, Answer::Number(0.4));
    keys_and_mistakes_are_recognised(&p);
    let r = recall_at("r", &j, 5);
    assert_eq!(r.solution.answer, Answer::Number(2.0 / 3.0));
    keys_and_mistakes_are_recognised(&r);
    let ap = average_precision("ap", &j);
    let Answer::Number(key) = ap.solution.answer else { panic!() };
    assert!((key - (0.5 + 0.5) / 3.0).abs() < 1e-12);
    keys_and_mistakes_are_recognised(&ap);
    let n = ndcg_at("n", &j, 10);
    let Answer::Number(key) = n.solution.answer else { panic!() };
    let dcg = 3.0 / 3f64.log2() + 1.0 / 5f64.log2();
    let idcg = 3.0 + 2.0 / 3f64.log2() + 1.0 / 4f64.log2();
    assert!((key - dcg / idcg).abs() < 1e-12);
    keys_and_mistakes_are_recognised(&n);
}
