//! A Lucene explanation read into the Explain view's language: one row per term weight
//! (`weight(FIELD:TERM in DOC)`) with its tf, df, N, idf, dl, avgdl, k1, b and boost, and how
//! much of the score each row carries.
//!
//! Nodes are recognised by the structure of their descriptions, not by one version's wording:
//! Elasticsearch 5 writes `idf(docFreq=1, docCount=5)`, 6 writes `docFreq` / `docCount` and
//! `tfNorm` with `termFreq=1.0`, 7 and later write `n, number of documents containing term`,
//! `N, total number of documents with field`, `freq, occurrences of term within document` and
//! `dl, length of field (approximate)`. A role is found from the first word of a description and
//! the `name=value` pairs in it.
//!
//! How the rows add up is read from the nodes above them: a `sum of` adds its children, a
//! `max of` (dis_max) counts its best child and the others times the tie breaker, a `product of`
//! scales the one child that holds term weights by the others (a function score, a boost). Any
//! other combination (a hybrid query's normalisation, RRF, `min of`) is named, and the rows are
//! shown without claiming a sum.

use serde::{Deserialize, Serialize};

use super::tree::ExplainNode;

/// One term weight of an engine's explanation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EngineTermRow {
    /// The term as the engine analysed it (a phrase in quotes, synonyms joined with `|`).
    pub term: String,
    /// The field it was scored in.
    pub field: String,
    /// Occurrences in the field (`freq`, `termFreq`, `phraseFreq`).
    pub tf: Option<f64>,
    /// Documents containing the term (`n`, `docFreq`); for a phrase, its last word's.
    pub df: Option<f64>,
    /// A phrase's n for each of its words, in order (its idf is the sum of theirs); empty for a
    /// single term.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub df_each: Vec<f64>,
    /// Documents with the field (`N`, `docCount`).
    pub n: Option<f64>,
    /// The idf factor.
    pub idf: Option<f64>,
    /// The field's length as the engine stored it.
    pub dl: Option<f64>,
    /// True when the engine says its length is approximate (Lucene's one-byte norm).
    pub dl_approximate: bool,
    /// Average field length.
    pub avgdl: Option<f64>,
    /// k1.
    pub k1: Option<f64>,
    /// b.
    pub b: Option<f64>,
    /// The query boost factor (Elasticsearch and OpenSearch fold k1 + 1 into it).
    pub boost: Option<f64>,
    /// The term-frequency factor (`tf` or `tfNorm`).
    pub tf_weight: Option<f64>,
    /// The weight node's value.
    pub weight: f64,
    /// What the nodes above scale this weight by (1 under sums; the tie breaker under a dis_max's
    /// other branches; a function score's factor). `None` where a node above does not combine
    /// linearly.
    pub multiplier: Option<f64>,
    /// The row's part of the score: weight × multiplier.
    pub contribution: Option<f64>,
    /// The similarity named after the weight (`PerFieldSimilarity`, `SchemaSimilarity`).
    pub similarity: String,
}

/// What a Lucene explanation says in rows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct LuceneBreakdown {
    /// One row per term weight, in tree order.
    pub rows: Vec<EngineTermRow>,
    /// Parts of the score that are not term weights (a constant score, a function's addend).
    pub other: Vec<(String, f64)>,
    /// The first node that does not combine its children linearly, when there is one: then the
    /// rows do not sum to the score and the tree is the explanation.
    pub not_a_sum: Option<String>,
}

impl LuceneBreakdown {
    /// Σ row contributions + Σ other parts, when the score is their sum. Rows without a
    /// contribution are inputs of a rank-based combination (RRF), whose parts are in `other`.
    pub fn total(&self) -> Option<f64> {
        if self.not_a_sum.is_some() {
            return None;
        }
        let rows: f64 = self.rows.iter().filter_map(|r| r.contribution).sum();
        Some(rows + self.other.iter().map(|(_, v)| v).sum::<f64>())
    }
}

/// Read a tree's term weights and how they add up.
pub fn breakdown(tree: &ExplainNode) -> LuceneBreakdown {
    let mut out = LuceneBreakdown::default();
    walk(tree, Some(1.0), &mut out);
    out
}

/// `weight(FIELD:TERM in DOC) [Similarity], result of:` → (field, term, similarity).
pub fn weight_target(description: &str) -> Option<(String, String, String)> {
    let d = description.trim_start();
    let open = d.find('(')?;
    let head = &d[..open];
    if !(head == "weight" || head.ends_with("Weight")) {
        return None;
    }
    let rest = &d[open + 1..];
    let close = rest.rfind(" in ")?;
    let target = &rest[..close];
    let similarity = rest[close..]
        .split_once('[')
        .and_then(|(_, s)| s.split_once(']'))
        .map(|(s, _)| s.to_string())
        .unwrap_or_default();
    // Synonym(body:a body:b): one row for the group.
    if let Some(inner) = target.strip_prefix("Synonym(").and_then(|t| t.strip_suffix(')')) {
        let parts: Vec<(&str, &str)> = inner.split_whitespace().filter_map(|p| p.split_once(':')).collect();
        let field = parts.first().map(|(f, _)| f.to_string())?;
        let term = parts.iter().map(|(_, t)| *t).collect::<Vec<_>>().join("|");
        return Some((field, term, similarity));
    }
    // CombinedFieldQuery((title text)(term)) — Elasticsearch's combined_fields, BM25F over the
    // fields as one: one row, its field the fields joined by `+`.
    if let Some(inner) = target.strip_prefix("CombinedFieldQuery((").and_then(|t| t.strip_suffix("))")) {
        let (fields, terms) = inner.split_once(")(")?;
        let field = fields.split_whitespace().collect::<Vec<_>>().join("+");
        let term = terms.split_whitespace().collect::<Vec<_>>().join("|");
        return (!field.is_empty() && !term.is_empty()).then_some((field, term, similarity));
    }
    let (field, term) = target.split_once(':')?;
    Some((field.to_string(), term.to_string(), similarity))
}

/// Does any node below (or this one) carry a term weight?
fn has_weight(node: &ExplainNode) -> bool {
    node.walk().iter().any(|(_, n)| weight_target(&n.description).is_some())
}

/// The first word of a description, lowercased, without its punctuation (`tf,` → `tf`).
fn role(description: &str) -> String {
    let word = description.trim().split([' ', ',', '(', '=']).next().unwrap_or("");
    word.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase()
}

/// `name=value` pairs written in a description (`idf(docFreq=1, docCount=5)`, `termFreq=1.0`).
fn pairs(description: &str) -> Vec<(String, f64)> {
    description
        .split([',', '(', ')', ' '])
        .filter_map(|p| p.split_once('='))
        .filter_map(|(k, v)| Some((k.trim().to_lowercase(), v.trim().parse::<f64>().ok()?)))
        .collect()
}

fn walk(node: &ExplainNode, multiplier: Option<f64>, out: &mut LuceneBreakdown) {
    if let Some((field, term, similarity)) = weight_target(&node.description) {
        out.rows.push(term_row(node, field, term, similarity, multiplier));
        return;
    }
    if !has_weight(node) {
        // A part that is not a term weight: under a linear path it adds to the score.
        if node.value != 0.0
            && let Some(m) = multiplier
        {
            out.other.push((node.description.trim_end_matches(':').to_string(), node.value * m));
        }
        return;
    }
    let d = node.description.trim().to_lowercase();
    let nonlinear = |out: &mut LuceneBreakdown| {
        out.not_a_sum.get_or_insert_with(|| node.description.clone());
        None
    };
    if d.starts_with("rrf score:") && d.contains("computed for initial ranks") {
        // Elasticsearch's RRF: each query adds 1 / (rank + k); its BM25 rows are inputs only.
        for c in &node.details {
            let part = c
                .description
                .strip_prefix("rrf score: [")
                .and_then(|r| r.split(']').next())
                .and_then(|v| v.parse::<f64>().ok());
            let what = c.description.split_once("], ").map_or(c.description.as_str(), |(_, w)| w);
            let what = what.split(", for matching query").next().unwrap_or(what).trim_end_matches(',');
            match (part, multiplier) {
                (Some(p), Some(m)) => out.other.push((format!("RRF: {what}"), p * m)),
                _ if c.value == 0.0 => {}
                _ => {
                    out.not_a_sum.get_or_insert_with(|| node.description.clone());
                }
            }
            for d in &c.details {
                walk(d, None, out);
            }
        }
        return;
    }
    if d.starts_with("sum of") || d.contains(", sum of") || node.details.len() == 1 && !d.contains("product of") {
        // `sum of:`, a wrapper with one child (`result of:`, `ConstantScore`, a query's name).
        let m = if node.details.len() == 1 && !d.contains("sum of") {
            match multiplier {
                // A wrapper whose value is its child's passes the child through; any other
                // single-child node scales it (or is something else altogether).
                Some(m) if same(node.value, node.details[0].value) => Some(m),
                Some(m) if node.details[0].value != 0.0 && d.contains("product") => {
                    Some(m * node.value / node.details[0].value)
                }
                _ => nonlinear(out),
            }
        } else {
            multiplier
        };
        for c in &node.details {
            walk(c, m, out);
        }
    } else if d.starts_with("max of") || d.starts_with("max plus") {
        // dis_max: `max of:` (tie breaker 0) or `max plus 0.3 times others of:`.
        let tie = if d.starts_with("max plus") {
            d.split_whitespace().nth(2).and_then(|t| t.parse::<f64>().ok()).unwrap_or(0.0)
        } else {
            0.0
        };
        let best = node.details.iter().enumerate().max_by(|a, b| a.1.value.total_cmp(&b.1.value)).map(|(i, _)| i);
        for (i, c) in node.details.iter().enumerate() {
            let m = multiplier.map(|m| if Some(i) == best { m } else { m * tie });
            walk(c, m, out);
        }
    } else if d.contains("product of") || d.starts_with("function score") {
        // Scale the one child holding term weights by the product of the others.
        let with: Vec<&ExplainNode> = node.details.iter().filter(|c| has_weight(c)).collect();
        let m = match with.as_slice() {
            [_] => {
                let factor: f64 = node.details.iter().filter(|c| !has_weight(c)).map(|c| c.value).product();
                multiplier.map(|m| m * factor)
            }
            _ => nonlinear(out),
        };
        for c in &node.details {
            if has_weight(c) {
                walk(c, m, out);
            }
        }
    } else {
        let m = nonlinear(out);
        for c in &node.details {
            walk(c, m, out);
        }
    }
}

fn same(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * a.abs().max(b.abs()).max(1.0)
}

fn term_row(node: &ExplainNode, field: String, term: String, similarity: String, m: Option<f64>) -> EngineTermRow {
    let mut row = EngineTermRow {
        term,
        field,
        tf: None,
        df: None,
        df_each: Vec::new(),
        n: None,
        idf: None,
        dl: None,
        dl_approximate: false,
        avgdl: None,
        k1: None,
        b: None,
        boost: None,
        tf_weight: None,
        weight: node.value,
        multiplier: m,
        contribution: m.map(|m| m * node.value),
        similarity,
    };
    let mut boosts: Vec<f64> = Vec::new();
    for (_, n) in node.walk().into_iter().skip(1) {
        let desc = n.description.trim();
        let lower = desc.to_lowercase();
        let r = role(desc);
        for (k, v) in pairs(desc) {
            match k.as_str() {
                "termfreq" | "freq" | "phrasefreq" => {
                    row.tf.get_or_insert(v);
                }
                // Elasticsearch 5's `idf(docFreq=1, docCount=5)`, one per word of a phrase.
                "docfreq" => {
                    row.df.get_or_insert(v);
                    row.df_each.push(v);
                }
                "doccount" | "maxdocs" => {
                    row.n.get_or_insert(v);
                }
                _ => {}
            }
        }
        match r.as_str() {
            // The first (outermost) idf and tf weight: a phrase's idf is the sum of its words'.
            "idf" => {
                row.idf.get_or_insert(n.value);
            }
            "tf" | "tfnorm" => {
                row.tf_weight.get_or_insert(n.value);
            }
            "freq" | "termfreq" | "phrasefreq" => row.tf = Some(n.value),
            "n" if desc.starts_with('N') => row.n = Some(n.value),
            "n" | "docfreq" => {
                row.df = Some(n.value);
                row.df_each.push(n.value);
            }
            "doccount" => row.n = Some(n.value),
            "k1" => row.k1 = Some(n.value),
            "b" => row.b = Some(n.value),
            "parameter" if lower.starts_with("parameter k1") => row.k1 = Some(n.value),
            "parameter" if lower.starts_with("parameter b") => row.b = Some(n.value),
            "dl" | "fieldlength" => {
                row.dl = Some(n.value);
                row.dl_approximate = lower.contains("approximate");
            }
            "avgdl" | "avgfieldlength" => row.avgdl = Some(n.value),
            "boost" | "queryboost" => boosts.push(n.value),
            _ => {}
        }
    }
    if !boosts.is_empty() {
        row.boost = Some(boosts.iter().product());
    }
    if row.df_each.len() < 2 {
        row.df_each.clear();
    }
    row
}

impl EngineTermRow {
    /// The df column: n, or a phrase's n of each word joined by `+` (`1+3`).
    pub fn df_text(&self) -> String {
        if self.df_each.len() > 1 {
            self.df_each.iter().map(|d| crate::formula::fmt_param(*d)).collect::<Vec<_>>().join("+")
        } else {
            self.df.map(crate::formula::fmt_param).unwrap_or_else(|| "—".into())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(value: f64, description: &str, details: Vec<ExplainNode>) -> ExplainNode {
        ExplainNode { value, description: description.into(), details }
    }

    /// Elasticsearch 7's shape for one term (k1 + 1 in the boost).
    fn es7_weight(term: &str, value: f64, freq: f64, n: f64, dl: f64) -> ExplainNode {
        let idf = (1.0 + (5.0 - n + 0.5) / (n + 0.5)).ln();
        let tf = freq / (freq + 1.2 * (1.0 - 0.75 + 0.75 * dl / 5.4));
        node(
            value,
            &format!("weight(message:{term} in 0) [PerFieldSimilarity], result of:"),
            vec![node(
                value,
                "score(freq=1.0), product of:",
                vec![
                    node(2.2, "boost", vec![]),
                    node(
                        idf,
                        "idf, computed as log(1 + (N - n + 0.5) / (n + 0.5)) from:",
                        vec![
                            node(n, "n, number of documents containing term", vec![]),
                            node(5.0, "N, total number of documents with field", vec![]),
                        ],
                    ),
                    node(
                        tf,
                        "tf, computed as freq / (freq + k1 * (1 - b + b * dl / avgdl)) from:",
                        vec![
                            node(freq, "freq, occurrences of term within document", vec![]),
                            node(1.2, "k1, term saturation parameter", vec![]),
                            node(0.75, "b, length normalization parameter", vec![]),
                            node(dl, "dl, length of field (approximate)", vec![]),
                            node(5.4, "avgdl, average length of field", vec![]),
                        ],
                    ),
                ],
            )],
        )
    }

    #[test]
    fn every_factor_of_an_es7_weight_is_read() {
        let b = breakdown(&es7_weight("elasticsearch", 1.6943597, 1.0, 1.0, 3.0));
        let r = &b.rows[0];
        assert_eq!(
            (r.field.as_str(), r.term.as_str(), r.similarity.as_str()),
            ("message", "elasticsearch", "PerFieldSimilarity")
        );
        assert_eq!(
            (r.tf, r.df, r.n, r.dl, r.avgdl, r.k1, r.b, r.boost),
            (Some(1.0), Some(1.0), Some(5.0), Some(3.0), Some(5.4), Some(1.2), Some(0.75), Some(2.2))
        );
        assert!(r.dl_approximate);
        // One word: its df alone, no list of each word's.
        assert_eq!((r.df_each.as_slice(), r.df_text().as_str()), (&[][..], "1"));
        // By hand: ln(1 + 4.5/1.5) = ln 4 = 1.3862944; tf = 1/(1 + 1.2·(0.25 + 0.75·3/5.4)) = 0.5555556.
        assert!((r.idf.unwrap() - 4f64.ln()).abs() < 1e-12);
        assert!((r.tf_weight.unwrap() - 0.555_555_6).abs() < 1e-6);
        assert_eq!(b.total(), Some(1.6943597));
    }

    #[test]
    fn es6_and_es5_wordings_give_the_same_rows() {
        let es6 = node(
            1.2,
            "weight(body:sync in 3) [PerFieldSimilarity], result of:",
            vec![node(
                1.2,
                "score(doc=3,freq=2.0 = termFreq=2.0\n), product of:",
                vec![
                    node(
                        0.9,
                        "idf, computed as log(1 + (docCount - docFreq + 0.5) / (docFreq + 0.5)) from:",
                        vec![node(3.0, "docFreq", vec![]), node(10.0, "docCount", vec![])],
                    ),
                    node(
                        1.33,
                        "tfNorm, computed as (freq * (k1 + 1)) / (freq + k1 * (1 - b + b * fieldLength / avgFieldLength)) from:",
                        vec![
                            node(2.0, "termFreq=2.0", vec![]),
                            node(1.2, "parameter k1", vec![]),
                            node(0.75, "parameter b", vec![]),
                            node(7.5, "avgFieldLength", vec![]),
                            node(8.0, "fieldLength", vec![]),
                        ],
                    ),
                ],
            )],
        );
        let es5 = node(
            1.2,
            "weight(body:sync in 3) [PerFieldSimilarity], result of:",
            vec![node(
                1.2,
                "score(doc=3,freq=2.0 = termFreq=2.0\n), product of:",
                vec![
                    node(0.9, "idf(docFreq=3, docCount=10)", vec![]),
                    node(
                        1.33,
                        "tfNorm, computed from:",
                        vec![
                            node(2.0, "termFreq=2.0", vec![]),
                            node(1.2, "parameter k1", vec![]),
                            node(0.75, "parameter b", vec![]),
                            node(7.5, "avgFieldLength", vec![]),
                            node(8.0, "fieldLength", vec![]),
                        ],
                    ),
                ],
            )],
        );
        for tree in [es6, es5] {
            let r = &breakdown(&tree).rows[0];
            assert_eq!(
                (r.tf, r.df, r.n, r.idf, r.tf_weight),
                (Some(2.0), Some(3.0), Some(10.0), Some(0.9), Some(1.33))
            );
            assert_eq!((r.k1, r.b, r.dl, r.avgdl, r.boost), (Some(1.2), Some(0.75), Some(8.0), Some(7.5), None));
        }
    }

    #[test]
    fn an_es5_phrase_reads_its_frequency_from_the_score_line_and_each_word_s_df() {
        let phrase = node(
            2.0,
            "weight(body:\"a b\" in 0) [PerFieldSimilarity], result of:",
            vec![node(
                2.0,
                "score(doc=0,freq=1.0 = phraseFreq=1.0\n), product of:",
                vec![
                    node(
                        1.5,
                        "idf, sum of:",
                        vec![
                            node(0.9, "idf(docFreq=1, docCount=5)", vec![]),
                            node(0.6, "idf(docFreq=3, docCount=5)", vec![]),
                        ],
                    ),
                    node(1.33, "tfNorm, computed from:", vec![node(1.2, "parameter k1", vec![])]),
                ],
            )],
        );
        let r = &breakdown(&phrase).rows[0];
        assert_eq!(
            (r.term.as_str(), r.tf, r.n, r.idf, r.tf_weight),
            ("\"a b\"", Some(1.0), Some(5.0), Some(1.5), Some(1.33))
        );
        assert_eq!((r.df, r.df_each.as_slice(), r.df_text().as_str()), (Some(1.0), &[1.0, 3.0][..], "1+3"));
    }

    #[test]
    fn a_frequency_written_only_as_a_node_is_read() {
        let tree = node(
            1.0,
            "weight(body:x in 0) [BM25], result of:",
            vec![node(
                1.0,
                "score(doc=0), computed as boost * idf * tf from:",
                vec![node(
                    0.5,
                    "tf, computed as freq / (freq + k1 * (1 - b + b * dl / avgdl)) from:",
                    vec![
                        node(3.0, "freq, occurrences of term within document", vec![]),
                        node(0.5, "parameter delta", vec![]),
                    ],
                )],
            )],
        );
        let r = &breakdown(&tree).rows[0];
        assert_eq!((r.tf, r.tf_weight, r.contribution), (Some(3.0), Some(0.5), Some(1.0)));
        // Neither k1 nor b was given; no df either.
        assert_eq!((r.k1, r.b, r.df, r.df_text().as_str()), (None, None, None, "—"));
    }

    #[test]
    fn values_agree_to_a_millionth_of_the_larger_or_of_one() {
        assert!(same(2.0, 2.0) && same(1000.0005, 1000.0) && same(1e-7, 0.0) && same(-3.0, -3.000002));
        assert!(!same(1000.002, 1000.0) && !same(2e-6, 0.0) && !same(2.0, -2.0) && !same(1.0, 1.00001));
    }

    #[test]
    fn sums_maxima_and_products_scale_the_rows_and_other_nodes_are_named() {
        let a = es7_weight("a", 2.0, 1.0, 1.0, 3.0);
        let b = es7_weight("b", 1.0, 1.0, 2.0, 3.0);
        let c = es7_weight("c", 0.5, 1.0, 3.0, 3.0);
        // dis_max with tie breaker 0.3 over (a + b) and c, then a function score × 1.5.
        let sum = node(3.0, "sum of:", vec![a, b]);
        let dismax = node(3.15, "max plus 0.3 times others of:", vec![sum, c.clone()]);
        let fs = node(
            4.725,
            "function score, product of:",
            vec![
                dismax,
                node(
                    1.5,
                    "min of:",
                    vec![
                        node(1.5, "field value function: none(doc['votes'].value * factor=1.5)", vec![]),
                        node(3.4028235e38, "maxBoost", vec![]),
                    ],
                ),
            ],
        );
        let bd = breakdown(&fs);
        let parts: Vec<f64> = bd.rows.iter().map(|r| r.contribution.unwrap()).collect();
        // By hand: a and b count fully (×1.5), c at the tie breaker (0.3 × 1.5).
        assert_eq!(parts, [3.0, 1.5, 0.5 * 0.3 * 1.5]);
        assert!((bd.total().unwrap() - 4.725).abs() < 1e-12);

        // A constant-score filter adds its value; a match_all clause of 0 adds nothing.
        let with_const = node(
            3.5,
            "sum of:",
            vec![
                es7_weight("a", 2.0, 1.0, 1.0, 3.0),
                node(1.5, "ConstantScore(tags:new)", vec![]),
                node(0.0, "match on required clause, product of:", vec![node(0.0, "# clause", vec![])]),
            ],
        );
        let bd = breakdown(&with_const);
        assert_eq!(bd.other, [("ConstantScore(tags:new)".to_string(), 1.5)]);
        assert_eq!(bd.total(), Some(3.5));

        // OpenSearch's hybrid normalisation is not a sum: rows are kept, no total claimed.
        let hybrid = node(
            0.8,
            "arithmetic_mean combination of:",
            vec![node(1.0, "min_max normalization of:", vec![es7_weight("a", 2.0, 1.0, 1.0, 3.0)])],
        );
        let bd = breakdown(&hybrid);
        assert_eq!(bd.rows.len(), 1);
        assert_eq!(bd.rows[0].contribution, None);
        assert_eq!(bd.not_a_sum.as_deref(), Some("arithmetic_mean combination of:"));
        assert_eq!(bd.total(), None);
    }

    #[test]
    fn rrf_parts_are_one_over_rank_plus_k_and_its_rows_are_inputs() {
        let rrf = node(
            0.032522473,
            "rrf score: [0.032522473] computed for initial ranks [1, 2] with rankConstant: [60] as sum of [1 / (rank + rankConstant)] for each query",
            vec![
                node(
                    1.0,
                    "rrf score: [0.016393442], for rank [1] in query at index [0] computed as [1 / (1 + 60)], for matching query with score",
                    vec![es7_weight("a", 2.0, 1.0, 1.0, 3.0)],
                ),
                node(
                    2.0,
                    "rrf score: [0.016129032], for rank [2] in query at index [1] computed as [1 / (2 + 60)], for matching query with score",
                    vec![node(0.87, "within top 10", vec![])],
                ),
            ],
        );
        let bd = breakdown(&rrf);
        assert_eq!(bd.rows.len(), 1);
        assert_eq!(bd.rows[0].contribution, None);
        // By hand: 1/61 + 1/62.
        assert!((bd.total().unwrap() - (1.0 / 61.0 + 1.0 / 62.0)).abs() < 1e-8);
        assert_eq!(bd.other[0].0, "RRF: for rank [1] in query at index [0] computed as [1 / (1 + 60)]");
    }

    #[test]
    fn a_one_child_wrapper_passes_its_child_through_or_scales_it() {
        let parts = |bd: &LuceneBreakdown| bd.rows.iter().map(|r| r.contribution).collect::<Vec<_>>();
        // `result of:` around a weight, worth what the weight is worth: the row counts fully.
        let wrapped = node(
            3.0,
            "sum of:",
            vec![
                node(2.0, "result of:", vec![es7_weight("a", 2.0, 1.0, 1.0, 3.0)]),
                es7_weight("b", 1.0, 1.0, 2.0, 3.0),
            ],
        );
        let bd = breakdown(&wrapped);
        assert_eq!((parts(&bd), bd.total(), bd.not_a_sum), (vec![Some(2.0), Some(1.0)], Some(3.0), None));
        // A one-child product (a script's multiplier) scales the weight by its value over the
        // child's: 1.5 × (3 / 1.5) = 3.
        let scaled = node(3.0, "script score, product:", vec![es7_weight("a", 1.5, 1.0, 1.0, 3.0)]);
        let bd = breakdown(&scaled);
        assert_eq!((parts(&bd), bd.total()), (vec![Some(3.0)], Some(3.0)));
        // Any other one-child node worth something else is not read as a sum.
        for (value, child) in [(3.0, 1.5), (3.0, 0.0)] {
            let other = node(value, "log1p of:", vec![es7_weight("a", child, 1.0, 1.0, 3.0)]);
            let bd = breakdown(&other);
            assert_eq!((parts(&bd), bd.not_a_sum.as_deref()), (vec![None], Some("log1p of:")), "{value} {child}");
        }
        let zero_child = node(3.0, "script score, product:", vec![es7_weight("a", 0.0, 1.0, 1.0, 3.0)]);
        assert_eq!(breakdown(&zero_child).not_a_sum.as_deref(), Some("script score, product:"));
    }

    #[test]
    fn rrf_under_a_boost_scales_its_parts_and_unreadable_parts_are_named() {
        let per_query = |rank: u32, value: f64, child: ExplainNode| {
            node(
                value,
                &format!(
                    "rrf score: [{}], for rank [{rank}] in query at index [0] computed as [1 / ({rank} + 60)], for matching query with score",
                    1.0 / (rank as f64 + 60.0)
                ),
                vec![child],
            )
        };
        let rrf = |parts: Vec<ExplainNode>| {
            node(0.03, "rrf score: [0.03] computed for initial ranks [1, 2] with rankConstant: [60] as sum of", parts)
        };
        // × 2 by a function score: each 1 / (rank + 60) counts twice.
        let boosted = node(
            0.0,
            "function score, product of:",
            vec![rrf(vec![per_query(1, 1.0, es7_weight("a", 2.0, 1.0, 1.0, 3.0))]), node(2.0, "boost", vec![])],
        );
        let bd = breakdown(&boosted);
        assert_eq!(bd.other.len(), 1);
        assert!((bd.other[0].1 - 2.0 / 61.0).abs() < 1e-15, "{:?}", bd.other);
        // A part whose value cannot be read: ignored when it is 0, else the score is not a sum.
        let unreadable = |value| node(value, "rrf score: unreadable", vec![es7_weight("b", 1.0, 1.0, 1.0, 3.0)]);
        let bd = breakdown(&rrf(vec![per_query(1, 1.0, es7_weight("a", 2.0, 1.0, 1.0, 3.0)), unreadable(0.0)]));
        assert!(bd.not_a_sum.is_none() && (bd.total().unwrap() - 1.0 / 61.0).abs() < 1e-15, "{bd:?}");
        assert_eq!(bd.rows.len(), 2);
        let bd = breakdown(&rrf(vec![unreadable(0.5)]));
        assert!(bd.not_a_sum.as_deref().is_some_and(|d| d.starts_with("rrf score: [0.03] computed")), "{bd:?}");
        // One query's part alone is not the combination: its weight row is kept, as an input.
        let alone = per_query(1, 1.0, es7_weight("a", 2.0, 1.0, 1.0, 3.0));
        let bd = breakdown(&alone);
        assert_eq!((bd.rows.len(), bd.rows[0].term.as_str(), bd.rows[0].contribution), (1, "a", None));
    }

    #[test]
    fn a_one_child_sum_under_rrf_is_an_input_not_a_broken_sum() {
        // The shape of the recorded bool-with-phrase response inside an RRF retriever: the query's
        // score is a `sum of:` holding one weight. Under RRF its rows are inputs (no multiplier),
        // and a one-child sum passes that through like any sum: the RRF total still holds.
        let one_child_sum = node(2.0, "sum of:", vec![es7_weight("a", 2.0, 1.0, 1.0, 3.0)]);
        let rrf = node(
            1.0 / 61.0,
            "rrf score: [0.016393442] computed for initial ranks [1] with rankConstant: [60] as sum of [1 / (rank + rankConstant)] for each query",
            vec![node(
                2.0,
                "rrf score: [0.016393442], for rank [1] in query at index [0] computed as [1 / (1 + 60)], for matching query with score",
                vec![one_child_sum],
            )],
        );
        let bd = breakdown(&rrf);
        assert_eq!(bd.not_a_sum, None, "{bd:?}");
        assert_eq!((bd.rows.len(), bd.rows[0].contribution), (1, None));
        assert!((bd.total().unwrap() - 1.0 / 61.0).abs() < 1e-8, "{bd:?}");
    }

    #[test]
    fn targets_of_terms_phrases_and_synonyms() {
        assert_eq!(
            weight_target("weight(title:sync in 7) [BM25], result of:"),
            Some(("title".into(), "sync".into(), "BM25".into()))
        );
        assert_eq!(
            weight_target("weight(body:\"sync token\" in 2) [PerFieldSimilarity], result of:").map(|t| t.1),
            Some("\"sync token\"".into())
        );
        assert_eq!(
            weight_target("weight(Synonym(body:car body:auto) in 0) [X], result of:").map(|t| (t.0, t.1)),
            Some(("body".into(), "car|auto".into()))
        );
        assert_eq!(weight_target("fieldWeight(message:search in 0), product of:").map(|t| t.1), Some("search".into()));
        assert_eq!(
            weight_target("weight(CombinedFieldQuery((text title)(result)) in 6), result of:"),
            Some(("text+title".into(), "result".into(), String::new()))
        );
        assert_eq!(weight_target("weight(CombinedFieldQuery(()(result)) in 6), result of:"), None);
        assert_eq!(weight_target("sum of:"), None);
        assert_eq!(weight_target("weightless (x in y)"), None);
    }

    /// One term weight's inputs, as a generated query scores it.
    #[derive(Debug, Clone)]
    struct Input {
        term: String,
        tf: u32,
        df: u32,
        n: u32,
        dl: u32,
        avgdl: f64,
        k1: f64,
        b: f64,
        boost: f64,
    }

    /// A query as Lucene explains it: term weights under sums, dis_max with a tie breaker, and
    /// boosts.
    #[derive(Debug, Clone)]
    enum Query {
        Term(Input),
        Sum(Vec<Query>),
        DisMax(f64, Vec<Query>),
        Boosted(f64, Box<Query>),
    }

    fn input() -> impl proptest::strategy::Strategy<Value = Input> {
        use proptest::prelude::*;
        ("[a-z]{1,8}", 1u32..20, 1u32..50, 0u32..200, 1u32..300, 1.0f64..300.0, 0.0f64..3.0, 0.0f64..=1.0, 0.5f64..4.0)
            .prop_map(|(term, tf, df, extra, dl, avgdl, k1, b, boost)| Input {
                term,
                tf,
                df,
                n: df + extra,
                dl,
                avgdl,
                k1,
                b,
                boost,
            })
    }

    fn query() -> impl proptest::strategy::Strategy<Value = Query> {
        use proptest::prelude::*;
        input().prop_map(Query::Term).prop_recursive(4, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 2..4).prop_map(Query::Sum),
                (prop_oneof![Just(0.0), 0.0f64..1.0], prop::collection::vec(inner.clone(), 2..4))
                    .prop_map(|(t, q)| Query::DisMax(t, q)),
                (0.25f64..5.0, inner).prop_map(|(f, q)| Query::Boosted(f, Box::new(q))),
            ]
        })
    }

    /// The tree Elasticsearch 8 writes for a query, scored by Lucene's formula written out here,
    /// and its term weights' inputs in tree order.
    fn explain(q: &Query, inputs: &mut Vec<Input>) -> ExplainNode {
        match q {
            Query::Term(t) => {
                inputs.push(t.clone());
                let (tf, df, n, dl) = (f64::from(t.tf), f64::from(t.df), f64::from(t.n), f64::from(t.dl));
                let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                let tfw = tf / (tf + t.k1 * (1.0 - t.b + t.b * dl / t.avgdl));
                let w = t.boost * idf * tfw;
                let mut parts = vec![
                    node(
                        idf,
                        "idf, computed as log(1 + (N - n + 0.5) / (n + 0.5)) from:",
                        vec![
                            node(df, "n, number of documents containing term", vec![]),
                            node(n, "N, total number of documents with field", vec![]),
                        ],
                    ),
                    node(
                        tfw,
                        "tf, computed as freq / (freq + k1 * (1 - b + b * dl / avgdl)) from:",
                        vec![
                            node(tf, "freq, occurrences of term within document", vec![]),
                            node(t.k1, "k1, term saturation parameter", vec![]),
                            node(t.b, "b, length normalization parameter", vec![]),
                            node(dl, "dl, length of field", vec![]),
                            node(t.avgdl, "avgdl, average length of field", vec![]),
                        ],
                    ),
                ];
                parts.insert(0, node(t.boost, "boost", vec![]));
                let score = node(w, &format!("score(freq={tf}), computed as boost * idf * tf from:"), parts);
                node(w, &format!("weight(text:{} in 3) [PerFieldSimilarity], result of:", t.term), vec![score])
            }
            Query::Sum(parts) => {
                let details: Vec<ExplainNode> = parts.iter().map(|p| explain(p, inputs)).collect();
                node(details.iter().map(|d| d.value).sum(), "sum of:", details)
            }
            Query::DisMax(tie, parts) => {
                let details: Vec<ExplainNode> = parts.iter().map(|p| explain(p, inputs)).collect();
                let best = details.iter().map(|d| d.value).fold(f64::MIN, f64::max);
                let rest: f64 = details.iter().map(|d| d.value).sum::<f64>() - best;
                let description =
                    if *tie == 0.0 { "max of:".to_string() } else { format!("max plus {tie} times others of:") };
                node(best + tie * rest, &description, details)
            }
            Query::Boosted(f, inner) => {
                let inner = explain(inner, inputs);
                node(f * inner.value, "product of:", vec![inner, node(*f, "boost", vec![])])
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::proptest_cases()))]

        /// Any query of sums, dis_max with a tie breaker and boosts over BM25 term weights: one
        /// row per weight with the very inputs that made it, and rows that add up to the score.
        #[test]
        fn every_weight_becomes_a_row_and_the_rows_add_up(q in query()) {
            let mut inputs = Vec::new();
            let tree = explain(&q, &mut inputs);
            let b = breakdown(&tree);
            proptest::prop_assert_eq!(b.not_a_sum.as_deref(), None);
            proptest::prop_assert_eq!(b.rows.len(), inputs.len());
            for (row, t) in b.rows.iter().zip(&inputs) {
                proptest::prop_assert_eq!(&row.term, &t.term);
                proptest::prop_assert_eq!(row.tf, Some(f64::from(t.tf)));
                proptest::prop_assert_eq!(row.df, Some(f64::from(t.df)));
                proptest::prop_assert_eq!(row.n, Some(f64::from(t.n)));
                proptest::prop_assert_eq!(row.dl, Some(f64::from(t.dl)));
                proptest::prop_assert_eq!((row.avgdl, row.k1, row.b), (Some(t.avgdl), Some(t.k1), Some(t.b)));
            }
            let total = b.total().unwrap();
            proptest::prop_assert!((total - tree.value).abs() <= 1e-9 * tree.value.abs().max(1.0), "{} vs {}", total, tree.value);
        }

        /// Any tree at all: rows or a named node that is not a sum, never a panic.
        #[test]
        fn any_tree_is_read_without_panicking(tree in crate::external::tree::tests::explain_tree()) {
            let b = breakdown(&tree);
            if let Some(total) = b.total() {
                proptest::prop_assert!(total.is_finite());
            }
        }
    }
}
