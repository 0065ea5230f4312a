//! How much two rankings agree: Jaccard over the top k sets and rank-biased overlap.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use crate::corpus::DocId;
use crate::retrieve::Ranking;

/// |A ∩ B| / |A ∪ B| over the first k of each list (1 when both are empty).
pub fn jaccard_at_k(a: &[DocId], b: &[DocId], k: usize) -> f64 {
    let a: HashSet<_> = a.iter().take(k).collect();
    let b: HashSet<_> = b.iter().take(k).collect();
    let union = a.union(&b).count();
    if union == 0 { 1.0 } else { a.intersection(&b).count() as f64 / union as f64 }
}

/// Rank-biased overlap (Webber, Moffat & Zobel 2010), extrapolated form RBO_ext, over the first
/// `depth` = min(|a|, |b|) ranks: (1−p)/p · Σ_d (X_d/d)·p^d + (X_k/k)·p^k, where X_d is the overlap
/// of the two prefixes of length d. Top-weighted: agreement at rank 1 counts most. p = 0.9 gives
/// the first ten ranks about 86% of the weight.
pub fn rank_biased_overlap(a: &[DocId], b: &[DocId], p: f64) -> f64 {
    let depth = a.len().min(b.len());
    if depth == 0 {
        return if a.is_empty() && b.is_empty() { 1.0 } else { 0.0 };
    }
    let mut seen_a = HashSet::new();
    let mut seen_b = HashSet::new();
    let mut overlap = 0usize;
    let mut sum = 0.0;
    for d in 1..=depth {
        let (x, y) = (a[d - 1], b[d - 1]);
        if x == y {
            overlap += 1;
        } else {
            if seen_b.contains(&x) {
                overlap += 1;
            }
            if seen_a.contains(&y) {
                overlap += 1;
            }
        }
        seen_a.insert(x);
        seen_b.insert(y);
        sum += overlap as f64 / d as f64 * p.powi(d as i32);
    }
    let k = depth as f64;
    (1.0 - p) / p * sum + overlap as f64 / k * p.powi(depth as i32)
}

/// Pairwise agreement between methods.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OverlapMatrix {
    /// Method labels (rows and columns).
    pub labels: Vec<String>,
    /// Jaccard@k, row-major.
    pub jaccard: Vec<f64>,
    /// RBO (p = 0.9), row-major.
    pub rbo: Vec<f64>,
    /// The k used.
    pub k: usize,
}

impl OverlapMatrix {
    /// Compare every pair of rankings.
    pub fn new(rankings: &[(&str, &Ranking)], k: usize) -> Self {
        let n = rankings.len();
        let docs: Vec<Vec<DocId>> = rankings.iter().map(|(_, r)| r.docs().into_iter().take(k).collect()).collect();
        let mut jaccard = vec![0.0; n * n];
        let mut rbo = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                jaccard[i * n + j] = jaccard_at_k(&docs[i], &docs[j], k);
                rbo[i * n + j] = rank_biased_overlap(&docs[i], &docs[j], 0.9);
            }
        }
        Self { labels: rankings.iter().map(|(l, _)| l.to_string()).collect(), jaccard, rbo, k }
    }

    /// Value at (row, column).
    pub fn get(&self, m: &[f64], i: usize, j: usize) -> f64 {
        m.get(i * self.labels.len() + j).copied().unwrap_or(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(v: &[u32]) -> Vec<DocId> {
        v.iter().map(|&d| DocId(d)).collect()
    }

    #[test]
    fn jaccard_by_hand() {
        assert_eq!(jaccard_at_k(&ids(&[1, 2, 3]), &ids(&[3, 4, 1]), 3), 0.5);
        assert_eq!(jaccard_at_k(&ids(&[1, 2, 3]), &ids(&[1, 9]), 1), 1.0);
        assert_eq!(jaccard_at_k(&[], &[], 5), 1.0);
    }

    #[test]
    fn rbo_by_hand() {
        // Identical lists: RBO_ext = 1 exactly.
        let a = ids(&[1, 2, 3, 4]);
        assert!((rank_biased_overlap(&a, &a, 0.9) - 1.0).abs() < 1e-12);
        // Disjoint lists: 0.
        assert_eq!(rank_biased_overlap(&ids(&[1, 2]), &ids(&[3, 4]), 0.9), 0.0);
        // a = [1,2], b = [2,1], p = 0.5: X1 = 0, X2 = 2.
        // (1−p)/p · (0/1·0.5 + 2/2·0.25) + 2/2·0.25 = 1·0.25 + 0.25 = 0.5
        assert!((rank_biased_overlap(&ids(&[1, 2]), &ids(&[2, 1]), 0.5) - 0.5).abs() < 1e-12);
    }
}
