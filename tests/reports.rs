//! Judgements, metrics and reports: hand-computed metrics on the sample questions, RankLens's
//! SciFact figure against trec_eval's own code (pytrec_eval), the HTML report in headless
//! Chromium, and JSON reports that re-open and refuse tampering.

mod common;

use std::path::Path;
use std::process::Command;

use ranklens::analysis::{AnalyzerConfig, Preset};
use ranklens::compare::Plan;
use ranklens::config::Settings;
use ranklens::corpus::{LoadOptions, load};
use ranklens::eval::{Metric, MetricSet, evaluate, evaluate_query};
use ranklens::progress::NoProgress;
use ranklens::report::{self, ReportBody, ReportFormat};
use ranklens::retrieve::{Bm25Params, Bm25Variant, MethodKind, QueryContext, Retriever};
use ranklens::workbench::{SparseSpec, Workbench};

fn sample_engine() -> Workbench {
    let dir = common::sample("acme-sync");
    let mut e = Workbench::new(load(&dir, LoadOptions::default()).unwrap());
    e.load_structured(&dir).unwrap();
    e
}

fn ranked_ids(engine: &Workbench, r: &dyn Retriever, q: &str) -> Vec<(String, f64)> {
    r.search(&QueryContext::new(q), 10)
        .unwrap()
        .hits
        .iter()
        .map(|h| (engine.corpus().external_id(h.doc).to_string(), h.score))
        .collect()
}

#[test]
fn sample_question_metrics_equal_hand_computations() {
    let e = sample_engine();
    let qrels = e.corpus().qrels.clone().unwrap();
    let m = MetricSet::at(10);

    // q3 "What is E140?" under rank_bm25's BM25Okapi (whitespace tokens): errors-3 (grade 3) is
    // second, releases-1 (grade 1) is not in the top 10.
    let okapi = e
        .sparse(
            SparseSpec::bm25(Bm25Variant::Okapi, Bm25Variant::Okapi.default_params()),
            AnalyzerConfig::preset(Preset::Whitespace),
            &NoProgress,
        )
        .unwrap();
    let run = ranked_ids(&e, okapi.as_ref(), "What is E140?");
    assert_eq!(run[1].0, "errors-3");
    assert!(!run.iter().any(|(d, _)| d == "releases-1"));
    let v = evaluate_query(&run, qrels.for_query("q3"), &m);
    let idcg = 3.0 + 1.0 / 3f64.log2();
    assert!((v[&Metric::Ndcg(10)] - (3.0 / 3f64.log2()) / idcg).abs() < 1e-12);
    assert!((v[&Metric::Ap] - 0.5 / 2.0).abs() < 1e-12, "precision 1/2 at the one relevant found, over 2 relevant");
    assert_eq!(v[&Metric::Recall(10)], 0.5);
    assert_eq!(v[&Metric::Precision(10)], 0.1);
    assert_eq!(v[&Metric::Mrr], 0.5);

    // q6 "How many devices…?" under Lucene BM25 (k1 0.9, b 0.4, english): accounts-1 (3) first,
    // accounts-5 (1) sixth.
    let lucene = e
        .sparse(
            SparseSpec::bm25(
                Bm25Variant::Lucene,
                Bm25Params { k1: 0.9, b: 0.4, ..Bm25Variant::Lucene.default_params() },
            ),
            AnalyzerConfig::default(),
            &NoProgress,
        )
        .unwrap();
    let run = ranked_ids(&e, lucene.as_ref(), "How many devices can I use with one account?");
    assert_eq!((run[0].0.as_str(), run[5].0.as_str()), ("accounts-1", "accounts-5"));
    let v = evaluate_query(&run, qrels.for_query("q6"), &m);
    assert!((v[&Metric::Ndcg(10)] - (3.0 + 1.0 / 7f64.log2()) / idcg).abs() < 1e-12);
    assert!((v[&Metric::Ap] - (1.0 + 2.0 / 6.0) / 2.0).abs() < 1e-12);
    assert_eq!((v[&Metric::Recall(10)], v[&Metric::Precision(10)], v[&Metric::Mrr]), (1.0, 0.2, 1.0));
}

/// The Python in `scripts/.venv` with the independent checkers, created on first use.
#[test]
fn scifact_ndcg_agrees_with_trec_eval_to_1e4() {
    let dir = common::shared_data("scifact");
    let (run, qrels) = common::scifact_lucene_run();
    let ours = evaluate(&run, &qrels, &MetricSet(vec![Metric::Ndcg(10)])).mean[&Metric::Ndcg(10)];
    let tmp = tempfile::tempdir().unwrap();
    let run_path = tmp.path().join("bm25.trec");
    run.write_trec(&run_path).unwrap();
    let out = Command::new(common::checker_python())
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/trec_eval_check.py"))
        .arg(dir.join("qrels/test.tsv"))
        .arg(&run_path)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let theirs: f64 = String::from_utf8(out.stdout).unwrap().trim().parse().unwrap();
    assert!((ours - theirs).abs() < 1e-4, "RankLens {ours:.6} vs pytrec_eval {theirs:.6}");
}

fn comparison_body(e: &Workbench, question: &str) -> ReportBody {
    let settings = Settings {
        methods: vec![MethodKind::Boolean, MethodKind::TfIdf, MethodKind::Bm25, MethodKind::Sql, MethodKind::Graph],
        ..Settings::default()
    };
    let plan = Plan::from_settings(
        &settings,
        Some("SELECT code, added_in FROM errors ORDER BY code"),
        Some("desktop-app loads ?p . ?p depends_on libsodium"),
    );
    let run = plan.run(e, &e.query_context(question, &settings), &NoProgress).unwrap();
    let judged = e.corpus().qrels.as_ref().and_then(|x| x.for_query("q5")).cloned();
    ReportBody::Comparison(Box::new(report::comparison_report(e, &run, &settings, judged.as_ref())))
}

#[test]
fn json_reports_reopen_and_refuse_tampering_or_truncation() {
    let e = sample_engine();
    let body = comparison_body(&e, "Which version added end-to-end encryption, and which library does it use?");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.json");
    report::write(&body, &path).unwrap();
    let back = report::load(&path).unwrap();
    assert_eq!(back, body, "a report re-reads exactly");
    let ReportBody::Comparison(c) = &back else { panic!() };
    assert_eq!(c.stamp.corpus_fingerprint, e.corpus().fingerprint());
    assert_eq!(c.stamp.settings.bm25.k1, 1.2);
    assert!(c.metrics.as_ref().is_some_and(|m| m.len() == 3));
    assert!(c.explanations.iter().any(|x| x.kind == MethodKind::Bm25));

    let text = std::fs::read_to_string(&path).unwrap();
    let tampered = text.replacen("\"k1\": 1.2", "\"k1\": 1.3", 1);
    assert_ne!(tampered, text);
    std::fs::write(&path, &tampered).unwrap();
    let err = report::load(&path).unwrap_err().to_string();
    assert!(err.contains("checksum mismatch") && err.contains("r.json"), "{err}");

    // Cut in the middle (at a character boundary: the report's length depends on its paths).
    let mut cut = text.len() / 2;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    std::fs::write(&path, &text[..cut]).unwrap();
    let err = report::load(&path).unwrap_err().to_string();
    assert!(err.contains("truncated") && err.contains("r.json:"), "{err}");
    std::fs::write(&path, "{\"format\": \"something else\", \"version\": 1, \"checksum\": \"\", \"body\": {}}")
        .unwrap();
    assert!(report::load(&path).unwrap_err().to_string().contains("not a RankLens report"));
}

#[test]
fn csv_and_markdown_reports_carry_every_ranking_and_the_stamp() {
    let e = sample_engine();
    let body = comparison_body(&e, "What is E140?");
    let csv = report::render(&body, ReportFormat::Csv).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("question,method,rank,passage,score"));
    let rows: Vec<&str> = lines.collect();
    assert!(rows.iter().any(|r| r.starts_with("What is E140?,\"BM25 (lucene, k1=1.2, b=0.75)\",1,")), "{rows:?}");
    let md = report::render(&body, ReportFormat::Markdown).unwrap();
    assert!(md.contains(&e.corpus().fingerprint()) && md.contains("| rank |"));
}

/// A page's screenshot in headless Chromium, offline, with text rendered the same way on every
/// machine (no subpixel positioning, no LCD text, no hinting); returns the image and the log.
fn chromium_screenshot(html: &str, dir: &Path, name: &str) -> (image::RgbImage, String) {
    let page = dir.join(format!("{name}.html"));
    std::fs::write(&page, html).unwrap();
    let shot = dir.join(format!("{name}.png"));
    let chromium = ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|c| Command::new(c).arg("--version").output().is_ok());
    let chromium = chromium.expect("Chromium is needed for this test: scripts/test.sh installs Debian's `chromium`");
    let out = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--host-resolver-rules=MAP * ~NOTFOUND",
            "--enable-logging=stderr",
            "--v=0",
            "--hide-scrollbars",
            "--force-device-scale-factor=1",
            "--disable-font-subpixel-positioning",
            "--disable-lcd-text",
            "--font-render-hinting=none",
            "--window-size=1200,1800",
        ])
        .arg(format!("--user-data-dir={}", dir.join(format!("profile-{name}")).display()))
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(shot.is_file(), "no screenshot: {log}");
    (image::open(&shot).unwrap().to_rgb8(), log)
}

/// Whether two colours are alike: no channel apart by more than a glyph's anti-aliasing drifts
/// between machines (48 of 255).
fn alike(p: &image::Rgb<u8>, q: &image::Rgb<u8>) -> bool {
    p.0.iter().zip(q.0).all(|(&a, b)| a.abs_diff(b) <= 48)
}

/// Whether the pixel at (x, y) of `a` has a colour like it at the same place in `b` or one pixel
/// away: a glyph that a Chromium update moves by under a pixel still matches.
fn found_near(a: &image::RgbImage, b: &image::RgbImage, x: u32, y: u32) -> bool {
    let p = a.get_pixel(x, y);
    (y.saturating_sub(1)..=(y + 1).min(b.height() - 1))
        .any(|v| (x.saturating_sub(1)..=(x + 1).min(b.width() - 1)).any(|u| alike(p, b.get_pixel(u, v))))
}

/// Each 2×2 block of pixels as one pixel of their mean colour: how anti-aliasing spreads a glyph's
/// edge over its neighbours changes between Chromium releases; the mean of a block hardly does.
fn halved(img: &image::RgbImage) -> image::RgbImage {
    image::RgbImage::from_fn(img.width() / 2, img.height() / 2, |x, y| {
        let mut sum = [0u32; 3];
        for (u, v) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
            for (s, &c) in sum.iter_mut().zip(&img.get_pixel(2 * x + u, 2 * y + v).0) {
                *s += u32::from(c);
            }
        }
        image::Rgb(sum.map(|s| (s / 4) as u8))
    })
}

/// Blocks (2×2 pixels, see `halved`) of either image with no colour like theirs within one block
/// in the other, and an image of where they are (red on grey).
fn differing_pixels(a: &image::RgbImage, b: &image::RgbImage) -> (usize, image::RgbImage) {
    assert_eq!(a.dimensions(), b.dimensions());
    let (a, b) = (halved(a), halved(b));
    let mut diff = image::RgbImage::new(a.width(), a.height());
    let mut count = 0;
    for (x, y, pa) in a.enumerate_pixels() {
        let far = !found_near(&a, &b, x, y) || !found_near(&b, &a, x, y);
        let grey = (pa.0.iter().map(|&c| u32::from(c)).sum::<u32>() / 12 + 160) as u8;
        diff.put_pixel(x, y, if far { image::Rgb([255, 0, 0]) } else { image::Rgb([grey, grey, grey]) });
        count += usize::from(far);
    }
    (count, diff)
}

/// Most blocks (2×2 pixels) a snapshot may differ in and still match. Chromium 156.0.8078.114
/// draws the reference's monospace labels with other anti-aliasing than 156.0.8078.73 did: 254
/// pixels apart at full size, 4 blocks here. One bar of a chart in another colour, or 8 pixels
/// longer, is dozens of blocks (both checked below). A changed digit is not a pixel matter: it
/// is under 25 pixels, less than a Chromium update moves, and the report's numbers are checked in
/// its text by the other tests of this file.
const MAX_DIFFERING_PIXELS: usize = 8;

#[test]
fn the_html_report_renders_in_headless_chromium_offline() {
    let e = sample_engine();
    let body = comparison_body(&e, "Which version added end-to-end encryption, and which library does it use?");
    let html = report::render(&body, ReportFormat::Html).unwrap();
    assert!(
        !html.contains("<script") && !html.contains("src=") && !html.contains("href="),
        "self-contained, no scripts"
    );
    for chart in ["rankings side by side", "term contributions", "Graph bindings", "SQL rows"] {
        assert!(html.contains(chart), "missing {chart}");
    }
    let dir = tempfile::tempdir().unwrap();
    let (img, log) = chromium_screenshot(&html, dir.path(), "report");
    assert!(!log.contains("CONSOLE"), "the page logged to the console: {log}");
    assert_eq!((img.width(), img.height()), (1200, 1800));
    let ink = img.pixels().filter(|p| p.0.iter().any(|&c| c < 200)).count();
    let colors: std::collections::HashSet<[u8; 3]> = img.pixels().map(|p| p.0).collect();
    assert!(ink as f64 / f64::from(img.width() * img.height()) > 0.02, "the page is blank");
    assert!(colors.len() > 50, "the page has only {} colours", colors.len());
    let reference_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/report.png");
    if std::env::var("UPDATE_SNAPSHOTS").is_ok_and(|v| v == "1") {
        img.save(&reference_path).unwrap();
    }
    let reference = image::open(&reference_path)
        .expect("tests/snapshots/report.png: run with UPDATE_SNAPSHOTS=1 once, look at it, commit it")
        .to_rgb8();
    assert_eq!(reference.dimensions(), img.dimensions());
    let (count, diff) = differing_pixels(&reference, &img);
    if count > MAX_DIFFERING_PIXELS {
        let new = reference_path.with_extension("new.png");
        let shown = reference_path.with_extension("diff.png");
        img.save(&new).unwrap();
        diff.save(&shown).unwrap();
        panic!(
            "the report looks different from tests/snapshots/report.png in {count} pixels (see {} and {}); \
             if the change is meant, look at it and run with UPDATE_SNAPSHOTS=1",
            new.display(),
            shown.display()
        );
    }
    // The comparison sees a change as small as one bar of one chart in another colour: the first
    // bar at least 10 pixels long.
    let attr = |tag: &str, name: &str| -> Option<String> {
        let at = tag.find(&format!(" {name}=\""))? + name.len() + 3;
        Some(tag[at..at + tag[at..].find('"')?].to_string())
    };
    let (at, tag) = html
        .match_indices("<rect ")
        .map(|(i, _)| (i, &html[i..i + html[i..].find("/>").unwrap()]))
        .find(|(_, tag)| {
            attr(tag, "height").as_deref() == Some("12")
                && attr(tag, "width").and_then(|w| w.parse::<f64>().ok()).is_some_and(|w| w >= 10.0)
        })
        .expect("a bar");
    let fill = attr(tag, "fill").unwrap();
    assert_ne!(fill, "#00ff00");
    let recoloured = format!(
        "{}{}{}",
        &html[..at],
        tag.replace(&format!("fill=\"{fill}\""), "fill=\"#00ff00\""),
        &html[at + tag.len()..]
    );
    let (other, _) = chromium_screenshot(&recoloured, dir.path(), "recoloured");
    let (changed, _) = differing_pixels(&reference, &other);
    assert!(changed > MAX_DIFFERING_PIXELS, "one recoloured bar changed only {changed} pixels");
    // And the same bar 8 pixels longer (a contribution off by an eighth of the chart's scale).
    let width: f64 = attr(tag, "width").and_then(|w| w.parse().ok()).expect("a width");
    let longer = format!(
        "{}{}{}",
        &html[..at],
        tag.replace(
            &format!("width=\"{}\"", attr(tag, "width").unwrap_or_default()),
            &format!("width=\"{}\"", width + 8.0)
        ),
        &html[at + tag.len()..]
    );
    assert_ne!(longer, html);
    let (other, _) = chromium_screenshot(&longer, dir.path(), "longer");
    let (changed, _) = differing_pixels(&reference, &other);
    assert!(changed > MAX_DIFFERING_PIXELS, "one bar 8 pixels longer changed only {changed} pixels");
}
