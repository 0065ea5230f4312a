//! Neural models: the manifest, fetching and verification, and the candle encoders per role.
//!
//! Each role has one trait ([`TextEncoder`], [`SparseEncoder`], [`TokenEncoder`],
//! [`PairScorer`]); the candle implementations are one backend, and a faster one (ONNX Runtime)
//! can be added behind the same traits without touching the retrievers.

pub mod adapter;
pub mod auto_precision;
mod bert;
mod cache;
mod encoders;
pub mod fast_bert;
mod fetch;
pub mod int16;
mod manifest;
pub mod precision;
pub mod span_reader;
mod window_cuts;

pub use adapter::{AdaptedEncoder, AdapterPair, AdapterTraining, QueryAdapter};
pub use bert::{Backbone, Batch};
pub use cache::{EmbeddingCache, bytes_to_f32s, f32s_to_bytes, text_hash};
pub use encoders::{
    BertCrossEncoder, BertDenseEncoder, BertSpladeEncoder, ColbertEncoder, InputKind, PairScorer, SparseEncoder,
    SparseVector, TextEncoder, TokenEncoder, TokenStates, TokenVectors,
};
pub use fetch::{ModelManager, ModelSource, ModelStatus, ResolvedModel, human_bytes};
pub use manifest::{
    ArchSettings, ColbertSettings, GeneratorSpeed, HubSource, Manifest, ModelFile, ModelSpec, PartsSource, PipPart,
    PipSource, Pooling, Role,
};
pub use precision::Precision;
pub use span_reader::{QaModel, QaWindow, ReaderSettings};
pub use window_cuts::{WindowSpec, window_spans};
