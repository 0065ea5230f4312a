//! A student's handout as a teacher would print it: the passages as text (what a student reads),
//! then each question with a compact table of just the statistics it needs — its terms' tf in
//! each passage and df, each passage's length, N and avgdl on one line — with numbers to four
//! decimals, and at the end an answer sheet: a table to fill in and the file to hand in
//! (`<student>.json`, or lines of the class's CSV). `questions.json` keeps every count for
//! programs; the page keeps what a person works with.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::Value;

use super::handout::{STYLE, data_html};
use crate::lessons::checkpoint::{AnswerKind, Checkpoint, format_number};
use crate::markup::escape_html as escape;

/// A number as the page prints it: four decimals at most, no trailing zeros.
fn number(v: &Value) -> String {
    match v.as_f64() {
        Some(x) if v.is_f64() => format_number(x),
        _ => v.as_str().map_or_else(|| v.to_string(), str::to_string),
    }
}

/// The words of the question a data block carries (analysed as its terms are: lower case).
fn question_words(data: &Value) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    if let Some(q) = data.get("question_terms").and_then(Value::as_object) {
        out.extend(q.keys().cloned());
    } else if let Some(q) = data.get("question").and_then(Value::as_object) {
        out.extend(q.keys().cloned());
    } else if let Some(q) = data.get("question").and_then(Value::as_str) {
        for w in q.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
            let w = w.to_lowercase();
            if !out.contains(&w) {
                out.push(w);
            }
        }
    }
    out
}

/// |d| of a passage's vector, w = tf × log2(N/df) over all its terms (what a cosine needs).
fn vector_length(terms: &Value, n: f64) -> Option<f64> {
    let m = terms.as_object()?;
    let sum: f64 = m
        .values()
        .filter_map(|c| Some((c.get("tf")?.as_f64()?, c.get("df")?.as_f64()?)))
        .map(|(tf, df)| if df > 0.0 { (tf * (n / df).log2()).powi(2) } else { 0.0 })
        .sum();
    Some(sum.sqrt())
}

/// The scalars of a data block on one line: `N = 27 · avgdl = 26.2222 · k1 = 1.2 · b = 0.75`.
fn scalars(data: &Value) -> String {
    let Some(m) = data.as_object() else { return String::new() };
    let parts: Vec<String> = m
        .iter()
        .filter(|(k, v)| (v.is_number() || v.is_string()) && *k != "question" && *k != "passage")
        .map(|(k, v)| format!("{} = {}", escape(k), escape(&number(v))))
        .collect();
    parts.join(" · ")
}

/// The compact table of a question whose data lists passages with their terms: one row per
/// question word (tf in each passage, df), a row of lengths, and for a cosine a row of |d|.
fn term_table(data: &Value) -> Option<String> {
    let passages: Vec<(String, &Value, Option<&Value>)> = if let Some(ps) =
        data.get("passages").and_then(Value::as_array)
    {
        ps.iter().filter_map(|p| Some((p.get("id")?.as_str()?.to_string(), p.get("terms")?, p.get("dl")))).collect()
    } else if let (Some(id), Some(terms)) = (data.get("passage").and_then(Value::as_str), data.get("passage_terms")) {
        vec![(id.to_string(), terms, None)]
    } else {
        return None;
    };
    if passages.is_empty() {
        return None;
    }
    let words = question_words(data);
    let n = data.get("N").and_then(Value::as_f64);
    let cosine = data.get("question_terms").is_some() || data.get("passage_terms").is_some();
    let mut out = String::from(
        "<p class=\"stats\">Each term's tf in the question and in each passage, and its df:</p><table class=\"data\"><thead><tr><th>term</th>",
    );
    let question_counts = data.get("question_terms").or_else(|| data.get("question").filter(|q| q.is_object()));
    if question_counts.is_some() {
        out.push_str("<th>question</th>");
    }
    for (id, _, _) in &passages {
        let _ = write!(out, "<th>{}</th>", escape(id));
    }
    out.push_str("<th>df</th></tr></thead><tbody>");
    for w in &words {
        let _ = write!(out, "<tr><td><code>{}</code></td>", escape(w));
        if let Some(q) = question_counts {
            let tf = q.get(w).and_then(|c| c.get("tf")).map_or("0".to_string(), number);
            let _ = write!(out, "<td class=\"num\">{tf}</td>");
        }
        let mut df = None;
        for (_, terms, _) in &passages {
            let c = terms.get(w);
            df = df.or_else(|| c.and_then(|c| c.get("df")).cloned());
            let tf = c.and_then(|c| c.get("tf")).map_or("0".to_string(), number);
            let _ = write!(out, "<td class=\"num\">{tf}</td>");
        }
        let df = df.or_else(|| question_counts.and_then(|q| q.get(w)).and_then(|c| c.get("df")).cloned());
        let _ = write!(out, "<td class=\"num\">{}</td></tr>", df.as_ref().map_or("—".to_string(), number));
    }
    if passages.iter().any(|(_, _, dl)| dl.is_some()) {
        out.push_str("<tr><th>length dl</th>");
        if question_counts.is_some() {
            out.push_str("<td></td>");
        }
        for (_, _, dl) in &passages {
            let _ = write!(out, "<td class=\"num\">{}</td>", dl.map_or("—".to_string(), number));
        }
        out.push_str("<td></td></tr>");
    }
    if let (true, Some(n)) = (cosine, n) {
        out.push_str("<tr><th>|d| (all its terms, w = tf·log2(N/df))</th>");
        if question_counts.is_some() {
            out.push_str("<td></td>");
        }
        for (_, terms, _) in &passages {
            let len = vector_length(terms, n).map_or("—".to_string(), format_number);
            let _ = write!(out, "<td class=\"num\">{len}</td>");
        }
        out.push_str("<td></td></tr>");
    }
    out.push_str("</tbody></table>");
    Some(out)
}

/// Any other data, compactly: its scalars on one line (numbers to four decimals), each nested
/// object as `name: k = v · …`, each list of plain values inline, each list of objects as a table.
/// A list shown by an earlier question is not printed again (`seen`: its JSON → the question
/// number that showed it).
fn compact(data: &Value, number_of: usize, seen: &mut BTreeMap<String, usize>) -> String {
    let Some(m) = data.as_object() else { return String::new() };
    let mut out = String::new();
    let line = scalars(data);
    if !line.is_empty() {
        let _ = write!(out, "<p class=\"stats\">{line}</p>");
    }
    for (k, v) in m {
        match v {
            Value::Object(_) => {
                let inner = scalars(v);
                let _ = write!(
                    out,
                    "<p class=\"stats\">{}: {}</p>",
                    escape(k),
                    if inner.is_empty() { data_html(v) } else { inner }
                );
            }
            Value::Array(a)
                if k == "passages"
                    && a.iter().all(|p| p.as_object().is_some_and(|o| o.keys().all(|k| k == "id" || k == "text"))) =>
            {
                // Their text is printed once, under "The passages".
                let ids: Vec<String> = a.iter().filter_map(|p| p.get("id")?.as_str()).map(escape).collect();
                let _ = write!(out, "<p class=\"stats\">passages: {} (their text is above)</p>", ids.join(", "));
            }
            Value::Array(a) if !a.is_empty() && a.iter().all(Value::is_object) => {
                if let Some(first) = seen.get(&v.to_string()) {
                    let _ = write!(out, "<p class=\"stats\">{}: as in question {first}.</p>", escape(k));
                    continue;
                }
                seen.insert(v.to_string(), number_of);
                let mut keys: Vec<String> = Vec::new();
                for x in a.iter().filter_map(Value::as_object) {
                    for key in x.keys() {
                        if !keys.contains(key) {
                            keys.push(key.clone());
                        }
                    }
                }
                // The column that names a row comes first.
                keys.sort_by_key(|k| !ROW_NAMES.contains(&k.as_str()));
                let _ = write!(out, "<p class=\"stats\">{}:</p><table class=\"data\"><thead><tr>", escape(k));
                for key in &keys {
                    let _ = write!(out, "<th>{}</th>", escape(key));
                }
                out.push_str("</tr></thead><tbody>");
                for x in a {
                    out.push_str("<tr>");
                    for key in &keys {
                        let cell = x.get(key).map_or(String::new(), |c| {
                            if c.is_object() || c.is_array() { data_html(c) } else { escape(&number(c)) }
                        });
                        let class = if x.get(key).is_some_and(Value::is_number) { " class=\"num\"" } else { "" };
                        let _ = write!(out, "<td{class}>{cell}</td>");
                    }
                    out.push_str("</tr>");
                }
                out.push_str("</tbody></table>");
            }
            Value::Array(a) => {
                let items: Vec<String> = a.iter().map(|x| escape(&number(x))).collect();
                let _ = write!(out, "<p class=\"stats\">{}: {}</p>", escape(k), items.join(", "));
            }
            _ => {}
        }
    }
    out
}

/// Keys that name a table's row (a place, a term, a question's piece): printed as its first column.
const ROW_NAMES: [&str; 4] = ["place", "term", "question piece", "id"];

/// The passages a handout's questions name (by id), in order of first mention.
fn passages_named(questions: &[Checkpoint]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut add = |id: &str| {
        if !out.iter().any(|x| x == id) {
            out.push(id.to_string());
        }
    };
    for c in questions {
        let d = &c.question.data;
        if let Some(id) = d.get("passage").and_then(Value::as_str) {
            add(id);
        }
        for p in d.get("passages").and_then(Value::as_array).into_iter().flatten() {
            if let Some(id) = p.get("id").and_then(Value::as_str) {
                add(id);
            }
        }
    }
    out
}

/// One student's handout. `texts` gives each passage's text by id.
pub fn handout(
    title: &str,
    subtitle: &str,
    student: &str,
    questions: &[Checkpoint],
    texts: &BTreeMap<String, String>,
) -> String {
    let mut b = format!("<h1>{}</h1>\n<p>{}</p>\n", escape(title), escape(subtitle));
    let named = passages_named(questions);
    if !named.is_empty() {
        b.push_str("<h2>The passages</h2>\n<table class=\"passages\"><tbody>");
        for id in &named {
            let text = texts.get(id).map_or("", String::as_str);
            let _ = write!(b, "<tr><th>{}</th><td class=\"long\">{}</td></tr>", escape(id), escape(text));
        }
        b.push_str("</tbody></table>\n");
    }
    b.push_str("<h2>Questions</h2>\n");
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut last_question: Option<String> = None;
    for (i, c) in questions.iter().enumerate() {
        let q = &c.question;
        let _ = write!(
            b,
            "<div class=\"checkpoint\"><p><strong>{}.</strong> <span class=\"id\">[{}]</span> {}</p>",
            i + 1,
            escape(&q.id),
            escape(&q.prompt)
        );
        // The question a data block is about, when the prompt does not say it: once, until it changes.
        if let Some(question) = q.data.get("question").and_then(Value::as_str)
            && !q.prompt.contains(question)
            && last_question.as_deref() != Some(question)
        {
            let _ = write!(b, "<p class=\"stats\">The question: <strong>{}</strong></p>", escape(question));
            last_question = Some(question.to_string());
        }
        let line = scalars(&q.data);
        match term_table(&q.data) {
            Some(table) => {
                if !line.is_empty() {
                    let _ = write!(b, "<p class=\"stats\">{line}</p>");
                }
                b.push_str(&table);
            }
            None if q.data.is_object() => b.push_str(&compact(&q.data, i + 1, &mut seen)),
            None if !q.data.is_null() => {
                let _ = write!(b, "<div class=\"data\">{}</div>", data_html(&q.data));
            }
            None => {}
        }
        if !q.options.is_empty() {
            let what = if q.kind == AnswerKind::Ordering { "Put in order" } else { "Options" };
            let _ = write!(b, "<p>{what}: {}</p>", q.options.iter().map(|o| escape(o)).collect::<Vec<_>>().join(" · "));
        }
        let _ = writeln!(b, "<p class=\"tolerance\">{}</p></div>", escape(&q.tolerance_text()));
    }
    b.push_str(&answer_sheet(student, questions));
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>{STYLE}{EXTRA}</style>\n</head>\n<body>\n{b}</body>\n</html>\n",
        escape(title)
    )
}

/// What the printout adds to the handouts' stylesheet.
const EXTRA: &str = "\n.stats { margin: 0.2em 0; font-size: 0.92em; }\n.passages th { width: 6em; }\n.sheet td.blank { width: 14em; }\npre.handin { font-size: 0.85em; white-space: pre-wrap; margin: 0.2em 0; }\ntable.handin td { border: none; vertical-align: top; padding: 0 1.5em 0 0; }\n.sheet { break-before: auto; break-inside: avoid; }\ntable.data th, table.data td { padding: 0.05em 0.4em; line-height: 1.25; font-size: 0.92em; }\n.checkpoint { margin: 0.6em 0; }\n.checkpoint p { margin: 0.3em 0; }\n";

/// The answer sheet: a table to fill in, and the file to hand in.
fn answer_sheet(student: &str, questions: &[Checkpoint]) -> String {
    let mut b = String::from(
        "<div class=\"sheet\"><h2>Answer sheet</h2><table class=\"sheet\"><thead><tr><th>question</th><th>your answer</th><th>kind</th></tr></thead><tbody>",
    );
    for q in questions {
        let _ = write!(
            b,
            "<tr><td><code>{}</code></td><td class=\"blank\"></td><td>{}</td></tr>",
            escape(&q.question.id),
            escape(&q.question.tolerance_text())
        );
    }
    b.push_str("</tbody></table>");
    let json: Vec<String> = questions.iter().map(|q| format!("    \"{}\": \"\"", q.question.id)).collect();
    let csv: Vec<String> = questions.iter().map(|q| format!("{student},{},", q.question.id)).collect();
    let _ = write!(
        b,
        "<table class=\"handin\"><tbody><tr><td><p>Hand in <code>{}.json</code>:</p><pre class=\"handin\">{{\n  \"answers\": {{\n{}\n  }}\n}}</pre></td><td><p>or these lines of the class's CSV (<code>student,question,answer</code>):</p><pre class=\"handin\">{}</pre></td></tr></tbody></table></div>",
        escape(student),
        escape(&json.join(",\n")),
        escape(&csv.join("\n"))
    );
    b
}
