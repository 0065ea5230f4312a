//! Approximate dense search for large corpora: an HNSW graph (the `instant-distance` crate) over
//! the passage vectors. Above [`super::APPROXIMATE_ABOVE`] passages, dense search takes the graph's
//! candidates and scores them exactly; below it, every passage is scored. Its recall@10 against
//! exact search is measured when the graph is built, and the column's label says it.

use std::sync::Arc;

use instant_distance::{Builder, HnswMap, Point, Search};

use super::dot::dot16;
use super::encoded::DenseIndex;
use crate::progress::{Progress, check_cancel};
use crate::topk::smallest_keys;
use crate::{Error, Result};

/// Candidates a search keeps (HNSW's `ef`); a ranking of more than this many is exact.
pub const CANDIDATES: usize = 256;
/// Questions the recall is measured with.
const RECALL_PROBES: usize = 200;

#[derive(Clone)]
struct Vector(Arc<[f32]>);

impl Point for Vector {
    fn distance(&self, other: &Self) -> f32 {
        // Cosine distance of unit vectors; clamped so rounding never makes it negative.
        (1.0 - dot16(&self.0, &other.0)).max(0.0)
    }
}

/// An HNSW graph over the rows of a [`DenseIndex`].
pub struct DenseAnn {
    map: HnswMap<Vector, u32>,
    /// Mean recall@10 of the graph's candidates against exact search, over probe questions.
    pub recall_at_10: f64,
    /// How many probe questions measured it.
    pub probes: usize,
}

impl std::fmt::Debug for DenseAnn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DenseAnn").field("recall_at_10", &self.recall_at_10).finish()
    }
}

/// The ten best rows of `index` for `q` by exact search (rank keys: score desc, row asc).
fn exact_top(index: &DenseIndex, q: &[f32], k: usize) -> Vec<u32> {
    let keys = (0..index.windows.rows())
        .map(|r| {
            let s = index.row(r).map_or(f32::NEG_INFINITY, |v| dot16(q, v));
            crate::topk::rank_key(f64::from(s), crate::corpus::DocId(r as u32))
        })
        .collect();
    smallest_keys(keys, k).into_iter().map(|key| crate::topk::key_doc(key).0).collect()
}

impl DenseAnn {
    /// Build the graph (seeded, so the same vectors give the same graph on one machine) and
    /// measure its recall@10 with probe questions: passage vectors spread over the corpus, each
    /// with a small deterministic perturbation so it is not simply its own nearest neighbour.
    pub fn build(index: &DenseIndex, progress: &dyn Progress) -> Result<DenseAnn> {
        let rows = index.windows.rows();
        if rows == 0 {
            return Err(Error::invalid("dense index", "no passage vectors to build an approximate index over"));
        }
        progress.stage(&format!("building the approximate dense index (HNSW) over {rows} passage vectors"), 0);
        check_cancel(progress)?;
        let points: Vec<Vector> = (0..rows).map(|r| Vector(index.row(r).unwrap_or(&[]).to_vec().into())).collect();
        let values: Vec<u32> = (0..rows as u32).collect();
        let map = Builder::default().ef_construction(100).ef_search(CANDIDATES).seed(7).build(points, values);
        check_cancel(progress)?;
        let mut ann = DenseAnn { map, recall_at_10: 0.0, probes: 0 };
        progress.stage("measuring the approximate index's recall@10 against exact search", RECALL_PROBES as u64);
        let mut total = 0.0;
        let probes = RECALL_PROBES.min(rows);
        for i in 0..probes {
            check_cancel(progress)?;
            let r = i * rows / probes;
            let mut q: Vec<f32> = index.row(r).unwrap_or(&[]).to_vec();
            for (j, x) in q.iter_mut().enumerate() {
                *x += 0.02 * (((j * 7919 + i * 104729) % 1000) as f32 / 1000.0 - 0.5);
            }
            let exact = exact_top(index, &q, 10);
            let found = ann.candidates(&q);
            let hit = exact.iter().filter(|e| found.iter().take(10).any(|f| f == *e)).count();
            total += hit as f64 / exact.len().max(1) as f64;
            progress.advance(1);
        }
        ann.recall_at_10 = total / probes.max(1) as f64;
        ann.probes = probes;
        Ok(ann)
    }

    /// The graph's candidate rows for a question vector, nearest first.
    pub fn candidates(&self, q: &[f32]) -> Vec<u32> {
        let mut search = Search::default();
        self.map.search(&Vector(q.to_vec().into()), &mut search).map(|item| *item.value).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::NoProgress;

    /// Unit vectors around many directions, deterministic.
    fn vectors(n: usize, dim: usize) -> Vec<f32> {
        let mut seed = 11u64;
        let mut next = || {
            seed = crate::lcg::lcg(seed);
            ((seed >> 33) as f32 / (1u64 << 31) as f32) - 0.5
        };
        let centres: Vec<Vec<f32>> = (0..64).map(|_| (0..dim).map(|_| next()).collect()).collect();
        let mut out = Vec::with_capacity(n * dim);
        for i in 0..n {
            let mut v: Vec<f32> = centres[i % 64].iter().map(|c| c + 0.4 * next()).collect();
            let norm = dot16(&v, &v).sqrt();
            v.iter_mut().for_each(|x| *x /= norm);
            out.extend(v);
        }
        out
    }

    #[test]
    fn the_graph_finds_the_exact_ten_nearest_nearly_always() {
        let (n, dim) = (6_000, 32);
        let index = DenseIndex::whole("t".into(), dim, vectors(n, dim));
        let ann = DenseAnn::build(&index, &NoProgress).unwrap();
        assert_eq!(ann.probes, RECALL_PROBES);
        assert!(ann.recall_at_10 >= 0.99, "recall@10 {}", ann.recall_at_10);
        // Recomputed here from fresh questions: the measured figure holds beyond its probes.
        let queries = vectors(50, dim);
        let mut hits = 0;
        for q in queries.chunks_exact(dim) {
            let exact = exact_top(&index, q, 10);
            let found = ann.candidates(q);
            hits += exact.iter().filter(|e| found.iter().take(10).any(|f| f == *e)).count();
        }
        assert!(hits as f64 / 500.0 >= 0.99, "{hits} of 500");
    }
}
