//! Retrieve then read: passages ranked by the dense model, then a reader that extracts an answer
//! span — here the anchor-and-boundary extractor, a simplification of a trained span reader: find
//! the question's last content word in a passage and take the words after it up to a boundary.

use super::data::QuestionPassage;
use serde::{Deserialize, Serialize};

use super::{Lesson, LessonKit, LessonParams};
use crate::Result;
use crate::analysis::{AnalyzerConfig, Preset, porter_stem};
use crate::models::{InputKind, TextEncoder};
use crate::progress::NoProgress;
use crate::retrieve::dense::dot;
use crate::retrieve::{Bm25Variant, QueryContext};
use crate::workbench::{SparseSpec, Workbench};

/// An extracted answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReaderAnswer {
    /// The span.
    pub answer: String,
    /// The anchor word found in the passage.
    pub anchor: String,
}

const BOUNDARY_WORDS: &[&str] = &[
    "in", "on", "at", "from", "by", "and", "or", "to", "with", "when", "which", "that", "after", "before", "for",
    "while",
];

const QUESTION_WORDS: &[&str] = &[
    "what", "which", "who", "whom", "where", "when", "why", "how", "did", "does", "do", "was", "were", "is", "are",
    "the", "a", "an",
];

fn clean(word: &str) -> String {
    word.trim_matches(|c: char| !c.is_alphanumeric() && c != '-').to_lowercase()
}

/// The anchor-and-boundary extractor: the question's last content word (matched by stem) anchors
/// the answer in the passage; the answer is the words after it, up to punctuation or a boundary
/// word. `where`/`when` questions skip one leading preposition ("born in Salzburg" → Salzburg).
pub fn extract_answer(question: &str, passage: &str) -> Option<ReaderAnswer> {
    let content: Vec<String> = question
        .split_whitespace()
        .map(clean)
        .filter(|w| !w.is_empty() && !QUESTION_WORDS.contains(&w.as_str()))
        .collect();
    let words: Vec<&str> = passage.split_whitespace().collect();
    let first = question.split_whitespace().next().map(clean).unwrap_or_default();
    for anchor in content.iter().rev() {
        let stem = porter_stem(anchor);
        let Some(pos) = words.iter().position(|w| porter_stem(&clean(w)) == stem) else { continue };
        if words[pos].ends_with([',', '.', ';', ':']) {
            continue;
        }
        let mut i = pos + 1;
        if matches!(first.as_str(), "where" | "when")
            && words.get(i).is_some_and(|w| BOUNDARY_WORDS.contains(&clean(w).as_str()))
        {
            i += 1;
        }
        let mut span = Vec::new();
        while let Some(w) = words.get(i) {
            let c = clean(w);
            if BOUNDARY_WORDS.contains(&c.as_str()) {
                break;
            }
            let ends = w.ends_with([',', '.', ';', ':', '!', '?']);
            span.push(w.trim_end_matches([',', '.', ';', ':', '!', '?']));
            if ends {
                break;
            }
            i += 1;
        }
        if !span.is_empty() {
            return Some(ReaderAnswer { answer: span.join(" "), anchor: words[pos].to_string() });
        }
    }
    None
}

/// Rank a small corpus for a question: dense when the model is here, else BM25.
/// Passages best first: (id, text, score).
type Ranked = Vec<(String, String, f64)>;

fn rank(kit: &LessonKit, workbench: &Workbench, question: &str) -> Result<(String, Ranked)> {
    let corpus = workbench.corpus();
    if let Some(dense) = &kit.dense {
        let texts: Vec<String> = corpus.docs().iter().map(|d| d.full_text()).collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let docs = dense.encode(&refs, InputKind::Document)?;
        let q = dense.encode(&[question], InputKind::Query)?.remove(0);
        let mut ranked: Vec<(String, String, f64)> = corpus
            .docs()
            .iter()
            .zip(&docs)
            .map(|(d, v)| (d.id.clone(), d.text.clone(), f64::from(dot(&q, v))))
            .collect();
        ranked.sort_by(|a, b| b.2.total_cmp(&a.2).then_with(|| a.0.cmp(&b.0)));
        return Ok((format!("dense ({})", TextEncoder::model_id(dense.as_ref())), ranked));
    }
    let spec = SparseSpec::bm25(Bm25Variant::Lucene, Bm25Variant::Lucene.default_params());
    let r = workbench.sparse(spec, AnalyzerConfig::preset(Preset::English), &NoProgress)?;
    let hits = r.search(&QueryContext::new(question), corpus.len())?;
    let ranked = hits
        .hits
        .iter()
        .map(|h| {
            (
                corpus.external_id(h.doc).to_string(),
                corpus.doc(h.doc).map(|d| d.text.clone()).unwrap_or_default(),
                h.score,
            )
        })
        .collect();
    Ok(("BM25 (the dense model is not here)".to_string(), ranked))
}

pub fn build(kit: &LessonKit, params: &LessonParams) -> Result<Lesson> {
    let mut l = Lesson::untitled();
    l.warn("The reader here is the anchor-and-boundary extractor: a simplification of a trained span reader, which would score every possible span with a model.");
    let k = params.reader_k.max(1);
    for (corpus, question) in [("reader", "What did Mangalyaan study?"), ("mozart", "Where was Mozart born?")] {
        let engine = Workbench::new(kit.corpus(corpus)?);
        let (how, ranked) = rank(kit, &engine, question)?;
        l.h(format!("`{question}`"));
        if let Some((first, text, _)) = ranked.first() {
            let answer = extract_answer(question, text).map_or_else(|| "no answer".to_string(), |a| a.answer);
            let mut options: Vec<String> =
                ranked.iter().take(3).filter_map(|(_, t, _)| extract_answer(question, t).map(|a| a.answer)).collect();
            options.push("no answer".into());
            options.sort();
            options.dedup();
            let opts: Vec<&str> = options.iter().map(String::as_str).collect();
            l.check(super::exercises::choice(
                &format!("reader-{corpus}"),
                format!("The reader sees {first} first: \"{text}\". What does it answer to `{question}`?"),
                QuestionPassage { question, passage: text },
                &opts,
                &answer,
                format!("It finds the anchor (the question's words) in {first} and takes the span up to the next boundary: {answer}."),
            ));
        }
        l.table(
            &format!("Retrieve: ranked by {how}"),
            &["rank", "passage", "score", "text"],
            ranked
                .iter()
                .enumerate()
                .map(|(i, (id, text, s))| vec![(i + 1).to_string(), id.clone(), format!("{s:.4}"), text.clone()])
                .collect(),
        );
        let mut rows = Vec::new();
        for (id, text, _) in ranked.iter().take(k) {
            match extract_answer(question, text) {
                Some(a) => rows.push(vec![id.clone(), a.anchor, a.answer]),
                None => rows.push(vec![id.clone(), "—".into(), "no anchor found".into()]),
            }
        }
        l.table(&format!("Read: the reader sees the top {k}"), &["passage", "anchor", "answer"], rows);
    }
    l.p("With k = 1 the reader sees one passage and gives one answer; raise k and it also reads the passages below, which can add distractors (another mission's study) as well as recover an answer the first passage lacks.");
    Ok(l)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchor_and_boundary_by_hand() {
        let r1 = "Mangalyaan, India's first interplanetary mission, reached Mars orbit in 2014 to study the Martian atmosphere.";
        assert_eq!(
            extract_answer("What did Mangalyaan study?", r1).map(|a| a.answer),
            Some("the Martian atmosphere".into())
        );
        let m1 = "Wolfgang Amadeus Mozart was born in Salzburg in 1756, the son of the violinist Leopold Mozart.";
        assert_eq!(extract_answer("Where was Mozart born?", m1).map(|a| a.answer), Some("Salzburg".into()));
        assert_eq!(extract_answer("What did Mangalyaan study?", "Nothing relevant here."), None);
    }
}
