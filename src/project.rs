//! The map of the embedding space: PCA fitted on the passage vectors, the question projected with
//! the same fitted transform (never refitted), and the true nearest neighbours beside it, because
//! distances on a 2-D map are only approximate.

use linfa::DatasetBase;
use linfa::traits::{Fit, Predict};
use linfa_reduction::Pca;
use ndarray::{Array1, Array2, Axis};
use serde::{Deserialize, Serialize};

use crate::corpus::DocId;
use crate::index::neural::DenseIndex;
use crate::retrieve::dense::dot;
use crate::{Error, Result};

/// A fitted 2-D map of a dense index.
pub struct PcaMap {
    pca: Pca<f64>,
    /// Each passage's (x, y), in DocId order.
    pub points: Vec<[f64; 2]>,
    /// Share of the total variance of the passage vectors along each axis.
    pub variance_share: [f64; 2],
}

/// The question on the map.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueryOnMap {
    /// The question's (x, y) under the fitted transform.
    pub point: [f64; 2],
    /// True-cosine nearest passages, best first.
    pub neighbours: Vec<(DocId, f32)>,
}

impl PcaMap {
    /// Fit on every passage vector of a dense index (at least three passages).
    pub fn fit(index: &DenseIndex) -> Result<PcaMap> {
        let (n, dim) = (index.len(), index.dim);
        if n < 3 || dim < 2 {
            return Err(Error::invalid("map", format!("a map needs at least 3 passages (have {n})")));
        }
        let data: Vec<f64> = index.vectors.iter().map(|&v| f64::from(v)).collect();
        let x = Array2::from_shape_vec((n, dim), data).map_err(|e| Error::invalid("map", e.to_string()))?;
        let pca = Pca::params(2)
            .fit(&DatasetBase::from(x.clone()))
            .map_err(|e| Error::invalid("map", format!("PCA failed: {e}")))?;
        let projected: Array2<f64> = pca.predict(&x);
        // Variance along each axis over the total variance (trace of the covariance), both with
        // the same n − 1 denominator; linfa's own ratio is normalised over the kept axes only.
        let total: f64 = x.var_axis(Axis(0), 1.0).sum();
        let axis_var: Array1<f64> = projected.var_axis(Axis(0), 1.0);
        let share = |i: usize| if total > 0.0 { axis_var.get(i).copied().unwrap_or(0.0) / total } else { 0.0 };
        let points = projected.rows().into_iter().map(|r| [r[0], r[1]]).collect();
        Ok(PcaMap { pca, points, variance_share: [share(0), share(1)] })
    }

    /// Project a vector with the fitted transform.
    pub fn project(&self, v: &[f32]) -> [f64; 2] {
        let row = Array2::from_shape_vec((1, v.len()), v.iter().map(|&x| f64::from(x)).collect());
        match row {
            Ok(row) if row.ncols() == self.pca.mean().len() => {
                let p: Array2<f64> = self.pca.predict(&row);
                [p[[0, 0]], p[[0, 1]]]
            }
            _ => [0.0, 0.0],
        }
    }

    /// Place a question: its projection and its `k` nearest passages by true cosine.
    pub fn place(&self, index: &DenseIndex, query: &[f32], k: usize) -> QueryOnMap {
        let mut sims: Vec<(DocId, f32)> = (0..index.len())
            .filter_map(|d| index.vector(DocId(d as u32)).map(|v| (DocId(d as u32), dot(query, v))))
            .collect();
        sims.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        sims.truncate(k);
        QueryOnMap { point: self.project(query), neighbours: sims }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variance_along_a_line_is_all_on_the_first_axis_and_queries_are_not_refit() {
        // Points on a line in 3-D (plus tiny noise on a second direction).
        let mut vectors = Vec::new();
        for i in 0..10 {
            let t = i as f32;
            vectors.extend([t, 2.0 * t, if i % 2 == 0 { 0.01 } else { -0.01 }]);
        }
        let index = DenseIndex { model_id: "t".into(), dim: 3, vectors };
        let map = PcaMap::fit(&index).unwrap();
        assert!(map.variance_share[0] > 0.999, "{:?}", map.variance_share);
        assert!(map.variance_share[0] + map.variance_share[1] <= 1.0 + 1e-9);
        // A new point on the line lands on the line's axis at the right distance from the mean.
        let q = map.project(&[4.5, 9.0, 0.0]);
        assert!(q[0].abs() < 1e-6, "the mean (4.5, 9) projects to 0: {q:?}");
        let far = map.project(&[14.5, 29.0, 0.0]);
        assert!((far[0].abs() - (10.0f64.powi(2) * 5.0).sqrt()).abs() < 1e-3, "{far:?}");
        assert_eq!(map.points.len(), 10);
    }
}
