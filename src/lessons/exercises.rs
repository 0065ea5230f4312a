//! Exercises: each one turns a variant's data (a passage's term counts, N, df, the parameters, a
//! ranking and its judgements…) into a [`Checkpoint`] whose key is computed by the code that ranks
//! and evaluates — [`crate::formula`], [`crate::eval::evaluate_query`] — and whose usual mistakes
//! are the same computation with one step done wrong. The lessons use them on their own examples
//! and the assignments on variants drawn for each student, so a key is never typed by hand.

use serde::Serialize;

use super::checkpoint::{Answer, AnswerKind, Checkpoint, Mistake, Question, Solution, format_number};
use super::data::{K1B, TermTfN, counts, to_data};
use crate::formula::{Bm25Params, Bm25Variant, TfIdfVariant};

/// How far a number may be from its key: the answers are worked to four decimals.
pub const TOLERANCE: f64 = 0.005;

pub(crate) fn number(
    id: &str,
    prompt: String,
    data: impl Serialize,
    key: f64,
    steps: Vec<String>,
    mistakes: Vec<Mistake>,
) -> Checkpoint {
    number_within(id, prompt, data, key, TOLERANCE, steps, mistakes)
}

/// A number checkpoint right within `tolerance` (0: exactly).
#[allow(clippy::too_many_arguments)]
pub(crate) fn number_within(
    id: &str,
    prompt: String,
    data: impl Serialize,
    key: f64,
    tolerance: f64,
    steps: Vec<String>,
    mistakes: Vec<Mistake>,
) -> Checkpoint {
    // A mistake that gives the right answer anyway teaches nothing here: it is left out. Two that
    // give the same value are one (named both ways): the student's value cannot tell them apart.
    let mut kept: Vec<Mistake> = Vec::new();
    for m in mistakes.into_iter().filter(|m| m.value.is_finite() && (m.value - key).abs() > tolerance) {
        match kept.iter_mut().find(|k| (k.value - m.value).abs() <= tolerance) {
            Some(k) => k.name = format!("{}, or {}", k.name, m.name),
            None => kept.push(m),
        }
    }
    Checkpoint {
        question: Question {
            id: id.into(),
            prompt,
            kind: AnswerKind::Number,
            data: to_data(&data),
            options: Vec::new(),
            tolerance,
        },
        solution: Solution { answer: Answer::Number(key), steps, mistakes: kept },
    }
}

pub(crate) fn mistake(name: &str, value: f64) -> Mistake {
    Mistake { name: name.into(), value }
}

/// The idf of a term as the cosine TF-IDF lesson computes it, log2(N/df).
pub fn tfidf_idf(id: &str, term: &str, n: u64, df: u64) -> Checkpoint {
    let key = TfIdfVariant::CosineLog2.idf(n, df);
    let (nf, dff) = (n as f64, df as f64);
    number(
        id,
        format!("What is the idf of `{term}`? (idf = log2(N/df))"),
        TermIdf { term, n, df },
        key,
        vec![TfIdfVariant::CosineLog2.worked_idf(n, df)],
        vec![
            mistake("ln instead of log2", (nf / dff).ln()),
            mistake("log10 instead of log2", (nf / dff).log10()),
            mistake("df/N instead of N/df", (dff / nf).log2()),
            mistake("N/df without the logarithm", nf / dff),
        ],
    )
}

/// A term's tf-idf weight in a passage, w = tf × log2(N/df).
pub fn tfidf_weight(id: &str, term: &str, passage: &str, tf: u32, n: u64, df: u64) -> Checkpoint {
    let idf = TfIdfVariant::CosineLog2.idf(n, df);
    let tff = f64::from(tf);
    let key = TfIdfVariant::CosineLog2.tf_weight(tff) * idf;
    let ratio = n as f64 / df as f64;
    number(
        id,
        format!("What is the tf-idf weight of `{term}` in {passage}? (w = tf × log2(N/df))"),
        TermInPassageData { term, passage, tf, n, df },
        key,
        vec![
            TfIdfVariant::CosineLog2.worked_idf(n, df),
            format!("w = tf × idf = {tf} × {} = {}", format_number(idf), format_number(key)),
        ],
        vec![
            mistake("ln instead of log2", tff * ratio.ln()),
            mistake("1 + log2 tf instead of the raw tf", (1.0 + tff.log2()) * idf),
            mistake("the textbook's log10(tf + 1) instead of the raw tf", (tff + 1.0).log10() * idf),
            mistake("the idf left out (raw tf only)", tff),
        ],
    )
}

pub use super::data::TermCounts;

/// The cosine of a question and a passage over raw-tf × log2 idf vectors.
pub fn tfidf_cosine(id: &str, passage: &str, question: &TermCounts, doc: &TermCounts, n: u64) -> Checkpoint {
    // The weights are the ranker's (TfIdfVariant::CosineLog2). (Weights in ln instead of log2 are
    // not a mistake here: every weight is scaled by ln 2, and the cosine does not see a scale.)
    let w = |(tf, df): (u32, u64)| {
        if df == 0 {
            0.0
        } else {
            TfIdfVariant::CosineLog2.tf_weight(f64::from(tf)) * TfIdfVariant::CosineLog2.idf(n, df)
        }
    };
    let qn = question.values().map(|&c| w(c).powi(2)).sum::<f64>().sqrt();
    let dn = doc.values().map(|&c| w(c).powi(2)).sum::<f64>().sqrt();
    let dot: f64 = question.iter().filter_map(|(t, &qc)| doc.get(t).map(|&dc| w(qc) * w(dc))).sum();
    let cos = |d: f64, q: f64, n: f64| if q * n > 0.0 { d / (q * n) } else { 0.0 };
    let key = cos(dot, qn, dn);
    number(
        id,
        format!("What is the cosine between the question and {passage}? (w = tf × log2(N/df), cos = q·d / (|q|·|d|))"),
        CosineData { passage, n, question, passage_terms: doc },
        key,
        vec![
            format!("q·d = {}", format_number(dot)),
            format!("|q| = {}, |d| = {}", format_number(qn), format_number(dn)),
            format!(
                "cos = {} / ({} × {}) = {}",
                format_number(dot),
                format_number(qn),
                format_number(dn),
                format_number(key)
            ),
        ],
        vec![
            mistake("the dot product without dividing by the lengths", dot),
            mistake("divided by |d| only", if dn > 0.0 { dot / dn } else { 0.0 }),
            mistake("divided by |q| only", if qn > 0.0 { dot / qn } else { 0.0 }),
        ],
    )
}

/// Lucene's BM25 idf, ln(1 + (N − n + 0.5)/(n + 0.5)).
pub fn bm25_idf(id: &str, term: &str, n: u64, df: u64) -> Checkpoint {
    let p = Bm25Variant::Lucene.default_params();
    let key = Bm25Variant::Lucene.idf(n, df, &p, 0.0);
    let (nf, d) = (n as f64, df as f64);
    let inner = 1.0 + (nf - d + 0.5) / (d + 0.5);
    number(
        id,
        format!("What is Lucene's BM25 idf of `{term}`? (idf = ln(1 + (N − n + 0.5)/(n + 0.5)))"),
        Bm25IdfData { term, n_docs: n, n: df },
        key,
        vec![Bm25Variant::Lucene.worked_idf(n, df, &p, 0.0)],
        vec![
            mistake("no 1 + inside the logarithm (the RSJ idf)", ((nf - d + 0.5) / (d + 0.5)).ln()),
            // Without the halves, 1 + (N − n)/n is N/n: the plain idf, one mistake by two roads.
            mistake("no + 0.5 smoothing (which leaves ln(N/n), the plain idf)", (1.0 + (nf - d) / d).ln()),
            mistake("log10 instead of ln", inner.log10()),
            mistake("log2 instead of ln", inner.log2()),
        ],
    )
}

/// One term's BM25 contribution in a passage, Lucene's form: idf · tf/(tf + k1·(1 − b + b·dl/avgdl)).
#[allow(clippy::too_many_arguments)]
pub fn bm25_contribution(
    id: &str,
    term: &str,
    passage: &str,
    tf: u32,
    n: u64,
    df: u64,
    dl: f64,
    avgdl: f64,
    params: Bm25Params,
) -> Checkpoint {
    let v = Bm25Variant::Lucene;
    let idf = v.idf(n, df, &params, 0.0);
    let w = v.tf_weight(f64::from(tf), dl, avgdl, &params);
    let key = idf * w;
    let t = f64::from(tf);
    let (k1, b) = (params.k1, params.b);
    let norm = 1.0 - b + b * dl / avgdl;
    number(
        id,
        format!(
            "What does `{term}` contribute to {passage}'s BM25 score? (Lucene: idf · tf / (tf + k1·(1 − b + b·dl/avgdl)), k1 = {}, b = {})",
            crate::formula::fmt_param(k1),
            crate::formula::fmt_param(b)
        ),
        Bm25ContributionData { term, passage, tf, n_docs: n, n: df, dl, avgdl, k1, b },
        key,
        vec![
            v.worked_idf(n, df, &params, 0.0),
            format!("tf part = {}", v.worked_tf_weight(tf, dl, avgdl, &params)),
            format!(
                "contribution = idf × tf part = {} × {} = {}",
                format_number(idf),
                format_number(w),
                format_number(key)
            ),
        ],
        vec![
            mistake("no length normalisation (b taken as 0)", idf * t / (t + k1)),
            mistake("k1 + 1 in the numerator (the Okapi form Lucene dropped)", idf * t * (k1 + 1.0) / (t + k1 * norm)),
            mistake("dl/avgdl upside down", idf * t / (t + k1 * (1.0 - b + b * avgdl / dl))),
            mistake("k1 multiplying tf instead of the length part", idf * t / (k1 * t + norm)),
            mistake("the idf left out", w),
        ],
    )
}

/// Which option scores highest (ties to the first): a choice checkpoint.
pub fn best_of(
    id: &str,
    prompt: String,
    data: impl Serialize,
    scored: &[(String, f64)],
    why: impl Fn(&str, f64) -> String,
) -> Checkpoint {
    let mut best = 0;
    for (i, (_, s)) in scored.iter().enumerate() {
        if *s > scored[best].1 {
            best = i;
        }
    }
    let (name, value) = scored.get(best).cloned().unwrap_or_default();
    let mut steps: Vec<String> = scored.iter().map(|(o, s)| format!("{o}: {}", format_number(*s))).collect();
    steps.push(why(&name, value));
    Checkpoint {
        question: Question {
            id: id.into(),
            prompt,
            kind: AnswerKind::Choice,
            data: to_data(&data),
            options: scored.iter().map(|(o, _)| o.clone()).collect(),
            tolerance: 0.0,
        },
        solution: Solution { answer: Answer::Choice(name), steps, mistakes: Vec::new() },
    }
}

/// The least lead a "which comes first" key has over the runner-up: 5 % of the winner's score,
/// and never under 0.01, so a student working to four decimals cannot land on the other side.
pub fn margin(top: f64) -> f64 {
    (0.05 * top.abs()).max(0.01)
}

/// Is this a question worth asking: at least two candidates score above zero, and the winner
/// leads the runner-up by [`margin`]?
pub fn clear_winner(scored: &[(String, f64)]) -> bool {
    let mut s: Vec<f64> = scored.iter().map(|(_, v)| *v).collect();
    s.sort_by(|a, b| b.total_cmp(a));
    s.len() >= 2 && s[1] > 0.0 && s[0] - s[1] >= margin(s[0])
}

/// One term of a passage as the BM25 exercises give it.
#[derive(Debug, Clone, PartialEq)]
pub struct TermInPassage {
    /// The term.
    pub term: String,
    /// Its count in the passage.
    pub tf: u32,
    /// Passages that hold it.
    pub df: u64,
}

/// Which term's BM25 contribution (Lucene's form) gains most — or loses least — when the
/// parameters change from `from` to `to`: a choice.
#[allow(clippy::too_many_arguments)]
pub fn gains_most(
    id: &str,
    passage: &str,
    terms: &[TermInPassage],
    n: u64,
    dl: f64,
    avgdl: f64,
    from: Bm25Params,
    to: Bm25Params,
) -> Checkpoint {
    let v = Bm25Variant::Lucene;
    let part = |t: &TermInPassage, p: &Bm25Params| v.idf(n, t.df, p, 0.0) * v.tf_weight(f64::from(t.tf), dl, avgdl, p);
    let scored: Vec<(String, f64)> = terms.iter().map(|t| (t.term.clone(), part(t, &to) - part(t, &from))).collect();
    let what =
        |p: &Bm25Params| format!("k1 = {}, b = {}", crate::formula::fmt_param(p.k1), crate::formula::fmt_param(p.b));
    let mut c = best_of(
        id,
        format!(
            "In {passage} ({} tokens, avgdl {}), which term's BM25 contribution gains most (or loses least) when the parameters go from {} to {}?",
            format_number(dl),
            format_number(avgdl),
            what(&from),
            what(&to)
        ),
        GainsMostData {
            passage,
            n,
            dl,
            avgdl,
            terms: terms.iter().map(|t| TermTfN { term: &t.term, tf: t.tf, n: t.df }).collect(),
            from: K1B { k1: from.k1, b: from.b },
            to: K1B { k1: to.k1, b: to.b },
        },
        &scored,
        |t, g| {
            format!("`{t}` changes by {}: the idf scales the change, and a larger tf saturates less", format_number(g))
        },
    );
    c.solution.steps = terms
        .iter()
        .zip(&scored)
        .map(|(t, (_, g))| {
            format!(
                "`{}`: {} → {} ({})",
                t.term,
                format_number(part(t, &from)),
                format_number(part(t, &to)),
                format_number(*g)
            )
        })
        .chain(c.solution.steps.last().cloned())
        .collect();
    c
}

/// A mean-pooled dense model's cosine from its token states: with S = Σᵢ q·hᵢ over the passage's
/// n token states, q the question's unit vector and |h̄| the length of their mean,
/// cos = S / (n·|h̄|).
pub fn dense_cosine(id: &str, passage: &str, sum: f64, n: usize, mean_norm: f64) -> Checkpoint {
    let nf = n as f64;
    let key = if nf * mean_norm > 0.0 { sum / (nf * mean_norm) } else { 0.0 };
    number(
        id,
        format!(
            "{passage} has n = {n} word pieces. Dotted with the question's unit vector q, their states sum to S = Σ q·hᵢ = {}; their mean h̄ has length |h̄| = {}. What is the cosine? (cos = q·h̄/|h̄| = S/(n·|h̄|))",
            format_number(sum),
            format_number(mean_norm)
        ),
        DenseCosineData { passage, n, sum, mean_norm },
        key,
        vec![
            format!("q·h̄ = S/n = {} / {n} = {}", format_number(sum), format_number(sum / nf.max(1.0))),
            format!(
                "cos = q·h̄ / |h̄| = {} / {} = {}",
                format_number(sum / nf.max(1.0)),
                format_number(mean_norm),
                format_number(key)
            ),
        ],
        vec![
            mistake("S not divided by n (a sum, not a mean)", if mean_norm > 0.0 { sum / mean_norm } else { 0.0 }),
            mistake("not divided by |h̄| (the mean left unnormalised)", sum / nf.max(1.0)),
            mistake(
                "divided by |h̄|² instead of |h̄|",
                if mean_norm > 0.0 { sum / (nf * mean_norm * mean_norm) } else { 0.0 },
            ),
        ],
    )
}

/// A choice whose answer the lesson has just computed (a rank, a method that finds a passage).
pub fn choice(
    id: &str,
    prompt: String,
    data: impl Serialize,
    options: &[&str],
    answer: &str,
    why: String,
) -> Checkpoint {
    Checkpoint {
        question: Question {
            id: id.into(),
            prompt,
            kind: AnswerKind::Choice,
            data: to_data(&data),
            options: options.iter().map(|o| o.to_string()).collect(),
            tolerance: 0.0,
        },
        solution: Solution { answer: Answer::Choice(answer.into()), steps: vec![why], mistakes: Vec::new() },
    }
}

/// A count, right only when exact.
pub fn count(
    id: &str,
    prompt: String,
    data: impl Serialize,
    key: usize,
    steps: Vec<String>,
    mistakes: Vec<Mistake>,
) -> Checkpoint {
    number_within(id, prompt, data, key as f64, 0.0, steps, mistakes)
}

/// How many windows of `size` words, overlapping by `overlap`, cut a text of `words` words
/// (`windows`: what the chunker made).
pub fn window_count(id: &str, words: usize, size: usize, overlap: usize, windows: usize) -> Checkpoint {
    let step = size.saturating_sub(overlap).max(1);
    count(
        id,
        format!(
            "A page of {words} words is cut into windows of {size} words, each overlapping the previous one by {overlap}. How many windows?"
        ),
        WindowCountData { words, size, overlap },
        windows,
        vec![
            format!("a window starts every {size} − {overlap} = {step} words"),
            format!("the last one starts where it reaches word {words}: {windows} windows"),
        ],
        vec![
            mistake("the overlap ignored (words / size)", words.div_ceil(size.max(1)) as f64),
            mistake("words / step, counting windows past the end", words.div_ceil(step) as f64),
        ],
    )
}

/// Reciprocal rank fusion of one passage: Σ 1/(k + rank) over the lists that rank it (`key`: the
/// fusion retriever's score).
pub fn rrf(id: &str, passage: &str, ranks: &[(String, Option<usize>)], k: f64, key: f64) -> Checkpoint {
    let sum = |f: &dyn Fn(f64) -> f64| ranks.iter().filter_map(|(_, r)| r.map(|r| f(r as f64))).sum::<f64>();
    let listed: Vec<String> = ranks
        .iter()
        .map(|(m, r)| format!("{m}: {}", r.map_or("not ranked".to_string(), |r| format!("rank {r}"))))
        .collect();
    // RRF scores are small: they are worked to five decimals.
    number_within(
        id,
        format!(
            "Reciprocal rank fusion with k = {}: what is {passage}'s fused score? ({})",
            format_number(k),
            listed.join("; ")
        ),
        RrfData { passage, k, ranks: ranks.iter().map(|(method, rank)| MethodRank { method, rank: *rank }).collect() },
        key,
        0.00005,
        vec![format!(
            "RRF = {} = {}",
            ranks
                .iter()
                .filter_map(|(_, r)| r.map(|r| format!("1/({} + {r})", format_number(k))))
                .collect::<Vec<_>>()
                .join(" + "),
            format_number(key)
        )],
        vec![
            mistake("k left out (1/rank)", sum(&|r| 1.0 / r)),
            mistake("ranks counted from 0", sum(&|r| 1.0 / (k + r - 1.0))),
        ],
    )
}

/// The Jaro–Winkler similarity of two strings (`key`: the entity resolver's).
pub fn jaro_winkler(id: &str, a: &str, b: &str, jaro: f64, key: f64) -> Checkpoint {
    let prefix = a.chars().zip(b.chars()).take(4).take_while(|(x, y)| x == y).count();
    number(
        id,
        format!(
            "Jaro({a:?}, {b:?}) = {}. With Winkler's bonus for a shared beginning (p = 0.1, up to 4 characters), what is their Jaro–Winkler similarity?",
            format_number(jaro)
        ),
        JaroWinklerData { a, b, jaro, p: 0.1, max_prefix: 4 },
        key,
        vec![
            format!("shared beginning: {prefix} characters"),
            format!(
                "JW = J + {prefix} × 0.1 × (1 − J) = {} + {} × (1 − {}) = {}",
                format_number(jaro),
                format_number(prefix as f64 * 0.1),
                format_number(jaro),
                format_number(key)
            ),
        ],
        vec![mistake("the bonus without (1 − J)", jaro + prefix as f64 * 0.1), mistake("Jaro without the bonus", jaro)],
    )
}

/// What the dense exercise gives from a passage's token states and the question's vector:
/// S = Σᵢ q·hᵢ (q normalised), n, and |h̄| (the length of the states' mean).
pub fn dense_parts(states: &crate::models::TokenStates, question: &[f32]) -> (f64, usize, f64) {
    let n = states.tokens.len();
    let rows: Vec<&[f32]> = states.data.chunks(states.dim.max(1)).collect();
    let mean: Vec<f64> =
        (0..states.dim).map(|j| rows.iter().map(|r| f64::from(r[j])).sum::<f64>() / n.max(1) as f64).collect();
    let norm = mean.iter().map(|x| x * x).sum::<f64>().sqrt();
    let qn = question.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt().max(f64::MIN_POSITIVE);
    let sum: f64 =
        rows.iter().map(|r| r.iter().zip(question).map(|(h, q)| f64::from(*h) * f64::from(*q) / qn).sum::<f64>()).sum();
    (sum, n, norm)
}

/// How many passages hold a term (its postings list's length).
pub fn document_frequency(id: &str, term: &str, data: impl Serialize, df: u64) -> Checkpoint {
    Checkpoint {
        question: Question {
            id: id.into(),
            prompt: format!(
                "How many passages hold `{term}` (its document frequency, the length of its postings list)?"
            ),
            kind: AnswerKind::Number,
            data: to_data(&data),
            options: Vec::new(),
            tolerance: 0.0,
        },
        solution: Solution {
            answer: Answer::Number(df as f64),
            steps: vec![format!("df(`{term}`) = {df}")],
            mistakes: Vec::new(),
        },
    }
}

/// A term's postings list: the passages that hold it, in index order.
pub fn postings(id: &str, term: &str, data: impl Serialize, list: Vec<String>, options: Vec<String>) -> Checkpoint {
    Checkpoint {
        question: Question {
            id: id.into(),
            prompt: format!(
                "Write `{term}`'s postings list: the passages that hold it, in the index's order (the order of the list given)."
            ),
            kind: AnswerKind::Ordering,
            data: to_data(&data),
            options,
            tolerance: 0.0,
        },
        solution: Solution {
            answer: Answer::Ordering(list.clone()),
            steps: vec![format!("postings(`{term}`) = {}", list.join(" → "))],
            mistakes: Vec::new(),
        },
    }
}

/// A passage's terms with their counts and document frequencies, as an exercise gives them.
pub fn term_counts(index: &crate::index::SparseIndex, text: &str) -> crate::Result<TermCounts> {
    let mut out = TermCounts::new();
    for t in index.analyzer().terms(text) {
        if let Some(e) = out.get_mut(&t) {
            e.0 += 1;
        } else {
            let df = index.doc_freq(&t)?;
            out.insert(t, (1, df));
        }
    }
    Ok(out)
}

/// Each passage's score under `retriever` for `query`, the question prepared once (not once per
/// passage): (passage id, score) in `docs`' order — what a "which passage does X put first"
/// question is keyed by, read from the very state that ranks.
pub fn scores_under(
    retriever: &dyn crate::retrieve::Retriever,
    query: &crate::retrieve::QueryContext,
    docs: &[crate::corpus::DocId],
    corpus: &crate::corpus::Corpus,
) -> crate::Result<Vec<(String, f64)>> {
    let prepared = retriever.prepare(query)?;
    docs.iter().map(|&d| Ok((corpus.external_id(d).to_string(), prepared.explain(d)?.value))).collect()
}

/// A student's answer worked by hand (to four decimals, as a handout asks) is graded wrong with
/// the mistake that gives it named (the lessons' tests of their mistakes).
#[cfg(test)]
pub(crate) fn named(c: &Checkpoint, given: f64, name: &str) {
    let v = c.check(&Answer::Number(given));
    assert!(!v.correct, "{}: {given} is not the key", c.question.id);
    assert_eq!(v.mistake.as_deref(), Some(name), "{}: {given}: {}", c.question.id, v.message);
}

// ---- What each exercise gives the student (`Question::data`) ----------------------------------

/// [`tfidf_idf`]'s data.
#[derive(Serialize)]
struct TermIdf<'a> {
    term: &'a str,
    #[serde(rename = "N")]
    n: u64,
    df: u64,
}

/// [`tfidf_weight`]'s data.
#[derive(Serialize)]
struct TermInPassageData<'a> {
    term: &'a str,
    passage: &'a str,
    tf: u32,
    #[serde(rename = "N")]
    n: u64,
    df: u64,
}

/// [`tfidf_cosine`]'s data.
#[derive(Serialize)]
struct CosineData<'a> {
    passage: &'a str,
    #[serde(rename = "N")]
    n: u64,
    #[serde(serialize_with = "counts")]
    question: &'a TermCounts,
    #[serde(serialize_with = "counts")]
    passage_terms: &'a TermCounts,
}

/// [`bm25_idf`]'s data (BM25 writes df as n).
#[derive(Serialize)]
struct Bm25IdfData<'a> {
    term: &'a str,
    #[serde(rename = "N")]
    n_docs: u64,
    n: u64,
}

/// [`bm25_contribution`]'s data.
#[derive(Serialize)]
struct Bm25ContributionData<'a> {
    term: &'a str,
    passage: &'a str,
    tf: u32,
    #[serde(rename = "N")]
    n_docs: u64,
    n: u64,
    dl: f64,
    avgdl: f64,
    k1: f64,
    b: f64,
}

/// [`gains_most`]'s data.
#[derive(Serialize)]
struct GainsMostData<'a> {
    passage: &'a str,
    #[serde(rename = "N")]
    n: u64,
    dl: f64,
    avgdl: f64,
    terms: Vec<TermTfN<'a>>,
    from: K1B,
    to: K1B,
}

/// [`dense_cosine`]'s data: the sum of the pieces' dot products, their count and mean norm.
#[derive(Serialize)]
struct DenseCosineData<'a> {
    passage: &'a str,
    n: usize,
    #[serde(rename = "S")]
    sum: f64,
    mean_norm: f64,
}

/// [`window_count`]'s data.
#[derive(Serialize)]
struct WindowCountData {
    words: usize,
    size: usize,
    overlap: usize,
}

/// A method's rank of a passage (none: not in its list).
#[derive(Serialize)]
struct MethodRank<'a> {
    method: &'a str,
    rank: Option<usize>,
}

/// [`rrf`]'s data.
#[derive(Serialize)]
struct RrfData<'a> {
    passage: &'a str,
    k: f64,
    ranks: Vec<MethodRank<'a>>,
}

/// [`jaro_winkler`]'s data.
#[derive(Serialize)]
struct JaroWinklerData<'a> {
    a: &'a str,
    b: &'a str,
    jaro: f64,
    p: f64,
    max_prefix: u32,
}
