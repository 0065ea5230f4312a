//! Every view, registered once: the navigation, the window loop and the tests all go through
//! [`ViewId::ALL`] and [`Views::get_mut`].

use egui::Ui;

use super::{
    AnalyzersView, AtlasView, CompareView, CorpusView, EvaluateView, ExplainView, LessonsView, MapView, ModelsView,
    MovedView, RagView, StructuredView, View,
};
use crate::gui::context::ViewContext;
use crate::gui::state::ViewId;

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
        if view.needs_corpus() && ctx.workbench().is_none() {
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
