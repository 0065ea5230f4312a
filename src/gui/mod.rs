//! The desktop app (eframe/egui). It only calls the core library: every number it draws comes
//! from the same structs the CLI prints and the reports write.
//!
//! The shape is rerun's: the app holds its data ([`state`]) and typed background [`jobs`]; each
//! view ([`views`]) owns its own state and draws from a read-only [`context::ViewContext`]; views
//! change the app only by sending a [`command::Command`], applied in one place between frames
//! (`workflow.rs`).

pub mod app;
mod chrome;
pub mod command;
pub mod context;
mod frames;
pub mod jobs;
pub mod judging;
pub mod state;
pub mod theme;
pub mod views;
pub mod widgets;
mod workflow;

pub use app::RankLensApp;
pub use command::{Command, DialogPurpose};
pub use state::{CorpusChoice, Persisted, ViewId};

/// Open the desktop app, optionally on a given corpus (else the last one, else the sample), with
/// these files of other systems (name, file) and live engines shown beside the methods.
pub fn run(
    open: Option<CorpusChoice>,
    question: Option<String>,
    runs: Vec<(Option<String>, std::path::PathBuf)>,
    engines: Vec<crate::external::LiveEngine>,
) -> anyhow::Result<()> {
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
        Box::new(move |cc| {
            let mut app = RankLensApp::from_creation_context(cc, open);
            if let Some(q) = question {
                app.ask_first(q);
            }
            app.send(Command::OpenRuns(runs));
            for e in engines {
                app.send(Command::AddEngine(e));
            }
            Ok(Box::new(app))
        }),
    )
    .map_err(|e| anyhow::anyhow!("could not open a window: {e}"))
}
