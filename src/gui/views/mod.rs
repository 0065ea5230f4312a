//! The views. Each view is one type owning its own state and drawing from the read-only
//! [`crate::gui::context::ViewContext`]; it changes the app only by sending commands. [`Views`]
//! registers every view once: the navigation, the window loop and the tests all go through
//! [`crate::gui::state::ViewId::ALL`].

mod agent_trace;
mod analyzers;
pub mod answer_curve;
mod atlas;
mod checkpoint;
mod class_report;
mod compare;
mod corpus;
mod engine_explain;
mod evaluate;
mod explain;
mod explain_detail;
mod fixes;
mod graph_drawing;
mod judge_stress;
mod judge_validity;
mod lessons;
mod map;
mod model_detail;
mod model_judge;
mod model_methods;
mod model_structured;
mod models;
mod moved;
mod overlap;
mod page_hunt;
pub mod rag;
pub mod reader;
mod registry;
mod structured;
mod view;

pub use analyzers::AnalyzersView;
pub use atlas::AtlasView;
pub use compare::{CompareData, CompareView};
pub use corpus::{CorpusData, CorpusView};
pub use evaluate::EvaluateView;
pub use explain::ExplainView;
pub use lessons::LessonsView;
pub use map::MapView;
pub use models::ModelsView;
pub use moved::MovedView;
pub use rag::RagView;
pub use registry::Views;
pub use structured::StructuredView;
pub use view::{Memo, Same, View, method_tag_ui};
