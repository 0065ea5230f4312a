//! The views. Each view is one type owning its own state and drawing from the read-only
//! [`ViewContext`]; it changes the app only by sending commands. [`Views`] registers every view
//! once: the navigation, the window loop and the tests all go through [`ViewId::ALL`].

mod analyzers;
mod atlas;
mod compare;
mod corpus;
mod engine_explain;
mod evaluate;
mod explain;
mod lessons;
mod map;
mod model_judge;
mod models;
mod moved;
pub mod rag;
mod structured;

use egui::{RichText, Ui};

pub use analyzers::AnalyzersView;
pub use atlas::AtlasView;
pub use compare::CompareView;
pub use corpus::CorpusView;
pub use evaluate::EvaluateView;
pub use explain::ExplainView;
pub use lessons::LessonsView;
pub use map::MapView;
pub use models::ModelsView;
pub use moved::MovedView;
pub use rag::RagView;
pub use structured::StructuredView;

use super::context::ViewContext;
use super::state::ViewId;
use super::theme;
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

/// Every view, each with its own state.
#[derive(Default)]
pub struct Views {
    /// Every method side by side.
    pub compare: CompareView,
    /// Why the selected passage scored what it did.
    pub explain: ExplainView,
    /// The PCA map.
    pub map: MapView,
    /// SQL and the knowledge graph.
    pub structured: StructuredView,
    /// Grades, metrics and the question-set evaluation.
    pub evaluate: EvaluateView,
    /// The corpus browser.
    pub corpus: CorpusView,
    /// The models.
    pub models: ModelsView,
    /// Lessons computed live.
    pub lessons: LessonsView,
    /// One card per method.
    pub atlas: AtlasView,
    /// The RAG prompt.
    pub rag: RagView,
    /// What moved a passage between two states.
    pub moved: MovedView,
    /// One text through every analyzer.
    pub analyzers: AnalyzersView,
}

impl Views {
    /// The view registered for an id.
    pub fn get_mut(&mut self, id: ViewId) -> &mut dyn View {
        match id {
            ViewId::Compare => &mut self.compare,
            ViewId::Explain => &mut self.explain,
            ViewId::Map => &mut self.map,
            ViewId::Structured => &mut self.structured,
            ViewId::Evaluate => &mut self.evaluate,
            ViewId::Corpus => &mut self.corpus,
            ViewId::Models => &mut self.models,
            ViewId::Lessons => &mut self.lessons,
            ViewId::Atlas => &mut self.atlas,
            ViewId::Rag => &mut self.rag,
            ViewId::Moved => &mut self.moved,
            ViewId::Analyzers => &mut self.analyzers,
        }
    }

    /// Draw a view (or, for views about a corpus, say that one is loading).
    pub fn ui(&mut self, id: ViewId, ui: &mut Ui, ctx: &ViewContext<'_>) {
        let view = self.get_mut(id);
        if view.needs_corpus() && ctx.engine().is_none() {
            ui.centered_and_justified(|ui| {
                ui.label(if ctx.jobs.corpus.is_running() {
                    "Loading the corpus…"
                } else {
                    "Open a corpus from the File menu."
                });
            });
            return;
        }
        view.ui(ui, ctx);
    }

    /// A new corpus is installed.
    pub fn corpus_changed(&mut self) {
        for id in ViewId::ALL {
            self.get_mut(id).corpus_changed();
        }
    }
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
#[derive(Debug, Clone)]
pub struct Same<T>(pub std::sync::Arc<T>);

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
