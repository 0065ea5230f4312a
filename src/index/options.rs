//! How the neural indexes cut and store a corpus: windows, the token index's bits, and where
//! dense search turns approximate.

use serde::{Deserialize, Serialize};

use super::tokens::DEFAULT_BITS;
use crate::models::WindowSpec;

/// Corpora with more passages than this search their dense vectors approximately.
pub const APPROXIMATE_ABOVE: usize = 50_000;

/// How the neural indexes cut and store a corpus.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct NeuralOptions {
    /// How long documents are cut into windows.
    pub windows: WindowSpec,
    /// Bits per dimension of the token index's residuals (1, 2, 4 or 8), or 16 for f16 vectors.
    pub token_bits: u8,
    /// Build the token index (late interaction) along with the dense vectors.
    pub tokens: bool,
    /// Corpora with more passages than this search their dense vectors approximately (HNSW).
    pub approximate_above: usize,
}

impl Default for NeuralOptions {
    fn default() -> Self {
        Self {
            windows: WindowSpec::default(),
            token_bits: DEFAULT_BITS,
            tokens: true,
            approximate_above: APPROXIMATE_ABOVE,
        }
    }
}
