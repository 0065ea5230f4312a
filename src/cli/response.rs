//! `ranklens response`: a saved search-engine response read in RankLens's language — each hit in
//! order with its score, its term rows (tf, df, N, idf, dl, avgdl, k1, b, boost, contribution)
//! with their sum beside the engine's score, and the tree where the score is not a sum of term
//! weights (or the explanation raw where it could not be read).

use std::path::PathBuf;

use clap::Args;
use serde::Serialize;

use super::Found;
use super::args::CorpusArgs;
use super::args::FormatArg;
use super::printer::{Printable, print};
use super::table::Table;
use crate::external::{EngineResponse, EngineTermRow, ExplainNode, LuceneBreakdown, SavedResponses, breakdown};
use crate::retrieve::fmt_param;

/// `ranklens response`
#[derive(Debug, Args)]
pub struct ResponseArgs {
    /// A saved response (Elasticsearch / OpenSearch `_search` with explain, `_explain`, Solr with
    /// debugQuery, Vespa), or JSON Lines of {"query_id", "response"}.
    path: PathBuf,
    /// The field holding the document id, when not the engine's id.
    #[arg(long)]
    id_field: Option<String>,
    /// Only this query id (JSON Lines of responses).
    #[arg(long)]
    query: Option<String>,
    #[command(flatten)]
    format: FormatArg,
    /// The question the response answers: each hit's rows are then put beside RankLens's own
    /// Lucene BM25 of the same passage in `--corpus` (the engine's k1 and b), and every input
    /// that differs is named.
    #[arg(long)]
    question: Option<String>,
    #[command(flatten)]
    corpus: CorpusArgs,
}

/// A hit beside RankLens's own Lucene BM25 of the same passage.
#[derive(Debug, Serialize)]
struct BesideView {
    /// RankLens's score for the passage.
    ranklens: f64,
    /// The engine's score.
    engine: f64,
    /// k1 and b (the engine's).
    k1: f64,
    b: f64,
    /// Each input that differs, in words (`scale` is a constant factor, not an input).
    differences: Vec<(String, String)>,
    /// No input differs and the scores agree to float32 (after the constant factor, if any).
    equal: bool,
    /// That in a sentence, when no input differs.
    #[serde(skip_serializing_if = "Option::is_none")]
    verdict: Option<String>,
}

#[derive(Debug, Serialize)]
struct HitView {
    rank: usize,
    id: String,
    score: Option<f64>,
    rows: Vec<EngineTermRow>,
    /// Σ row contributions (+ other parts), when the score is a sum of them.
    rows_sum: Option<f64>,
    other: Vec<(String, f64)>,
    not_a_sum: Option<String>,
    tree: Option<ExplainNode>,
    unreadable: Option<(String, String)>,
    features: std::collections::BTreeMap<String, f64>,
    /// Beside RankLens's own BM25, with `--question`.
    #[serde(skip_serializing_if = "Option::is_none")]
    beside: Option<BesideView>,
}

#[derive(Debug, Serialize)]
struct ResponseView {
    query_id: Option<String>,
    engine: String,
    total: Option<u64>,
    hits: Vec<HitView>,
    problems: Vec<String>,
}

#[derive(Debug, Serialize)]
struct ResponsesView {
    file: PathBuf,
    responses: Vec<ResponseView>,
}

fn view(qid: Option<&str>, r: &EngineResponse) -> ResponseView {
    let hits = r
        .hits
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let bd: LuceneBreakdown = h.explanation.as_ref().map(breakdown).unwrap_or_default();
            HitView {
                rank: i + 1,
                id: h.id.clone(),
                score: h.score,
                rows_sum: h.explanation.as_ref().and(bd.total()),
                rows: bd.rows,
                other: bd.other,
                not_a_sum: bd.not_a_sum,
                tree: h.explanation.clone(),
                beside: None,
                unreadable: h.raw_explanation.clone(),
                features: h.features.clone(),
            }
        })
        .collect();
    ResponseView {
        query_id: qid.map(str::to_string),
        engine: r.shape.engines().to_string(),
        total: r.total,
        hits,
        problems: r.problems.clone(),
    }
}

fn opt(x: Option<f64>) -> String {
    x.map(fmt_param).unwrap_or_else(|| "—".into())
}

impl Printable for ResponsesView {
    fn table(&self) -> String {
        let mut out = String::new();
        for r in &self.responses {
            let q = r.query_id.as_deref().map(|q| format!("query {q} · ")).unwrap_or_default();
            let total = r.total.map(|t| format!(" of {t}")).unwrap_or_default();
            out.push_str(&format!("{q}{} · {} hits{total}\n", r.engine, r.hits.len()));
            for h in &r.hits {
                let score = h.score.map_or_else(|| "—".to_string(), |s| s.to_string());
                out.push_str(&format!("\n#{} {}  score {score}\n", h.rank, h.id));
                if !h.rows.is_empty() {
                    let mut t = Table::new(
                        ["term", "field", "tf", "df", "N", "idf", "dl", "avgdl", "k1", "b", "boost", "contribution"]
                            .map(String::from)
                            .to_vec(),
                        2,
                    );
                    for row in &h.rows {
                        let dl = match row.dl {
                            Some(d) if row.dl_approximate => format!("≈{}", fmt_param(d)),
                            d => opt(d),
                        };
                        t.row(vec![
                            row.term.clone(),
                            row.field.clone(),
                            opt(row.tf),
                            row.df_text(),
                            opt(row.n),
                            row.idf.map(|x| format!("{x:.4}")).unwrap_or_else(|| "—".into()),
                            dl,
                            row.avgdl.map(|x| format!("{x:.2}")).unwrap_or_else(|| "—".into()),
                            opt(row.k1),
                            opt(row.b),
                            opt(row.boost),
                            match (row.contribution, row.multiplier) {
                                (Some(c), Some(m)) if m != 1.0 => {
                                    format!("{:.4} × {} = {c:.4}", row.weight, fmt_param(m))
                                }
                                (Some(c), _) => format!("{c:.4}"),
                                (None, _) => format!("({:.4})", row.weight),
                            },
                        ]);
                    }
                    out.push_str(&t.render());
                }
                for (what, v) in &h.other {
                    out.push_str(&format!("  + {v:.4}  not a term weight: {what}\n"));
                }
                match (h.rows_sum, &h.not_a_sum) {
                    (Some(sum), _) => out.push_str(&format!(
                        "  Σ = {sum:.4}  (the engine's score {})\n",
                        h.score.map_or_else(|| "—".to_string(), |s| s.to_string())
                    )),
                    (None, Some(node)) => {
                        out.push_str(&format!(
                            "  not a sum of term weights: `{}` combines them; the tree:\n",
                            node.trim_end_matches(':')
                        ));
                        if let Some(tree) = &h.tree {
                            for line in tree.to_text().lines() {
                                out.push_str(&format!("    {line}\n"));
                            }
                        }
                    }
                    (None, None) => {}
                }
                if let Some(b) = &h.beside {
                    let scale = b.differences.iter().find(|(input, _)| input == "scale");
                    let inputs: Vec<&(String, String)> = b.differences.iter().filter(|(i, _)| i != "scale").collect();
                    out.push_str(&format!(
                        "  beside RankLens's lucene BM25 (k1 {}, b {}): RankLens {:.7}, the engine {:.7}\n",
                        fmt_param(b.k1),
                        fmt_param(b.b),
                        b.ranklens,
                        b.engine
                    ));
                    if let Some(verdict) = &b.verdict {
                        out.push_str(&format!("    {verdict}\n"));
                    }
                    for (_, says) in inputs.iter().copied().chain(scale) {
                        out.push_str(&format!("    {says}\n"));
                    }
                }
                if let Some((raw, why)) = &h.unreadable {
                    out.push_str(&format!("  the explanation could not be read ({why}); as it came:\n"));
                    for line in raw.lines() {
                        out.push_str(&format!("    {line}\n"));
                    }
                }
                if !h.features.is_empty() {
                    for (name, v) in &h.features {
                        out.push_str(&format!("  {name} = {v:.4}\n"));
                    }
                }
            }
            for p in &r.problems {
                out.push_str(&format!("note: {p}\n"));
            }
            out.push('\n');
        }
        out
    }
}

/// `ranklens response`
pub fn response(a: ResponseArgs) -> anyhow::Result<Found> {
    let saved = SavedResponses::load(&a.path, None, a.id_field.as_deref())?;
    let mut responses = Vec::new();
    if let Some(r) = &saved.single {
        responses.push(view(None, r));
    }
    for (qid, r) in &saved.by_query {
        if a.query.as_ref().is_none_or(|q| q == qid) {
            responses.push(view(Some(qid), r));
        }
    }
    if let Some(q) = &a.query
        && responses.is_empty()
    {
        anyhow::bail!("{}: no response for query {q}", a.path.display());
    }
    for p in saved.problems.iter().filter(|p| !responses.iter().any(|r| r.problems.contains(p))) {
        eprintln!("warning: {p}");
    }
    if let Some(question) = &a.question {
        beside_ranklens(&a, question, &mut responses)?;
    }
    let found = responses.iter().any(|r| !r.hits.is_empty());
    print(&ResponsesView { file: a.path.clone(), responses }, a.format.value)?;
    Ok(if found { Found::Some } else { Found::Nothing })
}

/// Put each hit beside RankLens's own Lucene BM25 of the same passage, through the same plan
/// and engine table as the app's Explain view.
fn beside_ranklens(a: &ResponseArgs, question: &str, responses: &mut [ResponseView]) -> anyhow::Result<()> {
    use crate::compare::{External, Plan};
    use crate::progress::NoProgress;
    use crate::retrieve::{Detail, MethodKind};
    let engine = a.corpus.workbench(&NoProgress)?;
    for view in responses.iter_mut() {
        let external = External::open(&a.path, Some("engine"), Some(engine.corpus()))?;
        let settings = crate::config::Settings::default();
        let plan = Plan::of_kinds(&settings, &[MethodKind::Bm25]).with_externals(&[external]);
        let query = engine.query_context(question, &settings);
        let run = plan.run(&engine, &query, &NoProgress)?;
        for hit in &mut view.hits {
            let Some(doc) = engine.corpus().lookup(&hit.id) else {
                continue;
            };
            let Some(explained) = run.explain_in("engine", doc).transpose()? else { continue };
            let Detail::Engine(detail) = &explained.detail else { continue };
            let Some(c) = &detail.comparison else { continue };
            let equal = c.inputs_agree() && c.scores_agree();
            hit.beside = Some(BesideView {
                ranklens: c.ranklens_score,
                engine: c.engine_score,
                k1: c.k1,
                b: c.b,
                differences: c.differences.iter().map(|d| (d.input.clone(), d.says.clone())).collect(),
                equal,
                verdict: c.verdict(),
            });
        }
    }
    Ok(())
}
