//! The lessons against the textbook: every number below is the textbook's (or worked out by hand
//! in the comments), and every number compared comes from a lesson built by the library — the
//! same code that ranks a user's corpus.

use std::sync::OnceLock;

use ranklens::lessons::{self, Block, IdfBase, Lesson, LessonKit, LessonParams};
use ranklens::models::ModelManager;
use ranklens::progress::NoProgress;

/// The kit with the real dense and SPLADE models (fetched through the model manager first, so a
/// fresh clone gets them; the kit itself never downloads).
fn kit() -> &'static LessonKit {
    static KIT: OnceLock<LessonKit> = OnceLock::new();
    KIT.get_or_init(|| {
        let manager = ModelManager::from_env();
        for id in ["sentence-transformers/all-MiniLM-L6-v2", "splade-tiny"] {
            let spec = manager.manifest().get(id).unwrap_or_else(|| panic!("{id} is in the manifest")).clone();
            manager.fetch(&spec, &NoProgress).unwrap_or_else(|e| panic!("fetching {id}: {e}"));
        }
        LessonKit::load(&manager, &NoProgress).expect("the lesson kit loads")
    })
}

fn build(id: &str, params: &LessonParams) -> Lesson {
    lessons::build(id, kit(), params, None).unwrap_or_else(|e| panic!("lesson {id}: {e}"))
}

/// The rows of the table whose caption starts with `caption`.
fn table<'a>(l: &'a Lesson, caption: &str) -> &'a [Vec<String>] {
    l.blocks
        .iter()
        .find_map(|b| match b {
            Block::Table { caption: c, rows, .. } if c.starts_with(caption) => Some(rows.as_slice()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("lesson {} has no table {caption:?}", l.id))
}

/// Every table whose caption starts with `caption`, in order.
fn tables<'a>(l: &'a Lesson, caption: &str) -> Vec<&'a [Vec<String>]> {
    l.blocks
        .iter()
        .filter_map(|b| match b {
            Block::Table { caption: c, rows, .. } if c.starts_with(caption) => Some(rows.as_slice()),
            _ => None,
        })
        .collect()
}

/// The cell in column `col` of the row whose first cell is `key`.
fn cell<'a>(rows: &'a [Vec<String>], key: &str, col: usize) -> &'a str {
    rows.iter().find(|r| r[0] == key).map(|r| r[col].as_str()).unwrap_or_else(|| panic!("no row {key:?} in {rows:?}"))
}

#[test]
fn tfidf_cosines_are_the_textbook_values() {
    let l = build("tfidf", &LessonParams::default());
    // By hand: idf = log2(4/df): mission 1, mars 2, atmosphere 2, every other term 2.
    // q = (1, 2, 2), |q| = 3. D3 = five terms of weight 2 and mission 1: |D3| = √21 = 4.5826,
    // q·D3 = 1 + 4 + 4 = 9, cos = 9 / (3 · 4.5826) = 0.6547. D4 shares only mission: 1 / 13.748 = 0.0727.
    let steps = table(&l, "Step by step");
    assert_eq!(cell(steps, "D3", 1), "9.0000");
    assert_eq!(cell(steps, "D3", 2), "3.0000");
    assert_eq!(cell(steps, "D3", 3), "4.5826");
    assert_eq!(cell(steps, "D3", 4), "0.6547");
    assert_eq!(cell(steps, "D4", 4), "0.0727");
    assert_eq!(cell(steps, "D1", 4), "0.0000");
    // The Red Planet rewording: only `mission` survives, q = (1): D3 and D4 tie at 1/√21 = 0.2182.
    let red = table(&l, "With stop words removed");
    assert_eq!(cell(red, "D3", 4), "0.2182");
    assert_eq!(cell(red, "D4", 4), "0.2182");
    // The dense model breaks the tie in favour of the Mars orbiter.
    let dense = table(&l, "The dense model");
    let score = |id: &str| cell(dense, id, 1).parse::<f64>().unwrap();
    assert!(score("D3") > score("D4") + 0.05, "dense: D3 {} vs D4 {}", score("D3"), score("D4"));
}

#[test]
fn bm25_table_is_the_textbook_table_and_follows_the_sliders() {
    let l = build("bm25", &LessonParams::default());
    let rows = table(&l, "The five settings");
    let values: Vec<[&str; 3]> = rows.iter().map(|r| [r[1].as_str(), r[2].as_str(), r[3].as_str()]).collect();
    assert_eq!(
        values[..5],
        [
            ["1.575", "2.234", "d2"],
            ["1.931", "1.512", "d1"],
            ["2.301", "2.301", "tie"],
            ["1.683", "1.784", "d2"],
            ["2.037", "1.451", "d1"],
        ]
    );
    // The learner's row at the defaults equals the textbook's k = 1.2, b = 0.75 row.
    assert_eq!(values[5], ["1.931", "1.512", "d1"]);

    // k = 0 ignores tf: both score idf(love) + idf(tragic) = log10(100/10) + log10(100/5) = 2.301.
    let l = build("bm25", &LessonParams { k: 0.0, ..LessonParams::default() });
    let own = table(&l, "The five settings").last().unwrap().clone();
    assert_eq!(own[1..], ["2.301", "2.301", "tie"]);
    // ln instead of log10 multiplies every score by ln 10 = 2.302585: 2.301 · 2.302585 = 5.298.
    let l = build("bm25", &LessonParams { k: 0.0, idf_base: IdfBase::E, ..LessonParams::default() });
    let own = table(&l, "The five settings").last().unwrap().clone();
    assert_eq!(own[1..], ["5.298", "5.298", "tie"]);

    // The saturation curve: BM25 stays under the idf ceiling; tf-idf passes it.
    let Some(Block::Curves { series, markers, .. }) = l.blocks.iter().find(|b| matches!(b, Block::Curves { .. }))
    else {
        panic!("no curve");
    };
    assert_eq!(series.len(), 3);
    assert!(markers.iter().any(|(label, p)| label.starts_with("8 ") && p[0] == 8.0));
    assert!(markers.iter().any(|(label, p)| label.starts_with("40 ") && p[0] == 40.0));
}

#[test]
fn the_reader_extracts_the_martian_atmosphere() {
    let l = build("reader", &LessonParams::default());
    let read = tables(&l, "Read: the reader sees the top 1");
    assert_eq!(read.len(), 2);
    assert_eq!(cell(read[0], "R1", 2), "the Martian atmosphere");
    assert_eq!(cell(read[1], "M1", 2), "Salzburg");
    // With k = 3 the reader also reads the lower passages.
    let l = build("reader", &LessonParams { reader_k: 3, ..LessonParams::default() });
    let read = tables(&l, "Read: the reader sees the top 3");
    assert_eq!(read.iter().map(|t| t.len()).collect::<Vec<_>>(), [3, 3]);
}

#[test]
fn jaro_winkler_of_jon_and_john_is_0_93() {
    let l = build("entities", &LessonParams::default());
    let rows = table(&l, "Jaro and Jaro–Winkler");
    // Jaro(jon, john) = (3/3 + 3/4 + 3/3) / 3 = 0.9167; prefix "jo" (2): 0.9167 + 2 · 0.1 · 0.0833 = 0.9333.
    assert_eq!(cell(rows, "jon", 2), "0.9167");
    assert_eq!(cell(rows, "jon", 3), "0.9333");
    // A threshold above every score merges nothing.
    let l = build("entities", &LessonParams { er_threshold: 9.0, ..LessonParams::default() });
    assert!(table(&l, "Merged graph nodes").is_empty());
}

#[test]
fn the_inverted_index_lists_the_postings_of_the_question() {
    let l = build("index", &LessonParams::default());
    let rows = table(&l, "Dictionary and postings");
    // In the sample, "token" and "expired" occur only in errors-2 (twice, once) and releases-5.
    assert_eq!(cell(rows, "token", 1), "2");
    assert_eq!(cell(rows, "token", 2), "errors-2:2  releases-5:1");
    assert_eq!(cell(rows, "expir", 2), "errors-2:1  releases-5:1");
}

#[test]
fn fusion_puts_the_shared_wrong_passage_first() {
    let l = build("fusion", &LessonParams::default());
    let rows = table(&l, "Top 3 of each");
    let rank = |method: &str, col: usize| -> usize {
        let r = rows.iter().find(|r| r[0].starts_with(method)).unwrap_or_else(|| panic!("no {method}"));
        r[col].trim_start_matches('#').parse().unwrap()
    };
    // RRF by hand from the input ranks: 1/(60 + r_bm25) + 1/(60 + r_dense).
    let rrf = |col: usize| 1.0 / (60.0 + rank("BM25", col) as f64) + 1.0 / (60.0 + rank("Dense", col) as f64);
    assert_eq!(rank("Dense", 2), 1, "dense finds the right passage first");
    assert!(rrf(3) > rrf(2), "RRF prefers the wrong passage");
    assert_eq!(rank("Fusion", 3), 1);
    assert!(rank("Fusion", 2) > 1);
}

#[test]
fn vocabulary_mismatch_bm25_misses_what_dense_finds() {
    let l = build("mismatch", &LessonParams::default());
    let rows = table(&l, "Where each method ranks errors-2");
    assert_eq!(cell(rows, "BM25", 1), "not retrieved");
    assert!(cell(rows, "Dense", 1).starts_with('#'));
    let rewrite = table(&l, "The rewrite");
    assert_eq!(cell(rewrite, "the rewrite alone", 1), "#1");
    assert!(l.blocks.iter().any(|b| matches!(b, Block::Warning(w) if w.contains("never evidence"))));
}

#[test]
fn chunking_separates_the_fact_from_its_subject() {
    let l = build("chunking", &LessonParams::default());
    let rows = table(&l, "The best chunk");
    assert!(rows[0][3].starts_with("yes"), "{:?}", rows[0]);
    assert!(rows[2][3].starts_with("no chunk holds it"), "{:?}", rows[2]);
    // The bad cut leaves "e2e-encrypt" at the end of one piece and "depends on libsodium" at the start of the next.
    let pieces = table(&l, "The bad cut");
    let i = pieces.iter().position(|r| r[1].ends_with("e2e-encrypt\"")).expect("a piece ends with the subject");
    assert!(pieces[i + 1][1].starts_with("\"depends on libsodium"));
}

#[test]
fn structure_answers_exactly() {
    let l = build("structure", &LessonParams::default());
    // errors.csv: E180 (4.2) and E210 (4.10) are the codes from version 4 on that stop syncing;
    // version order puts 4.10 after 4.2.
    let rows = table(&l, "SQL: SELECT code");
    let codes: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(codes, ["E180", "E210"]);
}

#[test]
fn every_lesson_builds_and_prints() {
    for (id, title) in lessons::LESSONS {
        let l = build(id, &LessonParams::default());
        assert_eq!(l.title, title);
        let text = l.to_text();
        assert!(text.starts_with(title) && text.lines().count() > 5, "{id}");
    }
    let atlas = lessons::atlas_lesson().to_text();
    assert_eq!(atlas.matches("\nStores: ").count(), lessons::ATLAS.len());
    assert!(lessons::build("nope", kit(), &LessonParams::default(), None).is_err());
}
