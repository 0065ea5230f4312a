//! Keyboard shortcuts that act on the app (not on a widget with the focus).

/// Keys 0–3 grade the selected passage; Delete clears its grade. `None` when no such key was
/// pressed or a text field has the keyboard.
pub fn grade_shortcut(ctx: &egui::Context) -> Option<Option<i32>> {
    if ctx.egui_wants_keyboard_input() {
        return None;
    }
    ctx.input(|i| {
        for (key, g) in [(egui::Key::Num0, 0), (egui::Key::Num1, 1), (egui::Key::Num2, 2), (egui::Key::Num3, 3)] {
            if i.key_pressed(key) {
                return Some(Some(g));
            }
        }
        i.key_pressed(egui::Key::Delete).then_some(None)
    })
}
