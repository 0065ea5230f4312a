//! Cosine over TF-IDF on the four ISRO documents, step by step; the "Red Planet" rewording that
//! ties D3 and D4; and the dense model breaking the tie.

use super::{Lesson, LessonKit, f4};
use crate::Result;
use crate::analysis::{AnalyzerConfig, Preset};
use crate::corpus::DocId;
use crate::engine::{Engine, SparseSpec};
use crate::models::{InputKind, TextEncoder};
use crate::progress::NoProgress;
use crate::retrieve::dense::dot;
use crate::retrieve::{Detail, QueryContext, TfIdfVariant};

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
pub fn cosines(engine: &Engine, analyzer: AnalyzerConfig, question: &str) -> Result<Vec<CosineStep>> {
    let r = engine.sparse(SparseSpec::tfidf(TfIdfVariant::CosineLog2, true), analyzer, &NoProgress)?;
    let index = engine.index(analyzer, &NoProgress)?;
    let q = QueryContext::new(question);
    let mut out = Vec::new();
    for (id, doc) in engine.corpus().iter() {
        let e = r.explain(&q, id)?;
        let Detail::Terms(t) = &e.detail else { continue };
        let q_norm = t.rows.iter().map(|r| (f64::from(r.qtf) * r.idf).powi(2)).sum::<f64>().sqrt();
        let dot: f64 = t.rows.iter().map(|r| (f64::from(r.qtf) * r.idf) * (f64::from(r.tf) * r.idf)).sum();
        let d_norm = index.norms().cosine_log2.get(id.index()).copied().unwrap_or(0.0);
        out.push(CosineStep { doc: doc.id.clone(), dot, q_norm, d_norm, cosine: e.value });
    }
    Ok(out)
}

pub fn build(kit: &LessonKit) -> Result<Lesson> {
    let mut l = Lesson::new("tfidf", "Cosine over TF-IDF");
    let engine = Engine::new(kit.corpus("isro")?);
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
    let mut rows = Vec::new();
    for term in question.split_whitespace() {
        let df = index.doc_freq(term)?;
        let idf = TfIdfVariant::CosineLog2.idf(n, df);
        rows.push(vec![term.to_string(), df.to_string(), format!("log2({n}/{df}) = {}", f4(idf))]);
    }
    l.table("Inverse document frequencies", &["term", "df", "idf"], rows);
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
    let steps = cosines(&engine, plain, question)?;
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
    Ok(l)
}
