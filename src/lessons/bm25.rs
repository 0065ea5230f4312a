//! Why BM25 flips tf-idf: the two-document example, the table of five settings computed live,
//! a setting of the learner's own, and the saturation curve.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::{Block, IdfBase, Lesson, LessonKit, LessonParams};
use crate::formula::{
    Bm25Params, Bm25Variant, TermStats, TfIdfVariant, bm25_contribution, tfidf_textbook_contribution,
};
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
        let p = Bm25Params { k1: k, b, delta: 0.0, epsilon: 0.25 };
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
        let p = Bm25Params { k1: k, b, delta: 0.0, epsilon: 0.25 };
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

pub fn build(kit: &LessonKit, params: &LessonParams) -> Result<Lesson> {
    let ex = Example::load(kit)?;
    let mut l = Lesson::new("bm25", "Why BM25 flips tf-idf");
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
    let idf = params.idf_base.log(ex.n_docs as f64 / love_df as f64);
    let p = Bm25Params { k1: params.k, b: params.b, delta: 0.0, epsilon: 0.25 };
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
    Ok(l)
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
