//! What every view is: the `View` contract, the memo a view keeps its data in (built only when
//! what it is built from changes), and small pieces several views draw.

use egui::{RichText, Ui};

use crate::gui::context::ViewContext;
use crate::gui::theme;
use crate::retrieve::MethodKind;

/// One view of the app.
pub trait View {
    /// Draw the view.
    fn ui(&mut self, ui: &mut Ui, ctx: &ViewContext<'_>);

    /// Whether the view has something to show without a corpus.
    fn needs_corpus(&self) -> bool {
        true
    }

    /// Forget what referred to the previous corpus (filters, picked nodes).
    fn corpus_changed(&mut self) {}
}

/// A view's data, rebuilt only when what it is built from changes: as rerun's panels do, a view
/// keeps a plain data struct, built (and unit-tested) without egui, and its `ui` only lays it out.
pub struct Memo<K, V> {
    built: Option<(K, V)>,
}

impl<K, V> Default for Memo<K, V> {
    fn default() -> Self {
        Self { built: None }
    }
}

impl<K: PartialEq, V> Memo<K, V> {
    /// The value for `key`, built by `build` only when the key changed since the last call.
    pub fn get(&mut self, key: K, build: impl FnOnce() -> V) -> &V {
        if self.built.as_ref().is_some_and(|(k, _)| *k != key) {
            self.built = None;
        }
        &self.built.get_or_insert_with(|| (key, build())).1
    }
}

/// A shared value as a memo key: equal only to the very same allocation (and, held in the key,
/// it keeps that allocation alive, so a new value can never reuse its address).
pub struct Same<T>(pub std::sync::Arc<T>);

// By hand: a derive would ask `T` itself to be `Clone` (or `Debug`), which a shared value need not be.
impl<T> Clone for Same<T> {
    fn clone(&self) -> Self {
        Same(self.0.clone())
    }
}

impl<T> std::fmt::Debug for Same<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Same({:p})", std::sync::Arc::as_ptr(&self.0))
    }
}

impl<T> PartialEq for Same<T> {
    fn eq(&self, other: &Self) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

/// A small coloured swatch and label for a method family.
pub fn method_tag_ui(ui: &mut Ui, kind: MethodKind, label: &str) {
    let (rect, _) = ui.allocate_exact_size(egui::vec2(10.0, 10.0), egui::Sense::hover());
    ui.painter().rect_filled(rect, 2.0, theme::method_color(kind));
    ui.label(RichText::new(label).strong());
}
