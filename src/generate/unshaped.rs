//! A generator whose requests are never held to a shape (`--free`): what a server that refuses
//! grammars gives, for measuring what the shapes change.

use crate::Result;

/// A generator whose requests are never held to a shape: what a server that refuses grammars
/// gives, for measuring what the shapes change (`--free`).
pub struct Unshaped(pub std::sync::Arc<dyn super::Generator>);

impl super::Generator for Unshaped {
    fn info(&self) -> &super::GeneratorInfo {
        self.0.info()
    }

    fn identity(&self) -> String {
        self.0.identity()
    }

    fn request_version(&self, request: &super::ChatRequest) -> String {
        self.0.request_version(&super::ChatRequest { shape: None, ..request.clone() })
    }

    fn keeps_replies(&self) -> bool {
        self.0.keeps_replies()
    }

    fn holds_shapes(&self) -> bool {
        false
    }

    fn chat(
        &self,
        request: &super::ChatRequest,
        sink: super::Sink<'_>,
        progress: &dyn crate::progress::Progress,
    ) -> Result<super::Generated> {
        self.0.chat(&super::ChatRequest { shape: None, ..request.clone() }, sink, progress)
    }

    fn first_tokens(
        &self,
        request: &super::ChatRequest,
        top: usize,
        progress: &dyn crate::progress::Progress,
    ) -> Result<Option<Vec<super::TokenChoice>>> {
        self.0.first_tokens(&super::ChatRequest { shape: None, ..request.clone() }, top, progress)
    }

    fn chat_with_tools(
        &self,
        request: &super::ChatRequest,
        tools: &[super::ToolSpec],
        progress: &dyn crate::progress::Progress,
    ) -> Result<Option<super::ToolTurn>> {
        self.0.chat_with_tools(&super::ChatRequest { shape: None, ..request.clone() }, tools, progress)
    }
}
