//! Colours: one per method family, used in every column, bar and map marker, so a method is
//! recognisable everywhere by its colour.

use egui::Color32;

use crate::retrieve::MethodKind;

/// The colour of a method family (the core's palette, shared with the reports).
pub fn method_color(kind: MethodKind) -> Color32 {
    let (r, g, b) = kind.color_rgb();
    Color32::from_rgb(r, g, b)
}

/// Highlight for the passage under the pointer or selected.
pub const HIGHLIGHT: Color32 = Color32::from_rgb(255, 215, 64);

/// Expansion terms (added by a model, not written in the text).
pub const EXPANSION: Color32 = Color32::from_rgb(204, 121, 167);

/// Terms written in the text.
pub const LITERAL: Color32 = Color32::from_rgb(0, 114, 178);

/// What two graphs both hold (the hand-built and the model's), marked in both drawings
/// (Okabe–Ito's bluish green).
pub const SHARED: Color32 = Color32::from_rgb(0, 158, 115);

/// Errors shown inline.
pub const ERROR: Color32 = Color32::from_rgb(220, 60, 60);

/// Warnings shown inline.
pub const WARNING: Color32 = Color32::from_rgb(230, 160, 0);

/// Add DejaVu Sans (and Mono) after egui's own fonts, so formulas (Σ, −, ×, →, δ) and symbols
/// draw the same everywhere — on any system, and in headless tests with no system fonts.
pub fn install_fonts(ctx: &egui::Context) {
    use egui::epaint::text::{FontInsert, FontPriority, InsertFontFamily};
    let fonts = [
        ("dejavu-sans", &include_bytes!("../../assets/fonts/DejaVuSans.ttf")[..], egui::FontFamily::Proportional),
        ("dejavu-sans-mono", &include_bytes!("../../assets/fonts/DejaVuSansMono.ttf")[..], egui::FontFamily::Monospace),
    ];
    for (name, bytes, family) in fonts {
        ctx.add_font(FontInsert {
            name: name.to_string(),
            data: egui::FontData::from_static(bytes),
            families: vec![
                InsertFontFamily { family, priority: FontPriority::Lowest },
                InsertFontFamily {
                    family: if name.ends_with("mono") {
                        egui::FontFamily::Proportional
                    } else {
                        egui::FontFamily::Monospace
                    },
                    priority: FontPriority::Lowest,
                },
            ],
        });
    }
}
