//! The desktop window: eframe's native window around the app.

use super::RankLensApp;
use super::command::OutsideCommand;
use super::state::CorpusChoice;

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
            app.send(OutsideCommand::OpenRuns(runs));
            for e in engines {
                app.send(OutsideCommand::AddEngine(e));
            }
            Ok(Box::new(app))
        }),
    )
    .map_err(|e| anyhow::anyhow!("could not open a window: {e}"))
}
