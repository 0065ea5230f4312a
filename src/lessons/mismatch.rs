//! Vocabulary mismatch on the sample: the stale-login question shares no word with the E104
//! passage, so BM25 misses it; SPLADE adds terms; dense search finds it; and rewriting the
//! question or embedding a drafted answer (HyDE) changes what the lexical and dense methods see.

use super::data::QuestionPassage;
use super::exercises;
use super::{Lesson, LessonKit, LessonParams};
use crate::Result;
use crate::config::Settings;
use crate::corpus::DocId;
use crate::models::{InputKind, TextEncoder};
use crate::retrieve::dense::dot;
use crate::retrieve::{MethodKind, QueryContext, SpladeRetriever};

const QUESTION: &str = "Why does my phone say my login is stale?";
const TARGET: &str = "errors-2";

fn rank(kit: &LessonKit, kind: MethodKind, text: &str, target: DocId) -> Result<String> {
    match kit.sample.retriever(kind, &Settings::default()) {
        Ok(r) => {
            let ranking = r.search(&QueryContext::new(text), kit.sample.corpus().len())?;
            Ok(ranking.rank_of(target).map(|r| format!("#{r}")).unwrap_or_else(|| "not retrieved".into()))
        }
        Err(e) => Ok(format!("not run here ({})", e.report().lines().next().unwrap_or(""))),
    }
}

pub fn build(kit: &LessonKit, params: &LessonParams) -> Result<Lesson> {
    let mut l = Lesson::untitled();
    let corpus = kit.sample.corpus();
    let target = corpus.lookup(TARGET).unwrap_or(DocId(0));
    let text = corpus.doc(target).map(|d| d.text.clone()).unwrap_or_default();
    l.p(format!("The question `{QUESTION}` is answered by {TARGET}: \"{text}\" — which shares no word with it."));
    let bm25_rank = rank(kit, MethodKind::Bm25, QUESTION, target)?;
    l.check(exercises::choice(
        "mismatch-bm25",
        format!("Does BM25 retrieve {TARGET} for this question at all?"),
        QuestionPassage { question: QUESTION, passage: &text },
        &["yes", "no"],
        if bm25_rank.starts_with('#') { "yes" } else { "no" },
        format!("BM25 scores only passages that share a term with the question: {TARGET} is {bm25_rank}."),
    ));
    let mut rows = Vec::new();
    for kind in [MethodKind::Bm25, MethodKind::Splade, MethodKind::Dense, MethodKind::LateInteraction] {
        rows.push(vec![kind.label().to_string(), rank(kit, kind, QUESTION, target)?]);
    }
    l.table(&format!("Where each method ranks {TARGET}"), &["method", "rank"], rows);
    if let Ok(r) = kit.sample.retriever(MethodKind::Splade, &Settings::default()) {
        let n = kit.sample.neural();
        if let (Some(index), Some(s)) = (n.splade_index, n.splade) {
            let splade = SpladeRetriever::new(index, s.encoder, corpus.clone());
            let terms = splade.query_terms(QUESTION, 15)?;
            l.table(
                "SPLADE's view of the question (terms the model added are expansions)",
                &["term", "weight", ""],
                terms
                    .into_iter()
                    .map(|(t, w, exp)| vec![t, format!("{w:.3}"), if exp { "expansion".into() } else { String::new() }])
                    .collect(),
            );
        }
        let e = r.explain(&QueryContext::new(QUESTION), target)?;
        l.p(format!("SPLADE on {TARGET}: {}", e.summary));
    }
    l.h("Rewrite the question");
    let expanded = format!("{QUESTION} {}", params.rewrite);
    l.table(
        &format!("The rewrite `{}`", params.rewrite),
        &["what BM25 searches", &format!("rank of {TARGET}")],
        vec![
            vec!["the question".into(), rank(kit, MethodKind::Bm25, QUESTION, target)?],
            vec!["the question + the rewrite (expansion)".into(), rank(kit, MethodKind::Bm25, &expanded, target)?],
            vec!["the rewrite alone".into(), rank(kit, MethodKind::Bm25, &params.rewrite, target)?],
        ],
    );
    l.h("HyDE: embed a drafted answer");
    let n = kit.sample.neural();
    match (n.dense, n.dense_index) {
        (Some(dense), Some(index)) => {
            let draft = dense.encoder.encode(&[params.draft.as_str()], InputKind::Document)?.remove(0);
            let q = dense.encoder.encode(&[QUESTION], InputKind::Query)?.remove(0);
            let rank_of = |v: &[f32]| {
                let s = index.vector(target).map(|t| dot(v, t)).unwrap_or(0.0);
                1 + (0..index.len()).filter(|&d| index.vector(DocId(d as u32)).is_some_and(|x| dot(v, x) > s)).count()
            };
            l.table(
                &format!(
                    "Dense search ({}) with the question and with the draft",
                    TextEncoder::model_id(dense.encoder.as_ref())
                ),
                &["what is embedded", &format!("rank of {TARGET}")],
                vec![
                    vec!["the question".into(), format!("#{}", rank_of(&q))],
                    vec![format!("the draft: \"{}\"", params.draft), format!("#{}", rank_of(&draft))],
                ],
            );
        }
        _ => l.warn("Not run here: the dense model is not loaded (ranklens models fetch --role dense)."),
    }
    l.warn("A drafted answer is a search aid, never evidence: it may be wrong. Only the passages it finds can support an answer.");
    l.h("Reasoning expansion: say what answering it needs");
    l.p("Some questions share neither words nor topic with the passages that answer them (BRIGHT's \
         reasoning-intensive questions). A model first writes what a good answer needs — the concepts, facts and \
         terms a relevant document would hold — and the search runs over the question and that reasoning. The \
         reasoning is the model's, not evidence; the `Reasoning + BM25` and `Reasoning + dense` columns do this \
         with the language model. Here, with the reasoning below (edit it):");
    let reasoned = format!("{QUESTION} {}", params.reasoning);
    let mut rows = vec![
        vec!["BM25 over the question".into(), rank(kit, MethodKind::Bm25, QUESTION, target)?],
        vec!["BM25 over the question + the reasoning".into(), rank(kit, MethodKind::Bm25, &reasoned, target)?],
    ];
    rows.push(vec!["dense over the question".into(), rank(kit, MethodKind::Dense, QUESTION, target)?]);
    rows.push(vec!["dense over the question + the reasoning".into(), rank(kit, MethodKind::Dense, &reasoned, target)?]);
    l.table(
        &format!("The reasoning “{}”", params.reasoning),
        &["what is searched", &format!("rank of {TARGET}")],
        rows,
    );
    Ok(l)
}
