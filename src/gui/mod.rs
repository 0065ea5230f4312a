//! The desktop app (eframe/egui).

/// Open the desktop app on the bundled sample corpus.
pub fn run() -> anyhow::Result<()> {
    let options = eframe::NativeOptions::default();
    eframe::run_ui_native("RankLens", options, |ui, _frame| {
        ui.heading("RankLens");
    })
    .map_err(|e| anyhow::anyhow!("could not open a window: {e}"))
}
