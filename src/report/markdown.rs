//! The Markdown report: the same content as the HTML one, as tables and lists.

use std::fmt::Write;

use super::{ReportBody, Stamp};
use crate::compare::Outcome;
use crate::retrieve::{Entry, fmt_param};

/// Text that Markdown reads literally: line breaks become spaces and every character CommonMark
/// or GitHub's tables would read as markup (emphasis, links, raw HTML, entities, code, cells,
/// headings) is backslash-escaped. Safe in running text, headings, list items and table cells.
fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\n' | '\r' => out.push(' '),
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '&' | '|' | '~' | '#' | '!' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// A code span holding `s` literally: fenced by one more backtick than its longest run of
/// backticks, padded with spaces when it starts or ends with one.
fn code(s: &str) -> String {
    let s = s.replace(['\n', '\r'], " ");
    let longest = s.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    if s.trim().is_empty() {
        return format!("{fence} {s} {fence}");
    }
    let pad = if s.starts_with('`') || s.ends_with('`') { " " } else { "" };
    format!("{fence}{pad}{s}{pad}{fence}")
}

/// A code span inside a table cell: GitHub splits cells at `|` even inside code, unless escaped.
fn code_cell(s: &str) -> String {
    code(s).replace('|', "\\|")
}

/// Text inside a table cell.
fn cell(s: &str) -> String {
    text(s)
}

fn stamp_md(s: &Stamp) -> String {
    let st = &s.settings;
    let mut out = String::from("\n## Reproducibility\n\n| | |\n|---|---|\n");
    let rows = [
        ("RankLens", s.ranklens_version.clone()),
        ("written", s.created.clone()),
        ("corpus", format!("{} ({} passages)", s.corpus_name, s.corpus_size)),
        ("corpus fingerprint", s.corpus_fingerprint.clone()),
        ("analyzer", s.analyzer.clone()),
        ("k", st.k.to_string()),
        ("BM25", format!("{} k1={} b={}", st.bm25_variant, fmt_param(st.bm25.k1), fmt_param(st.bm25.b))),
        ("TF-IDF", st.tfidf.to_string()),
        ("fusion", format!("{} k={}", st.fusion.method.name(), fmt_param(st.fusion.rrf_k))),
    ];
    for (k, v) in rows {
        let _ = writeln!(out, "| {k} | {} |", code_cell(&v));
    }
    for (id, files) in &s.models {
        let list: Vec<String> = files.iter().map(|(f, h)| format!("{f} {h}")).collect();
        let _ = writeln!(out, "| model {} | {} |", cell(id), code_cell(&list.join("; ")));
    }
    out
}

/// Render a report as Markdown.
pub fn render(body: &ReportBody) -> String {
    match body {
        ReportBody::Comparison(c) => comparison_md(c),
        ReportBody::Study(r) => study_md(r),
    }
}

fn comparison_md(c: &super::ComparisonReport) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# {}\n", cell(&c.question));
    let ranked: Vec<(&str, &crate::retrieve::Ranking)> = c
        .comparison
        .runs
        .iter()
        .filter_map(|r| match &r.outcome {
            Outcome::Ranked(x) => Some((r.label.as_str(), x)),
            _ => None,
        })
        .collect();
    let _ = writeln!(s, "| rank | {} |", ranked.iter().map(|(l, _)| cell(l)).collect::<Vec<_>>().join(" | "));
    let _ = writeln!(s, "|---|{}", "---|".repeat(ranked.len()));
    let entries: Vec<Vec<(usize, Entry<'_>)>> = ranked.iter().map(|(_, r)| r.entries()).collect();
    let depth = entries.iter().map(Vec::len).max().unwrap_or(0);
    for i in 0..depth {
        let cells: Vec<String> = entries
            .iter()
            .map(|list| match list.get(i) {
                Some((_, Entry::Hit(h))) => {
                    let id = c.passage(h.doc).map(|p| p.id.as_str()).unwrap_or("?");
                    format!("{} ({:.3})", cell(id), h.score)
                }
                Some((_, Entry::Absent(a))) => format!("{} ({:.3}, not in the corpus)", cell(&a.id), a.score),
                None => String::new(),
            })
            .collect();
        let _ = writeln!(s, "| {} | {} |", i + 1, cells.join(" | "));
    }
    for run in &c.comparison.runs {
        match &run.outcome {
            Outcome::Unavailable { message } | Outcome::Failed { message } => {
                let _ = writeln!(
                    s,
                    "\n- **{}**: not available — {}",
                    text(&run.label),
                    text(message.lines().next().unwrap_or(""))
                );
            }
            Outcome::Rows(r) => {
                let _ = writeln!(s, "\n## SQL rows (not a ranking)\n\n{}\n", code(&r.sql));
                let columns: Vec<String> = r.columns.iter().map(|c| cell(c)).collect();
                let _ = writeln!(s, "| {} |\n|{}", columns.join(" | "), "---|".repeat(r.columns.len()));
                for row in &r.rows {
                    let _ =
                        writeln!(s, "| {} |", row.iter().map(|v| cell(&v.to_string())).collect::<Vec<_>>().join(" | "));
                }
            }
            Outcome::Bindings(g) => {
                let _ = writeln!(s, "\n## Graph bindings\n\n{}\n", code(&g.pattern));
                for m in &g.matches {
                    let vars: Vec<String> = m.bindings.iter().map(|(k, v)| format!("{k} = {v}")).collect();
                    let _ = writeln!(s, "- {}", text(&vars.join(", ")));
                }
                let _ = writeln!(s, "\n_{}_", text(&g.note));
            }
            Outcome::Ranked(r) => {
                if let Some(a) = &r.agent {
                    let _ = writeln!(s, "\n## {}: the trace\n", cell(&run.label));
                    let _ = writeln!(s, "| round | thought | tool | arguments | passages | tokens | seconds |");
                    let _ = writeln!(s, "|---|---|---|---|---|---|---|");
                    for step in &a.steps {
                        let args = if step.arguments.is_null() { String::new() } else { step.arguments.to_string() };
                        let _ = writeln!(
                            s,
                            "| {} | {} | {} | {} | {} | {} | {:.1} |",
                            step.round,
                            cell(&step.thought),
                            cell(step.tool.as_deref().unwrap_or("—")),
                            cell(&args),
                            cell(&step.ids.join(", ")),
                            step.tokens,
                            step.seconds
                        );
                    }
                    let _ = writeln!(
                        s,
                        "\nAnswer (the model's): {}\n\n_{}_",
                        cell(a.answer.text.trim()),
                        text(&a.summary())
                    );
                } else if let Some(g) = &r.generated {
                    let _ = writeln!(
                        s,
                        "\n- **{}** searched with the model's {} (a guess, not evidence): “{}” — {}{}",
                        text(&run.label),
                        text(g.task.name()),
                        text(&g.text),
                        text(&g.model),
                        g.caveat.as_deref().map(|c| format!(": {}", text(c))).unwrap_or_default()
                    );
                }
            }
        }
    }
    if let Some(r) = &c.reading {
        s.push_str(&reading_md(r));
    }
    if let Some(a) = &c.answer_curve {
        s.push_str(&answers_curve_md(a));
    }
    s.push_str("\n## Why\n\n");
    if let Some(a) = &c.answers {
        let _ = writeln!(
            s,
            "## The language model's answers\n\nBy {}; passages: {}'s top {}.\n",
            cell(&a.model),
            cell(&a.source),
            a.passages.len()
        );
        let mut side = |title: &str, sentences: &[crate::generate::citations::Grounded]| {
            let _ = writeln!(s, "### {title}\n");
            for g in sentences {
                let backing = match (g.supported, g.best.and_then(|n| a.passages.get(n - 1).map(|id| (n, id)))) {
                    (true, Some((n, id))) => format!("backed by [{n}] {}", cell(id)),
                    _ => "**no passage backs it**".to_string(),
                };
                let _ = writeln!(s, "- {} — {backing}", cell(&g.text));
            }
            let _ = writeln!(s);
        };
        side("With the passages (RAG)", &a.rag);
        if let Some(cb) = &a.closed_book {
            side("Closed book (no passages)", cb);
        }
    }
    if let Some(m) = &c.model_sql {
        use crate::generate::text_to_sql::SqlOutcome;
        let _ = writeln!(s, "## Text to SQL\n\n“{}” — {} wrote {}\n", cell(&m.question), cell(&m.model), code(&m.sql));
        match &m.outcome {
            SqlOutcome::Rows(r) => {
                let columns: Vec<String> = r.columns.iter().map(|c| cell(c)).collect();
                let _ = writeln!(s, "| {} |\n|{}", columns.join(" | "), "---|".repeat(r.columns.len()));
                for row in &r.rows {
                    let _ =
                        writeln!(s, "| {} |", row.iter().map(|v| cell(&v.to_string())).collect::<Vec<_>>().join(" | "));
                }
            }
            SqlOutcome::Refused(why) => {
                let _ = writeln!(s, "**Not run, and nothing changed:** {}", text(why));
            }
            SqlOutcome::Failed(why) => {
                let _ = writeln!(s, "**It failed:** {}", text(why));
            }
        }
        let _ = writeln!(s);
    }
    if let Some(g) = &c.model_graph {
        let _ = writeln!(
            s,
            "## The language model's graph (GraphRAG)\n\n{} read {} passages: {} entities, {} relations, {} communities \
             of two or more; {} replies skipped; {:.1} s.\n",
            cell(&g.model),
            g.passages,
            g.entities,
            g.relations,
            g.communities,
            g.skipped,
            g.seconds
        );
        if let Some(o) = &g.overlap {
            let _ = writeln!(s, "Against the hand-built knowledge graph: {}\n", text(&o.summary()));
        }
    }
    for e in &c.explanations {
        let _ = writeln!(
            s,
            "- **{}** #{} {} — {:.4}: {}",
            text(&e.method),
            e.rank,
            code(&e.passage),
            e.explanation.value,
            text(&e.explanation.summary)
        );
    }
    s.push_str(&stamp_md(&c.stamp));
    s
}

/// A reader's answer and each passage read.
fn reading_md(r: &super::ReadingReport) -> String {
    let num = |x: Option<f64>| x.map_or("—".to_string(), |v| format!("{v:.3}"));
    let mut s = String::from("\n## Read: the answer in the top passages\n\n");
    match (&r.answer, &r.passage) {
        (Some(a), Some(p)) => {
            let (start, end) = r.chars.unwrap_or((0, 0));
            let _ = writeln!(
                s,
                "**{}** — from {} (characters {start}–{end}), score {}, no-answer {}.\n",
                text(a),
                text(p),
                num(r.score),
                num(r.no_answer_score)
            );
        }
        _ => {
            let _ =
                writeln!(s, "**No answer**: the no-answer score {} beats every span read.\n", num(r.no_answer_score));
        }
    }
    let _ = writeln!(
        s,
        "{} reading {}'s top {}; scores are {}.\n\n| rank | passage | best span | score | no-answer |\n|---|---|---|---|---|",
        text(&r.reader),
        text(&r.method),
        r.passages.len(),
        text(&r.unit)
    );
    for p in &r.passages {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} |",
            p.rank,
            cell(&p.passage),
            p.span.as_deref().map_or("—".to_string(), cell),
            num(p.score),
            num(p.no_answer_score)
        );
    }
    s
}

/// The k trade-off as a table, with what it says.
fn answers_curve_md(a: &crate::compare::AnswerStudy) -> String {
    let reader = a.reader.as_ref().map_or("no reader: answer recall only".to_string(), |r| r.label());
    let mut s = format!(
        "\n## Retrieve, then read: the k trade-off\n\n{} questions ({} answerable) read through {} by the {}.\n\n| k | answer recall@k | exact match | F1 | answered |\n|---|---|---|---|---|\n",
        a.questions.len(),
        a.answerable,
        cell(&a.method),
        cell(&reader)
    );
    for p in &a.points {
        let em = p.exact_match.map_or("—".into(), |v| format!("{v:.2}"));
        let f1 = p.f1.map_or("—".into(), |v| format!("{v:.2}"));
        let _ = writeln!(s, "| {} | {:.2} | {em} | {f1} | {} |", p.k, p.recall, p.answered);
    }
    let _ = writeln!(s, "\n{}", text(&a.verdict()));
    s
}

fn study_md(r: &super::StudyReport) -> String {
    let mut s = String::new();
    let st = &r.study;
    let _ = writeln!(s, "# Evaluation over {} questions\n", st.num_queries);
    let names: Vec<String> = st.metrics.0.iter().map(|m| m.to_string()).collect();
    let correction = st.correction.name();
    let _ = writeln!(s, "| method | {} | W/L/T | p (rand) | p ({correction}) | p (t) |", names.join(" | "));
    let _ = writeln!(s, "|---|{}---|---|---|---|", "---|".repeat(names.len()));
    for m in &st.methods {
        let vals: Vec<String> =
            st.metrics.0.iter().map(|x| format!("{:.4}", m.summary.mean.get(x).copied().unwrap_or(0.0))).collect();
        let test = m
            .versus_baseline
            .as_ref()
            .map(|p| {
                let (r, a, t) = (p.p_randomisation, p.p_adjusted, p.p_t_test);
                format!("{}/{}/{} | {r:.4} | {a:.4} | {t:.4}", p.wins, p.losses, p.ties)
            })
            .unwrap_or_else(|| "baseline | | | ".into());
        let _ = writeln!(s, "| {} | {} | {test} |", cell(&m.label), vals.join(" | "));
    }
    for m in &st.missing {
        let dashes = vec!["—"; names.len()].join(" | ");
        let _ = writeln!(s, "| {} | {dashes} | not run: {} | | | |", cell(&m.label), cell(&m.message));
    }
    if let Some(v) = &r.validity {
        let _ = writeln!(s, "\n## The judge against the people\n\n**{}**\n", v.verdict);
        let judge = if v.trusted { "under the judge" } else { "under the judge (not trusted)" };
        let _ = writeln!(s, "| method | {} under the people | {judge} |\n|---|---|---|", v.metric);
        for m in &v.systems {
            let _ = writeln!(s, "| {} | {:.4} | {:.4} |", cell(&m.label), m.people, m.judge);
        }
        let (tau, interval) = (v.tau_text(3), v.interval_text(3));
        let _ = writeln!(
            s,
            "\nKendall τ {tau}, 95 % interval {interval}; {} of {} pairs flip their paired-test conclusion.",
            v.flips.len(),
            v.pairs
        );
        for f in &v.flips {
            let _ = writeln!(s, "- {}", f.text);
        }
    }
    if let Some(c) = &r.judge_card {
        let _ = writeln!(s, "\n## The judge's report card\n\n**{}**\n", c.verdict);
        let _ = writeln!(s, "{} · {} questions · methods: {}\n", c.model, c.questions, cell(&c.methods.join(", ")));
        let _ = writeln!(s, "| figure | value |\n|---|---|");
        for (figure, value) in c.rows() {
            let _ = writeln!(s, "| {} | {} |", cell(figure.trim_start()), cell(&value));
        }
    }
    if let Some(a) = &r.answers {
        s.push_str(&answers_curve_md(a));
    }
    s.push_str(&stamp_md(&r.stamp));
    s
}
