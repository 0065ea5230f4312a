//! The models that encode typed questions for vectors computed elsewhere (a sentence-transformers
//! folder beside the vectors), loaded once per folder.

use std::path::Path;
use std::sync::Arc;

use super::Workbench;
use crate::models::{ArchSettings, BertDenseEncoder, Pooling, TextEncoder};
use crate::retrieve::vectors::FileQueries;
use crate::{Error, Result};

/// How a sentence-transformers folder pools and how long its inputs are
/// (`1_Pooling/config.json`, `sentence_bert_config.json`); mean pooling and 256 tokens otherwise.
pub fn sentence_transformers_arch(dir: &Path) -> ArchSettings {
    let read =
        |name: &str| -> Option<serde_json::Value> { serde_json::from_slice(&std::fs::read(dir.join(name)).ok()?).ok() };
    let pooling = match read("1_Pooling/config.json") {
        Some(p) if p.get("pooling_mode_cls_token").and_then(serde_json::Value::as_bool) == Some(true) => Pooling::Cls,
        _ => Pooling::Mean,
    };
    let max_length = read("sentence_bert_config.json")
        .and_then(|c| c.get("max_seq_length").and_then(serde_json::Value::as_u64))
        .map_or(256, |n| n as usize);
    // Vectors computed elsewhere were made in f32: their questions are encoded in f32 too.
    ArchSettings {
        pooling: Some(pooling),
        normalize: true,
        max_length,
        query_instruction: None,
        colbert: None,
        reader: None,
        precision: crate::models::Precision::F32,
    }
}

impl Workbench {
    /// The question vectors of a vector set: by query id, else from its model folder.
    pub fn vector_queries(&self, set: &Arc<crate::external::VectorSet>) -> Result<FileQueries> {
        let model = match &set.query_model {
            Some(dir) => Some(self.query_model(dir)?),
            None => None,
        };
        FileQueries::new(set.clone(), self.corpus(), model)
    }

    /// The dense model in `dir`, loaded on first use.
    pub(crate) fn query_model(&self, dir: &Path) -> Result<Arc<dyn TextEncoder>> {
        let mut models =
            self.query_models.lock().map_err(|_| Error::Model("the question models are poisoned".into()))?;
        if let Some(m) = models.get(dir) {
            return Ok(m.clone());
        }
        let id = format!("local:{}", dir.display());
        let encoder: Arc<dyn TextEncoder> =
            Arc::new(BertDenseEncoder::load(&id, dir, &sentence_transformers_arch(dir))?);
        models.insert(dir.to_path_buf(), encoder.clone());
        Ok(encoder)
    }
}
