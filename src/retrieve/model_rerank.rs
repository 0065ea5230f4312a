//! The knobs of a language model's reordering of a first stage (the listwise and pointwise
//! columns), validated where they are set.

use serde::{Deserialize, Serialize};

use super::MethodKind;
use crate::{Error, Result};

/// How a language model reorders a first stage's passages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ModelRerank {
    /// The column whose top passages are reordered (BM25, dense, fusion…).
    pub first_stage: MethodKind,
    /// How many of its passages the listwise column reorders: 20 by default, one window, which a
    /// laptop's two cores answer in under a minute with the 1.5B model (RankGPT reorders 100:
    /// nine windows, minutes a question).
    pub depth: usize,
    /// Passages the model reads at once.
    pub window: usize,
    /// How far each window moves up the list (RankGPT: 10, so windows overlap by half).
    pub step: usize,
    /// Read the list in three orders (as ranked, reversed, shuffled) and aggregate them (Borda),
    /// showing how far the model's order depends on the order it was given (Kendall τ).
    pub three_orders: bool,
    /// How many of the first stage's passages the pointwise column asks about, one request each.
    pub pointwise_depth: usize,
}

impl Default for ModelRerank {
    fn default() -> Self {
        Self {
            first_stage: MethodKind::Bm25,
            depth: 20,
            window: 20,
            step: 10,
            three_orders: false,
            pointwise_depth: 20,
        }
    }
}

impl ModelRerank {
    /// Check the knobs, naming the one that is wrong.
    pub fn validate(&self) -> Result<()> {
        if !MethodKind::RANKED.contains(&self.first_stage) || self.first_stage == MethodKind::DenseAdapter {
            return Err(Error::invalid(
                "first stage",
                format!("{} does not rank passages a model could reorder", self.first_stage.label()),
            ));
        }
        if self.window < 2 || self.window > 100 {
            return Err(Error::invalid("window", format!("a window holds 2 to 100 passages, not {}", self.window)));
        }
        if self.step == 0 || self.step > self.window {
            return Err(Error::invalid(
                "step",
                format!("the step moves 1 to {} (the window) passages, not {}", self.window, self.step),
            ));
        }
        if self.depth == 0 || self.depth > 1000 || self.pointwise_depth == 0 || self.pointwise_depth > 1000 {
            return Err(Error::invalid("depth", "a model reorders 1 to 1000 passages"));
        }
        Ok(())
    }
}
