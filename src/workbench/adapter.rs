//! The query adapter on this workbench: its column (the dense model, questions mapped by the
//! adapter the settings name), and training one from judgements — each judged question's vector
//! paired with each relevant passage's best window.

use std::sync::Arc;

use super::Workbench;
use crate::config::Settings;
use crate::corpus::{Qrels, Query};
use crate::models::{AdaptedEncoder, AdapterPair, AdapterTraining, InputKind, QueryAdapter, TextEncoder};
use crate::progress::{Progress, check_cancel};
use crate::retrieve::{DenseRetriever, MethodKind, Retriever};
use crate::{Error, Result};

impl Workbench {
    /// The "Dense + adapter" column: the dense model over its passages, with questions mapped by
    /// the adapter `settings.adapter` names.
    pub(super) fn adapter_retriever(&self, settings: &Settings) -> Result<Arc<dyn Retriever>> {
        let Some(path) = &settings.adapter else {
            return Err(Error::Unavailable(
                "no query adapter: train one (Models → Query adapter, or `ranklens adapter train`) and choose it"
                    .into(),
            ));
        };
        let adapter = Arc::new(QueryAdapter::load(path)?);
        let n = self.neural();
        let (Some(dense), Some(index)) = (&n.dense, &n.dense_index) else {
            return self.neural_retriever(MethodKind::Dense, settings);
        };
        if adapter.model_id != index.model_id {
            return Err(Error::invalid(
                path.display().to_string(),
                format!("the adapter maps {}'s questions; the passages are {}'s", adapter.model_id, index.model_id),
            ));
        }
        let encoder: Arc<dyn TextEncoder> = Arc::new(AdaptedEncoder::new(dense.encoder.clone(), adapter)?);
        let file = path.file_name().map_or_else(|| path.display().to_string(), |f| f.to_string_lossy().into_owned());
        Ok(Arc::new(DenseRetriever::new(index.clone(), encoder).with_corpus(self.corpus().clone()).adapted(&file)))
    }

    /// The (question, relevant passage) pairs of `qrels` over `questions`: each question's vector,
    /// and for each passage it judged relevant (grade ≥ 1) that the corpus holds, the vector of
    /// its window nearest the question. The dense model must be loaded and the passages encoded.
    pub fn adapter_pairs(
        &self,
        qrels: &Qrels,
        questions: &[Query],
        progress: &dyn Progress,
    ) -> Result<Vec<AdapterPair>> {
        let n = self.neural();
        let (Some(dense), Some(index)) = (&n.dense, &n.dense_index) else {
            return Err(Error::Unavailable(
                "a query adapter trains on the dense model's vectors: load the dense model and encode the passages"
                    .into(),
            ));
        };
        let judged: Vec<&Query> = questions.iter().filter(|q| qrels.judged(&q.id)).collect();
        progress.stage("Encoding the judged questions", judged.len() as u64);
        let mut pairs = Vec::new();
        for chunk in judged.chunks(64) {
            check_cancel(progress)?;
            let texts: Vec<&str> = chunk.iter().map(|q| q.text.as_str()).collect();
            let vectors = dense.encoder.encode(&texts, InputKind::Query)?;
            for (q, v) in chunk.iter().zip(vectors) {
                let Some(grades) = qrels.for_query(&q.id) else { continue };
                for (doc, &g) in grades {
                    let Some(d) = self.corpus().lookup(doc).filter(|_| g >= 1) else { continue };
                    let best = index
                        .windows
                        .rows_of(d)
                        .filter_map(|r| index.row(r).map(|row| (crate::index::dot::dot(&v, row), row)))
                        .max_by(|a, b| a.0.total_cmp(&b.0));
                    if let Some((_, row)) = best {
                        pairs.push(AdapterPair {
                            question: q.id.clone(),
                            passage: doc.clone(),
                            q: v.clone(),
                            p: row.to_vec(),
                        });
                    }
                }
            }
            progress.advance(chunk.len() as u64);
        }
        Ok(pairs)
    }

    /// Train a query adapter on the judgements of `questions` (`source` says which, for its
    /// record).
    pub fn train_adapter(
        &self,
        qrels: &Qrels,
        questions: &[Query],
        source: &str,
        progress: &dyn Progress,
    ) -> Result<QueryAdapter> {
        let pairs = self.adapter_pairs(qrels, questions, progress)?;
        if pairs.len() < 2 {
            return Err(Error::Unavailable(format!(
                "{} relevant (question, passage) pair(s) found: an adapter needs at least two (grade more passages)",
                pairs.len()
            )));
        }
        let model = self.neural().dense_index.map(|i| i.model_id.clone()).unwrap_or_default();
        let settings = AdapterTraining { source: source.to_string(), ..Default::default() };
        QueryAdapter::train(&model, &pairs, settings, progress)
    }
}
