//! The map of the embedding space: PCA fitted on the passage vectors, the question projected with
//! the same fitted transform (never refitted), and the true nearest neighbours beside it, because
//! distances on a 2-D map are only approximate.
//!
//! A principal axis has no sign of its own: the SVD returns `v` or `−v` by numerical accident, so
//! the same corpus would draw a mirrored map on another CPU, thread count or matrix kernel. Every
//! axis is therefore oriented here, where the fit happens, by scikit-learn's `svd_flip` convention
//! (the loading with the largest absolute value is made positive), and every projection (the
//! passages, the question, the app, the report) goes through the oriented axes.

use linfa::DatasetBase;
use linfa::traits::Fit;
use linfa_reduction::Pca;
use ndarray::{Array1, Array2, ArrayView1, Axis};
use serde::{Deserialize, Serialize};

use crate::corpus::DocId;
use crate::index::dot::dot;
use crate::index::encoded::DenseIndex;
use crate::{Error, Result};

/// A fitted 2-D map of a dense index.
#[derive(Debug, Clone)]
pub struct PcaMap {
    /// The mean passage vector (the map's origin).
    mean: Array1<f64>,
    /// The two principal axes, one per row, oriented by [`orient_axis`].
    axes: Array2<f64>,
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

/// Flip an axis in place so that its loading of largest magnitude is positive (scikit-learn's
/// `svd_flip` with `u_based_decision=False`). The first of equally large loadings decides, so the
/// result depends only on the axis, never on the sign the SVD happened to return.
pub fn orient_axis(mut axis: ndarray::ArrayViewMut1<'_, f64>) {
    let mut largest = 0.0f64;
    for &x in axis.iter() {
        if x.abs() > largest.abs() {
            largest = x;
        }
    }
    if largest < 0.0 {
        axis.mapv_inplace(|x| -x);
    }
}

impl PcaMap {
    /// Fit on every passage vector of a dense index (at least three passages).
    pub fn fit(index: &DenseIndex) -> Result<PcaMap> {
        let (n, dim) = (index.len(), index.dim);
        if n < 3 || dim < 2 {
            return Err(Error::invalid("map", format!("a map needs at least 3 passages (have {n})")));
        }
        // One point per document: its first window's vector.
        let data: Vec<f64> =
            (0..n as u32).flat_map(|d| index.vector(DocId(d)).unwrap_or(&[]).iter().map(|&v| f64::from(v))).collect();
        let x = Array2::from_shape_vec((n, dim), data).map_err(|e| Error::caused("map", e))?;
        let pca: Pca<f64> =
            Pca::params(2).fit(&DatasetBase::from(x.clone())).map_err(|e| Error::caused("map: PCA failed", e))?;
        Self::from_axes(&x, pca.mean().clone(), pca.components().clone())
    }

    /// The map of `x` (one passage per row) on the given origin and axes (one per row, in either
    /// orientation): the axes are oriented, then every passage projected.
    fn from_axes(x: &Array2<f64>, mean: Array1<f64>, mut axes: Array2<f64>) -> Result<PcaMap> {
        if axes.nrows() < 2 || axes.ncols() != x.ncols() || mean.len() != x.ncols() {
            return Err(Error::invalid("map", format!("PCA returned {} axes of {} dims", axes.nrows(), axes.ncols())));
        }
        for axis in axes.rows_mut() {
            orient_axis(axis);
        }
        let map = PcaMap { mean, axes, points: Vec::new(), variance_share: [0.0; 2] };
        let points: Vec<[f64; 2]> = x.rows().into_iter().map(|r| map.project_row(r)).collect();
        // Variance along each axis over the total variance (trace of the covariance), both with
        // the same n − 1 denominator; linfa's own ratio is normalised over the kept axes only.
        let total: f64 = x.var_axis(Axis(0), 1.0).sum();
        let projected = Array2::from_shape_vec((points.len(), 2), points.iter().flatten().copied().collect())
            .map_err(|e| Error::caused("map", e))?;
        let axis_var = projected.var_axis(Axis(0), 1.0);
        let share = |i: usize| if total > 0.0 { axis_var.get(i).copied().unwrap_or(0.0) / total } else { 0.0 };
        Ok(PcaMap { variance_share: [share(0), share(1)], points, ..map })
    }

    /// A map of points already placed (2-D identity axes), for tests of what draws a map.
    pub fn from_points(points: Vec<[f64; 2]>) -> PcaMap {
        let mut axes = Array2::zeros((2, 2));
        axes[[0, 0]] = 1.0;
        axes[[1, 1]] = 1.0;
        PcaMap { mean: Array1::zeros(2), axes, points, variance_share: [0.5, 0.5] }
    }

    fn project_row(&self, v: ArrayView1<'_, f64>) -> [f64; 2] {
        let centred = &v - &self.mean;
        [self.axes.row(0).dot(&centred), self.axes.row(1).dot(&centred)]
    }

    /// Project a vector with the fitted transform (the origin when its dimension does not match).
    pub fn project(&self, v: &[f32]) -> [f64; 2] {
        if v.len() != self.mean.len() {
            return [0.0, 0.0];
        }
        let row: Array1<f64> = v.iter().map(|&x| f64::from(x)).collect();
        self.project_row(row.view())
    }

    /// Place a question: its projection and its `k` nearest passages by true cosine — a long
    /// passage's by its best window, the very cosine the dense column scores it with (MaxP).
    pub fn place(&self, index: &DenseIndex, query: &[f32], k: usize) -> QueryOnMap {
        let cosine = |r: usize| index.row(r).map_or(f32::NEG_INFINITY, |v| dot(query, v));
        let mut sims: Vec<(DocId, f32)> = (0..index.len() as u32)
            .filter_map(|d| index.windows.best(DocId(d), |r| f64::from(cosine(r))).map(|(r, _)| (DocId(d), cosine(r))))
            .collect();
        sims.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        sims.truncate(k);
        QueryOnMap { point: self.project(query), neighbours: sims }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator, so the tests need no random-number crate.
    fn lcg(seed: &mut u64) -> f64 {
        *seed = crate::lcg::lcg(*seed);
        ((*seed >> 11) as f64 / (1u64 << 53) as f64) - 0.5
    }

    /// Twelve passages in 5-D spread mostly along two known directions, so both axes are well
    /// separated from the rest (and from each other).
    fn spread(noise: f64, seed: u64) -> DenseIndex {
        let mut s = seed;
        let a = [0.1, -0.9, 0.3, 0.2, 0.2];
        let b = [0.7, 0.1, -0.1, 0.1, -0.6];
        let mut vectors = Vec::new();
        for i in 0..12 {
            let (t, u) = (i as f64 - 5.5, ((i * 7) % 12) as f64 / 4.0 - 1.4);
            for d in 0..5 {
                let jitter = 0.01 * (((i * 5 + d * 3) % 7) as f64 - 3.0) + noise * lcg(&mut s);
                vectors.push((3.0 * t * a[d] + u * b[d] + jitter) as f32);
            }
        }
        DenseIndex::whole("t".into(), 5, vectors)
    }

    #[test]
    fn variance_along_a_line_is_all_on_the_first_axis_and_queries_are_not_refit() {
        // Points on a line in 3-D (plus tiny noise on a second direction).
        let mut vectors = Vec::new();
        for i in 0..10 {
            let t = i as f32;
            vectors.extend([t, 2.0 * t, if i % 2 == 0 { 0.01 } else { -0.01 }]);
        }
        let index = DenseIndex::whole("t".into(), 3, vectors);
        let map = PcaMap::fit(&index).unwrap();
        assert!(map.variance_share[0] > 0.999, "{:?}", map.variance_share);
        assert!(map.variance_share[0] + map.variance_share[1] <= 1.0 + 1e-9);
        // A new point on the line lands on the line's axis at the right distance from the mean,
        // on the positive side: the axis is ±(1, 2, 0)/√5 and its largest loading (2/√5) is made
        // positive, so a point further along (+1, +2) than the mean has x = +√(10² · 5).
        let q = map.project(&[4.5, 9.0, 0.0]);
        assert!(q[0].abs() < 1e-6, "the mean (4.5, 9) projects to 0: {q:?}");
        let far = map.project(&[14.5, 29.0, 0.0]);
        assert!((far[0] - (10.0f64.powi(2) * 5.0).sqrt()).abs() < 1e-3, "{far:?}");
        assert_eq!(map.points.len(), 10);
        assert_eq!(map.project(&[1.0, 2.0]), [0.0, 0.0], "a vector of another dimension has no place");
    }

    #[test]
    fn an_axis_is_oriented_by_its_largest_loading() {
        let mut v = ndarray::arr1(&[0.3, -0.8, 0.5]);
        orient_axis(v.view_mut());
        assert_eq!(v.to_vec(), [-0.3, 0.8, -0.5]);
        orient_axis(v.view_mut());
        assert_eq!(v.to_vec(), [-0.3, 0.8, -0.5], "an oriented axis stays as it is");
        // Equal magnitudes: the first one decides.
        let mut tie = ndarray::arr1(&[-0.5, 0.5, 0.1]);
        orient_axis(tie.view_mut());
        assert_eq!(tie.to_vec(), [0.5, -0.5, -0.1]);
    }

    #[test]
    fn the_map_is_the_same_whichever_sign_the_svd_returns() {
        let index = spread(0.0, 1);
        let fitted = PcaMap::fit(&index).unwrap();
        let x = Array2::from_shape_vec((12, 5), index.vectors.iter().map(|&v| f64::from(v)).collect()).unwrap();
        // Hand the map the fitted axes with the first, the second and both flipped, as another
        // machine's SVD may: every projected point, and the question's, stays where it was.
        let q = [0.4f32, -1.0, 0.2, 0.9, -0.3];
        for flip in [[-1.0, 1.0], [1.0, -1.0], [-1.0, -1.0]] {
            let mut axes = fitted.axes.clone();
            for (mut row, s) in axes.rows_mut().into_iter().zip(flip) {
                row *= s;
            }
            let map = PcaMap::from_axes(&x, fitted.mean.clone(), axes).unwrap();
            assert_eq!(map.points, fitted.points, "flip {flip:?}");
            assert_eq!(map.project(&q), fitted.project(&q), "flip {flip:?}");
            assert_eq!(map.variance_share, fitted.variance_share);
        }
    }

    #[test]
    fn a_slightly_perturbed_fit_keeps_every_sign() {
        // Noise of 1e-7, the size of a float's last bits after another CPU's kernels, moves the
        // points by about that much and never mirrors an axis.
        let base = PcaMap::fit(&spread(0.0, 1)).unwrap();
        for seed in 1..=20 {
            let map = PcaMap::fit(&spread(1e-7, seed)).unwrap();
            for (i, (a, b)) in base.points.iter().zip(&map.points).enumerate() {
                for axis in 0..2 {
                    assert!((a[axis] - b[axis]).abs() < 1e-5, "seed {seed}, passage {i}, axis {axis}: {a:?} vs {b:?}");
                }
            }
        }
    }

    #[test]
    fn the_axes_match_an_independent_power_iteration() {
        // The covariance's two leading eigenvectors by power iteration with deflation, oriented
        // by hand by the same rule: the map's coordinates are the projections on them (to 1e-4:
        // linfa's truncated SVD is iterative and stops at about 1e-5; a flipped or wrong axis
        // would be off by the coordinates' own size, about 1 to 10).
        let index = spread(0.0, 1);
        let map = PcaMap::fit(&index).unwrap();
        let rows: Vec<Vec<f64>> = index.vectors.chunks(5).map(|r| r.iter().map(|&v| f64::from(v)).collect()).collect();
        let mean: Vec<f64> = (0..5).map(|d| rows.iter().map(|r| r[d]).sum::<f64>() / 12.0).collect();
        let centred: Vec<Vec<f64>> = rows.iter().map(|r| r.iter().zip(&mean).map(|(x, m)| x - m).collect()).collect();
        let mut cov = [[0.0f64; 5]; 5];
        for r in &centred {
            for i in 0..5 {
                for j in 0..5 {
                    cov[i][j] += r[i] * r[j] / 11.0;
                }
            }
        }
        let mut axes = Vec::new();
        for _ in 0..2 {
            let mut v = [1.0, 0.7, 0.4, 0.2, 0.1];
            for _ in 0..2000 {
                let mut w = [0.0; 5];
                for i in 0..5 {
                    w[i] = (0..5).map(|j| cov[i][j] * v[j]).sum();
                }
                let norm = w.iter().map(|x| x * x).sum::<f64>().sqrt();
                v = w.map(|x| x / norm);
            }
            let lambda: f64 = (0..5).map(|i| v[i] * (0..5).map(|j| cov[i][j] * v[j]).sum::<f64>()).sum();
            for i in 0..5 {
                for j in 0..5 {
                    cov[i][j] -= lambda * v[i] * v[j];
                }
            }
            let largest = v.iter().copied().fold(0.0f64, |a, x| if x.abs() > a.abs() { x } else { a });
            axes.push(if largest < 0.0 { v.map(|x| -x) } else { v });
        }
        for (r, p) in centred.iter().zip(&map.points) {
            for (axis, got) in axes.iter().zip(p) {
                let want: f64 = r.iter().zip(axis).map(|(x, a)| x * a).sum();
                assert!((want - got).abs() < 1e-4, "{want} vs {got}");
            }
        }
    }
}
