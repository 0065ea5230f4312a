//! How far the methods agree: Jaccard above the diagonal, RBO below, one shaded cell per pair.

use egui::{Color32, RichText, Ui};

use crate::compare::OverlapMatrix;
use crate::gui::widgets::ellipsis;

/// Method × method agreement.
pub fn overlap_ui(ui: &mut Ui, m: &OverlapMatrix) {
    if m.labels.len() < 2 {
        return;
    }
    ui.label(
        RichText::new(format!(
            "Agreement between methods (top {}): Jaccard above the diagonal, RBO (p = 0.9) below",
            m.k
        ))
        .strong(),
    );
    let short = |l: &str| ellipsis(l.split(" (").next().unwrap_or(l), 14);
    egui::ScrollArea::horizontal().id_salt("overlap").show(ui, |ui| {
        egui::Grid::new("overlap-grid").spacing([6.0, 2.0]).show(ui, |ui| {
            ui.label("");
            for l in &m.labels {
                ui.label(RichText::new(short(l)).small().strong());
            }
            ui.end_row();
            for (i, row) in m.labels.iter().enumerate() {
                ui.label(RichText::new(short(row)).small().strong());
                for j in 0..m.labels.len() {
                    let v = if i == j {
                        1.0
                    } else if j > i {
                        m.get(&m.jaccard, i, j)
                    } else {
                        m.get(&m.rbo, i, j)
                    };
                    let shade = (255.0 - 150.0 * v) as u8;
                    let (rect, resp) = ui.allocate_exact_size(egui::vec2(46.0, 16.0), egui::Sense::hover());
                    ui.painter().rect_filled(rect, 2.0, Color32::from_rgb(shade, shade, 255));
                    ui.painter().text(
                        rect.center(),
                        egui::Align2::CENTER_CENTER,
                        format!("{v:.2}"),
                        egui::FontId::monospace(10.0),
                        Color32::BLACK,
                    );
                    resp.on_hover_text(format!(
                        "{} vs {}: {}",
                        m.labels[i],
                        m.labels[j],
                        if j > i { "Jaccard" } else { "RBO" }
                    ));
                }
                ui.end_row();
            }
        });
    });
}
