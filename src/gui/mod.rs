//! The desktop app (eframe/egui). It only calls the core library: every number it draws comes
//! from the same structs the CLI prints and the reports write.
//!
//! The shape is rerun's: the app holds its data ([`state`]) and typed background [`jobs`]; each
//! view ([`views`]) owns its own state and draws from a read-only [`context::ViewContext`]; views
//! change the app only by sending a [`command::Command`], applied in one place between frames
//! (`flow/`, one file per feature).

pub mod app;
mod chrome;
pub mod command;
pub mod context;
pub mod dialog;
mod engine_form;
mod flow;
mod frames;
pub mod jobs;
mod keys;
mod model_cost;
pub mod state;
pub mod theme;
pub mod views;
pub mod widgets;
mod window;

pub use app::RankLensApp;
pub use command::Command;
pub use dialog::DialogPurpose;
pub use state::{CorpusChoice, Persisted, ReaderChoice, ViewId};
pub use window::run;
