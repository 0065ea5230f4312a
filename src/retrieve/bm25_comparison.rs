//! "Why does my cluster rank this differently from textbook BM25?" — an engine's term rows beside
//! RankLens's own Lucene BM25 rows for the same document, with every input that differs named:
//! the terms themselves (analyzers), tf, df and N (per-shard or per-field statistics), dl (Lucene
//! stores lengths in one byte) and avgdl (per field), k1 and b, and a constant scale (k1 + 1,
//! which Elasticsearch and OpenSearch keep in the boost and Lucene 8+ drops).

use serde::{Deserialize, Serialize};

use super::{TermRow, TermTable};
use crate::external::EngineTermRow;

/// One term seen by both.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TermPair {
    /// The term.
    pub term: String,
    /// The engine's rows for it (one per field it was scored in).
    pub engine: Vec<EngineTermRow>,
    /// RankLens's row, when its analyzer produced the same term.
    pub ranklens: Option<TermRow>,
}

/// One input that differs, said in words.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Difference {
    /// Which input (`df`, `N`, `dl`, `avgdl`, `tf`, `k1`, `b`, `terms`, `fields`, `scale`).
    pub input: String,
    /// The term it concerns, if one.
    pub term: Option<String>,
    /// The engine's value.
    pub engine: Option<f64>,
    /// RankLens's value.
    pub ranklens: Option<f64>,
    /// What it means.
    pub says: String,
}

/// The two term tables side by side.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bm25Comparison {
    /// Terms in the engine's order, then RankLens's terms the engine did not score.
    pub pairs: Vec<TermPair>,
    /// RankLens's terms with no engine row.
    pub only_ranklens: Vec<TermRow>,
    /// RankLens's total for the document.
    pub ranklens_score: f64,
    /// Passages in RankLens's corpus (its N).
    pub ranklens_n: u64,
    /// The engine's total for the document.
    pub engine_score: f64,
    /// k1 and b RankLens used (the engine's, so that they are not a difference).
    pub k1: f64,
    /// b.
    pub b: f64,
    /// Every input that differs.
    pub differences: Vec<Difference>,
}

impl Bm25Comparison {
    /// No input differs (a constant factor such as k1 + 1 is not an input).
    pub fn inputs_agree(&self) -> bool {
        self.differences.iter().all(|d| d.input == "scale")
    }

    /// The constant factor the engine's weights carry (1 when none).
    pub fn scale(&self) -> f64 {
        self.differences.iter().find(|d| d.input == "scale").and_then(|d| d.engine).unwrap_or(1.0)
    }

    /// The engine's score is RankLens's times [`Self::scale`], to float32 precision.
    pub fn scores_agree(&self) -> bool {
        (self.engine_score - self.scale() * self.ranklens_score).abs() <= 1e-6 * self.engine_score.abs().max(1.0)
    }

    /// The comparison in one sentence, when no input differs; `None` when some do (they are
    /// listed in [`Self::differences`]).
    pub fn verdict(&self) -> Option<String> {
        if !self.inputs_agree() {
            return None;
        }
        let scale = self.scale();
        Some(match self.scores_agree() {
            true if scale == 1.0 => "No input differs, and the scores are equal.".to_string(),
            true => format!(
                "No input differs, and the scores are equal but for a constant: the engine's are {} times RankLens's.",
                fmt_factor(scale)
            ),
            false => "No input differs, yet the scores differ.".to_string(),
        })
    }
}

fn fmt_factor(s: f64) -> String {
    let t = format!("{s:.4}");
    t.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * a.abs().max(b.abs()).max(1e-9)
}

fn n(x: u64) -> f64 {
    x as f64
}

/// Compare an engine's rows with RankLens's Lucene BM25 table for the same document.
pub fn compare(
    engine: &[EngineTermRow],
    engine_score: f64,
    ranklens: &TermTable,
    ranklens_score: f64,
    k1: f64,
    b: f64,
) -> Bm25Comparison {
    let pairs = pair_terms(engine, ranklens);
    let only_ranklens: Vec<TermRow> =
        ranklens.rows.iter().filter(|r| !pairs.iter().any(|p| p.term == r.term)).cloned().collect();
    let mut d = Differences::default();
    d.terms(&pairs, &only_ranklens, ranklens);
    d.fields(engine);
    for p in &pairs {
        if let Some(r) = &p.ranklens {
            d.term_inputs(p, r, ranklens, (k1, b));
        }
    }
    d.scale(&pairs, k1);
    Bm25Comparison {
        pairs,
        only_ranklens,
        ranklens_score,
        ranklens_n: ranklens.n,
        engine_score,
        k1,
        b,
        differences: d.list,
    }
}

/// The engine's rows grouped by term (a term scored in several fields is one pair), each beside
/// RankLens's row of the same term.
fn pair_terms(engine: &[EngineTermRow], ranklens: &TermTable) -> Vec<TermPair> {
    let mut pairs: Vec<TermPair> = Vec::new();
    for row in engine {
        let term = row.term.trim_matches('"').to_string();
        match pairs.iter_mut().find(|p| p.term == term) {
            Some(p) => p.engine.push(row.clone()),
            None => pairs.push(TermPair {
                ranklens: ranklens.rows.iter().find(|r| r.term == term).cloned(),
                term,
                engine: vec![row.clone()],
            }),
        }
    }
    pairs
}

/// The differing inputs found so far; N, avgdl and dl are said once (they are per collection or
/// per passage, not per term).
#[derive(Default)]
struct Differences {
    list: Vec<Difference>,
    said_n: bool,
    said_avgdl: bool,
    said_dl: bool,
}

impl Differences {
    fn push(&mut self, input: &str, term: Option<&str>, engine: Option<f64>, ranklens: Option<f64>, says: String) {
        self.list.push(Difference { input: input.into(), term: term.map(str::to_string), engine, ranklens, says });
    }

    /// What each analyzer made of the question.
    fn terms(&mut self, pairs: &[TermPair], only_ranklens: &[TermRow], ranklens: &TermTable) {
        let engine_only: Vec<&str> = pairs.iter().filter(|p| p.ranklens.is_none()).map(|p| p.term.as_str()).collect();
        let ranklens_matched: Vec<&str> = only_ranklens.iter().filter(|r| r.tf > 0).map(|r| r.term.as_str()).collect();
        if !engine_only.is_empty() || !ranklens_matched.is_empty() {
            let says = format!(
                "the analyzers differ: the engine scored {} where RankLens's analyzer made {}",
                list(&engine_only),
                list(&ranklens.rows.iter().map(|r| r.term.as_str()).collect::<Vec<_>>())
            );
            self.push("terms", None, None, None, says);
        }
    }

    /// The engine scores each field and adds; RankLens scores title + text as one.
    fn fields(&mut self, engine: &[EngineTermRow]) {
        let mut fields: Vec<&str> = engine.iter().map(|r| r.field.as_str()).collect();
        fields.sort_unstable();
        fields.dedup();
        if fields.len() > 1 {
            let says = format!(
                "the engine scores each field apart and combines them ({}); RankLens scores title and text as one \
                 field",
                fields.join(", ")
            );
            self.push("fields", None, None, None, says);
        }
    }

    /// One term's tf, df, N, k1, b, avgdl and dl, the engine's beside RankLens's.
    fn term_inputs(&mut self, p: &TermPair, r: &TermRow, ranklens: &TermTable, (k1, b): (f64, f64)) {
        let t = Some(p.term.as_str());
        // A term scored in several fields: its counts and lengths add up across them.
        let fields: Vec<&str> = p.engine.iter().map(|e| e.field.as_str()).collect();
        let across = if fields.len() > 1 {
            format!(" across {}", fields.join(" + "))
        } else {
            format!(" in `{}`", fields.first().copied().unwrap_or(""))
        };
        let total = |f: fn(&EngineTermRow) -> Option<f64>| p.engine.iter().map(f).sum::<Option<f64>>();
        if let Some(tf) = total(|e| e.tf).filter(|&tf| !close(tf, f64::from(r.tf), 1e-6)) {
            let says = format!(
                "`{}` occurs {tf} times{across} for the engine and {} times in RankLens's passage (another analyzer or field)",
                p.term, r.tf
            );
            self.push("tf", t, Some(tf), Some(f64::from(r.tf)), says);
        }
        let df = p.engine.iter().filter_map(|e| e.df).fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.max(x))));
        if let Some(df) = df.filter(|&df| !close(df, n(r.df), 1e-6)) {
            let says = format!(
                "df of `{}`: {df} documents{across} for the engine (its shard or field), {} in RankLens's corpus",
                p.term, r.df
            );
            self.push("df", t, Some(df), Some(n(r.df)), says);
        }
        for e in &p.engine {
            if !self.said_n
                && let Some(nn) = e.n.filter(|&nn| !close(nn, n(ranklens.n), 1e-6))
            {
                self.said_n = true;
                let says = format!(
                    "N: the engine counts {nn} documents with `{}` (per shard, or only those that have the field); \
                     RankLens counts {} passages",
                    e.field, ranklens.n
                );
                self.push("N", None, Some(nn), Some(n(ranklens.n)), says);
            }
            for (name, ev, rv) in [("k1", e.k1, k1), ("b", e.b, b)] {
                if let Some(ev) = ev.filter(|&ev| !close(ev, rv, 1e-4)) {
                    self.push(name, t, Some(ev), Some(rv), format!("{name}: the engine uses {ev}, RankLens {rv}"));
                }
            }
        }
        if !self.said_avgdl
            && let Some(a) = total(|e| e.avgdl).filter(|&a| !close(a, ranklens.avgdl, 1e-3))
        {
            self.said_avgdl = true;
            let says = format!(
                "avgdl: {a:.2} tokens{across} for the engine, {:.2} over RankLens's title + text",
                ranklens.avgdl
            );
            self.push("avgdl", None, Some(a), Some(ranklens.avgdl), says);
        }
        if !self.said_dl
            && let Some(dl) = total(|e| e.dl).filter(|&dl| !close(dl, r.dl, 1e-6))
        {
            self.said_dl = true;
            let why = if p.engine.iter().any(|e| e.dl_approximate) {
                "Lucene stores a field's length in one byte, so long fields are rounded"
            } else {
                "another analyzer or field counts other tokens"
            };
            self.push(
                "dl",
                None,
                Some(dl),
                Some(r.dl),
                format!("dl: {dl}{across} for the engine, {} in RankLens ({why})", r.dl),
            );
        }
    }

    /// A constant factor: Elasticsearch and OpenSearch keep k1 + 1 in the boost (RankLens's
    /// `lucene` variant, like Lucene 8+, drops it). Said from the boost where the engine names one,
    /// else from the ratio of the weights when every other input agrees.
    fn scale(&mut self, pairs: &[TermPair], k1: f64) {
        // A repeated word is one clause boosted by its count (Lucene merges duplicate clauses,
        // Anserini boosts them), where RankLens multiplies by qtf: the constant is the boost over
        // the count.
        let boost = pairs.iter().find_map(|p| {
            let qtf = p.ranklens.as_ref().map_or(1, |r| r.qtf.max(1));
            p.engine.iter().find_map(|e| e.boost).map(|b| b / f64::from(qtf))
        });
        let inputs_differ =
            self.list.iter().any(|d| matches!(d.input.as_str(), "tf" | "df" | "N" | "dl" | "avgdl" | "k1" | "b"));
        let ratios: Vec<f64> = pairs
            .iter()
            .filter_map(|p| Some((p.engine.first()?.weight, p.ranklens.as_ref()?.contribution)))
            .filter(|(e, r)| *r > 0.0 && *e > 0.0)
            .map(|(e, r)| e / r)
            .collect();
        let scale = match boost {
            Some(b) if !close(b, 1.0, 1e-6) => Some(b),
            Some(_) => None,
            None => ratios.first().copied().filter(|&first| {
                !inputs_differ && ratios.iter().all(|s| close(*s, first, 2e-3)) && !close(first, 1.0, 2e-3)
            }),
        };
        if let Some(s) = scale {
            let says = if close(s, k1 + 1.0, 5e-3) {
                format!(
                    "the engine's weights carry a factor {s:.4} = k1 + 1, which Elasticsearch and OpenSearch keep in \
                     the boost and Lucene 8+ drops (as RankLens's lucene variant does); it does not change the ranking"
                )
            } else {
                format!("the engine's weights carry a factor {s:.4} (a query boost); it scales, it does not reorder")
            };
            self.push("scale", None, Some(s), Some(1.0), says);
        }
    }
}

fn list(terms: &[&str]) -> String {
    if terms.is_empty() {
        "nothing".into()
    } else {
        terms.iter().map(|t| format!("`{t}`")).collect::<Vec<_>>().join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[allow(clippy::too_many_arguments)]
    fn engine_row(
        term: &str,
        field: &str,
        tf: f64,
        df: f64,
        nn: f64,
        dl: f64,
        avgdl: f64,
        weight: f64,
    ) -> EngineTermRow {
        EngineTermRow {
            term: term.into(),
            field: field.into(),
            tf: Some(tf),
            df: Some(df),
            df_each: Vec::new(),
            n: Some(nn),
            idf: None,
            dl: Some(dl),
            dl_approximate: true,
            avgdl: Some(avgdl),
            k1: Some(1.2),
            b: Some(0.75),
            boost: Some(2.2),
            tf_weight: None,
            weight,
            multiplier: Some(1.0),
            contribution: Some(weight),
            similarity: String::new(),
        }
    }

    fn ranklens_row(term: &str, tf: u32, df: u64, dl: f64, avgdl: f64, contribution: f64) -> TermRow {
        TermRow {
            term: term.into(),
            qtf: 1,
            tf,
            df,
            idf: 0.0,
            dl,
            exact_dl: None,
            avgdl,
            k1: Some(1.2),
            b: Some(0.75),
            tf_weight: 0.0,
            norm: None,
            contribution,
        }
    }

    #[test]
    fn the_same_inputs_differ_only_by_the_k1_plus_one_scale() {
        let e = [engine_row("sync", "text", 2.0, 3.0, 27.0, 18.0, 18.74, 2.2 * 1.5)];
        let r = TermTable {
            n: 27,
            avgdl: 18.74,
            rows: vec![ranklens_row("sync", 2, 3, 18.0, 18.74, 1.5)],
            model: None,
            okapi_mean_idf: None,
        };
        let c = compare(&e, 3.3, &r, 1.5, 1.2, 0.75);
        assert_eq!(c.differences.len(), 1, "{:?}", c.differences);
        assert_eq!(c.differences[0].input, "scale");
        assert!(c.differences[0].says.contains("factor 2.2000 = k1 + 1"), "{}", c.differences[0].says);
    }

    #[test]
    fn statistics_lengths_analyzers_and_fields_are_named() {
        let e = [
            engine_row("expir", "text", 1.0, 4.0, 12.0, 40.0, 30.0, 1.0),
            engine_row("sync", "title", 1.0, 2.0, 12.0, 3.0, 4.0, 0.5),
        ];
        let r = TermTable {
            n: 27,
            avgdl: 18.74,
            rows: vec![ranklens_row("expire", 1, 2, 37.0, 18.74, 0.8), ranklens_row("sync", 1, 3, 37.0, 18.74, 0.4)],
            model: None,
            okapi_mean_idf: None,
        };
        let c = compare(&e, 1.5, &r, 1.2, 1.2, 0.75);
        let inputs: Vec<&str> = c.differences.iter().map(|d| d.input.as_str()).collect();
        assert_eq!(inputs, ["terms", "fields", "df", "N", "avgdl", "dl", "scale"]);
        assert!(
            c.differences[0].says.contains("the engine scored `expir` where RankLens's analyzer made `expire`, `sync`")
        );
        let dl = &c.differences[5];
        assert_eq!((dl.engine, dl.ranklens), (Some(3.0), Some(37.0)));
        assert_eq!(c.only_ranklens.iter().map(|r| r.term.as_str()).collect::<Vec<_>>(), ["expire"]);
    }
}
