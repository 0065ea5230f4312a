//! The self-contained HTML report: inline CSS and SVG, no scripts, no external assets.

use std::fmt::Write;

use super::{ComparisonReport, ReportBody, Stamp, StudyReport, svg};
use crate::compare::Outcome;
use crate::markup::escape_html as escape;
use crate::retrieve::{Detail, fmt_param};

const STYLE: &str = "body{font-family:-apple-system,'Segoe UI',Ubuntu,'DejaVu Sans',sans-serif;margin:24px auto;max-width:1180px;color:#222;line-height:1.4}\
h1{font-size:26px;margin-bottom:4px}h2{margin-top:32px;border-bottom:1px solid #ddd;padding-bottom:4px}\
table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ddd;padding:3px 8px;font-size:13px;text-align:left}\
th{background:#f4f4f4}.num{text-align:right;font-variant-numeric:tabular-nums}.muted{color:#777;font-size:12px}\
.card{border:1px solid #e2e2e2;border-radius:6px;padding:10px 14px;margin:10px 0;background:#fff}\
code,.mono{font-family:'DejaVu Sans Mono',monospace;font-size:12px}.scroll{overflow-x:auto}";

fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>{STYLE}</style></head><body>\n{body}\n</body></html>\n",
        escape(title)
    )
}

fn stamp_html(s: &Stamp) -> String {
    let mut out = String::from("<h2>Reproducibility</h2><table>");
    let st = &s.settings;
    let methods: Vec<&str> = st.methods.iter().map(|m| m.label()).collect();
    let weights: Vec<String> =
        st.fusion.inputs.iter().map(|k| format!("{} {}", k.label(), fmt_param(st.fusion.weight(*k)))).collect();
    let rows = [
        ("RankLens", s.ranklens_version.clone()),
        ("written", s.created.clone()),
        ("corpus", format!("{} ({} passages)", s.corpus_name, s.corpus_size)),
        ("corpus fingerprint (sha256)", s.corpus_fingerprint.clone()),
        ("corpus source", s.corpus_source.clone().unwrap_or_else(|| "—".into())),
        ("analyzer", s.analyzer.clone()),
        ("k", st.k.to_string()),
        (
            "BM25",
            format!(
                "{} k1={} b={} δ={}",
                st.bm25_variant,
                fmt_param(st.bm25.k1),
                fmt_param(st.bm25.b),
                fmt_param(st.bm25.delta)
            ),
        ),
        ("TF-IDF", format!("{}{}", st.tfidf, if st.tfidf_normalize { "" } else { ", no length normalisation" })),
        (
            "fusion",
            format!(
                "{} (RRF k={}), weights: {}",
                st.fusion.method.name(),
                fmt_param(st.fusion.rrf_k),
                weights.join(", ")
            ),
        ),
        ("rerank depth", st.rerank_depth.to_string()),
        ("filter", st.filter.as_ref().map(|f| f.to_string()).unwrap_or_else(|| "none".into())),
        ("methods", methods.join(", ")),
    ];
    for (k, v) in rows {
        let _ = write!(out, "<tr><th>{}</th><td class=\"mono\">{}</td></tr>", escape(k), escape(&v));
    }
    if s.models.is_empty() {
        out.push_str("<tr><th>models</th><td>none loaded</td></tr>");
    }
    for (id, files) in &s.models {
        let list: Vec<String> = files.iter().map(|(f, h)| format!("{f} {h}")).collect();
        let _ =
            write!(out, "<tr><th>model {}</th><td class=\"mono\">{}</td></tr>", escape(id), escape(&list.join("; ")));
    }
    out.push_str("</table>");
    out
}

fn comparison(c: &ComparisonReport) -> String {
    let mut b = String::new();
    let _ = write!(
        b,
        "<h1>{}</h1><p class=\"muted\">One question put through every method, with why each ranked what it ranked.</p>",
        escape(&c.question)
    );
    b.push_str("<h2>Rankings side by side</h2><div class=\"scroll\">");
    b.push_str(&svg::rankings(c));
    b.push_str("</div>");
    for run in &c.comparison.runs {
        b.push_str(&column(c, run));
    }
    if let Some(metrics) = &c.metrics {
        b.push_str(&question_metrics(metrics));
    }
    if let Some(a) = &c.answers {
        b.push_str(&answers_html(a));
    }
    if let Some(r) = &c.reading {
        b.push_str(&reading_html(r));
    }
    if let Some(a) = &c.answer_curve {
        b.push_str(&answers_curve_html(a));
    }
    if let Some(m) = &c.model_sql {
        b.push_str(&model_sql_html(m));
    }
    if let Some(g) = &c.model_graph {
        b.push_str(&graph_html(g));
    }
    b.push_str("<h2>Why: each method's top passages explained</h2>");
    for e in &c.explanations {
        b.push_str(&explanation_card(c, e));
    }
    if let Some(m) = &c.map {
        b.push_str("<h2>Map of the passages (PCA)</h2>");
        b.push_str(&svg::map(m, c));
        let n: Vec<String> = m.neighbours.iter().map(|(id, cos)| format!("{id} ({cos:.3})")).collect();
        let _ = write!(
            b,
            "<p class=\"muted\">2-D distances are approximate; true nearest neighbours by cosine: {}</p>",
            escape(&n.join(", "))
        );
    }
    b.push_str(&stamp_html(&c.stamp));
    b
}

/// A reader's answer: the span and its passage, then each passage read with its best span.
fn reading_html(r: &crate::report::ReadingReport) -> String {
    let num = |x: Option<f64>| x.map_or("—".to_string(), |v| format!("{v:.3}"));
    let mut b = String::from("<h2>Read: the answer in the top passages</h2>");
    match (&r.answer, &r.passage) {
        (Some(a), Some(p)) => {
            let (start, end) = r.chars.unwrap_or((0, 0));
            let _ = write!(
                b,
                "<p><strong>{}</strong> — from {} (characters {start}–{end}), score {}, no-answer {}.</p>",
                escape(a),
                escape(p),
                num(r.score),
                num(r.no_answer_score)
            );
        }
        _ => {
            let _ = write!(
                b,
                "<p><strong>No answer</strong>: the no-answer score {} beats every span read.</p>",
                num(r.no_answer_score)
            );
        }
    }
    let _ = write!(
        b,
        "<p class=\"muted\">{} reading {}'s top {}; scores are {}.</p><table><tr><th>rank</th><th>passage</th><th>best span</th><th>score</th><th>no-answer</th></tr>",
        escape(&r.reader),
        escape(&r.method),
        r.passages.len(),
        escape(&r.unit)
    );
    for p in &r.passages {
        let _ = write!(
            b,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            p.rank,
            escape(&p.passage),
            p.span.as_deref().map_or("—".to_string(), escape),
            num(p.score),
            num(p.no_answer_score)
        );
    }
    b.push_str("</table>");
    b
}

/// The k trade-off: the plot, the verdict and the table.
fn answers_curve_html(a: &crate::compare::AnswerStudy) -> String {
    let reader = a.reader.as_ref().map_or("no reader: answer recall only".to_string(), |r| r.label());
    let mut b = format!(
        "<h2>Retrieve, then read: the k trade-off</h2><p class=\"muted\">{} questions ({} answerable) read through {} by the {}.</p>",
        a.questions.len(),
        a.answerable,
        escape(&a.method),
        escape(&reader)
    );
    b.push_str(&svg::answer_curve(a));
    let _ = write!(
        b,
        "<p>{}</p><table><tr><th>k</th><th>answer recall@k</th><th>exact match</th><th>F1</th><th>answered</th></tr>",
        escape(&a.verdict())
    );
    for p in &a.points {
        let em = p.exact_match.map_or("—".into(), |v| format!("{v:.2}"));
        let f1 = p.f1.map_or("—".into(), |v| format!("{v:.2}"));
        let _ = write!(
            b,
            "<tr><td>{}</td><td>{:.2}</td><td>{em}</td><td>{f1}</td><td>{}</td></tr>",
            p.k, p.recall, p.answered
        );
    }
    b.push_str("</table>");
    b
}

/// The model's two answers side by side, each sentence with the passage that backs it or flagged.
fn answers_html(a: &crate::report::AnswersReport) -> String {
    let mut b = String::new();
    let _ = write!(
        b,
        "<h2>The language model's answers</h2><p class=\"muted\">By {}{}. The passages are {}'s top {}; every \
         sentence of both answers is checked against them (the words it shares after analysis).</p>",
        escape(&a.model),
        a.caveat.as_deref().map(|c| format!(" — {}", escape(c))).unwrap_or_default(),
        escape(&a.source),
        a.passages.len()
    );
    let side = |title: &str, sentences: &[crate::generate::citations::Grounded]| {
        let mut s = format!("<div class=\"answer\"><h3>{}</h3>", escape(title));
        for g in sentences {
            let backing = match (g.supported, g.best.and_then(|n| a.passages.get(n - 1).map(|id| (n, id)))) {
                (true, Some((n, id))) => format!("backed by [{n}] {}: {}", escape(id), escape(&g.words.join(", "))),
                _ => "<b>no passage backs it</b>".to_string(),
            };
            let _ = write!(s, "<p>{}<br><span class=\"muted\">{backing}</span></p>", escape(&g.text));
        }
        s.push_str("</div>");
        s
    };
    b.push_str(&side("With the passages (RAG)", &a.rag));
    if let Some(cb) = &a.closed_book {
        b.push_str(&side("Closed book (no passages)", cb));
    }
    b
}

/// What a column that is not a ranked list shows (the chart draws the ranked ones): why it is
/// missing, an unranked set, SQL rows, graph bindings.
fn column(c: &ComparisonReport, run: &crate::compare::MethodRun) -> String {
    let mut b = String::new();
    match &run.outcome {
        Outcome::Unavailable { message } | Outcome::Failed { message } => {
            let _ = write!(
                b,
                "<p><b>{}</b>: not available — {}</p>",
                escape(&run.label),
                escape(message.lines().next().unwrap_or(""))
            );
        }
        Outcome::Ranked(r) if r.unranked => {
            let ids: Vec<String> = r.hits.iter().filter_map(|h| c.passage(h.doc).map(|p| p.id.clone())).collect();
            let _ = write!(
                b,
                "<p><b>{}</b> (an unranked set of {}): {}</p>",
                escape(&run.label),
                r.total_matches,
                escape(&ids.join(", "))
            );
        }
        Outcome::Ranked(r) if r.agent.is_some() => {
            if let Some(a) = &r.agent {
                b.push_str(&agent_html(&run.label, a));
            }
        }
        Outcome::Ranked(r) if r.generated.is_some() => {
            if let Some(g) = &r.generated {
                let _ = write!(
                    b,
                    "<p><b>{}</b> searched with the model's {} (a guess, not evidence): <i>“{}”</i> — {}{}</p>",
                    escape(&run.label),
                    escape(g.task.name()),
                    escape(&g.text),
                    escape(&g.model),
                    g.caveat.as_deref().map(|c| format!(": {}", escape(c))).unwrap_or_default()
                );
            }
        }
        Outcome::Rows(rows) => b.push_str(&sql_rows(rows)),
        Outcome::Bindings(g) => {
            let _ = write!(b, "<h2>Graph bindings</h2><p class=\"mono\">{}</p><ul>", escape(&g.pattern));
            for m in &g.matches {
                let vars: Vec<String> = m.bindings.iter().map(|(k, v)| format!("{k} = {v}")).collect();
                let path: Vec<String> = m.path.iter().map(|f| format!("{f} [{}]", f.passages.join(", "))).collect();
                let _ = write!(b, "<li><b>{}</b> via {}</li>", escape(&vars.join(", ")), escape(&path.join(" → ")));
            }
            let _ = write!(b, "</ul><p class=\"muted\">{}</p>", escape(&g.note));
        }
        Outcome::Ranked(_) => {}
    }
    b
}

/// An agent's run: each step (round, thought, tool, arguments, passages returned, tokens,
/// seconds, what went wrong), then its answer and why it stopped.
fn agent_html(label: &str, a: &crate::retrieve::agent::AgentRun) -> String {
    let mut b = format!(
        "<h2>{}: the trace</h2><p class=\"muted\">{}{}</p><table><tr><th>round</th><th>thought</th><th>tool</th>\
         <th>arguments</th><th>passages returned</th><th class=\"num\">tokens</th><th class=\"num\">seconds</th></tr>",
        escape(label),
        escape(&a.model),
        a.caveat.as_deref().map(|c| format!(" — {}", escape(c))).unwrap_or_default()
    );
    for step in &a.steps {
        let args = if step.arguments.is_null() { String::new() } else { step.arguments.to_string() };
        let _ = write!(
            b,
            "<tr><td>{}</td><td>{}</td><td class=\"mono\">{}</td><td class=\"mono\">{}</td><td>{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{:.1}</td></tr>",
            step.round,
            escape(&step.thought),
            escape(step.tool.as_deref().unwrap_or("—")),
            escape(&args),
            escape(&step.ids.join(", ")),
            step.tokens,
            step.seconds
        );
        if let Some(p) = &step.problem {
            let _ = write!(b, "<tr><td></td><td colspan=\"6\" class=\"muted\">{}</td></tr>", escape(p));
        }
    }
    b.push_str("</table>");
    let _ = write!(
        b,
        "<p><b>Answer</b> (the model's): {}</p><p class=\"muted\">cites {}; {}</p>",
        escape(if a.answer.text.trim().is_empty() { "(none)" } else { a.answer.text.trim() }),
        escape(&a.cited_ids().join(", ")),
        escape(&a.summary())
    );
    b
}

/// A question asked of the tables in words: the statement and its rows, or why it did not run.
fn model_sql_html(m: &crate::report::ModelSqlReport) -> String {
    use crate::generate::text_to_sql::SqlOutcome;
    let mut b = format!(
        "<h2>Text to SQL</h2><p>“{}” — {} wrote:</p><p class=\"mono\">{}</p>",
        escape(&m.question),
        escape(&m.model),
        escape(&m.sql)
    );
    match &m.outcome {
        SqlOutcome::Rows(rows) => b.push_str(&sql_rows(rows)),
        SqlOutcome::Refused(why) => {
            let _ = write!(b, "<p><b>Not run, and nothing changed:</b> {}</p>", escape(why));
        }
        SqlOutcome::Failed(why) => {
            let _ = write!(b, "<p><b>It failed:</b> {}</p>", escape(why));
        }
    }
    b
}

/// The language model's graph of the corpus: its figures, it against the hand-built graph, and
/// its largest communities with their summaries.
fn graph_html(g: &crate::report::GraphReport) -> String {
    let mut b = format!(
        "<h2>The language model's graph (GraphRAG)</h2><p>{} read {} passages: {} entities, {} relations, {} \
         communities of two or more; {} replies skipped; {:.1} s.</p>",
        escape(&g.model),
        g.passages,
        g.entities,
        g.relations,
        g.communities,
        g.skipped,
        g.seconds
    );
    if let Some(o) = &g.overlap {
        let _ = write!(b, "<p>Against the hand-built knowledge graph: {}</p>", escape(&o.summary()));
    }
    b.push_str("<ul>");
    for (names, summary) in &g.largest {
        let _ = write!(
            b,
            "<li><b>{}</b>{}</li>",
            escape(&names.join(", ")),
            summary.as_deref().map(|s| format!(": {}", escape(s))).unwrap_or_default()
        );
    }
    b.push_str("</ul>");
    b
}

fn sql_rows(rows: &crate::structured::SqlResult) -> String {
    let mut b = format!("<h2>SQL rows (not a ranking)</h2><p class=\"mono\">{}</p><table><tr>", escape(&rows.sql));
    for col in &rows.columns {
        let _ = write!(b, "<th>{}</th>", escape(col));
    }
    b.push_str("</tr>");
    for row in &rows.rows {
        b.push_str("<tr>");
        for v in row {
            let _ = write!(b, "<td>{}</td>", escape(&v.to_string()));
        }
        b.push_str("</tr>");
    }
    b.push_str("</table>");
    if !rows.conditions.is_empty() {
        let _ = write!(b, "<p class=\"muted\">conditions: {}</p>", escape(&rows.conditions.join(" AND ")));
    }
    b
}

fn question_metrics(
    metrics: &std::collections::BTreeMap<String, std::collections::BTreeMap<crate::eval::Metric, f64>>,
) -> String {
    let mut b = String::from("<h2>Metrics for this question</h2><table><tr><th>method</th>");
    let names: Vec<_> = metrics.values().next().map(|m| m.keys().copied().collect()).unwrap_or_default();
    for n in &names {
        let _ = write!(b, "<th>{n}</th>");
    }
    b.push_str("</tr>");
    for (method, values) in metrics {
        let _ = write!(b, "<tr><td>{}</td>", escape(method));
        for n in &names {
            let _ = write!(b, "<td class=\"num\">{:.4}</td>", values.get(n).copied().unwrap_or(0.0));
        }
        b.push_str("</tr>");
    }
    b.push_str("</table>");
    b
}

/// One method's explanation of one of its top passages: the summary, then its parts drawn.
fn explanation_card(c: &ComparisonReport, e: &crate::report::ExplainedHit) -> String {
    let p = c.passages.values().find(|p| p.id == e.passage);
    let mut b = format!(
        "<div class=\"card\"><b>{}</b> · #{} <b>{}</b> {} · score {:.4}<br><span class=\"mono\">{}</span><br>{}",
        escape(&e.method),
        e.rank,
        escape(&e.passage),
        escape(p.map(|p| p.title.as_str()).unwrap_or("")),
        e.explanation.value,
        escape(&e.explanation.formula),
        escape(&e.explanation.summary)
    );
    match &e.explanation.detail {
        Detail::Terms(t) => {
            b.push_str("<br>");
            b.push_str(&svg::term_bars(t, e.kind));
            if let Some(best) =
                t.rows.iter().filter(|r| r.tf > 0).max_by(|a, c| a.contribution.total_cmp(&c.contribution))
            {
                let _ = write!(b, "<pre class=\"mono\">{}</pre>", escape(&t.worked(best).join("\n")));
            }
        }
        Detail::Sparse { matches, .. } => {
            b.push_str("<br>");
            b.push_str(&svg::sparse_overlap(matches));
        }
        Detail::MaxSim { alignments, .. } => {
            b.push_str("<br>");
            b.push_str(&svg::maxsim(alignments));
        }
        Detail::Fusion { parts } => {
            b.push_str("<table><tr><th>input</th><th>rank</th><th>contribution</th></tr>");
            for p in parts {
                let _ = write!(
                    b,
                    "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{:.5}</td></tr>",
                    escape(&p.method),
                    p.rank.map(|r| r.to_string()).unwrap_or_else(|| "—".into()),
                    p.contribution
                );
            }
            b.push_str("</table>");
        }
        Detail::Clauses { clauses, .. } => {
            let list: Vec<String> =
                clauses.iter().map(|c| format!("{} {}", if c.satisfied { "✔" } else { "✘" }, c.clause)).collect();
            let _ = write!(b, "<br>{}", escape(&list.join("; ")));
        }
        Detail::Dense { tokens, .. } if !tokens.is_empty() => {
            let mut top: Vec<&crate::retrieve::TokenPart> = tokens.iter().collect();
            top.sort_by(|a, b| b.contribution.total_cmp(&a.contribution));
            let parts: Vec<String> =
                top.iter().take(10).map(|t| format!("{} {:+.4}", t.token, t.contribution)).collect();
            let _ = write!(
                b,
                "<br>the cosine over the passage's {} tokens (q·hᵢ / (n·|h̄|)), largest parts: {}",
                tokens.len(),
                escape(&parts.join(", "))
            );
        }
        _ => {}
    }
    b.push_str("</div>");
    b
}

fn study(s: &StudyReport) -> String {
    let st = &s.study;
    let mut b = format!(
        "<h1>Evaluation over {} questions</h1><p class=\"muted\">Means over every judged question; paired tests on {} against the baseline ({}), p-values corrected by {} over {} test(s).</p>",
        st.num_queries,
        st.primary,
        escape(st.methods.get(st.baseline).map(|m| m.label.as_str()).unwrap_or("?")),
        st.correction.name(),
        st.methods.len().saturating_sub(1)
    );
    b.push_str("<h2>Metrics</h2><table><tr><th>method</th>");
    for m in &st.metrics.0 {
        let _ = write!(b, "<th>{m}</th>");
    }
    let _ = write!(
        b,
        "<th>wins/losses/ties</th><th>p (randomisation)</th><th>p ({})</th><th>p (t-test)</th></tr>",
        st.correction.name()
    );
    for (i, m) in st.methods.iter().enumerate() {
        let _ = write!(b, "<tr><td>{}</td>", escape(&m.label));
        for metric in &st.metrics.0 {
            let _ = write!(b, "<td class=\"num\">{:.4}</td>", m.summary.mean.get(metric).copied().unwrap_or(0.0));
        }
        match &m.versus_baseline {
            Some(p) => {
                let _ = write!(
                    b,
                    "<td>{}/{}/{}</td><td class=\"num\">{:.4}</td><td class=\"num\">{:.4}</td><td class=\"num\">{:.4}</td>",
                    p.wins, p.losses, p.ties, p.p_randomisation, p.p_adjusted, p.p_t_test
                );
            }
            None if i == st.baseline => b.push_str("<td>baseline</td><td></td><td></td><td></td>"),
            None => b.push_str("<td></td><td></td><td></td><td></td>"),
        }
        b.push_str("</tr>");
    }
    let span = st.metrics.0.len() + 4;
    for m in &st.missing {
        let _ = write!(
            b,
            "<tr><td>{}</td><td colspan=\"{span}\" class=\"muted\">not run: {}</td></tr>",
            escape(&m.label),
            escape(&m.message)
        );
    }
    b.push_str("</table>");
    let (a, c) = st.pair;
    if let (Some(ma), Some(mc)) = (st.methods.get(a), st.methods.get(c))
        && a != c
    {
        let _ = write!(
            b,
            "<h2>Where {} and {} disagree most</h2><table><tr><th>query</th><th>question</th><th>{}</th><th>{}</th></tr>",
            escape(&ma.label),
            escape(&mc.label),
            escape(&ma.label),
            escape(&mc.label)
        );
        for d in &st.disagreements {
            let _ = write!(
                b,
                "<tr><td>{}</td><td>{}</td><td class=\"num\">{:.4}</td><td class=\"num\">{:.4}</td></tr>",
                escape(&d.qid),
                escape(&d.question),
                d.a,
                d.b
            );
        }
        b.push_str("</table>");
    }
    if let Some(v) = &s.validity {
        let _ = write!(
            b,
            "<h2>The judge against the people</h2><p><strong>{}</strong></p><table><tr><th>method</th><th>{} under the people</th><th>under the judge{}</th></tr>",
            escape(&v.verdict),
            v.metric,
            if v.trusted { "" } else { " (not trusted)" }
        );
        for m in &v.systems {
            let _ = write!(
                b,
                "<tr><td>{}</td><td class=\"num\">{:.4}</td><td class=\"num\">{:.4}</td></tr>",
                escape(&m.label),
                m.people,
                m.judge
            );
        }
        let (tau, interval) = (v.tau_text(3), v.interval_text(3));
        let _ = write!(
            b,
            "</table><p>Kendall τ {tau}, 95 % interval {interval} ({} resamples of the {} questions both judged, seed {}). {} of {} pairs flip their paired-test conclusion (Holm, α 0.05).</p>",
            v.resamples,
            v.questions,
            v.seed,
            v.flips.len(),
            v.pairs
        );
        for f in &v.flips {
            let _ = write!(b, "<p>{}</p>", escape(&f.text));
        }
        let kappa = v.kappa.map_or("undefined".into(), |k| format!("{k:.3}"));
        let _ = write!(b, "<p class=\"muted\">Cohen's κ {kappa}; {}.</p>", escape(&v.unjudged));
    }
    if let Some(c) = &s.judge_card {
        let _ = write!(
            b,
            "<h2>The judge's report card</h2><p><strong>{}</strong></p><p class=\"muted\">{} · {} questions · methods: {}</p><table><tr><th>figure</th><th>value</th></tr>",
            escape(&c.verdict),
            escape(&c.model),
            c.questions,
            escape(&c.methods.join(", "))
        );
        for (figure, value) in c.rows() {
            let _ = write!(b, "<tr><td>{}</td><td class=\"num\">{}</td></tr>", escape(&figure), escape(&value));
        }
        b.push_str("</table>");
    }
    if let Some(a) = &s.answers {
        b.push_str(&answers_curve_html(a));
    }
    b.push_str(&stamp_html(&s.stamp));
    b
}

/// Render a report as one HTML page.
pub fn render(body: &ReportBody) -> String {
    match body {
        ReportBody::Comparison(c) => page(&format!("RankLens · {}", c.question), &comparison(c)),
        ReportBody::Study(s) => page("RankLens evaluation", &study(s)),
    }
}
