//! Cosine over TF-IDF on the four ISRO documents, step by step; the "Red Planet" rewording that
//! ties D3 and D4; and the dense model breaking the tie.

use super::checkpoint::Checkpoint;
use super::data::TfIdfTable;
use super::drawer::{Drawer, is_content_word};
use super::exercises::{self};
use super::{Lesson, LessonKit, Open, f4};
use crate::Result;
use crate::analysis::{AnalyzerConfig, Preset};
use crate::corpus::DocId;
use crate::lcg::SplitMix64;
use crate::models::{InputKind, TextEncoder};
use crate::progress::NoProgress;
use crate::retrieve::dense::dot;
use crate::retrieve::{Detail, QueryContext, TfIdfVariant};
use crate::workbench::{SparseSpec, Workbench};

/// One document's cosine, as the lesson shows it.
pub struct CosineStep {
    /// Document id.
    pub doc: String,
    /// Σ w(t,q)·w(t,d).
    pub dot: f64,
    /// |q|.
    pub q_norm: f64,
    /// |d|.
    pub d_norm: f64,
    /// The cosine (the retriever's score).
    pub cosine: f64,
}

/// The cosines of every ISRO document for a question, from the retriever's explanations.
pub fn cosines(workbench: &Workbench, analyzer: AnalyzerConfig, question: &str) -> Result<Vec<CosineStep>> {
    let r = workbench.sparse(SparseSpec::tfidf(TfIdfVariant::CosineLog2, true), analyzer, &NoProgress)?;
    let index = workbench.index(analyzer, &NoProgress)?;
    let q = QueryContext::new(question);
    let mut out = Vec::new();
    for (id, doc) in workbench.corpus().iter() {
        let e = r.explain(&q, id)?;
        let Detail::Terms(t) = &e.detail else { continue };
        let q_norm = t.rows.iter().map(|r| (f64::from(r.qtf) * r.idf).powi(2)).sum::<f64>().sqrt();
        let dot: f64 = t.rows.iter().map(|r| (f64::from(r.qtf) * r.idf) * (f64::from(r.tf) * r.idf)).sum();
        let d_norm = index.norms().cosine_log2.get(id.index()).copied().unwrap_or(0.0);
        out.push(CosineStep { doc: doc.id.clone(), dot, q_norm, d_norm, cosine: e.value });
    }
    Ok(out)
}

pub fn build(kit: &LessonKit, on: &Open) -> Result<Lesson> {
    let mut l = Lesson::untitled();
    let engine = Workbench::new(kit.corpus("isro")?);
    let plain = AnalyzerConfig::preset(Preset::Whitespace);
    let index = engine.index(plain, &NoProgress)?;
    let n = index.stats().n_docs;
    l.p(format!(
        "Four documents, {} distinct terms. A term's weight is tf × idf with idf = log2(N/df), N = {n}; the score is the cosine of the angle between the question's vector and the document's.",
        index.stats().vocabulary
    ));
    for d in engine.corpus().docs() {
        l.p(format!("{}: {}", d.id, d.text));
    }
    let question = "mission mars atmosphere";
    l.h(format!("The question `{question}`"));
    l.check(exercises::tfidf_idf("tfidf-idf", "mars", n, index.doc_freq("mars")?));
    let mut rows = Vec::new();
    for term in question.split_whitespace() {
        let df = index.doc_freq(term)?;
        let idf = TfIdfVariant::CosineLog2.idf(n, df);
        rows.push(vec![term.to_string(), df.to_string(), format!("log2({n}/{df}) = {}", f4(idf))]);
    }
    l.table("Inverse document frequencies", &["term", "df", "idf"], rows);
    let d3 = engine.corpus().lookup("D3").unwrap_or(DocId(0));
    l.check(exercises::tfidf_weight(
        "tfidf-weight",
        "mars",
        "D3",
        index.term_freq("mars", d3)?,
        n,
        index.doc_freq("mars")?,
    ));
    for id in ["D3", "D4"] {
        let doc = engine.corpus().lookup(id).unwrap_or(DocId(0));
        let mut rows = Vec::new();
        let mut terms: Vec<String> =
            index.analyzer().terms(&engine.corpus().doc(doc).map(|d| d.text.clone()).unwrap_or_default());
        terms.dedup();
        for t in terms {
            let df = index.doc_freq(&t)?;
            let tf = index.term_freq(&t, doc)?;
            let idf = TfIdfVariant::CosineLog2.idf(n, df);
            rows.push(vec![t, tf.to_string(), f4(idf), f4(f64::from(tf) * idf)]);
        }
        l.table(&format!("{id}'s vector (w = tf × idf)"), &["term", "tf", "idf", "w"], rows);
    }
    let d3_text = engine.corpus().doc(d3).map(|d| d.text.clone()).unwrap_or_default();
    l.check(exercises::tfidf_cosine(
        "tfidf-cosine",
        "D3",
        &exercises::term_counts(&index, question)?,
        &exercises::term_counts(&index, &d3_text)?,
        n,
    ));
    let steps = cosines(&engine, plain, question)?;
    let scored: Vec<(String, f64)> = steps.iter().map(|s| (s.doc.clone(), s.cosine)).collect();
    l.check(exercises::best_of(
        "tfidf-first",
        format!("Which document does cosine TF-IDF put first for `{question}`?"),
        FirstData { question, documents: steps.iter().map(|s| s.doc.as_str()).collect() },
        &scored,
        |d, v| format!("{d} has the largest cosine, {}", f4(v)),
    ));
    l.table(
        "Step by step: dot product, norms, cosine",
        &["doc", "q·d", "|q|", "|d|", "cos = q·d / (|q|·|d|)"],
        steps.iter().map(|s| vec![s.doc.clone(), f4(s.dot), f4(s.q_norm), f4(s.d_norm), f4(s.cosine)]).collect(),
    );
    l.p("D3 shares two rare terms (idf 2) and `mission` with the question; D4 shares only `mission` (idf 1): 0.6547 against 0.0727.");

    let red = "Which mission explored the Red Planet?";
    l.h(format!("The rewording `{red}`"));
    let stop = AnalyzerConfig::preset(Preset::Whitespace).with_stopwords(true);
    let steps = cosines(&engine, stop, red)?;
    l.table(
        "With stop words removed, only `mission` is in the vocabulary",
        &["doc", "q·d", "|q|", "|d|", "cos"],
        steps.iter().map(|s| vec![s.doc.clone(), f4(s.dot), f4(s.q_norm), f4(s.d_norm), f4(s.cosine)]).collect(),
    );
    l.p("`red` and `planet` occur in no document, so TF-IDF cannot tell the Mars orbiter from the rocket: D3 and D4 tie at 0.2182.");
    match &kit.dense {
        Some(dense) => {
            let texts: Vec<String> = engine.corpus().docs().iter().map(|d| d.text.clone()).collect();
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            let docs = dense.encode(&refs, InputKind::Document)?;
            let q = dense.encode(&[red], InputKind::Query)?.remove(0);
            let rows = engine
                .corpus()
                .docs()
                .iter()
                .zip(&docs)
                .map(|(d, v)| vec![d.id.clone(), f4(f64::from(dot(&q, v)))])
                .collect();
            l.table(
                &format!("The dense model ({}) on the same question", TextEncoder::model_id(dense.as_ref())),
                &["doc", "cosine"],
                rows,
            );
            l.p("The dense model learned that the Red Planet is Mars, so it ranks D3 above D4 and breaks the tie.");
        }
        None => l.warn("Not run here: the dense model is not loaded (ranklens models fetch --role dense)."),
    }
    open_page(&mut l, on)?;
    Ok(l)
}

/// The same steps on the open corpus: the passage cosine TF-IDF puts first for the question in
/// the bar, its strongest term's weight and its cosine.
fn open_page(l: &mut Lesson, on: &Open) -> Result<()> {
    let question = on.question.trim();
    l.h(format!("Your corpus: `{question}`"));
    let analyzer = AnalyzerConfig::preset(Preset::Whitespace);
    let r = on.workbench.sparse(SparseSpec::tfidf(TfIdfVariant::CosineLog2, true), analyzer, &NoProgress)?;
    let index = on.workbench.index(analyzer, &NoProgress)?;
    let q = QueryContext::new(question);
    let hits = r.search(&q, 3)?.hits;
    let Some(top) = hits.first() else {
        l.warn("No passage of this corpus shares a term with the question: every cosine is 0.");
        return Ok(());
    };
    let corpus = on.workbench.corpus();
    let id = corpus.external_id(top.doc).to_string();
    let n = index.stats().n_docs;
    let e = r.explain(&q, top.doc)?;
    let Detail::Terms(t) = &e.detail else { return Ok(()) };
    l.p(format!(
        "N = {n} passages, the whitespace analyzer (the lesson's). Cosine TF-IDF puts {id} first; the question's terms in it:"
    ));
    if let Some(best) = t.rows.iter().filter(|r| r.tf > 0).max_by(|a, b| a.contribution.total_cmp(&b.contribution)) {
        l.check(exercises::tfidf_weight("open-weight", &best.term, &id, best.tf, n, best.df));
    }
    let text = corpus.doc(top.doc).map(|d| d.full_text()).unwrap_or_default();
    let doc_counts = exercises::term_counts(&index, &text)?;
    if doc_counts.len() <= 40 {
        l.check(exercises::tfidf_cosine(
            "open-cosine",
            &id,
            &exercises::term_counts(&index, question)?,
            &doc_counts,
            n,
        ));
    } else {
        l.p(format!(
            "({id} has {} distinct terms: too many to work its length by hand; the table gives |d|.)",
            doc_counts.len()
        ));
    }
    l.table(
        &format!("{id}: each question term's part of the cosine"),
        &["term", "qtf", "tf", "df", "idf", "part"],
        t.rows
            .iter()
            .map(|r| {
                vec![
                    r.term.clone(),
                    r.qtf.to_string(),
                    r.tf.to_string(),
                    r.df.to_string(),
                    f4(r.idf),
                    f4(r.contribution),
                ]
            })
            .collect(),
    );
    l.p(format!("The parts add up to the cosine, {}.", f4(e.value)));
    Ok(())
}

/// This lesson's questions in an assignment (tf-idf weights, an idf, a cosine, which passage wins), drawn for one student.
pub(super) fn assignment(draw: &Drawer<'_>, rng: &mut SplitMix64) -> Result<Vec<Checkpoint>> {
    let n = draw.index.stats().n_docs;
    // Three passages and a question for which cosine TF-IDF's first passage is clear.
    let r = draw.workbench.sparse(SparseSpec::tfidf(TfIdfVariant::CosineLog2, true), draw.analyzer, &NoProgress)?;
    let (ds, question, scored) = draw.until(rng, "a TF-IDF question with a clear first passage", |rng| {
        let ds = draw.passages(rng, 3);
        let question = draw.question(rng, ds[0])?;
        let scored = exercises::scores_under(r.as_ref(), &QueryContext::new(&question), &ds, draw.corpus())?;
        Ok(exercises::clear_winner(&scored).then_some((ds, question, scored)))
    })?;
    let d = ds[0];
    let counts = draw.counts(&draw.text(d))?;
    // The terms asked about are content words (never `a` or `the`), where the passage has any.
    let content: Vec<(&String, &(u32, u64))> = counts.iter().filter(|(t, _)| is_content_word(t)).collect();
    let terms: Vec<(&String, &(u32, u64))> = if content.is_empty() { counts.iter().collect() } else { content };
    let (t, &(tf, df)) = terms[rng.below(terms.len())];
    let (u, &(_, udf)) = terms[rng.below(terms.len())];
    let qc = draw.counts(&question)?;
    let mut out = vec![
        exercises::tfidf_idf("q1", u, n, udf),
        exercises::tfidf_weight("q2", t, &draw.name(d), tf, n, df),
        exercises::tfidf_cosine("q3", &draw.name(d), &qc, &counts, n),
    ];
    let mut passages = Vec::new();
    for &x in &ds {
        passages.push(draw.counted(x)?);
    }
    out.push(exercises::best_of(
        "q4",
        format!("For the question `{question}`, which passage does cosine TF-IDF (w = tf × log2(N/df)) put first?"),
        TfIdfTable { question: &question, n, question_terms: &qc, passages },
        &scored,
        |d, v| format!("{d} has the largest cosine, {}", super::f4(v)),
    ));
    out.push(super::flips::tfidf_normalisation("q5", draw, rng)?);
    Ok(out)
}

/// The first question's data: which document cosine TF-IDF puts first.
#[derive(serde::Serialize)]
struct FirstData<'a> {
    question: &'a str,
    documents: Vec<&'a str>,
}
