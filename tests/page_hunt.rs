//! Page Hunt from the command line (`ranklens lesson page-hunt`): every try's rank is checked
//! against `ranklens search` — a separate process — and its points worked out here from that rank
//! by the rules the round states; the solver's par is searched again the same way; the
//! vocabulary-mismatch round refuses a question sharing a word with the passage after the analyzer.

mod common;

use std::path::Path;
use std::process::Command;

use serde_json::Value;

const PASSAGE: &str = "errors-2";

use common::ranklens_json as ranklens;

/// The passage's rank under `method` by `ranklens search` (1-based; `None` when not returned).
fn searched_rank(ws: &Path, method: &str, question: &str) -> Option<usize> {
    rank_in_search(ws, method, question, PASSAGE)
}

/// `passage`'s rank under `method` by `ranklens search`.
fn rank_in_search(ws: &Path, method: &str, question: &str, passage: &str) -> Option<usize> {
    let (code, v, err) = ranklens(ws, &["search", "--method", method, "-k", "1000", "--format", "json", question]);
    assert!(matches!(code, Some(0 | 1)), "{err}");
    let ids: Vec<&str> = v["hits"].as_array().unwrap().iter().map(|h| h["id"].as_str().unwrap()).collect();
    ids.iter().position(|id| *id == passage).map(|p| p + 1)
}

/// A try in `round` under `method`: its exit code and JSON.
fn hunt(ws: &Path, round: &str, method: &str, question: &str) -> (Option<i32>, Value) {
    let (code, v, err) = ranklens(
        ws,
        &[
            "lesson",
            "page-hunt",
            "--passage",
            PASSAGE,
            "--round",
            round,
            "--method",
            method,
            "--format",
            "json",
            question,
        ],
    );
    assert!(matches!(code, Some(0 | 1)), "{err}");
    assert_eq!(v["passage"], PASSAGE, "{v}");
    (code, v)
}

/// The rules as the rounds state them: 10 at rank 1, one fewer a place, none past rank 10.
fn by_rank(rank: Option<usize>) -> u64 {
    match rank {
        Some(r) if r <= 10 => 11 - r as u64,
        _ => 0,
    }
}

fn rank_of(v: &Value) -> Option<usize> {
    v.as_u64().map(|r| r as usize)
}

#[test]
fn a_tries_points_follow_the_rank_an_independent_search_gives() {
    let ws = tempfile::tempdir().unwrap();
    let mut seen = std::collections::BTreeSet::new();
    for question in ["device", "your files", "sync token expired", "the status bar"] {
        let want = searched_rank(ws.path(), "bm25", question);
        let (code, v) = hunt(ws.path(), "any", "bm25", question);
        assert_eq!(rank_of(&v["rank"]), want, "{question}: {v}");
        assert_eq!(v["points"], by_rank(want), "{question}: {v}");
        // Exit 0 when the try scores, 1 when it does not.
        assert_eq!(code, Some(if by_rank(want) > 0 { 0 } else { 1 }), "{question}");
        seen.insert(match want {
            Some(1) => "first",
            Some(2..=10) => "below the first",
            _ => "outside",
        });
    }
    // The questions reach the first place, a lower one and none: each arm of the rule is met.
    assert_eq!(seen.len(), 3, "{seen:?}");
}

#[test]
fn the_solvers_par_is_found_again_by_search_and_scores_at_least_the_try() {
    let ws = tempfile::tempdir().unwrap();
    let text = "E104: Error E104 means the sync token expired. Sign in again to get a new token; your files stay on \
                the device and sync resumes after you sign in."
        .to_lowercase();
    for (round, method, question) in
        [("any", "bm25", "device"), ("fewest-words", "bm25", "the status bar"), ("any", "dense", "device")]
    {
        let (_, v) = hunt(ws.path(), round, method, question);
        let par = &v["par"];
        assert!(par.is_object(), "{round}/{method} {question}: {v}");
        let asked = par["question"].as_str().unwrap();
        let words: Vec<&str> = asked.split_whitespace().collect();
        assert_eq!(par["words"], words.len(), "{par}");
        assert!((1..=2).contains(&words.len()), "{par}");
        // The solver asks with the passage's own words.
        for w in &words {
            assert!(text.contains(w), "{w:?} of the par is not the passage's: {par}");
        }
        let rank = searched_rank(ws.path(), method, asked);
        assert_eq!(rank_of(&par["rank"]), rank, "{par}");
        let points = match round {
            "fewest-words" if rank.is_some_and(|r| r <= 10) => (11 - words.len()).max(1) as u64,
            "fewest-words" => 0,
            _ => by_rank(rank),
        };
        assert_eq!(par["points"], points, "{par}");
        assert!(points >= v["points"].as_u64().unwrap().max(1), "the par scores less than the try: {v}");
    }
}

#[test]
fn the_no_shared_word_round_refuses_a_shared_word_after_the_analyzer_and_ranks_the_others() {
    let ws = tempfile::tempdir().unwrap();
    // "expires" is not a word of the passage, but the English analyzer stems it as "expired".
    let (code, v) = hunt(ws.path(), "no-shared-word", "dense", "what happens when my login expires");
    assert_eq!(code, Some(1), "{v}");
    let why = v["refused"].as_str().unwrap_or_default();
    assert!(why.contains("\"expires\"") && !why.contains("\"login\""), "{v}");
    assert_eq!((v["rank"].clone(), v["points"].clone()), (Value::Null, Value::from(0)), "{v}");
    // Without the analyzer's match the same question is ranked.
    let question = "what happens when my login is out of date";
    let (_, v) = hunt(ws.path(), "no-shared-word", "dense", question);
    assert!(v["refused"].is_null(), "{v}");
    let dense = searched_rank(ws.path(), "dense", question);
    assert_eq!(rank_of(&v["rank"]), dense, "{v}");
    assert_eq!(v["points"], by_rank(dense), "{v}");
    // BM25 has no word of it to match: the vocabulary mismatch the round is about.
    assert_eq!(searched_rank(ws.path(), "bm25", question), None);
}

#[test]
fn the_bm25_against_dense_rounds_score_only_when_the_other_method_misses() {
    let ws = tempfile::tempdir().unwrap();
    let mut outcomes = Vec::new();
    for (round, question) in [
        ("dense-not-bm25", "what happens when my login is out of date"),
        ("bm25-not-dense", "sync token expired"),
        ("bm25-not-dense", "new"),
    ] {
        let (_, v) = hunt(ws.path(), round, "bm25", question);
        let bm25 = searched_rank(ws.path(), "bm25", question);
        let dense = searched_rank(ws.path(), "dense", question);
        let (lead, other) = if round == "dense-not-bm25" { (dense, bm25) } else { (bm25, dense) };
        let ranks: Vec<Option<usize>> = v["ranks"].as_array().unwrap().iter().map(|r| rank_of(&r["rank"])).collect();
        assert_eq!(ranks, vec![lead, other], "{round} {question}: {v}");
        let points = if other.is_some_and(|r| r <= 10) { 0 } else { by_rank(lead) };
        assert_eq!(v["points"], points, "{round} {question}: {v}");
        outcomes.push(points > 0);
    }
    // "sync token expired" is found by both (no points); the others by one alone.
    assert_eq!(outcomes, vec![true, false, true]);
}

#[test]
fn the_fewest_words_round_scores_by_words_inside_the_top_ten() {
    let ws = tempfile::tempdir().unwrap();
    for question in ["e104", "error e104 token", "sign in again to get a new token"] {
        let (_, v) = hunt(ws.path(), "fewest-words", "bm25", question);
        let rank = searched_rank(ws.path(), "bm25", question);
        assert!(rank.is_some_and(|r| r <= 10), "{question}");
        let words = question.split_whitespace().count() as u64;
        assert_eq!(v["points"], (11 - words).max(1), "{question}: {v}");
    }
}

#[test]
fn a_wrong_round_passage_or_knob_is_named() {
    let ws = tempfile::tempdir().unwrap();
    for (args, named) in [
        (vec!["--passage", PASSAGE, "--round", "bm25", "token"], "\"bm25\""),
        (vec!["--passage", "errors-99", "token"], "errors-99"),
        (vec!["--passage", PASSAGE, "--k", "2", "token"], "--k"),
        (vec!["--passage", PASSAGE, "--format", "html", "token"], "text or json"),
    ] {
        let mut all = vec!["lesson", "page-hunt"];
        all.extend(args.iter().copied());
        let (code, _, err) = ranklens(ws.path(), &all);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains(named), "{args:?}: {err}");
    }
    // A question given to another lesson is refused too.
    let (code, _, err) = ranklens(ws.path(), &["lesson", "bm25", "token"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("page-hunt"), "{err}");
}

#[test]
fn without_a_question_the_passage_and_the_rules_are_shown_and_a_seed_draws_the_same_passage() {
    let ws = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_ranklens"))
            .env("RANKLENS_WORKSPACE", ws.path())
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    let shown = run(&["lesson", "page-hunt", "--passage", PASSAGE, "--round", "fewest-words"]);
    assert!(shown.contains("Error E104 means the sync token expired"), "{shown}");
    assert!(shown.contains("10 points for one word"), "{shown}");
    let a = run(&["lesson", "page-hunt", "--seed", "7"]);
    assert_eq!(a, run(&["lesson", "page-hunt", "--seed", "7"]));
    assert!(a.contains("passage "), "{a}");
}

/// Page Hunt in class: five rounds drawn per student from a seed, handed in as the assignments'
/// answers CSV, graded by ranking each question — the rank checked against `ranklens search`, the
/// points by the rule — with the class report and everything that needs a look (a broken row at
/// its line, a student with no answers, a name not on the roster, rounds not handed in).
#[test]
fn a_class_draws_its_rounds_hands_in_questions_and_is_graded_by_ranking_each() {
    let ws = tempfile::tempdir().unwrap();
    let dir = ws.path().join("hunt");
    let roster = ws.path().join("roster.csv");
    std::fs::write(&roster, "name\nAda\nBen\nCy\n").unwrap();
    let draw = |seed: &str, out: &Path| {
        let (code, _, err) = ranklens(
            ws.path(),
            &[
                "lesson",
                "page-hunt",
                "--class",
                roster.to_str().unwrap(),
                "--seed",
                seed,
                "--out",
                out.to_str().unwrap(),
            ],
        );
        assert_eq!(code, Some(0), "{err}");
    };
    draw("3", &dir);
    let key: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("key.json")).unwrap()).unwrap();
    let again = ws.path().join("again");
    draw("3", &again);
    assert_eq!(
        std::fs::read_to_string(again.join("key.json")).unwrap(),
        std::fs::read_to_string(dir.join("key.json")).unwrap()
    );
    let ada = &key["students"]["Ada"];
    assert_eq!(ada.as_array().unwrap().len(), 5);
    assert_eq!(ada[0]["round"], "any");
    assert_eq!(ada[1]["round"], "no-shared-word");
    let sheet = std::fs::read_to_string(dir.join("Ada.md")).unwrap();
    assert!(sheet.contains(&format!("passage {}", ada[0]["passage"].as_str().unwrap())), "{sheet}");
    // Ada's r1: the first six words of her passage; her r2 shares them, so it is refused.
    let text = ada[0]["text"].as_str().unwrap();
    let r1: String = text.split_whitespace().take(6).collect::<Vec<_>>().join(" ").replace(',', "");
    let r2_text = ada[1]["text"].as_str().unwrap();
    let r2: String = r2_text.split_whitespace().take(3).collect::<Vec<_>>().join(" ").replace(',', "");
    let answers = ws.path().join("answers.csv");
    std::fs::write(
        &answers,
        format!("student,question,answer\nAda,r1,{r1}\nAda,r2,{r2}\nBen,r1,one,two\nDan,r1,who am I\n"),
    )
    .unwrap();
    let (code, v, err) = ranklens(
        ws.path(),
        &[
            "lesson",
            "page-hunt",
            "--grade",
            dir.join("key.json").to_str().unwrap(),
            "--answers",
            answers.to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    assert_eq!(code, Some(1), "something needs a look: {err}");
    let students = v["students"].as_array().unwrap();
    let graded = |name: &str| students.iter().find(|s| s["student"] == name).unwrap();
    let a = graded("Ada");
    let rank = rank_in_search(ws.path(), "bm25", &r1, ada[0]["passage"].as_str().unwrap());
    assert_eq!(rank_of(&a["tries"][0]["rank"]), rank, "{a}");
    assert_eq!(a["tries"][0]["points"].as_u64().unwrap(), by_rank(rank));
    assert_eq!(a["tries"][0]["at"], format!("{}:2", answers.display()));
    assert_eq!(a["tries"][1]["points"], 0);
    assert!(a["tries"][1]["note"].as_str().unwrap().starts_with("refused"), "{a}");
    assert_eq!(a["points"].as_u64().unwrap(), by_rank(rank));
    assert_eq!(a["max"], 50);
    // Ben's only row has four fields: he is not graded, and both are said.
    assert!(graded("Ben")["absent"].is_string() && graded("Cy")["absent"].is_string());
    let look: Vec<String> = v["needs_a_look"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| format!("{} {} {}", u["at"], u["student"], u["why"]))
        .collect();
    let has = |needle: &str| look.iter().any(|l| l.contains(needle));
    assert!(has(&format!("{}:4", answers.display())) && has("expected 3 fields"), "{look:?}");
    assert!(has("\"Cy\" \"no answers handed in\""), "{look:?}");
    assert!(has(&format!("{}:5", answers.display())) && has("not on the key's roster"), "{look:?}");
    assert!(has("no question for r3"), "{look:?}");
    // The class report: Ada alone was graded; round 1 holds her points, round 2 none.
    let rounds = v["rounds"].as_array().unwrap();
    assert_eq!(rounds[0]["handed_in"], 1);
    assert_eq!(rounds[0]["mean_points"].as_f64().unwrap(), by_rank(rank) as f64);
    assert_eq!(rounds[1]["scored"], 0);
    assert_ne!(v["hardest"], "any", "round 1 scored, the others did not");
    // An edited key is refused, naming it.
    let edited = ws.path().join("edited.json");
    std::fs::write(
        &edited,
        std::fs::read_to_string(dir.join("key.json")).unwrap().replacen("\"seed\": 3", "\"seed\": 4", 1),
    )
    .unwrap();
    let (code, _, err) = ranklens(
        ws.path(),
        &["lesson", "page-hunt", "--grade", edited.to_str().unwrap(), "--answers", answers.to_str().unwrap()],
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("edited.json: checksum"), "{err}");
}
