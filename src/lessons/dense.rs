//! Dense scores, down to words: which passage wins by cosine and which by BM25, and for a
//! mean-pooled model (MiniLM) the cosine split exactly over the passage's word pieces,
//! cos = q·h̄/|h̄| = Σᵢ q·hᵢ / (n·|h̄|).

use super::checkpoint::Checkpoint;
use super::drawer::{Drawer, round4};
use crate::lcg::SplitMix64;
use std::sync::Arc;

use super::data::{PassageText, QuestionTexts, to_data};
use super::exercises;
use super::{Lesson, LessonKit, Open, f4};
use crate::analysis::AnalyzerConfig;
use crate::config::Settings;
use crate::corpus::DocId;
use crate::formula::Bm25Variant;
use crate::models::{InputKind, TextEncoder};
use crate::progress::NoProgress;
use crate::retrieve::{Detail, MethodKind, QueryContext, TokenPart};
use crate::workbench::{SparseSpec, Workbench};
use crate::{Error, Result};

pub fn build(kit: &LessonKit, on: &Open) -> Result<Lesson> {
    let mut l = Lesson::untitled();
    l.p("A dense model turns the question and each passage into one vector; the score is their cosine. MiniLM's passage vector is the mean of its word pieces' states, so the cosine splits exactly over them: with q the question's unit vector and h₁ … hₙ the pieces' states, cos = q·h̄/|h̄| = Σᵢ q·hᵢ / (n·|h̄|). Each piece's part is q·hᵢ / (n·|h̄|); the parts sum to the score.");
    let settings = Settings::default();
    let (engine, question): (Arc<Workbench>, String) = match on.workbench.retriever(MethodKind::Dense, &settings) {
        Ok(_) => (on.workbench.clone(), on.question.trim().to_string()),
        Err(e) if !Arc::ptr_eq(&on.workbench, &kit.sample) => {
            l.warn(format!(
                "The open corpus cannot be ranked by the dense model yet ({}): this page uses the Acme Sync sample.",
                e.report()
            ));
            (kit.sample.clone(), "Why does my phone say my login is stale?".to_string())
        }
        Err(e) => {
            l.warn(format!("Not run here: {} (ranklens models fetch --role dense).", e.report()));
            return Ok(l);
        }
    };
    let dense = engine.retriever(MethodKind::Dense, &settings)?;
    let bm25 = engine.sparse(
        SparseSpec::bm25(Bm25Variant::Lucene, Bm25Variant::Lucene.default_params()),
        AnalyzerConfig::default(),
        &NoProgress,
    )?;
    let q = QueryContext::new(&question);
    let (d_hits, b_hits) = (dense.search(&q, 5)?.hits, bm25.search(&q, 5)?.hits);
    let Some(top) = d_hits.first().map(|h| h.doc) else {
        l.warn("The dense model ranked nothing.");
        return Ok(l);
    };
    let corpus = engine.corpus();
    let name = |d: DocId| corpus.external_id(d).to_string();
    // The options: the two methods' first two, in id order (the order gives nothing away).
    let mut options: Vec<DocId> = Vec::new();
    for h in d_hits.iter().take(2).chain(b_hits.iter().take(2)) {
        if !options.contains(&h.doc) {
            options.push(h.doc);
        }
    }
    options.sort_by_key(|&d| name(d));
    let data = to_data(&QuestionTexts {
        question: &question,
        passages: options
            .iter()
            .map(|&d| PassageText { id: name(d), text: corpus.doc(d).map(|x| x.full_text()).unwrap_or_default() })
            .collect(),
    });
    l.h(format!("`{question}`"));
    let by_bm25 = exercises::scores_under(bm25.as_ref(), &q, &options, corpus)?;
    let by_dense = exercises::scores_under(dense.as_ref(), &q, &options, corpus)?;
    l.check(exercises::best_of(
        "dense-bm25-first",
        "Read the passages: which of them does BM25 put first?".into(),
        data.clone(),
        &by_bm25,
        |d, v| format!("{d}: BM25 {}, from the words it shares with the question", f4(v)),
    ));
    l.check(exercises::best_of(
        "dense-first",
        "And which does the dense model put first?".into(),
        data,
        &by_dense,
        |d, v| format!("{d}: cosine {}", f4(v)),
    ));
    let rank = |hits: &[crate::retrieve::Hit], d: DocId| {
        hits.iter().position(|h| h.doc == d).map_or("—".to_string(), |i| (i + 1).to_string())
    };
    let mut rows = Vec::new();
    for ((&d, (_, cosine)), (_, bm25_score)) in options.iter().zip(&by_dense).zip(&by_bm25) {
        rows.push(vec![name(d), f4(*cosine), rank(&d_hits, d), f4(*bm25_score), rank(&b_hits, d)]);
    }
    l.table("Both scores", &["passage", "cosine", "dense rank", "BM25", "BM25 rank"], rows);

    let e = dense.explain(&q, top)?;
    let Detail::Dense { tokens, query_tokens, .. } = &e.detail else {
        return Err(Error::invalid("lesson", "the dense explanation has no cosine"));
    };
    let top_name = name(top);
    l.h(format!("{top_name}'s cosine, word piece by word piece"));
    if tokens.is_empty() {
        l.p("This model's vector is not a mean of its word pieces (it pools otherwise): its cosine has no such split.");
        return Ok(l);
    }
    if let Some(enc) = engine.neural().dense.map(|d| d.encoder) {
        let text = corpus.doc(top).map(|x| x.full_text()).unwrap_or_default();
        if let (Some(states), Some(qv)) = (
            enc.token_states(&text, InputKind::Document)?,
            enc.encode(&[question.as_str()], InputKind::Query)?.into_iter().next(),
        ) && states.tokens.len() == tokens.len()
        {
            let (sum, n, norm) = exercises::dense_parts(&states, &qv);
            l.check(exercises::dense_cosine("dense-cosine", &top_name, sum, n, norm));
        }
    }
    let mut by_part: Vec<&TokenPart> = tokens.iter().collect();
    by_part.sort_by(|a, b| b.contribution.total_cmp(&a.contribution));
    let mut words: Vec<(String, f64)> = Vec::new();
    for t in &by_part {
        if t.start.is_some() && !words.iter().any(|(w, _)| *w == t.token) {
            words.push((t.token.clone(), t.contribution));
        }
        if words.len() == 4 {
            break;
        }
    }
    words.sort_by(|a, b| a.0.cmp(&b.0));
    if words.len() >= 2 {
        l.check(exercises::best_of(
            "dense-token",
            format!("Which of these word pieces of {top_name} gives the largest part of its cosine?"),
            PiecesData {
                passage: &top_name,
                question: &question,
                pieces: words.iter().map(|w| w.0.as_str()).collect(),
            },
            &words,
            |w, v| format!("`{w}` gives {}", f4(v)),
        ));
    }
    let shown = 12.min(by_part.len());
    let mut rows: Vec<Vec<String>> =
        by_part[..shown].iter().map(|t| vec![t.token.clone(), f4(t.contribution)]).collect();
    let rest: f64 = by_part[shown..].iter().map(|t| t.contribution).sum();
    if by_part.len() > shown {
        rows.push(vec![format!("the other {} pieces", by_part.len() - shown), f4(rest)]);
    }
    rows.push(vec!["sum = the cosine".into(), f4(tokens.iter().map(|t| t.contribution).sum())]);
    l.table(&format!("{top_name}'s word pieces, largest part first"), &["piece", "part"], rows);
    if !query_tokens.is_empty() {
        l.table(
            "The question's word pieces against the passage's vector",
            &["piece", "part"],
            query_tokens.iter().map(|t| vec![t.token.clone(), f4(t.contribution)]).collect(),
        );
    }
    l.p("The Explain view shades the passage's words by these parts. A piece can count without being one of the question's words: that is what lets the dense model find a passage that BM25, which counts shared words, cannot.");
    if let Some(c) = super::one_word::one_word(&engine, MethodKind::Dense, &settings, &question, 3, "dense-one-word")? {
        l.h("What would bring a passage in?");
        l.p("A passage the dense model leaves just below its top 3, and four of its words: one of them, added to the question, brings it in — the question is encoded again with each. Predict which before revealing.");
        l.check(c);
    }
    Ok(l)
}

/// This lesson's questions in an assignment (which passage wins by cosine and by BM25, a cosine from its token parts), drawn for one student.
pub(super) fn assignment(draw: &Drawer<'_>, rng: &mut SplitMix64) -> Result<Vec<Checkpoint>> {
    let settings = Settings::default();
    let dense = draw.workbench.retriever(MethodKind::Dense, &settings)?;
    let encoder = draw.workbench.neural().dense.map(|d| d.encoder).ok_or_else(|| {
        Error::Unavailable("the dense model is not loaded (ranklens models fetch --role dense)".into())
    })?;
    let bm25 = draw.workbench.sparse(
        SparseSpec::bm25(Bm25Variant::Lucene, Bm25Variant::Lucene.default_params()),
        draw.analyzer,
        &NoProgress,
    )?;
    let corpus = draw.corpus();
    // A question and three passages for which both BM25's and the dense model's first passage are
    // clear (two score, the first leads by a margin).
    let (question, ds, data, by_dense, by_bm25) = draw.until(rng, "a question with clear first passages", |rng| {
        let question = match rng.pick(&corpus.queries) {
            Some(q) if rng.below(3) != 0 => q.text.clone(),
            _ => {
                let d = draw.workable[rng.below(draw.workable.len())];
                draw.question(rng, d)?
            }
        };
        let q = QueryContext::new(&question);
        let top = dense.search(&q, 1)?.hits.first().map(|h| h.doc);
        let mut ds = draw.passages(rng, 3);
        if let Some(t) = top
            && !ds.contains(&t)
        {
            ds[0] = t;
        }
        ds.sort_by_key(|&d| draw.name(d));
        let by_dense = exercises::scores_under(dense.as_ref(), &q, &ds, draw.corpus())?;
        let by_bm25 = exercises::scores_under(bm25.as_ref(), &q, &ds, draw.corpus())?;
        if !(exercises::clear_winner(&by_dense) && exercises::clear_winner(&by_bm25)) {
            return Ok(None);
        }
        let data = draw.texts(&question, &ds);
        Ok(Some((question, ds, data, by_dense, by_bm25)))
    })?;
    let mut out = vec![
        exercises::best_of(
            "q1",
            "Which of these passages does BM25 put first?".into(),
            data.clone(),
            &by_bm25,
            |d, v| format!("{d}: BM25 {}", super::f4(v)),
        ),
        exercises::best_of(
            "q2",
            "And which does the dense model (cosine) put first?".into(),
            data,
            &by_dense,
            |d, v| format!("{d}: cosine {}", super::f4(v)),
        ),
    ];
    let d = ds[rng.below(ds.len())];
    let states = encoder.token_states(&draw.text(d), InputKind::Document)?;
    let qv = encoder.encode(&[question.as_str()], InputKind::Query)?.into_iter().next();
    if let (Some(states), Some(qv)) = (states, qv) {
        let (sum, n, norm) = exercises::dense_parts(&states, &qv);
        // Rounded as printed, so the hand computation from the data gives the key.
        let (sum, norm) = (round4(sum), round4(norm));
        out.push(exercises::dense_cosine("q3", &draw.name(d), sum, n, norm));
    }
    Ok(out)
}

/// The word pieces of the top passage to choose among.
#[derive(serde::Serialize)]
struct PiecesData<'a> {
    passage: &'a str,
    question: &'a str,
    pieces: Vec<&'a str>,
}
