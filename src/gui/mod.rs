//! The desktop app (eframe/egui). It only calls the core library: every number it draws comes
//! from the same structs the CLI prints and the reports write.

pub mod app;
pub mod jobs;
pub mod judging;
pub mod panels;
pub mod state;
pub mod theme;
pub mod widgets;
mod workflow;

pub use app::RankLensApp;
pub use state::{CorpusChoice, Persisted, ViewId};

/// Open the desktop app, optionally on a given corpus (else the last one, else the sample).
pub fn run(open: Option<CorpusChoice>) -> anyhow::Result<()> {
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("RankLens")
            .with_inner_size([1360.0, 860.0])
            .with_drag_and_drop(true),
        ..Default::default()
    };
    eframe::run_native(
        "RankLens",
        options,
        Box::new(move |cc| Ok(Box::new(RankLensApp::from_creation_context(cc, open)))),
    )
    .map_err(|e| anyhow::anyhow!("could not open a window: {e}"))
}
