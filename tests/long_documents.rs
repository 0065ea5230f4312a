//! Long documents: a document longer than the encoder's window is encoded in overlapping windows
//! and scores by its best one (MaxP), so a fact stated only near its end is found; BM25 keeps
//! scoring the whole document.

mod common;

use ranklens::config::Settings;
use ranklens::corpus::{Corpus, DocId};
use ranklens::index::NeuralOptions;
use ranklens::models::{ModelManager, Role, WindowSpec};
use ranklens::progress::NoProgress;
use ranklens::retrieve::{MethodKind, QueryContext};
use ranklens::workbench::Workbench;

/// About 1,500 words on tending a vegetable garden, with one paragraph about a lighthouse keeper
/// and his cat two thirds of the way in (a long document, as a wiki page or a book's chapter is).
fn long_garden_guide() -> String {
    let topics = [
        "Tomatoes want six hours of sun, a deep watering twice a week and a stake before the first truss sets.",
        "Compost the autumn leaves in a wire bin and turn the heap every fortnight so it stays warm.",
        "Sow carrots thinly in loose sandy soil, and cover the row with fleece against the carrot fly.",
        "Courgettes crop heavily in August; pick them small and often or the plant stops flowering.",
        "Rotate the brassicas each year so club root does not build up in the same bed.",
        "Mulch the raspberry canes with bark in spring and cut the fruited canes to the ground after harvest.",
        "Slugs come out on damp evenings, so water the beds in the morning and keep the paths clear.",
        "Lift the potatoes once the haulm dies back, dry them on the soil for an afternoon, and store them dark.",
    ];
    let mut parts = Vec::new();
    for round in 0..22 {
        for (i, t) in topics.iter().enumerate() {
            if round == 15 && i == 4 {
                parts.push(
                    "A word about the lighthouse on the point, whose keeper grows his own onions. The lighthouse keeper's \
                     cat is called Marmalade. Marmalade, the keeper's ginger cat, sleeps every night on the spiral stairs \
                     below the lamp room, and the keeper feeds his cat Marmalade sardines when he climbs up to light the lamp."
                        .to_string(),
                );
            }
            parts.push(t.to_string());
        }
    }
    parts.join(" ")
}

fn corpus() -> Corpus {
    let guide = long_garden_guide();
    Corpus::from_texts(
        "long",
        [
            ("garden-guide", guide.as_str()),
            ("orchard", "The orchard's apple trees are pruned in winter, when the branches are bare."),
            ("bakery", "The village bakery sells rye bread on Tuesdays and cinnamon buns on Saturdays."),
            ("ferry", "The island ferry leaves at seven in the morning and returns after dark."),
            ("school", "The school choir rehearses in the church hall on Thursday evenings."),
        ],
    )
}

fn engine(windows: WindowSpec) -> Workbench {
    let engine = Workbench::new(corpus());
    let manager = ModelManager::from_env().offline(false);
    engine.load_model(&manager, Role::Dense, true, &NoProgress).unwrap();
    engine.set_neural_options(NeuralOptions { windows, ..Default::default() }).unwrap();
    engine.build_dense(&NoProgress).unwrap();
    engine
}

const QUESTION: &str = "What is the name of the lighthouse keeper's cat?";

#[test]
fn a_fact_in_the_second_half_of_a_long_document_is_found_by_its_best_window() {
    let text = corpus().doc(DocId(0)).unwrap().full_text();
    let fact_at = text.find("Marmalade").unwrap();
    assert!(fact_at > text.len() / 2, "the fact is in the second half");

    let engine = engine(WindowSpec::default());
    let dense = engine.neural().dense_index.unwrap();
    let rows = dense.windows.rows_of(DocId(0));
    assert!(rows.len() >= 4, "the guide is cut into {} windows", rows.len());
    assert_eq!(dense.windows.long_docs(), 1, "only the guide is longer than a window");
    let notes = engine.window_notes();
    assert!(notes.iter().any(|n| n.contains("1 of 5 documents are longer than one window")), "{notes:?}");

    let settings = Settings::default();
    for kind in [MethodKind::Dense, MethodKind::LateInteraction] {
        let r = engine.retriever(kind, &settings).unwrap();
        let prepared = r.prepare(&QueryContext::new(QUESTION)).unwrap();
        let top = prepared.search(3).unwrap();
        let scores: Vec<(DocId, f64)> = top.hits.iter().map(|h| (h.doc, h.score)).collect();
        assert_eq!(top.docs()[0], DocId(0), "{kind}: {scores:?}");
        // The explanation names the window that scored, and that window holds the fact.
        let e = prepared.explain(DocId(0)).unwrap();
        let w = e.window.unwrap_or_else(|| panic!("{kind}: no window named"));
        assert!(w.index > 0 && w.of == rows.len(), "{kind}: {w:?}");
        assert!((w.start..w.end).contains(&fact_at), "{kind}: window {w:?} misses the fact at {fact_at}");
        assert!(e.summary.contains(&format!("window {} of {}", w.index + 1, w.of)), "{}", e.summary);
        assert_eq!(e.value, top.hits[0].score);
    }
}

/// Word pieces of a text, whole and untruncated, that late interaction keeps (not a single
/// ASCII punctuation character), from the model's own tokenizer file.
fn kept_pieces(tokenizer: &tokenizers::Tokenizer, text: &str) -> usize {
    let e = tokenizer.encode(text, false).unwrap();
    e.get_tokens()
        .iter()
        .filter(|t| {
            let mut c = t.chars();
            !matches!((c.next(), c.next()), (Some(c), None) if c.is_ascii_punctuation())
        })
        .count()
}

#[test]
fn overlapping_windows_store_each_piece_of_the_text_once() {
    let engine = engine(WindowSpec::default());
    let late = engine.neural().late_index.unwrap();
    let manager = ModelManager::from_env().offline(false);
    let model = manager.resolve(Role::Dense, true, &NoProgress).unwrap();
    let mut tokenizer = tokenizers::Tokenizer::from_file(model.dir.join("tokenizer.json")).unwrap();
    tokenizer.with_truncation(None).unwrap();
    tokenizer.with_padding(None);
    let corpus = corpus();
    let whole: Vec<usize> = corpus.docs().iter().map(|d| kept_pieces(&tokenizer, &d.full_text())).collect();
    assert!(whole[0] > 1_000, "the guide has {} pieces", whole[0]);
    // Every piece of every text is stored once, however many windows hold it.
    assert_eq!(late.total_tokens(), whole.iter().sum::<usize>() as u64);
    // The windows themselves read more: each overlap twice.
    let rows = late.windows.rows_of(DocId(0));
    let read: u64 =
        rows.clone().map(|r| late.row_ranges(r).unwrap().iter().map(|x| x.end - x.start).sum::<u64>()).sum();
    assert!(read > whole[0] as u64 + (rows.len() as u64 - 1) * 50, "{read} pieces read for {}", whole[0]);
}

#[test]
fn read_only_from_its_beginning_the_long_document_loses_the_fact() {
    let engine = engine(WindowSpec { truncate: true, ..Default::default() });
    let dense = engine.neural().dense_index.unwrap();
    assert_eq!(dense.windows.rows(), 5, "one row per document");
    let r = engine.retriever(MethodKind::Dense, &Settings::default()).unwrap();
    let top = r.search(&QueryContext::new(QUESTION), 5).unwrap();
    // Its first 256 word pieces are all gardening: another passage now comes first.
    let scores: Vec<(DocId, f64)> = top.hits.iter().map(|h| (h.doc, h.score)).collect();
    assert_ne!(top.docs()[0], DocId(0), "{scores:?}");
}

/// The 2-bit token index is the same whichever way it is built: as the passages are encoded, or
/// compressed later from the f16 index of the same windows. Both learn the codec from the same
/// sample of f16-rounded vectors and compress the same f16 values, so every row reads back the
/// same ids and the same vectors, bit for bit.
#[test]
fn the_compressed_token_index_does_not_depend_on_how_it_was_built() {
    let build = |workspace: &std::path::Path, bits: &[u8]| {
        let engine = Workbench::new(corpus()).with_workspace(workspace.to_path_buf());
        let manager = ModelManager::from_env().offline(false);
        engine.load_model(&manager, Role::Dense, true, &NoProgress).unwrap();
        for &token_bits in bits {
            engine.set_neural_options(NeuralOptions { token_bits, ..Default::default() }).unwrap();
            engine.build_dense(&NoProgress).unwrap();
        }
        engine.neural().late_index.unwrap()
    };
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let direct = build(a.path(), &[2]);
    let via_f16 = build(b.path(), &[16, 2]);
    assert_eq!(direct.codec.describe(), via_f16.codec.describe());
    assert!(direct.codec.describe().contains("2-bit"), "{}", direct.codec.describe());
    assert_eq!(direct.windows, via_f16.windows);
    assert!(direct.windows.long_docs() == 1 && direct.rows() > 5);
    let (mut x, mut y) = (ranklens::index::tokens::RowTokens::default(), ranklens::index::tokens::RowTokens::default());
    for row in 0..direct.rows() {
        direct.read_row(row, &mut x).unwrap();
        via_f16.read_row(row, &mut y).unwrap();
        assert_eq!(x.ids, y.ids, "row {row}");
        let first = x.data.iter().zip(&y.data).position(|(a, b)| a.to_bits() != b.to_bits());
        assert_eq!(first, None, "row {row} differs at value {first:?}");
    }
}
