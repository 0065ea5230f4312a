//! Why BM25 flips tf-idf: the two-document example, the table of five settings computed live,
//! a setting of the learner's own, and the saturation curve.

use super::checkpoint::Checkpoint;
use super::drawer::{Drawer, is_content_word};
use crate::lcg::SplitMix64;
use std::collections::BTreeMap;

use serde::Deserialize;

use super::data::{Bm25Table, TermTfN, to_data};
use super::exercises::{self, TermInPassage};
use super::{Block, IdfBase, Lesson, LessonKit, LessonParams, Open, f4};
use crate::analysis::AnalyzerConfig;
use crate::formula::{
    Bm25Params, Bm25Variant, TermStats, TfIdfVariant, bm25_contribution, tfidf_textbook_contribution,
};
use crate::progress::NoProgress;
use crate::retrieve::{Detail, QueryContext, TermTable};
use crate::workbench::SparseSpec;
use crate::{Error, Result};

#[derive(Debug, Deserialize)]
struct ExampleDoc {
    id: String,
    length: f64,
    tf: BTreeMap<String, u32>,
}

#[derive(Debug, Deserialize)]
struct Setting {
    name: String,
    kind: String,
    #[serde(default)]
    k: f64,
    #[serde(default)]
    b: f64,
}

/// The statistics of the example (`sample-corpus/lessons/bm25-example.json`).
#[derive(Debug, Deserialize)]
pub struct Example {
    query: Vec<String>,
    n_docs: u64,
    avgdl: f64,
    df: BTreeMap<String, u64>,
    docs: Vec<ExampleDoc>,
    settings: Vec<Setting>,
}

impl Example {
    /// Read the example file.
    pub fn load(kit: &LessonKit) -> Result<Example> {
        let path = kit.lessons_dir.join("bm25-example.json");
        let bytes = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
        serde_json::from_slice(&bytes).map_err(|e| Error::invalid(path.display().to_string(), e.to_string()))
    }

    fn stats(&self, doc: &ExampleDoc, term: &str) -> TermStats {
        TermStats {
            n_docs: self.n_docs,
            df: self.df.get(term).copied().unwrap_or(0),
            tf: doc.tf.get(term).copied().unwrap_or(0),
            qtf: 1,
            dl: doc.length,
            avgdl: self.avgdl,
        }
    }

    /// Every document's score under one setting (the textbook forms, idf in base 10).
    pub fn scores(&self, kind: &str, k: f64, b: f64) -> Vec<(String, f64)> {
        let p = Bm25Params { k1: k, b, delta: 0.0, epsilon: 0.25, exact_lengths: true };
        self.sum_over_query(|st| {
            if kind == "tfidf" {
                tfidf_textbook_contribution(st)
            } else {
                bm25_contribution(Bm25Variant::Textbook, st, &p, 0.0)
            }
        })
    }

    /// Scores with idf in another base: the textbook forms with log10 replaced.
    pub fn scores_in_base(&self, k: f64, b: f64, base: IdfBase) -> Vec<(String, f64)> {
        let p = Bm25Params { k1: k, b, delta: 0.0, epsilon: 0.25, exact_lengths: true };
        self.sum_over_query(|st| {
            let idf = base.log(st.n_docs as f64 / st.df.max(1) as f64);
            idf * Bm25Variant::Textbook.tf_weight(f64::from(st.tf), st.dl, st.avgdl, &p)
        })
    }

    /// Each document with the sum of `contribution` over the query's terms.
    fn sum_over_query(&self, contribution: impl Fn(&TermStats) -> f64) -> Vec<(String, f64)> {
        self.docs
            .iter()
            .map(|d| (d.id.clone(), self.query.iter().map(|t| contribution(&self.stats(d, t))).sum()))
            .collect()
    }
}

/// The document that ranks first, or "tie" when the best scores are equal.
fn first(scores: &[(String, f64)]) -> String {
    let mut sorted: Vec<&(String, f64)> = scores.iter().collect();
    sorted.sort_by(|a, b| b.1.total_cmp(&a.1));
    match sorted.as_slice() {
        [a, b, ..] if (a.1 - b.1).abs() < 1e-12 => "tie".to_string(),
        [a, ..] => a.0.clone(),
        [] => String::new(),
    }
}

pub fn build(kit: &LessonKit, params: &LessonParams, on: &Open) -> Result<Lesson> {
    let ex = Example::load(kit)?;
    let mut l = Lesson::untitled();
    l.p(format!(
        "The question `{}`. N = {} documents, avgdl = {} tokens; df: {}.",
        ex.query.join(" "),
        ex.n_docs,
        ex.avgdl,
        ex.df.iter().map(|(t, d)| format!("{t} {d}")).collect::<Vec<_>>().join(", ")
    ));
    for d in &ex.docs {
        let tf: Vec<String> = d.tf.iter().map(|(t, n)| format!("{t}×{n}")).collect();
        l.p(format!("{}: {} tokens, {}", d.id, d.length, tf.join(", ")));
    }
    let names: Vec<String> = ex.docs.iter().map(|d| d.id.clone()).collect();
    let data = to_data(&ExampleData {
        question: &ex.query,
        n: ex.n_docs,
        avgdl: ex.avgdl,
        df: &ex.df,
        documents: ex.docs.iter().map(|d| ExampleDocData { id: &d.id, length: d.length, tf: &d.tf }).collect(),
    });
    let why = |d: &str, v: f64| format!("{d} scores {}", f4(v));
    l.check(exercises::best_of(
        "example-tfidf-first",
        format!(
            "Under the textbook's tf-idf (log10(tf + 1) · log10(N/df)), which of {} ranks first?",
            names.join(", ")
        ),
        data.clone(),
        &ex.scores("tfidf", 0.0, 0.0),
        why,
    ));
    l.check(exercises::best_of(
        "example-bm25-first",
        "And under the textbook's BM25 (idf log10(N/df), k = 1.2, b = 0.75)?".into(),
        data.clone(),
        &ex.scores("bm25", 1.2, 0.75),
        why,
    ));
    l.check(exercises::best_of(
        "example-b0-first",
        "And with b = 0 (length no longer counts), k = 1.2?".into(),
        data,
        &ex.scores("bm25", 1.2, 0.0),
        why,
    ));
    let mut rows = Vec::new();
    for s in &ex.settings {
        let sc = ex.scores(&s.kind, s.k, s.b);
        let winner = first(&sc);
        let mut row = vec![s.name.clone()];
        row.extend(sc.iter().map(|(_, v)| format!("{v:.3}")));
        row.push(winner);
        rows.push(row);
    }
    let own = ex.scores_in_base(params.k, params.b, params.idf_base);
    let winner = first(&own);
    let mut row =
        vec![format!("your setting: k = {:.2}, b = {:.2}, idf {}", params.k, params.b, params.idf_base.name())];
    row.extend(own.iter().map(|(_, v)| format!("{v:.3}")));
    row.push(winner);
    rows.push(row);
    let mut header = vec!["setting"];
    let ids: Vec<&str> = ex.docs.iter().map(|d| d.id.as_str()).collect();
    header.extend(ids.iter().copied());
    header.push("ranks first");
    l.table("The five settings, computed live (and yours)", &header, rows);
    l.p("tf-idf rewards the long document's 40 occurrences of `love`; BM25 saturates term frequency (k) and discounts length (b), so the short, focused d1 wins — unless k = 0 (tf ignored) or b = 0 (length ignored, and 40 > 8 still counts).");

    // Saturation: the weight of `love` as its count grows, in a document of average length.
    let love_df = ex.df.get("love").copied().unwrap_or(1);
    if let Some(d1) = ex.docs.first() {
        l.check(exercises::bm25_contribution(
            "example-love",
            "love",
            &d1.id,
            d1.tf.get("love").copied().unwrap_or(0),
            ex.n_docs,
            love_df,
            d1.length,
            ex.avgdl,
            Bm25Params { k1: 1.2, b: 0.75, ..Bm25Variant::Lucene.default_params() },
        ));
    }
    let idf = params.idf_base.log(ex.n_docs as f64 / love_df as f64);
    let p = Bm25Params { k1: params.k, b: params.b, delta: 0.0, epsilon: 0.25, exact_lengths: true };
    let tfidf: Vec<[f64; 2]> =
        (0..=50).map(|tf| [f64::from(tf), TfIdfVariant::Textbook.tf_weight(f64::from(tf)) * idf]).collect();
    let bm25: Vec<[f64; 2]> = (0..=50)
        .map(|tf| [f64::from(tf), idf * Bm25Variant::Textbook.tf_weight(f64::from(tf), ex.avgdl, ex.avgdl, &p)])
        .collect();
    let ceiling: Vec<[f64; 2]> = vec![[0.0, idf], [50.0, idf]];
    let at = |tf: f64| idf * Bm25Variant::Textbook.tf_weight(tf, ex.avgdl, ex.avgdl, &p);
    let tfidf_at = |tf: f64| TfIdfVariant::Textbook.tf_weight(tf) * idf;
    l.blocks.push(Block::Curves {
        caption: format!(
            "Weight of `love` (idf {}) against its count: tf-idf grows without bound, BM25 approaches idf",
            params.idf_base.name()
        ),
        x_label: "occurrences of `love`".into(),
        y_label: "weight".into(),
        series: vec![
            ("tf-idf: log10(tf + 1) · idf".into(), tfidf),
            ("BM25: idf · tf/(tf + k)".into(), bm25),
            ("BM25 ceiling: idf".into(), ceiling),
        ],
        markers: vec![
            ("8 in d1 (BM25)".into(), [8.0, at(8.0)]),
            ("40 in d2 (BM25)".into(), [40.0, at(40.0)]),
            ("8 in d1 (tf-idf)".into(), [8.0, tfidf_at(8.0)]),
            ("40 in d2 (tf-idf)".into(), [40.0, tfidf_at(40.0)]),
        ],
    });
    open_page(&mut l, on)?;
    Ok(l)
}

/// A pair the two orders differently, on the open corpus.
pub struct OrderFlip {
    /// The passage TF-IDF puts higher (BM25 lower).
    pub tfidf_first: crate::corpus::DocId,
    /// The passage BM25 puts higher.
    pub bm25_first: crate::corpus::DocId,
}

/// In both top 20s, the pair with the best BM25 rank that TF-IDF orders the other way.
pub fn find_flip(tfidf: &[crate::retrieve::Hit], bm25: &[crate::retrieve::Hit]) -> Option<OrderFlip> {
    let rank = |hits: &[crate::retrieve::Hit], d| hits.iter().position(|h| h.doc == d);
    for (i, hi) in bm25.iter().enumerate() {
        for hj in &bm25[i + 1..] {
            if let (Some(ti), Some(tj)) = (rank(tfidf, hi.doc), rank(tfidf, hj.doc))
                && tj < ti
            {
                return Some(OrderFlip { tfidf_first: hj.doc, bm25_first: hi.doc });
            }
        }
    }
    None
}

fn open_page(l: &mut Lesson, on: &Open) -> Result<()> {
    let question = on.question.trim();
    l.h(format!("Your corpus: `{question}`"));
    let analyzer = AnalyzerConfig::default();
    let params = Bm25Variant::Lucene.default_params();
    let tfidf = on.workbench.sparse(SparseSpec::tfidf(TfIdfVariant::CosineLog2, true), analyzer, &NoProgress)?;
    let bm25 = on.workbench.sparse(SparseSpec::bm25(Bm25Variant::Lucene, params), analyzer, &NoProgress)?;
    let q = QueryContext::new(question);
    let (t_hits, b_hits) = (tfidf.search(&q, 20)?.hits, bm25.search(&q, 20)?.hits);
    let Some(flip) = find_flip(&t_hits, &b_hits) else {
        l.p("TF-IDF and BM25 order this question's top 20 the same way: try a question with a frequent word, or a corpus with passages of unequal length.");
        return Ok(());
    };
    let corpus = on.workbench.corpus();
    let (x, y) = (flip.tfidf_first, flip.bm25_first);
    let (xi, yi) = (corpus.external_id(x).to_string(), corpus.external_id(y).to_string());
    let terms = |d| -> Result<TermTable> {
        match bm25.explain(&q, d)?.detail {
            Detail::Terms(t) => Ok(t),
            _ => Err(Error::invalid("lesson", "BM25 explained without its terms")),
        }
    };
    let (bx, by) = (terms(x)?, terms(y)?);
    let tfidf_score = |d| tfidf.explain(&q, d).map(|e| e.value);
    let (tx, ty) = (tfidf_score(x)?, tfidf_score(y)?);
    fn dl(t: &TermTable) -> f64 {
        t.rows.first().map_or(0.0, |r| r.dl)
    }
    l.p(format!(
        "Cosine TF-IDF puts {xi} above {yi} ({} against {}); BM25 (Lucene, k1 = {}, b = {}) orders them the other way. N = {}, avgdl = {}; {xi} has {} tokens, {yi} {}.",
        f4(tx),
        f4(ty),
        params.k1,
        params.b,
        bx.n,
        f4(bx.avgdl),
        dl(&bx),
        dl(&by)
    ));
    fn passage<'t>(t: &'t TermTable, id: &str) -> FlipPassage<'t> {
        FlipPassage {
            id: id.to_string(),
            dl: dl(t),
            terms: t.rows.iter().map(|r| TermTfN { term: &r.term, tf: r.tf, n: r.df }).collect(),
        }
    }
    let bm25_sum = |t: &TermTable| t.rows.iter().map(|r| r.contribution).sum::<f64>();
    l.check(exercises::best_of(
        "open-flip",
        format!("Which does BM25 put first, {xi} or {yi}?"),
        FlipData {
            n: bx.n,
            avgdl: bx.avgdl,
            k1: params.k1,
            b: params.b,
            passages: vec![passage(&bx, &xi), passage(&by, &yi)],
        },
        &[(xi.clone(), bm25_sum(&bx)), (yi.clone(), bm25_sum(&by))],
        |d, v| format!("{d} scores {} under BM25", f4(v)),
    ));
    if let Some(r) = by.rows.iter().filter(|r| r.tf > 0).max_by(|a, b| a.contribution.total_cmp(&b.contribution)) {
        l.check(exercises::bm25_contribution(
            "open-contribution",
            &r.term,
            &yi,
            r.tf,
            by.n,
            r.df,
            r.dl,
            r.avgdl,
            params,
        ));
    }
    let rows = bx
        .rows
        .iter()
        .zip(&by.rows)
        .map(|(a, b)| {
            vec![
                a.term.clone(),
                a.tf.to_string(),
                b.tf.to_string(),
                a.df.to_string(),
                f4(a.contribution),
                f4(b.contribution),
                f4(b.contribution - a.contribution),
            ]
        })
        .collect();
    let (hx, hy) = (format!("tf in {xi}"), format!("tf in {yi}"));
    let (cx, cy) = (format!("BM25 part in {xi}"), format!("BM25 part in {yi}"));
    l.table(
        "Term by term (the parts add up to each BM25 score)",
        &["term", &hx, &hy, "df", &cx, &cy, "difference"],
        rows,
    );
    let swing = bx
        .rows
        .iter()
        .zip(&by.rows)
        .max_by(|(a, b), (c, d)| (b.contribution - a.contribution).total_cmp(&(d.contribution - c.contribution)));
    if let Some((a, b)) = swing {
        l.p(format!(
            "The term that moves it most is `{}`: {} in {xi} ({} tokens, {}× the average length) against {} in {yi}. TF-IDF counts every occurrence at full weight and divides by the whole vector's length; BM25 saturates the count (k1) and compares each passage's length to the average (b).",
            a.term,
            a.tf,
            dl(&bx),
            f4(dl(&bx) / bx.avgdl.max(f64::MIN_POSITIVE)),
            b.tf,
        ));
    }
    let present: Vec<TermInPassage> = bx
        .rows
        .iter()
        .filter(|r| r.tf > 0)
        .map(|r| TermInPassage { term: r.term.clone(), tf: r.tf, df: r.df })
        .collect();
    if present.len() >= 2 {
        l.check(exercises::gains_most(
            "open-b0",
            &xi,
            &present,
            bx.n,
            dl(&bx),
            bx.avgdl,
            params,
            Bm25Params { b: 0.0, ..params },
        ));
    }
    if let Some(c) = super::one_word::one_word(
        &on.workbench,
        crate::retrieve::MethodKind::Bm25,
        &crate::config::Settings::default(),
        question,
        3,
        "open-one-word",
    )? {
        l.h("What would bring a passage in?");
        l.p("A passage BM25 leaves just below the top 3, and four of its words: one of them, added to the question, brings it in. Predict which before revealing; the working ranks the question again with each word.");
        l.check(c);
    }
    Ok(())
}

/// This lesson's questions in an assignment (BM25 idf, a term's contribution, the effect of k1 and b), drawn for one student.
pub(super) fn assignment(draw: &Drawer<'_>, rng: &mut SplitMix64) -> Result<Vec<Checkpoint>> {
    let s = draw.index.stats();
    let (n, avgdl) = (s.n_docs, s.avgdl);
    let k1s = [0.6, 0.9, 1.0, 1.2, 1.5, 2.0];
    let bs = [0.3, 0.4, 0.5, 0.6, 0.75, 0.9];
    let params = Bm25Params {
        k1: k1s[rng.below(k1s.len())],
        b: bs[rng.below(bs.len())],
        ..Bm25Variant::Lucene.default_params()
    };
    // Three passages and a question for which BM25's first passage is clear (two score, the first
    // leads by a margin); the other questions are about the first of them.
    let r = draw.workbench.sparse(SparseSpec::bm25(Bm25Variant::Lucene, params), draw.analyzer, &NoProgress)?;
    let (ds, question, scored) = draw.until(rng, "a BM25 question with a clear first passage", |rng| {
        let ds = draw.passages(rng, 3);
        let question = draw.question(rng, ds[0])?;
        let scored = exercises::scores_under(r.as_ref(), &QueryContext::new(&question), &ds, draw.corpus())?;
        Ok(exercises::clear_winner(&scored).then_some((ds, question, scored)))
    })?;
    let d = ds[0];
    let dl = f64::from(draw.index.doc_len(d));
    let counts = draw.counts(&draw.text(d))?;
    // The terms asked about are content words (never `a` or `the`), where the passage has any.
    let content: Vec<(&String, &(u32, u64))> = counts.iter().filter(|(t, _)| is_content_word(t)).collect();
    let terms: Vec<(&String, &(u32, u64))> = if content.is_empty() { counts.iter().collect() } else { content };
    let (u, &(_, udf)) = terms[rng.below(terms.len())];
    let (t, &(tf, df)) = terms[rng.below(terms.len())];
    // Three terms that differ in tf or df, so exactly one gains most.
    let mut picked: Vec<TermInPassage> = Vec::new();
    let mut pool = terms.clone();
    rng.shuffle(&mut pool);
    for (term, &(tf, df)) in pool {
        if picked.len() < 3 && !picked.iter().any(|p| p.tf == tf && p.df == df) {
            picked.push(TermInPassage { term: term.clone(), tf, df });
        }
    }
    let to =
        if rng.below(2) == 0 { Bm25Params { b: 0.0, ..params } } else { Bm25Params { k1: params.k1 * 2.0, ..params } };
    let mut out = vec![
        exercises::bm25_idf("q1", u, n, udf),
        exercises::bm25_contribution("q2", t, &draw.name(d), tf, n, df, dl, avgdl, params),
        exercises::gains_most("q3", &draw.name(d), &picked, n, dl, avgdl, params, to),
    ];
    let mut passages = Vec::new();
    for &x in &ds {
        passages.push(draw.counted_with_length(x)?);
    }
    out.push(exercises::best_of(
        "q4",
        format!(
            "For the question `{question}`, which passage does BM25 (Lucene, k1 = {}, b = {}) put first?",
            params.k1, params.b
        ),
        Bm25Table { question: &question, n, avgdl, k1: params.k1, b: params.b, passages },
        &scored,
        |d, v| format!("{d} scores {}", super::f4(v)),
    ));
    out.push(super::flips::bm25_flip("q5", draw, rng, params)?);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kit_dir() -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-corpus/lessons")
    }

    #[test]
    fn the_five_settings_are_the_textbook_table() {
        let bytes = std::fs::read(kit_dir().join("bm25-example.json")).unwrap();
        let ex: Example = serde_json::from_slice(&bytes).unwrap();
        let got: Vec<Vec<String>> = ex
            .settings
            .iter()
            .map(|s| ex.scores(&s.kind, s.k, s.b).iter().map(|(_, v)| format!("{v:.3}")).collect())
            .collect();
        assert_eq!(
            got,
            [["1.575", "2.234"], ["1.931", "1.512"], ["2.301", "2.301"], ["1.683", "1.784"], ["2.037", "1.451"]]
        );
        // log10 in the learner's row reproduces the textbook setting.
        let own = ex.scores_in_base(1.2, 0.75, IdfBase::Ten);
        assert_eq!(format!("{:.3}/{:.3}", own[0].1, own[1].1), "1.931/1.512");
    }
}

/// The textbook example's data: its question, N, avgdl, df and each document's length and tf.
#[derive(serde::Serialize)]
struct ExampleData<'a> {
    question: &'a [String],
    #[serde(rename = "N")]
    n: u64,
    avgdl: f64,
    df: &'a BTreeMap<String, u64>,
    documents: Vec<ExampleDocData<'a>>,
}

/// One of the textbook example's documents.
#[derive(serde::Serialize)]
struct ExampleDocData<'a> {
    id: &'a str,
    length: f64,
    tf: &'a BTreeMap<String, u32>,
}

/// One passage of the open corpus's flip: its length and its question terms' tf and n.
#[derive(serde::Serialize)]
struct FlipPassage<'a> {
    id: String,
    dl: f64,
    terms: Vec<TermTfN<'a>>,
}

/// The open corpus's flip: which of two passages BM25 puts first.
#[derive(serde::Serialize)]
struct FlipData<'a> {
    #[serde(rename = "N")]
    n: u64,
    avgdl: f64,
    k1: f64,
    b: f64,
    passages: Vec<FlipPassage<'a>>,
}
