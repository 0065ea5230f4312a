//! A judge's validity: can a second set of judgements order the methods as the people's do?
//! Each expected τ is worked out by hand from the orders the test builds; the CLI's is checked on
//! SciFact with the people's own judgements as the judge.

mod common;

use std::collections::BTreeMap;

use ranklens::eval::{Conclusion, Qrels, Run, validity};
use serde_json::Value;

/// A run where each question's list is `docs(q)`.
fn run(questions: usize, docs: impl Fn(usize) -> Vec<String>) -> Run {
    let mut r = Run::default();
    for q in 0..questions {
        let list = docs(q).into_iter().enumerate().map(|(i, d)| (d, 10.0 - i as f64)).collect();
        r.results.insert(format!("q{q}"), list);
    }
    r
}

/// Judgements where each question grades `grades(q)`.
fn qrels(questions: usize, grades: impl Fn(usize) -> Vec<(String, i32)>) -> Qrels {
    let judgements: BTreeMap<String, BTreeMap<String, i32>> =
        (0..questions).map(|q| (format!("q{q}"), grades(q).into_iter().collect())).collect();
    Qrels { judgements }
}

const N: usize = 30;

/// Three systems, each putting one passage of its own first: A's `a`, B's `b`, C's `c`.
fn three() -> Vec<(String, Run)> {
    ["a", "b", "c"].iter().map(|s| (s.to_uppercase(), run(N, |q| vec![format!("{s}{q}"), format!("x{q}")]))).collect()
}

fn systems(v: &[(String, Run)]) -> Vec<(String, &Run)> {
    v.iter().map(|(n, r)| (n.clone(), r)).collect()
}

fn graded(a: i32, b: i32, c: i32) -> Qrels {
    qrels(N, |q| vec![(format!("a{q}"), a), (format!("b{q}"), b), (format!("c{q}"), c)])
}

#[test]
fn the_peoples_own_judgements_as_the_judge_give_tau_one_and_no_flips() {
    let s = three();
    let people = graded(2, 1, 3); // C > A > B on every question
    let v = validity(&systems(&s), &people, &people.clone(), 7);
    assert_eq!(v.questions, N);
    assert_eq!(v.tau, Some(1.0));
    assert_eq!(v.interval, Some([1.0, 1.0]), "every resample orders the three alike");
    assert!(v.flips.is_empty(), "{:?}", v.flips);
    assert_eq!(v.pairs, 3);
    assert!(v.trusted && v.verdict.contains("orders these systems as the people do"), "{}", v.verdict);
    // κ: the judge labels 90 passages exactly as the people do.
    assert_eq!(v.agreement.n, 3 * N);
    assert_eq!(v.kappa, None, "every passage relevant on both sides: chance agreement is perfect, κ undefined");
}

#[test]
fn a_judge_that_swaps_two_methods_winning_passages_flips_exactly_that_pair() {
    let s = three();
    // People: C (3) > A (2) > B (1). The judge swaps A's and B's winners: C > B > A.
    let v = validity(&systems(&s), &graded(2, 1, 3), &graded(1, 2, 3), 7);
    assert_eq!(v.flips.len(), 1, "{:?}", v.flips);
    let f = &v.flips[0];
    assert_eq!((f.a.as_str(), f.b.as_str()), ("A", "B"));
    assert_eq!((f.people, f.judge), (Conclusion::FirstBetter, Conclusion::SecondBetter));
    // Each side's three tests: all 30 differences of one sign, so the randomisation p is about
    // 1/10001 before Holm (× 3 at most): far under 0.05.
    assert!(f.people_p < 0.001 && f.judge_p < 0.001, "{f:?}");
    assert!(f.text.contains("A better than B") && f.text.contains("B better than A"), "{}", f.text);
    // Orders (C, A, B) and (C, B, A): of three pairs two agree and one does not, τ = (2 − 1) / 3.
    assert!((v.tau.unwrap() - 1.0 / 3.0).abs() < 1e-12, "{:?}", v.tau);
    assert!(!v.trusted && v.verdict.contains("cannot be trusted to rank these systems"), "{}", v.verdict);
    // Means by hand (linear gains, as trec_eval): the ideal list puts grades 3, 2, 1 first,
    // IDCG = 3/log2(2) + 2/log2(3) + 1/log2(4) = 3 + 1.2619 + 0.5; each system's one graded
    // passage is at rank 1, so its DCG is its grade.
    let idcg = 3.0 + 2.0 / 3f64.log2() + 0.5;
    let c = v.systems.iter().find(|s| s.label == "C").unwrap();
    assert!((c.people - 3.0 / idcg).abs() < 1e-9 && (c.judge - 3.0 / idcg).abs() < 1e-9, "{c:?}");
    let a = v.systems.iter().find(|s| s.label == "A").unwrap();
    assert!((a.people - 2.0 / idcg).abs() < 1e-9 && (a.judge - 1.0 / idcg).abs() < 1e-9, "{a:?}");
}

#[test]
fn a_judge_that_grades_every_passage_the_same_gives_no_order_and_says_so() {
    let s = three();
    let v = validity(&systems(&s), &graded(2, 1, 3), &graded(1, 1, 1), 7);
    assert_eq!(v.tau, None);
    assert_eq!(v.interval, None);
    assert!(!v.trusted);
    assert!(v.verdict.contains("same grade (1)") && v.verdict.contains("cannot order"), "{}", v.verdict);
    // And a judge that finds nothing relevant anywhere: no order either.
    let v = validity(&systems(&s), &graded(2, 1, 3), &graded(0, 0, 0), 7);
    assert_eq!(v.tau, None);
    assert!(v.verdict.contains("same grade (0)"), "{}", v.verdict);
}

#[test]
fn only_questions_both_judged_are_compared() {
    let s = three();
    let people = graded(2, 1, 3);
    let mut judge = graded(2, 1, 3);
    judge.judgements.retain(|q, _| q.as_str() < "q2"); // q0, q1, q10 … q19
    let v = validity(&systems(&s), &people, &judge, 7);
    assert_eq!(v.questions, 12);
    assert_eq!(v.agreement.n, 36);
}

/// Eight systems whose per-question quality varies, so resamples of the questions disagree.
fn noisy() -> (Vec<(String, Run)>, Qrels, Qrels) {
    let mut state = 0x1234_5678_u64;
    let mut next = || {
        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) as usize
    };
    // Each question: ten passages d0..d9; each system ranks them in its own shuffled order.
    let orders: Vec<Vec<Vec<String>>> = (0..8)
        .map(|_| {
            (0..N)
                .map(|q| {
                    let mut d: Vec<String> = (0..10).map(|i| format!("{q}-{i}")).collect();
                    for i in (1..d.len()).rev() {
                        d.swap(i, next() % (i + 1));
                    }
                    d
                })
                .collect()
        })
        .collect();
    let people = qrels(N, |q| (0..3).map(|i| (format!("{q}-{i}"), 1)).collect());
    let judge = qrels(N, |q| (1..4).map(|i| (format!("{q}-{i}"), 1)).collect());
    let systems =
        orders.into_iter().enumerate().map(|(i, o)| (format!("S{i}"), run(N, move |q| o[q].clone()))).collect();
    (systems, people, judge)
}

#[test]
fn the_interval_is_reproducible_from_its_seed() {
    let (s, people, judge) = noisy();
    let one = validity(&systems(&s), &people, &judge, 42);
    let again = validity(&systems(&s), &people, &judge, 42);
    assert_eq!(one.interval, again.interval);
    assert_eq!(one, again);
    let [lo, hi] = one.interval.expect("an interval");
    assert!(lo <= hi && (-1.0..=1.0).contains(&lo) && (-1.0..=1.0).contains(&hi));
    assert!(lo < hi, "random systems: resamples disagree ({lo}, {hi})");
    // Another seed draws other resamples: over a few seeds, some interval differs.
    let others: Vec<_> = (1..6).map(|seed| validity(&systems(&s), &people, &judge, seed).interval).collect();
    assert!(others.iter().any(|i| *i != one.interval), "{others:?}");
    assert_eq!(one.resamples, 1000);
}

#[test]
fn eval_with_the_peoples_qrels_copied_as_the_judge_prints_tau_one_on_scifact() {
    let scifact = common::shared_data("scifact");
    let dir = tempfile::tempdir().unwrap();
    let judge = dir.path().join("judge.tsv");
    std::fs::copy(scifact.join("qrels").join("test.tsv"), &judge).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ranklens"))
        .env("RANKLENS_WORKSPACE", dir.path())
        .args(["eval", "--dataset"])
        .arg(&scifact)
        .args(["--method", "bm25,tfidf,boolean", "--questions", "60", "--offline", "--judge-qrels"])
        .arg(&judge)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let validity = &v["validity"];
    assert_eq!(validity["tau"], 1.0, "{validity}");
    assert_eq!(validity["interval"], serde_json::json!([1.0, 1.0]));
    assert_eq!(validity["flips"], serde_json::json!([]));
    assert_eq!(validity["questions"], 60);
    assert_eq!(validity["trusted"], true);
    // The people's own labels agree with themselves: every labelled passage relevant on both
    // sides (SciFact's qrels hold only relevant passages), so κ is undefined, not 1.
    assert_eq!(validity["kappa"], Value::Null);
    // The table says the same in words.
    let table = std::process::Command::new(env!("CARGO_BIN_EXE_ranklens"))
        .env("RANKLENS_WORKSPACE", dir.path())
        .args(["eval", "--dataset"])
        .arg(&scifact)
        .args(["--method", "bm25,tfidf", "--questions", "20", "--offline", "--judge-qrels"])
        .arg(&judge)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(text.contains("Kendall τ 1.0000") && text.contains("No pair of the 1 flips"), "{text}");
}

#[test]
fn a_judge_file_that_cannot_be_read_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ranklens"))
        .env("RANKLENS_WORKSPACE", dir.path())
        .args(["eval", "--dataset"])
        .arg(common::sample("acme-sync"))
        .args(["--method", "bm25", "--offline", "--judge-qrels", "/nonexistent/judge.qrels"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/judge.qrels"));
}

#[test]
fn a_study_report_carries_the_judges_validity() {
    // The sample's own judgements (questions.tsv's `doc:grade` lists) written as a qrels file and
    // given as the judge: the report's section says τ 1 and no flips.
    let sample = common::sample("acme-sync");
    let text = std::fs::read_to_string(sample.join("questions.tsv")).unwrap();
    let mut qrels = String::new();
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        for j in f.get(2).copied().unwrap_or("").split_whitespace() {
            let (doc, grade) = j.rsplit_once(':').unwrap();
            qrels.push_str(&format!("{}\t{doc}\t{grade}\n", f[0]));
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let judge = dir.path().join("judge.tsv");
    std::fs::write(&judge, qrels).unwrap();
    let out = dir.path().join("report.md");
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_ranklens"))
        .env("RANKLENS_WORKSPACE", dir.path())
        .args(["report", "--dataset"])
        .arg(&sample)
        .args(["--offline", "--judge-qrels"])
        .arg(&judge)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let md = std::fs::read_to_string(&out).unwrap();
    assert!(md.contains("## The judge against the people"), "{md}");
    assert!(md.contains("Kendall τ 1.000, 95 % interval 1.000 to 1.000; 0 of"), "{md}");
    assert!(md.contains("orders these systems as the people do"), "{md}");
}

/// Two systems: A puts `a{q}` first, B puts `b{q}` first (the other second).
fn two() -> Vec<(String, Run)> {
    vec![
        ("A".into(), run(N, |q| vec![format!("a{q}"), format!("b{q}")])),
        ("B".into(), run(N, |q| vec![format!("b{q}"), format!("a{q}")])),
    ]
}

#[test]
fn a_judge_agreeing_on_18_of_30_questions_orders_two_systems_right_with_an_interval_of_minus_one_to_one() {
    // The people: `a` relevant on every question, so A (nDCG 1) beats B (1/log2 3) on all 30. The
    // judge: `a` on the first 18, `b` on the other 12. Its means, A 0.852 and B 0.779, order A
    // first: τ = 1 on the whole set. A resample of 30 questions holds fewer than 15 of the 18 with
    // probability P(Bin(30, 0.6) ≤ 14) ≈ 0.10 and then orders B first (τ = −1); 15 exactly ties
    // (no τ). So the 2.5th percentile is −1 and the 97.5th is 1: the interval spans everything.
    let s = two();
    let people = qrels(N, |q| vec![(format!("a{q}"), 1), (format!("b{q}"), 0)]);
    let judge = qrels(N, |q| {
        if q < 18 {
            vec![(format!("a{q}"), 1), (format!("b{q}"), 0)]
        } else {
            vec![(format!("a{q}"), 0), (format!("b{q}"), 1)]
        }
    });
    let v = validity(&systems(&s), &people, &judge, 7);
    assert_eq!(v.tau, Some(1.0));
    assert_eq!(v.interval, Some([-1.0, 1.0]));
    assert!(!v.trusted, "a lower end of −1 is never trusted");
    assert!(v.verdict.starts_with("this judge cannot be trusted to rank these systems"), "{}", v.verdict);
    assert!(v.verdict.contains("95 % interval -1.00 to 1.00"), "{}", v.verdict);
    // The means, by hand: A = (18 + 12/log2 3) / 30, B = (18/log2 3 + 12) / 30.
    let third = 1.0 / 3f64.log2();
    let judge_means: Vec<f64> = v.systems.iter().map(|s| s.judge).collect();
    assert!((judge_means[0] - (18.0 + 12.0 * third) / 30.0).abs() < 1e-12, "{judge_means:?}");
    assert!((judge_means[1] - (18.0 * third + 12.0) / 30.0).abs() < 1e-12, "{judge_means:?}");
    // κ on the 60 labels the judge gave, worked by hand: 18 yes/yes (a), 18 no/no (b), 12 no/yes
    // (a), 12 yes/no (b): agreement 36/60 = 0.6; each side says yes to half, chance 0.5; κ =
    // (0.6 − 0.5) / (1 − 0.5) = 0.2.
    assert_eq!(v.agreement.n, 60);
    assert!((v.kappa.unwrap() - 0.2).abs() < 1e-12, "{:?}", v.kappa);
}

#[test]
fn every_question_is_drawn_by_the_bootstrap_the_last_one_too() {
    // Two systems tied on 29 questions and parted only by the last one (under the judge): a resample
    // orders them only if it draws the last question, which 30 draws of 30 do with probability
    // 1 − (29/30)^30 = 0.6377. Of 1,000 resamples about 638 give a τ (± 15): a resampler that
    // never draws the last question gives none.
    let s = two();
    let people = qrels(N, |q| vec![(format!("a{q}"), 1)]);
    // The last question in the ids' order: q9 (q0, q1, q10 … q19, q2, q20 … q29, q3, …, q9).
    let judge =
        qrels(
            N,
            |q| if q == 9 { vec![(format!("a{q}"), 1)] } else { vec![(format!("a{q}"), 1), (format!("b{q}"), 1)] },
        );
    let v = validity(&systems(&s), &people, &judge, 7);
    assert_eq!(v.tau, Some(1.0));
    assert_eq!(v.resamples, 1000);
    let expected = 1000.0 * (1.0 - (29.0f64 / 30.0).powi(30));
    assert!(
        (v.resamples_with_tau as f64 - expected).abs() < 80.0,
        "{} of 1000, expected about {expected:.0}",
        v.resamples_with_tau
    );
}
