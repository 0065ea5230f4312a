//! Chunking: the same help page cut three ways — by paragraph, into overlapping windows of words,
//! and at fixed character offsets (a deliberately bad cut) — and what BM25 finds in each; then
//! small-to-big retrieval: match a sentence, return its section.

use super::exercises;
use super::{Lesson, LessonKit, LessonParams};
use crate::Result;
use crate::analysis::AnalyzerConfig;
use crate::corpus::Corpus;
use crate::corpus::chunk::{Chunk, by_characters, by_paragraph, by_window, sentences};
use crate::progress::NoProgress;
use crate::retrieve::{Bm25Variant, QueryContext};
use crate::workbench::{SparseSpec, Workbench};

const QUESTION: &str = "e2e-encrypt depends on which library?";
const FACT: &str = "e2e-encrypt depends on libsodium";

/// The page of the sample the lesson cuts: its passages joined as paragraphs.
pub fn page(kit: &LessonKit, name: &str) -> String {
    let mut docs: Vec<&crate::corpus::Doc> =
        kit.sample.corpus().docs().iter().filter(|d| d.fields.get("page").is_some_and(|p| p == name)).collect();
    docs.sort_by(|a, b| a.id.cmp(&b.id));
    docs.iter().map(|d| d.text.clone()).collect::<Vec<_>>().join("\n\n")
}

/// The chunks ranked for the question under BM25 (0-based indices, best first).
fn ranked(chunks: &[Chunk]) -> Result<Vec<usize>> {
    let ids: Vec<String> = chunks.iter().map(|c| format!("chunk-{}", c.index + 1)).collect();
    let corpus =
        Corpus::from_texts("chunks", ids.iter().map(String::as_str).zip(chunks.iter().map(|c| c.text.as_str())));
    let engine = Workbench::new(corpus);
    let r = engine.sparse(
        SparseSpec::bm25(Bm25Variant::Lucene, Bm25Variant::Lucene.default_params()),
        AnalyzerConfig::default(),
        &NoProgress,
    )?;
    let hits = r.search(&QueryContext::new(QUESTION), chunks.len())?;
    Ok(hits.hits.iter().map(|h| h.doc.index()).collect())
}

/// Does this chunk hold the whole fact (subject, verb and object together)?
fn holds_fact(chunk: &Chunk) -> bool {
    chunk.text.split_whitespace().collect::<Vec<_>>().join(" ").contains(FACT)
}

pub fn build(kit: &LessonKit, params: &LessonParams) -> Result<Lesson> {
    let mut l = Lesson::untitled();
    let text = page(kit, "plugins");
    l.p(format!("The \"plugins\" help page, {} words. The question `{QUESTION}` needs the fact \"e2e-encrypt depends on libsodium\" in one piece.", text.split_whitespace().count()));
    let words = text.split_whitespace().count();
    l.check(exercises::window_count(
        "chunk-windows",
        words,
        params.chunk_words,
        params.chunk_overlap,
        by_window(&text, params.chunk_words, params.chunk_overlap).len(),
    ));
    let cuttings = [
        ("by paragraph".to_string(), by_paragraph(&text)),
        (
            format!("windows of {} words, overlap {}", params.chunk_words, params.chunk_overlap),
            by_window(&text, params.chunk_words, params.chunk_overlap),
        ),
        (format!("every {} characters (a bad cut)", params.bad_cut_chars), by_characters(&text, params.bad_cut_chars)),
    ];
    let mut rows = Vec::new();
    for (name, chunks) in &cuttings {
        let order = ranked(chunks)?;
        let best = order.first().and_then(|&i| chunks.get(i));
        let holder = chunks.iter().position(holds_fact);
        let fact = match (holder, best) {
            (Some(h), Some(b)) if b.index == h => "yes: the best chunk holds it".to_string(),
            (Some(h), _) => match order.iter().position(|&i| i == h) {
                Some(rank) => format!("chunk {} holds it, ranked #{}", h + 1, rank + 1),
                None => format!("chunk {} holds it, not retrieved", h + 1),
            },
            (None, _) => "no chunk holds it: the fact is split from its subject".to_string(),
        };
        let best = best.map_or_else(|| "nothing".to_string(), |c| format!("chunk {}: \"{}\"", c.index + 1, c.text));
        rows.push(vec![name.clone(), chunks.len().to_string(), best, fact]);
    }
    l.table("The best chunk for the question under BM25", &["cutting", "chunks", "best chunk", "the whole fact"], rows);
    if let Some((_, bad)) = cuttings.last() {
        l.table(
            "The bad cut, piece by piece",
            &["chunk", "text"],
            bad.iter().map(|c| vec![(c.index + 1).to_string(), format!("\"{}\"", c.text)]).collect(),
        );
    }
    l.h("Small-to-big: match a sentence, return its section");
    let paragraphs = by_paragraph(&text);
    let mut small = Vec::new();
    for p in &paragraphs {
        for s in sentences(&p.text) {
            small.push((p.index, Chunk { index: small.len(), text: s }));
        }
    }
    let chunks: Vec<Chunk> = small.iter().map(|(_, c)| c.clone()).collect();
    if let Some((p, sentence)) = ranked(&chunks)?.first().and_then(|&i| small.get(i)).map(|(p, c)| (*p, c.text.clone()))
    {
        // The section: the matched sentence's paragraph with its neighbours.
        let section: Vec<String> =
            paragraphs.iter().filter(|x| x.index + 1 >= p && x.index <= p + 1).map(|x| x.text.clone()).collect();
        l.p(format!("Best sentence (precise match, {} sentences searched): \"{sentence}\"", chunks.len()));
        l.p(format!(
            "Returned section (the paragraph and its neighbours, enough context to answer and cite): \"{}\"",
            section.join(" ")
        ));
    }
    Ok(l)
}
