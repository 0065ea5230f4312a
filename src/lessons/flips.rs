//! Assignment questions that test a lesson's point rather than its arithmetic: a pair of passages
//! that TF-IDF and BM25 order differently, with the one factor of BM25 that flips them (the
//! `bm25` lesson, with the term through which BM25 turns them); three passages where dividing by the lengths changes which comes first (the
//! `tfidf` lesson). Each is drawn again until the case is clear: both orders won by a margin
//! ([`exercises::margin`]).

use super::checkpoint::{Answer, AnswerKind, Checkpoint, Question, Solution};
use super::data::{Bm25Table, TfIdfTable, to_data};
use super::drawer::Drawer;
use super::exercises::{self, clear_winner, margin};
use super::f4;
use crate::Result;
use crate::corpus::DocId;
use crate::formula::{Bm25Params, Bm25Variant, TfIdfVariant};
use crate::lcg::SplitMix64;
use crate::progress::NoProgress;
use crate::retrieve::QueryContext;
use crate::workbench::SparseSpec;

/// The two factors of BM25 the flip's steps take away, one at a time.
pub const FACTORS: [&str; 2] = ["the length normalisation (b)", "the tf saturation (k1)"];

/// k1 so large that tf is almost not saturated (tf / (tf + k1·L) grows nearly linearly in tf).
pub const UNSATURATED_K1: f64 = 1000.0;

/// Scores of `docs` for `question` under a lexical spec.
fn scores(draw: &Drawer<'_>, spec: SparseSpec, question: &str, docs: &[DocId]) -> Result<Vec<f64>> {
    let r = draw.workbench.sparse(spec, draw.analyzer, &NoProgress)?;
    let s = exercises::scores_under(r.as_ref(), &QueryContext::new(question), docs, draw.corpus())?;
    Ok(s.into_iter().map(|(_, v)| v).collect())
}

/// `a` ahead of `b` by the margin.
fn ahead(a: f64, b: f64) -> bool {
    a - b >= margin(a.max(b))
}

/// The `bm25` assignment's flip: a pair TF-IDF orders one way and BM25 (with these parameters)
/// the other, and the question term through which BM25 turns it — the term whose BM25 part gives
/// the second passage the largest lead over the first (each term's part worked by hand from the
/// data). The steps also say what taking b or k1 away alone does to the order.
pub fn bm25_flip(id: &str, draw: &Drawer<'_>, rng: &mut SplitMix64, params: Bm25Params) -> Result<Checkpoint> {
    let tfidf = SparseSpec::tfidf(TfIdfVariant::CosineLog2, true);
    let bm25 = |p: Bm25Params| SparseSpec::bm25(Bm25Variant::Lucene, p);
    let (n, avgdl) = (draw.index.stats().n_docs, draw.index.stats().avgdl);
    draw.until(rng, "a pair that TF-IDF and BM25 order differently", |rng| {
        let pair = draw.passages(rng, 2);
        let question = draw.question_between(rng, pair[0], pair[1])?;
        let t = scores(draw, tfidf, &question, &pair)?;
        let b = scores(draw, bm25(params), &question, &pair)?;
        if t.iter().chain(&b).any(|v| *v <= 0.0) {
            return Ok(None);
        }
        // x is the passage TF-IDF puts first; BM25 puts y first.
        let (x, y) = if t[0] > t[1] { (0, 1) } else { (1, 0) };
        if !(ahead(t[x], t[y]) && ahead(b[y], b[x])) {
            return Ok(None);
        }
        // Each question term's BM25 part in y minus in x (Lucene's form, exact lengths).
        let (cx, cy) = (draw.counts(&draw.text(pair[x]))?, draw.counts(&draw.text(pair[y]))?);
        let (dx, dy) = (f64::from(draw.index.doc_len(pair[x])), f64::from(draw.index.doc_len(pair[y])));
        let part = |c: &exercises::TermCounts, dl: f64, term: &str| {
            c.get(term).map_or(0.0, |&(tf, df)| {
                let idf = Bm25Variant::Lucene.idf(n, df, &params, 0.0);
                let tf = f64::from(tf);
                idf * tf / (tf + params.k1 * (1.0 - params.b + params.b * dl / avgdl))
            })
        };
        let terms: Vec<String> = draw.counts(&question)?.into_keys().collect();
        let leads: Vec<(String, f64)> =
            terms.iter().map(|t| (t.clone(), part(&cy, dy, t) - part(&cx, dx, t))).collect();
        if leads.len() < 2 || !clear_lead(&leads) {
            return Ok(None);
        }
        let answer = leads.iter().max_by(|a, b| a.1.total_cmp(&b.1)).map(|(t, _)| t.clone()).unwrap_or_default();
        let no_b = scores(draw, bm25(Bm25Params { b: 0.0, ..params }), &question, &pair)?;
        let no_k = scores(draw, bm25(Bm25Params { k1: UNSATURATED_K1, ..params }), &question, &pair)?;
        let (xi, yi) = (draw.name(pair[x]), draw.name(pair[y]));
        let order = |s: &[f64]| if s[x] > s[y] { format!("{xi} first again") } else { format!("{yi} still first") };
        let mut steps = vec![
            format!("Cosine TF-IDF: {xi} {} > {yi} {}.", f4(t[x]), f4(t[y])),
            format!("BM25 (k1 = {}, b = {}): {yi} {} > {xi} {}: the order flips.", params.k1, params.b, f4(b[y]), f4(b[x])),
        ];
        steps.extend(leads.iter().map(|(t, v)| format!("`{t}`: BM25 part in {yi} − in {xi} = {}", f4(*v))));
        steps.push(format!(
            "`{answer}` gives {yi} the largest lead. {xi} has {dx} tokens, {yi} {dy}, the average {}. Taken away alone: b = 0 \
             gives {} ({}), k1 = {UNSATURATED_K1} gives {} ({}).",
            f4(avgdl),
            order(&no_b),
            FACTORS[0],
            order(&no_k),
            FACTORS[1]
        ));
        let data = to_data(&Bm25Table {
            question: &question,
            n,
            avgdl,
            k1: params.k1,
            b: params.b,
            passages: vec![draw.counted_with_length(pair[x])?, draw.counted_with_length(pair[y])?],
        });
        Ok(Some(Checkpoint {
            question: Question {
                id: id.into(),
                prompt: format!(
                    "For the question `{question}`, cosine TF-IDF (w = tf × log2(N/df)) puts {xi} above {yi}, but BM25 \
                     (Lucene, k1 = {}, b = {}) puts {yi} above {xi}. Through which term does BM25 give {yi} its largest \
                     lead (its BM25 part in {yi} minus its part in {xi})?",
                    params.k1, params.b
                ),
                kind: AnswerKind::Choice,
                data,
                options: terms,
                tolerance: 0.0,
            },
            solution: Solution { answer: Answer::Choice(answer), steps, mistakes: Vec::new() },
        }))
    })
}

/// The largest value leads the next by [`margin`] (values may be negative).
fn clear_lead(values: &[(String, f64)]) -> bool {
    let mut v: Vec<f64> = values.iter().map(|(_, x)| *x).collect();
    v.sort_by(|a, b| b.total_cmp(a));
    v.len() >= 2 && v[0] > 0.0 && v[0] - v[1] >= margin(v[0])
}

/// The `tfidf` assignment's normalisation question: three passages where the dot product alone
/// (no division by the lengths) puts another passage first than the cosine does.
pub fn tfidf_normalisation(id: &str, draw: &Drawer<'_>, rng: &mut SplitMix64) -> Result<Checkpoint> {
    let n = draw.index.stats().n_docs;
    let cosine = SparseSpec::tfidf(TfIdfVariant::CosineLog2, true);
    draw.until(rng, "three passages that the lengths reorder", |rng| {
        let ds = draw.passages(rng, 3);
        let question = draw.question_between(rng, ds[0], ds[1])?;
        let qc = draw.counts(&question)?;
        let w = |(tf, df): (u32, u64)| {
            if df == 0 { 0.0 } else { TfIdfVariant::CosineLog2.tf_weight(f64::from(tf)) * TfIdfVariant::CosineLog2.idf(n, df) }
        };
        let mut dots = Vec::new();
        for &d in &ds {
            let dc = draw.counts(&draw.text(d))?;
            let dot: f64 = qc.iter().filter_map(|(t, &q)| dc.get(t).map(|&c| w(q) * w(c))).sum();
            dots.push((draw.name(d), dot));
        }
        let cos: Vec<(String, f64)> =
            ds.iter().map(|&d| draw.name(d)).zip(scores(draw, cosine, &question, &ds)?).collect();
        if !(clear_winner(&dots) && clear_winner(&cos)) {
            return Ok(None);
        }
        let best = |s: &[(String, f64)]| {
            s.iter().max_by(|a, b| a.1.total_cmp(&b.1)).map(|(i, _)| i.clone()).unwrap_or_default()
        };
        let (by_dot, by_cos) = (best(&dots), best(&cos));
        if by_dot == by_cos {
            return Ok(None);
        }
        let mut steps: Vec<String> = dots.iter().map(|(i, v)| format!("q·d of {i}: {}", f4(*v))).collect();
        steps.push(format!(
            "The dot product puts {by_dot} first; divided by the lengths (the cosine), {by_cos} comes first instead: \
             {by_dot}'s vector is longer."
        ));
        let mut passages = Vec::new();
        for &d in &ds {
            passages.push(draw.counted(d)?);
        }
        Ok(Some(Checkpoint {
            question: Question {
                id: id.into(),
                prompt: format!(
                    "For the question `{question}`, which passage has the largest dot product q·d (w = tf × log2(N/df)), \
                     before dividing by the lengths? (The cosine's winner is another one.)"
                ),
                kind: AnswerKind::Choice,
                data: to_data(&TfIdfTable { question: &question, n, question_terms: &qc, passages }),
                options: ds.iter().map(|&d| draw.name(d)).collect(),
                tolerance: 0.0,
            },
            solution: Solution { answer: Answer::Choice(by_dot), steps, mistakes: Vec::new() },
        }))
    })
}
