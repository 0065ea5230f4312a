//! Entity resolution: Jaro–Winkler string similarity and a Fellegi–Sunter match score with
//! editable field weights and threshold, used to merge duplicate graph nodes.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{FieldWeights, Lesson, LessonKit, LessonParams};
use crate::Result;

/// Jaro similarity.
pub fn jaro(a: &str, b: &str) -> f64 {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let window = (a.len().max(b.len()) / 2).saturating_sub(1);
    let mut a_match = vec![false; a.len()];
    let mut b_match = vec![false; b.len()];
    let mut m = 0usize;
    for (i, ca) in a.iter().enumerate() {
        let lo = i.saturating_sub(window);
        let hi = (i + window + 1).min(b.len());
        for j in lo..hi {
            if !b_match[j] && b[j] == *ca {
                a_match[i] = true;
                b_match[j] = true;
                m += 1;
                break;
            }
        }
    }
    if m == 0 {
        return 0.0;
    }
    let a_seq: Vec<char> = a.iter().zip(&a_match).filter(|(_, m)| **m).map(|(c, _)| *c).collect();
    let b_seq: Vec<char> = b.iter().zip(&b_match).filter(|(_, m)| **m).map(|(c, _)| *c).collect();
    let t = a_seq.iter().zip(&b_seq).filter(|(x, y)| x != y).count() as f64 / 2.0;
    let m = m as f64;
    (m / a.len() as f64 + m / b.len() as f64 + (m - t) / m) / 3.0
}

/// Jaro–Winkler: Jaro boosted by a common prefix of up to four characters (p = 0.1).
pub fn jaro_winkler(a: &str, b: &str) -> f64 {
    let j = jaro(a, b);
    let prefix = a.chars().zip(b.chars()).take(4).take_while(|(x, y)| x == y).count() as f64;
    j + prefix * 0.1 * (1.0 - j)
}

/// A record to resolve: a name and a type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// Source label.
    pub source: String,
    /// Name as written.
    pub name: String,
    /// Entity type.
    pub kind: String,
}

/// The Fellegi–Sunter score of a pair in bits: Σ over fields of log2(m/u) when the field agrees,
/// log2((1−m)/(1−u)) when it does not. Returns (score, name similarity).
pub fn fellegi_sunter(a: &Record, b: &Record, w: &FieldWeights) -> (f64, f64) {
    let sim = jaro_winkler(&a.name.to_lowercase(), &b.name.to_lowercase());
    let field = |agree: bool, m: f64, u: f64| if agree { (m / u).log2() } else { ((1.0 - m) / (1.0 - u)).log2() };
    let score = field(sim >= w.name_agree_at, w.name_m, w.name_u) + field(a.kind == b.kind, w.type_m, w.type_u);
    (score, sim)
}

fn records() -> (Vec<Record>, Vec<Record>) {
    let rec = |s: &str, n: &str, k: &str| Record { source: s.into(), name: n.into(), kind: k.into() };
    let graph = vec![
        rec("graph", "desktop app", "app"),
        rec("graph", "mobile app", "app"),
        rec("graph", "e2e-encrypt", "plugin"),
        rec("graph", "share-links", "plugin"),
        rec("graph", "libsodium", "library"),
        rec("graph", "link service", "service"),
    ];
    let notes = vec![
        rec("notes", "Desktop App", "app"),
        rec("notes", "desktop client", "app"),
        rec("notes", "e2e encrypt", "plugin"),
        rec("notes", "share links", "plugin"),
        rec("notes", "lib-sodium", "library"),
        rec("notes", "mobile application", "app"),
        rec("notes", "link-service", "service"),
    ];
    (graph, notes)
}

pub fn build(_kit: &LessonKit, params: &LessonParams) -> Result<Lesson> {
    let mut l = Lesson::untitled();
    l.p("Two lists name the same things differently. Jaro–Winkler scores how alike two strings are (1 = identical), favouring a shared beginning; Fellegi–Sunter adds up evidence from several fields in bits.");
    l.check(super::exercises::jaro_winkler("er-jw", "jon", "john", jaro("jon", "john"), jaro_winkler("jon", "john")));
    let pairs = [
        ("jon", "john"),
        ("desktop app", "desktop client"),
        ("libsodium", "lib-sodium"),
        ("e2e-encrypt", "e2e encrypt"),
        ("share-links", "link service"),
    ];
    l.table(
        "Jaro and Jaro–Winkler",
        &["a", "b", "Jaro", "Jaro–Winkler"],
        pairs
            .iter()
            .map(|(a, b)| {
                vec![a.to_string(), b.to_string(), format!("{:.4}", jaro(a, b)), format!("{:.4}", jaro_winkler(a, b))]
            })
            .collect(),
    );
    let w = params.er_weights;
    l.p(format!(
        "Weights: names agree when Jaro–Winkler ≥ {:.2}: +{:.2} bits, else {:.2}; types agree: +{:.2} bits, else {:.2}. Threshold {:.2} bits.",
        w.name_agree_at,
        (w.name_m / w.name_u).log2(),
        ((1.0 - w.name_m) / (1.0 - w.name_u)).log2(),
        (w.type_m / w.type_u).log2(),
        ((1.0 - w.type_m) / (1.0 - w.type_u)).log2(),
        params.er_threshold
    ));
    let (graph, notes) = records();
    let mut scored = Vec::new();
    for a in &graph {
        for b in &notes {
            let (score, sim) = fellegi_sunter(a, b, &w);
            scored.push((score, sim, a.name.clone(), b.name.clone()));
        }
    }
    scored.sort_by(|x, y| y.0.total_cmp(&x.0).then_with(|| x.2.cmp(&y.2)).then_with(|| x.3.cmp(&y.3)));
    let rows = scored
        .iter()
        .take(12)
        .map(|(s, sim, a, b)| {
            vec![
                a.clone(),
                b.clone(),
                format!("{sim:.3}"),
                format!("{s:+.2}"),
                if *s >= params.er_threshold { "match".into() } else { "—".into() },
            ]
        })
        .collect();
    l.table(
        "The strongest candidate pairs",
        &["graph node", "other list", "Jaro–Winkler", "score (bits)", "decision"],
        rows,
    );
    let mut merged: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (s, _, a, b) in &scored {
        if *s >= params.er_threshold {
            merged.entry(a.clone()).or_default().push(b.clone());
        }
    }
    l.table(
        "Merged graph nodes",
        &["node", "also known as"],
        merged.into_iter().map(|(a, bs)| vec![a, bs.join(", ")]).collect(),
    );
    l.p("Raise the threshold and true duplicates stay apart; lower it and different things merge (\"mobile app\" and \"desktop client\" are both apps). The weights say how much each field's agreement is worth.");
    Ok(l)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jaro_winkler_textbook_values() {
        // Jaro(jon, john) = (3/3 + 3/4 + 3/3)/3 = 0.916667; prefix "jo" (2) → + 2·0.1·(1 − J).
        assert!((jaro("jon", "john") - 0.9166666666666666).abs() < 1e-12);
        assert_eq!(format!("{:.2}", jaro_winkler("jon", "john")), "0.93");
        assert!((jaro_winkler("jon", "john") - (0.9166666666666666 + 0.2 * (1.0 - 0.9166666666666666))).abs() < 1e-12);
        // MARTHA / MARHTA: Jaro 0.944444, Jaro–Winkler 0.961111 (Winkler's own example).
        assert!((jaro("martha", "marhta") - 0.9444444444444445).abs() < 1e-12);
        assert!((jaro_winkler("martha", "marhta") - 0.9611111111111111).abs() < 1e-12);
        assert_eq!(jaro("abc", ""), 0.0);
    }

    #[test]
    fn fellegi_sunter_by_hand() {
        let w = FieldWeights::default();
        let r = |n: &str, k: &str| Record { source: "t".into(), name: n.into(), kind: k.into() };
        let (s, _) = fellegi_sunter(&r("libsodium", "library"), &r("lib-sodium", "library"), &w);
        assert!((s - ((0.95f64 / 0.05).log2() + (0.98f64 / 0.30).log2())).abs() < 1e-12);
        let (s, _) = fellegi_sunter(&r("libsodium", "library"), &r("desktop app", "app"), &w);
        assert!((s - ((0.05f64 / 0.95).log2() + (0.02f64 / 0.70).log2())).abs() < 1e-12);
    }
}
