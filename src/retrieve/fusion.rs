//! Fusion: several rankings combined into one — reciprocal rank fusion, or a weighted sum of
//! min-max or z-score normalised scores. The explanation shows each input's part.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::{Detail, Explanation, FusionPart, MethodKind, Prepared, QueryContext, Ranking, Retriever};
use crate::corpus::DocId;
use crate::{Error, Result};

/// How fusion combines rankings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum FusionMethod {
    /// Reciprocal rank fusion: Σ w / (k + rank).
    #[default]
    Rrf,
    /// Weighted sum of min-max normalised scores.
    MinMax,
    /// Weighted sum of z-score normalised scores.
    ZScore,
}

impl FusionMethod {
    /// Every method.
    pub const ALL: [FusionMethod; 3] = [FusionMethod::Rrf, FusionMethod::MinMax, FusionMethod::ZScore];

    /// Display / CLI name.
    pub fn name(self) -> &'static str {
        match self {
            FusionMethod::Rrf => "rrf",
            FusionMethod::MinMax => "min-max",
            FusionMethod::ZScore => "z-score",
        }
    }
}

impl std::str::FromStr for FusionMethod {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        FusionMethod::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| Error::invalid("fusion", format!("unknown fusion {s:?}; choose rrf, min-max or z-score")))
    }
}

/// Fusion settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FusionSettings {
    /// Combination rule.
    pub method: FusionMethod,
    /// RRF's k (60 by default).
    pub rrf_k: f64,
    /// Which method families are fused.
    pub inputs: Vec<MethodKind>,
    /// Weight per input family (missing = 1).
    pub weights: Vec<(MethodKind, f64)>,
    /// How deep each input list is read.
    pub depth: usize,
}

impl Default for FusionSettings {
    fn default() -> Self {
        Self {
            method: FusionMethod::Rrf,
            rrf_k: 60.0,
            inputs: vec![MethodKind::Bm25, MethodKind::Dense],
            weights: Vec::new(),
            depth: 100,
        }
    }
}

impl FusionSettings {
    /// The weight of an input (1 when not set).
    pub fn weight(&self, kind: MethodKind) -> f64 {
        self.weights.iter().find(|(k, _)| *k == kind).map(|(_, w)| *w).unwrap_or(1.0)
    }

    /// Check what a user can set, naming the field that is wrong.
    pub fn validate(&self) -> Result<()> {
        if !(self.rrf_k.is_finite() && self.rrf_k >= 0.0) {
            return Err(Error::invalid("rrf-k", format!("RRF k must be ≥ 0, got {}", self.rrf_k)));
        }
        for (kind, w) in &self.weights {
            if !w.is_finite() {
                return Err(Error::invalid("fusion weight", format!("weight of {kind} must be a number")));
            }
        }
        Ok(())
    }
}

/// Fuses the rankings of its inputs.
#[derive(Clone)]
pub struct FusionRetriever {
    inputs: Vec<Arc<dyn Retriever>>,
    settings: FusionSettings,
}

/// A question prepared for fusion: each input's ranking (read once, `depth` deep) and the fused
/// scores with every input's part.
struct PreparedFusion {
    retriever: FusionRetriever,
    query: QueryContext,
    rankings: Vec<Ranking>,
    fused: Fused,
}

/// Per document: the fused score and, per input in order, (rank, input score, contribution) when
/// the input ranked it.
pub type Fused = HashMap<DocId, (f64, Vec<Option<(usize, f64, f64)>>)>;

/// Fused scores with each input's contribution, in input order.
pub fn fuse(rankings: &[Ranking], weights: &[f64], method: FusionMethod, rrf_k: f64) -> Fused {
    let mut out: Fused = HashMap::new();
    for (i, r) in rankings.iter().enumerate() {
        let w = weights.get(i).copied().unwrap_or(1.0);
        let scores: Vec<f64> = r.hits.iter().map(|h| h.score).collect();
        let (min, max) = scores.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &s| (a.min(s), b.max(s)));
        let n = scores.len().max(1) as f64;
        let mean = scores.iter().sum::<f64>() / n;
        let std = (scores.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / n).sqrt();
        for (rank0, h) in r.hits.iter().enumerate() {
            let contribution = match method {
                FusionMethod::Rrf => w / (rrf_k + (rank0 + 1) as f64),
                FusionMethod::MinMax => w * if max > min { (h.score - min) / (max - min) } else { 1.0 },
                FusionMethod::ZScore => w * if std > 0.0 { (h.score - mean) / std } else { 0.0 },
            };
            let entry = out.entry(h.doc).or_insert_with(|| (0.0, vec![None; rankings.len()]));
            entry.1[i] = Some((rank0 + 1, h.score, contribution));
        }
    }
    for (score, parts) in out.values_mut() {
        // Summed in input order, the same order the explanation lists them.
        *score = parts.iter().map(|p| p.map(|x| x.2).unwrap_or(0.0)).sum();
    }
    out
}

impl FusionRetriever {
    /// Fuse these retrievers with these settings (weights are looked up by each input's family).
    pub fn new(inputs: Vec<Arc<dyn Retriever>>, settings: FusionSettings) -> Self {
        Self { inputs, settings }
    }

    fn weights(&self) -> Vec<f64> {
        self.inputs.iter().map(|r| self.settings.weight(r.kind())).collect()
    }

    fn formula(&self) -> String {
        match self.settings.method {
            FusionMethod::Rrf => {
                format!("score = Σ_i w_i / (k + rank_i(d)),  k = {}", super::fmt_param(self.settings.rrf_k))
            }
            FusionMethod::MinMax => "score = Σ_i w_i · (s_i(d) − min_i)/(max_i − min_i)".to_string(),
            FusionMethod::ZScore => "score = Σ_i w_i · (s_i(d) − mean_i)/std_i".to_string(),
        }
    }
}

impl Retriever for FusionRetriever {
    fn kind(&self) -> MethodKind {
        MethodKind::Fusion
    }

    fn label(&self) -> String {
        let names: Vec<String> = self.inputs.iter().map(|r| r.kind().label().to_string()).collect();
        match self.settings.method {
            FusionMethod::Rrf => {
                format!("Fusion (RRF k={}: {})", super::fmt_param(self.settings.rrf_k), names.join(" + "))
            }
            m => format!("Fusion ({}: {})", m.name(), names.join(" + ")),
        }
    }

    fn prepare(&self, query: &QueryContext) -> Result<Arc<dyn Prepared>> {
        let rankings: Vec<Ranking> =
            self.inputs.iter().map(|i| i.search(query, self.settings.depth)).collect::<Result<_>>()?;
        let fused = fuse(&rankings, &self.weights(), self.settings.method, self.settings.rrf_k);
        Ok(Arc::new(PreparedFusion { retriever: self.clone(), query: query.clone(), rankings, fused }))
    }
}

impl Prepared for PreparedFusion {
    fn search(&self, k: usize) -> Result<Ranking> {
        let r = &self.retriever;
        Ok(Ranking::top(r.label(), r.kind(), self.fused.iter().map(|(d, (s, _))| (*d, *s)), k))
    }

    fn explain(&self, doc: DocId) -> Result<Explanation> {
        let r = &self.retriever;
        if !self.query.allows(doc) {
            return Ok(self.query.filtered_explanation(&r.label()));
        }
        let (value, parts) = self.fused.get(&doc).cloned().unwrap_or((0.0, vec![None; self.rankings.len()]));
        let parts: Vec<FusionPart> = self
            .rankings
            .iter()
            .zip(parts)
            .map(|(r, p)| FusionPart {
                method: r.method.clone(),
                rank: p.map(|x| x.0),
                raw_score: p.map(|x| x.1),
                contribution: p.map(|x| x.2).unwrap_or(0.0),
            })
            .collect();
        let present: BTreeMap<&str, usize> =
            parts.iter().filter_map(|p| p.rank.map(|r| (p.method.as_str(), r))).collect();
        let summary = if present.is_empty() {
            format!("In none of the inputs' top {}, so fusion gives it 0.", r.settings.depth)
        } else {
            let list: Vec<String> = present.iter().map(|(m, r)| format!("#{r} in {m}")).collect();
            format!("Ranked {}; fusion adds the parts.", list.join(", "))
        };
        let mut e = Explanation::new(r.label(), value, r.formula(), summary);
        e.detail = Detail::Fusion { parts };
        Ok(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retrieve::Hit;

    fn ranking(docs: &[(u32, f64)]) -> Ranking {
        Ranking {
            method: "m".into(),
            kind: MethodKind::Bm25,
            hits: docs.iter().map(|&(d, s)| Hit { doc: DocId(d), score: s }).collect(),
            total_matches: docs.len(),
            unranked: false,
            absent: Vec::new(),
            provisional: false,
            note: None,
            generated: None,
            agent: None,
        }
    }

    #[test]
    fn rrf_by_hand() {
        let a = ranking(&[(1, 9.0), (2, 5.0)]);
        let b = ranking(&[(2, 0.9), (3, 0.8)]);
        let f = fuse(&[a, b], &[1.0, 1.0], FusionMethod::Rrf, 60.0);
        assert!((f[&DocId(2)].0 - (1.0 / 62.0 + 1.0 / 61.0)).abs() < 1e-15);
        assert!((f[&DocId(1)].0 - 1.0 / 61.0).abs() < 1e-15);
        assert_eq!(f[&DocId(3)].1[0], None);
    }

    #[test]
    fn min_max_and_z_score_by_hand() {
        let a = ranking(&[(1, 10.0), (2, 6.0), (3, 2.0)]);
        let f = fuse(std::slice::from_ref(&a), &[2.0], FusionMethod::MinMax, 60.0);
        assert_eq!(f[&DocId(2)].0, 1.0); // 2 × (6 − 2)/(10 − 2)
        let z = fuse(&[a], &[1.0], FusionMethod::ZScore, 60.0);
        // mean 6, population std √(32/3)
        assert!((z[&DocId(1)].0 - 4.0 / (32.0f64 / 3.0).sqrt()).abs() < 1e-12);
        assert_eq!(z[&DocId(2)].0, 0.0);
    }
}
