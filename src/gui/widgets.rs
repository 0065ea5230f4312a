//! Small reusable widgets: labelled inputs (every input has an accessible name), score bars,
//! signed contribution bars, and a heatmap.

use egui::{Color32, Response, Sense, Stroke, StrokeKind, Ui, Vec2, pos2, vec2};

/// A single-line text input with a visible label that names it for assistive technology.
pub fn labelled_text_ui(ui: &mut Ui, label: &str, value: &mut String, width: f32) -> Response {
    ui.horizontal(|ui| {
        let l = ui.label(label);
        ui.add(egui::TextEdit::singleline(value).desired_width(width)).labelled_by(l.id)
    })
    .inner
}

/// Frames per second of [`spinner_ui`]'s animation. egui's own spinner asks for a frame every
/// frame (60 a second): drawn by a software renderer (a desktop with no GPU driver, Xvfb) that
/// took half of both cores from the encoding it was waiting for. Eight frames a second turn it
/// just as visibly for an eighth of the work.
pub const SPINNER_FPS: u64 = 8;

/// A busy indicator: egui's spinner drawing, animated at [`SPINNER_FPS`].
pub fn spinner_ui(ui: &mut Ui) -> Response {
    let size = ui.style().spacing.interact_size.y;
    let (rect, response) = ui.allocate_exact_size(vec2(size, size), Sense::hover());
    response.widget_info(|| egui::WidgetInfo::new(egui::Role::ProgressIndicator));
    if ui.is_rect_visible(rect) {
        ui.ctx().request_repaint_after(std::time::Duration::from_millis(1000 / SPINNER_FPS));
        let color = ui.visuals().strong_text_color();
        let radius = rect.height().min(rect.width()) * 0.5 - 2.0;
        let n = (radius.round() as u32).clamp(8, 128);
        let time = ui.input(|i| i.time);
        let start = time * std::f64::consts::TAU;
        let end = start + 240f64.to_radians() * time.sin();
        let points: Vec<egui::Pos2> = (0..n)
            .map(|i| {
                let angle = egui::emath::lerp(start..=end, f64::from(i) / f64::from(n));
                let (sin, cos) = angle.sin_cos();
                rect.center() + radius * vec2(cos as f32, sin as f32)
            })
            .collect();
        ui.painter().add(egui::Shape::line(points, Stroke::new(3.0, color)));
    }
    response
}

/// A multi-line code editor with a label.
///
/// The editor scrolls past three times `rows` lines, so a pasted statement of any length keeps
/// the buttons below it in view.
pub fn labelled_code_ui(ui: &mut Ui, label: &str, value: &mut String, rows: usize) -> Response {
    let l = ui.label(label);
    let row_height = ui.text_style_height(&egui::TextStyle::Monospace);
    egui::ScrollArea::vertical()
        .id_salt(label)
        .max_height(row_height * (3 * rows) as f32 + 8.0)
        .show(ui, |ui| {
            ui.add(egui::TextEdit::multiline(value).code_editor().desired_rows(rows).desired_width(f32::INFINITY))
                .labelled_by(l.id)
        })
        .inner
}

/// A horizontal bar of `fraction` (0..=1) of the available width in `color`, `height` tall.
pub fn bar_ui(ui: &mut Ui, fraction: f32, width: f32, color: Color32) -> Response {
    let (rect, response) = ui.allocate_exact_size(vec2(width, 8.0), Sense::hover());
    let painter = ui.painter();
    painter.rect_filled(rect, 2.0, ui.visuals().extreme_bg_color);
    let mut filled = rect;
    filled.set_width(rect.width() * fraction.clamp(0.0, 1.0));
    painter.rect_filled(filled, 2.0, color);
    response
}

/// A bar for a signed value on a scale of ±`max`, growing right from the middle when positive.
pub fn signed_bar_ui(ui: &mut Ui, value: f64, max: f64, width: f32, color: Color32) -> Response {
    let (rect, response) = ui.allocate_exact_size(vec2(width, 12.0), Sense::hover());
    let painter = ui.painter();
    painter.rect_filled(rect, 2.0, ui.visuals().extreme_bg_color);
    let mid = rect.center().x;
    let scale = if max > 0.0 { (rect.width() / 2.0) / max as f32 } else { 0.0 };
    let len = (value as f32 * scale).clamp(-rect.width() / 2.0, rect.width() / 2.0);
    let (x0, x1) = if len >= 0.0 { (mid, mid + len) } else { (mid + len, mid) };
    painter.rect_filled(egui::Rect::from_min_max(pos2(x0, rect.top()), pos2(x1, rect.bottom())), 2.0, color);
    painter.line_segment(
        [pos2(mid, rect.top()), pos2(mid, rect.bottom())],
        Stroke::new(1.0, ui.visuals().weak_text_color()),
    );
    response
}

/// A heatmap of a row-major matrix in [-1, 1] with row and column labels; returns the cell under
/// the pointer.
pub fn heatmap_ui(
    ui: &mut Ui,
    rows: &[String],
    cols: &[String],
    values: &[f32],
    highlight: &[(usize, usize)],
) -> Option<(usize, usize)> {
    let cell = 14.0f32;
    let label_w = 90.0f32;
    let label_h = 70.0f32;
    let size = Vec2::new(label_w + cell * cols.len() as f32, label_h + cell * rows.len() as f32);
    let (rect, response) = ui.allocate_exact_size(size, Sense::hover());
    let painter = ui.painter_at(rect);
    let origin = rect.min + vec2(label_w, label_h);
    let text_color = ui.visuals().text_color();
    let font = egui::FontId::proportional(10.0);
    for (i, r) in rows.iter().enumerate() {
        painter.text(
            pos2(origin.x - 4.0, origin.y + cell * (i as f32 + 0.5)),
            egui::Align2::RIGHT_CENTER,
            r,
            font.clone(),
            text_color,
        );
    }
    for (j, c) in cols.iter().enumerate() {
        let x = origin.x + cell * (j as f32 + 0.5);
        let galley = painter.layout_no_wrap(c.clone(), font.clone(), text_color);
        let shape = egui::epaint::TextShape::new(pos2(x - 5.0, origin.y - 4.0), galley, text_color)
            .with_angle(-std::f32::consts::FRAC_PI_2);
        painter.add(shape);
    }
    let mut hovered = None;
    for i in 0..rows.len() {
        for j in 0..cols.len() {
            let v = values.get(i * cols.len() + j).copied().unwrap_or(0.0).clamp(-1.0, 1.0);
            let c = if v >= 0.0 {
                Color32::from_rgb(255 - (v * 255.0) as u8, 255 - (v * 140.0) as u8, 255 - (v * 40.0) as u8)
            } else {
                Color32::from_rgb(255, 255 - (-v * 120.0) as u8, 255 - (-v * 120.0) as u8)
            };
            let cell_rect =
                egui::Rect::from_min_size(origin + vec2(cell * j as f32, cell * i as f32), Vec2::splat(cell - 1.0));
            painter.rect_filled(cell_rect, 0.0, c);
            if highlight.contains(&(i, j)) {
                painter.rect_stroke(cell_rect, 0.0, Stroke::new(2.0, Color32::BLACK), StrokeKind::Inside);
            }
            if response.hovered() && ui.rect_contains_pointer(cell_rect) {
                hovered = Some((i, j));
            }
        }
    }
    hovered
}

/// A short text cut to `n` characters.
pub fn ellipsis(s: &str, n: usize) -> String {
    let flat: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= n {
        flat
    } else {
        format!("{}…", flat.chars().take(n.saturating_sub(1)).collect::<String>())
    }
}

/// A path typed into a labelled field, or chosen with the "Choose…" beside it (the system's file
/// dialog, run off the UI thread): the dialog's answer lands in the field the frame it arrives.
/// `seen` is the serial of the last chosen path the field took.
pub fn path_field_ui(
    ui: &mut Ui,
    ctx: &crate::gui::context::ViewContext<'_>,
    label: &str,
    value: &mut String,
    fields: &[crate::gui::dialog::Field],
    seen: &mut u64,
    width: f32,
) {
    use crate::gui::command::FileCommand;
    use crate::gui::dialog::{DialogPurpose, Field};
    if let Some((serial, field, path)) = &ctx.data.chosen
        && *serial > *seen
        && fields.contains(field)
    {
        *value = path.display().to_string();
        *seen = *serial;
    }
    ui.horizontal(|ui| {
        labelled_text_ui(ui, label, value, width);
        for &field in fields {
            let text = match field {
                Field::AnswersFile => "Choose a file…",
                Field::AnswersFolder => "Choose a folder…",
                _ => "Choose…",
            };
            if ui.button(text).on_hover_text(format!("{label}: pick it in a file dialog")).clicked() {
                ctx.send(FileCommand::OpenDialog(DialogPurpose::Choose(field)));
            }
        }
    });
}

/// In a wrapping row, start a new line unless `width` points are left on this one: a widget
/// made of parts (a slider with its value and name, a combo box with its label) then moves whole
/// instead of running past the window's edge.
pub fn room_for(ui: &mut Ui, width: f32) {
    if ui.available_size_before_wrap().x < width {
        ui.end_row();
    }
}

/// Text with `code` spans set in the monospace font on the code background, as the lessons and
/// handouts write commands and questions; `size` for the text around them (None: the body's).
pub fn with_code_spans(ui: &Ui, text: &str, size: Option<f32>, strong: bool) -> egui::text::LayoutJob {
    let style = ui.style();
    let body = egui::TextStyle::Body.resolve(style);
    let size = size.unwrap_or(body.size);
    let color = if strong { ui.visuals().strong_text_color() } else { ui.visuals().text_color() };
    let plain = egui::TextFormat::simple(egui::FontId::proportional(size), color);
    let code = egui::TextFormat {
        font_id: egui::FontId::monospace(size * 0.92),
        color,
        background: ui.visuals().code_bg_color,
        ..Default::default()
    };
    let mut job = egui::text::LayoutJob::default();
    // An unpaired backtick is a backtick: only closed spans are code.
    let parts: Vec<&str> = text.split('`').collect();
    let paired = parts.len() % 2 == 1;
    for (i, part) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        if i % 2 == 1 && (paired || !last) {
            job.append(part, 0.0, code.clone());
        } else {
            let text = if i % 2 == 1 { format!("`{part}") } else { (*part).to_string() };
            job.append(&text, 0.0, plain.clone());
        }
    }
    job
}
