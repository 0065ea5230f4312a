//! A query adapter: a linear map `W` on the dense model's question vectors, trained from
//! judgements so that a question lands nearer the passages judged relevant to it. The passages'
//! vectors stay as the model made them (nothing is re-encoded), which is why it trains in seconds
//! on the CPU: a `d × d` matrix, from the identity, by contrastive learning with in-batch
//! negatives (InfoNCE) over (question, relevant passage) pairs.
//!
//! The adapted question is `Wq / |Wq|`, so a score is still a cosine, and it still splits over a
//! passage's tokens exactly as the dense model's does; over the question's tokens too, each token
//! state mapped by `W` (the map is linear, so the mean of the mapped tokens is the mapped mean).

use std::path::Path;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::{InputKind, TextEncoder, TokenStates, WindowSpec};
use crate::progress::{Progress, check_cancel};
use crate::{Error, Result};

/// How an adapter was trained (kept in its file, shown in its column's label and in reports).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AdapterTraining {
    /// What its pairs came from (`scifact train qrels`, `your grades`).
    pub source: String,
    /// Distinct questions.
    pub questions: usize,
    /// (question, relevant passage) pairs.
    pub pairs: usize,
    /// Passes over the pairs.
    pub epochs: usize,
    /// Pairs per batch (the others of a batch are each question's negatives).
    pub batch: usize,
    /// The softmax temperature.
    pub temperature: f64,
    /// Adam's step size.
    pub learning_rate: f64,
    /// Pull towards the identity (`λ·|W − I|²`), so few pairs cannot throw the model's space away.
    pub identity_weight: f64,
    /// Seed of the batch order.
    pub seed: u64,
    /// The training loss at each epoch's end (mean over its batches).
    pub loss: Vec<f64>,
}

impl Default for AdapterTraining {
    fn default() -> Self {
        Self {
            source: String::new(),
            questions: 0,
            pairs: 0,
            epochs: 20,
            batch: 64,
            temperature: 0.05,
            learning_rate: 1e-3,
            identity_weight: 0.1,
            seed: 42,
            loss: Vec::new(),
        }
    }
}

/// A linear map on question vectors.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryAdapter {
    /// The dense model whose question vectors it maps.
    pub model_id: String,
    /// The vectors' size.
    pub dim: usize,
    /// Row-major `dim × dim`: the mapped question is `W q`.
    pub weights: Vec<f32>,
    /// How it was trained.
    pub trained: AdapterTraining,
}

/// One (question, relevant passage) pair: the question's vector, the passage's, and the question's
/// and the passage's ids (a batch's other passages relevant to the same question are no negatives).
#[derive(Debug, Clone, PartialEq)]
pub struct AdapterPair {
    /// The question's id.
    pub question: String,
    /// The passage's id.
    pub passage: String,
    /// The question's vector (unit length).
    pub q: Vec<f32>,
    /// The passage's vector (unit length).
    pub p: Vec<f32>,
}

impl QueryAdapter {
    /// The identity map (an untrained adapter changes nothing).
    pub fn identity(model_id: &str, dim: usize) -> Self {
        let mut weights = vec![0f32; dim * dim];
        for i in 0..dim {
            weights[i * dim + i] = 1.0;
        }
        Self { model_id: model_id.to_string(), dim, weights, trained: AdapterTraining::default() }
    }

    /// `W q / |W q|` (the question itself when the map sends it to zero or its size is not the
    /// adapter's).
    pub fn apply(&self, q: &[f32]) -> Vec<f32> {
        if q.len() != self.dim {
            return q.to_vec();
        }
        let mapped = self.map(q);
        let norm = mapped.iter().map(|&x| f64::from(x) * f64::from(x)).sum::<f64>().sqrt();
        if norm == 0.0 || !norm.is_finite() {
            return q.to_vec();
        }
        mapped.iter().map(|&x| (f64::from(x) / norm) as f32).collect()
    }

    /// `W x`, unnormalised (f64 sums in a fixed order).
    pub fn map(&self, x: &[f32]) -> Vec<f32> {
        (0..self.dim)
            .map(|i| {
                let row = &self.weights[i * self.dim..(i + 1) * self.dim];
                row.iter().zip(x).map(|(&w, &v)| f64::from(w) * f64::from(v)).sum::<f64>() as f32
            })
            .collect()
    }

    /// A short fingerprint of the weights (the adapted encoder's id, so cached question vectors of
    /// two adapters never mix).
    pub fn fingerprint(&self) -> String {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        h.update(self.model_id.as_bytes());
        for w in &self.weights {
            h.update(w.to_le_bytes());
        }
        hex::encode(&h.finalize()[..6])
    }

    /// Train from `pairs` (each question's vector and a relevant passage's), starting from the
    /// identity: Adam on InfoNCE with in-batch negatives, `settings` giving the knobs (its loss is
    /// filled in). Deterministic: the same pairs and seed give the same matrix.
    pub fn train(
        model_id: &str,
        pairs: &[AdapterPair],
        settings: AdapterTraining,
        progress: &dyn Progress,
    ) -> Result<QueryAdapter> {
        let Some(dim) = pairs.first().map(|p| p.q.len()) else {
            return Err(Error::invalid("adapter", "no (question, relevant passage) pairs to train on"));
        };
        if pairs.iter().any(|p| p.q.len() != dim || p.p.len() != dim) {
            return Err(Error::invalid("adapter", "the pairs' vectors are not all of one size"));
        }
        let mut adapter = QueryAdapter::identity(model_id, dim);
        let (n, d) = (pairs.len(), dim);
        let mut questions: Vec<&str> = pairs.iter().map(|p| p.question.as_str()).collect();
        questions.sort_unstable();
        questions.dedup();
        let mut t = settings;
        t.pairs = n;
        t.questions = questions.len();
        t.loss.clear();
        let batch = t.batch.clamp(2, 512);
        let tau = t.temperature.max(1e-4);
        // Adam's moments, in f64.
        let mut w: Vec<f64> = adapter.weights.iter().map(|&x| f64::from(x)).collect();
        let (mut m, mut v) = (vec![0f64; d * d], vec![0f64; d * d]);
        let (b1, b2, eps) = (0.9f64, 0.999f64, 1e-8f64);
        let mut step = 0i32;
        let mut order: Vec<usize> = (0..n).collect();
        let mut rng = crate::lcg::SplitMix64::new(t.seed);
        progress.stage("Training the query adapter", t.epochs as u64);
        for _ in 0..t.epochs {
            check_cancel(progress)?;
            rng.shuffle(&mut order);
            let mut epoch_loss = 0.0;
            let mut batches = 0;
            for chunk in order.chunks(batch) {
                if chunk.len() < 2 {
                    continue;
                }
                let (loss, grad) = batch_gradient(&w, d, pairs, chunk, tau, t.identity_weight);
                epoch_loss += loss;
                batches += 1;
                step += 1;
                let (c1, c2) = (1.0 - b1.powi(step), 1.0 - b2.powi(step));
                for i in 0..d * d {
                    m[i] = b1 * m[i] + (1.0 - b1) * grad[i];
                    v[i] = b2 * v[i] + (1.0 - b2) * grad[i] * grad[i];
                    w[i] -= t.learning_rate * (m[i] / c1) / ((v[i] / c2).sqrt() + eps);
                }
            }
            t.loss.push(if batches > 0 { epoch_loss / f64::from(batches) } else { 0.0 });
            progress.advance(1);
        }
        adapter.weights = w.iter().map(|&x| x as f32).collect();
        adapter.trained = t;
        Ok(adapter)
    }

    /// Write the adapter as safetensors: the matrix `W` (f32) and, in the metadata, the model and
    /// how it was trained.
    pub fn save(&self, path: &Path) -> Result<()> {
        let bytes: Vec<u8> = self.weights.iter().flat_map(|w| w.to_le_bytes()).collect();
        let view = safetensors::tensor::TensorView::new(safetensors::Dtype::F32, vec![self.dim, self.dim], &bytes)
            .map_err(|e| Error::invalid(path.display().to_string(), format!("the adapter cannot be written: {e}")))?;
        let training = serde_json::to_string(&self.trained).map_err(|e| Error::invalid("adapter", e.to_string()))?;
        let meta = std::collections::HashMap::from([
            ("format".to_string(), "ranklens-query-adapter".to_string()),
            ("model".to_string(), self.model_id.clone()),
            ("training".to_string(), training),
        ]);
        let out = safetensors::serialize([("W", view)], Some(meta))
            .map_err(|e| Error::invalid(path.display().to_string(), format!("the adapter cannot be written: {e}")))?;
        crate::fsutil::write_atomic(path, out)
    }

    /// Read an adapter written by [`QueryAdapter::save`]; a file that is not one is refused by name.
    pub fn load(path: &Path) -> Result<QueryAdapter> {
        let what = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        let bad = |m: String| Error::invalid(what.clone(), m);
        let (_, meta) = safetensors::SafeTensors::read_metadata(&bytes)
            .map_err(|e| bad(format!("not a safetensors file ({e})")))?;
        let info = meta.metadata().clone().unwrap_or_default();
        if info.get("format").map(String::as_str) != Some("ranklens-query-adapter") {
            return Err(bad(
                "not a RankLens query adapter (its metadata has no format \"ranklens-query-adapter\")".into()
            ));
        }
        let model_id = info.get("model").cloned().unwrap_or_default();
        let trained = match info.get("training") {
            Some(t) => serde_json::from_str(t).map_err(|e| bad(format!("its training record cannot be read: {e}")))?,
            None => AdapterTraining::default(),
        };
        let tensors = safetensors::SafeTensors::deserialize(&bytes).map_err(|e| bad(format!("not readable ({e})")))?;
        let w = tensors.tensor("W").map_err(|_| bad("it has no tensor W".into()))?;
        let shape = w.shape().to_vec();
        if w.dtype() != safetensors::Dtype::F32 || shape.len() != 2 || shape[0] != shape[1] || shape[0] == 0 {
            return Err(bad(format!("W must be a square f32 matrix, not {:?} {shape:?}", w.dtype())));
        }
        let weights: Vec<f32> =
            w.data().chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        if weights.iter().any(|x| !x.is_finite()) {
            return Err(bad("W holds a value that is not a finite number".into()));
        }
        Ok(QueryAdapter { model_id, dim: shape[0], weights, trained })
    }
}

/// One batch's InfoNCE loss and its gradient with respect to `W` (row-major), plus the pull to
/// the identity. For question i, `u = Wq / |Wq|`, `s_ij = u·p_j / τ`, and the loss is
/// `−log softmax(s_i)_i` over the batch's passages, leaving out the others relevant to question i.
fn batch_gradient(
    w: &[f64],
    d: usize,
    pairs: &[AdapterPair],
    chunk: &[usize],
    tau: f64,
    lambda: f64,
) -> (f64, Vec<f64>) {
    let b = chunk.len();
    let mut grad = vec![0f64; d * d];
    let mut loss = 0.0;
    for (bi, &i) in chunk.iter().enumerate() {
        let q: Vec<f64> = pairs[i].q.iter().map(|&x| f64::from(x)).collect();
        let mapped: Vec<f64> = (0..d).map(|r| (0..d).map(|c| w[r * d + c] * q[c]).sum()).collect();
        let norm = mapped.iter().map(|x| x * x).sum::<f64>().sqrt().max(1e-12);
        let u: Vec<f64> = mapped.iter().map(|x| x / norm).collect();
        // Scores against the batch's passages (another pair of the same question with another
        // passage is no negative; the same passage twice is the positive).
        let keep: Vec<bool> = chunk
            .iter()
            .enumerate()
            .map(|(bj, &j)| {
                bj == bi || (pairs[j].question != pairs[i].question && pairs[j].passage != pairs[i].passage)
            })
            .collect();
        let s: Vec<f64> = chunk
            .iter()
            .map(|&j| pairs[j].p.iter().zip(&u).map(|(&p, &x)| f64::from(p) * x).sum::<f64>() / tau)
            .collect();
        let max = s.iter().zip(&keep).filter(|(_, k)| **k).map(|(x, _)| *x).fold(f64::NEG_INFINITY, f64::max);
        let z: f64 = s.iter().zip(&keep).filter(|(_, k)| **k).map(|(x, _)| (x - max).exp()).sum();
        loss += -(s[bi] - max - z.ln());
        // dL/du = Σ_j (softmax_j − [j = i]) p_j / τ.
        let mut du = vec![0f64; d];
        for (bj, &j) in chunk.iter().enumerate() {
            if !keep[bj] {
                continue;
            }
            let g = (s[bj] - max).exp() / z - if bj == bi { 1.0 } else { 0.0 };
            for (k, &p) in pairs[j].p.iter().enumerate() {
                du[k] += g * f64::from(p) / tau;
            }
        }
        // du/dmapped = (I − u uᵀ) / |Wq|; dmapped/dW = q (outer).
        let along: f64 = du.iter().zip(&u).map(|(a, b)| a * b).sum();
        for r in 0..d {
            let dm = (du[r] - along * u[r]) / norm;
            for c in 0..d {
                grad[r * d + c] += dm * q[c] / b as f64;
            }
        }
    }
    for r in 0..d {
        for c in 0..d {
            let target = if r == c { 1.0 } else { 0.0 };
            grad[r * d + c] += 2.0 * lambda * (w[r * d + c] - target);
        }
    }
    (loss / b as f64, grad)
}

/// The dense model with an adapter on its questions: passages are encoded as the model encodes
/// them; questions are mapped by `W` and normalised, and so are their token states (so the
/// cosine still splits over the question's tokens).
pub struct AdaptedEncoder {
    inner: Arc<dyn TextEncoder>,
    adapter: Arc<QueryAdapter>,
    id: String,
}

impl AdaptedEncoder {
    /// `inner` with `adapter` on its questions; `adapter` must be of `inner`'s size.
    pub fn new(inner: Arc<dyn TextEncoder>, adapter: Arc<QueryAdapter>) -> Result<Self> {
        if adapter.dim != inner.dim() {
            return Err(Error::invalid(
                "adapter",
                format!("the adapter maps {}-d vectors, the dense model makes {}-d ones", adapter.dim, inner.dim()),
            ));
        }
        let id = format!("{}+adapter-{}", inner.model_id(), adapter.fingerprint());
        Ok(Self { inner, adapter, id })
    }
}

impl TextEncoder for AdaptedEncoder {
    fn model_id(&self) -> &str {
        &self.id
    }
    fn dim(&self) -> usize {
        self.inner.dim()
    }
    fn encode(&self, texts: &[&str], kind: InputKind) -> Result<Vec<Vec<f32>>> {
        let v = self.inner.encode(texts, kind)?;
        Ok(match kind {
            InputKind::Query => v.iter().map(|q| self.adapter.apply(q)).collect(),
            _ => v,
        })
    }
    fn windows(&self, text: &str, spec: WindowSpec) -> Result<Vec<std::ops::Range<usize>>> {
        self.inner.windows(text, spec)
    }
    fn window_tokens(&self) -> Option<usize> {
        self.inner.window_tokens()
    }
    fn token_states(&self, text: &str, kind: InputKind) -> Result<Option<TokenStates>> {
        let Some(mut states) = self.inner.token_states(text, kind)? else { return Ok(None) };
        if matches!(kind, InputKind::Query) {
            let d = states.dim;
            let mapped: Vec<f32> = states.data.chunks(d).flat_map(|row| self.adapter.map(row)).collect();
            states.data = mapped;
            // The question's vector is now the normalised mean of the mapped states.
            states.normalized = true;
        }
        Ok(Some(states))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::NoProgress;

    fn unit(v: Vec<f32>) -> Vec<f32> {
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.into_iter().map(|x| x / n).collect()
    }

    #[test]
    fn the_identity_changes_nothing_and_a_map_is_normalised() {
        let a = QueryAdapter::identity("m", 3);
        assert_eq!(a.apply(&[0.6, 0.8, 0.0]), vec![0.6, 0.8, 0.0]);
        let mut b = QueryAdapter::identity("m", 2);
        b.weights = vec![2.0, 0.0, 0.0, 0.0];
        assert_eq!(b.apply(&[0.6, 0.8]), vec![1.0, 0.0], "W q = (1.2, 0) normalised");
        assert_eq!(b.apply(&[0.0, 1.0]), vec![0.0, 1.0], "sent to zero: the question itself");
        assert_eq!(b.apply(&[1.0]), vec![1.0], "another size: the question itself");
    }

    /// Questions that point the wrong way: each question's relevant passage is its vector rotated
    /// by 90°. Training must bring every question's own passage first, which the identity does not.
    #[test]
    fn training_learns_a_rotation_the_judgements_ask_for() {
        let mut pairs = Vec::new();
        let mut seed = 7u64;
        let mut rand = || {
            seed = crate::lcg::lcg(seed);
            ((seed >> 33) as f32 / (1u64 << 31) as f32) - 0.5
        };
        for i in 0..40 {
            let q = unit(vec![rand(), rand(), rand(), rand()]);
            // p = R q with R rotating (x, y) by 90° and (z, w) by 90°.
            let p = unit(vec![-q[1], q[0], -q[3], q[2]]);
            pairs.push(AdapterPair { question: format!("q{i}"), passage: format!("d{i}"), q, p });
        }
        let first_right = |a: &QueryAdapter| {
            pairs
                .iter()
                .filter(|x| {
                    let u = a.apply(&x.q);
                    let score = |p: &[f32]| u.iter().zip(p).map(|(a, b)| a * b).sum::<f32>();
                    pairs.iter().all(|y| y.passage == x.passage || score(&y.p) < score(&x.p))
                })
                .count()
        };
        let before = first_right(&QueryAdapter::identity("m", 4));
        let settings =
            AdapterTraining { epochs: 200, batch: 8, learning_rate: 0.02, identity_weight: 0.0, ..Default::default() };
        let trained = QueryAdapter::train("m", &pairs, settings, &NoProgress).unwrap();
        let after = first_right(&trained);
        assert!(before < 10, "the identity gets {before} of 40 first");
        assert!(after >= 36, "trained: {after} of 40 first (loss {:?})", trained.trained.loss.last());
        assert!(trained.trained.loss.first() > trained.trained.loss.last());
        assert_eq!((trained.trained.pairs, trained.trained.questions), (40, 40));
        // Deterministic.
        let again = QueryAdapter::train("m", &pairs, trained.trained.clone(), &NoProgress).unwrap();
        assert_eq!(again.weights, trained.weights);
    }

    /// The gradient agrees with the loss's finite differences (central, h = 1e-5) on every entry.
    #[test]
    fn the_gradient_is_the_losss_derivative() {
        let (d, mut seed) = (3, 11u64);
        let mut rand = || {
            seed = crate::lcg::lcg(seed);
            ((seed >> 33) as f32 / (1u64 << 31) as f32) - 0.5
        };
        let pairs: Vec<AdapterPair> = (0..5)
            .map(|i| AdapterPair {
                question: format!("q{}", i % 4),
                passage: format!("d{i}"),
                q: unit(vec![rand(), rand(), rand()]),
                p: unit(vec![rand(), rand(), rand()]),
            })
            .collect();
        let w: Vec<f64> = (0..d * d).map(|i| if i % 4 == 0 { 1.0 } else { 0.0 } + f64::from(rand()) * 0.3).collect();
        let chunk = [0, 1, 2, 3, 4];
        let (_, grad) = batch_gradient(&w, d, &pairs, &chunk, 0.1, 0.05);
        for k in 0..d * d {
            let h = 1e-5;
            let (mut up, mut down) = (w.clone(), w.clone());
            up[k] += h;
            down[k] -= h;
            let lam = |w: &[f64]| {
                w.iter().enumerate().map(|(i, x)| (x - if i % 4 == 0 { 1.0 } else { 0.0 }).powi(2)).sum::<f64>() * 0.05
            };
            let f = |w: &[f64]| batch_gradient(w, d, &pairs, &chunk, 0.1, 0.0).0 + lam(w);
            let numeric = (f(&up) - f(&down)) / (2.0 * h);
            assert!(
                (numeric - grad[k]).abs() < 1e-5,
                "entry {k}: {numeric} by differences, {} by the formula",
                grad[k]
            );
        }
    }

    #[test]
    fn an_adapter_round_trips_through_its_file_and_a_stranger_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.safetensors");
        let mut a = QueryAdapter::identity("sentence-transformers/all-MiniLM-L6-v2", 3);
        a.weights[1] = 0.25;
        a.trained.source = "test".into();
        a.trained.loss = vec![1.5, 0.5];
        a.save(&path).unwrap();
        assert_eq!(QueryAdapter::load(&path).unwrap(), a);
        std::fs::write(&path, b"not safetensors").unwrap();
        let e = QueryAdapter::load(&path).unwrap_err().to_string();
        assert!(e.contains("a.safetensors") && e.contains("not a safetensors"), "{e}");
        // A safetensors file of someone else's: refused by what it lacks.
        let bytes = [0u8; 16];
        let view = safetensors::tensor::TensorView::new(safetensors::Dtype::F32, vec![2, 2], &bytes).unwrap();
        std::fs::write(&path, safetensors::serialize([("W", view)], None).unwrap()).unwrap();
        let e = QueryAdapter::load(&path).unwrap_err().to_string();
        assert!(e.contains("not a RankLens query adapter"), "{e}");
    }
}
