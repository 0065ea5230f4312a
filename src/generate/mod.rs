//! A language model where the methods call for one: rewriting a question, drafting a hypothetical
//! answer (HyDE), the reader's answer with citations, and relevance judgements.
//!
//! Two kinds of [`Generator`] write text: [`EmbeddedLlm`], a quantized instruct model (GGUF) run in
//! this process by llama.cpp, and [`ChatServer`], any server that speaks OpenAI's chat-completions
//! protocol (llama.cpp's `llama-server`, Ollama, vLLM, LM Studio, OpenAI). The tasks
//! ([`tasks`]) build the messages, say what shape the reply must have ([`shape`]: the embedded
//! model is held to it while it writes), read the model's text back and check it (a citation to a
//! passage that was not in the prompt, a sentence whose cited passage shares no word with it), and
//! never depend on which generator wrote the text. [`store`] keeps every reply in the workspace,
//! so the same request is never asked twice.

mod chat;
pub mod citations;
pub mod llama;
pub mod openai;
pub mod permutation;
pub mod prompts;
pub mod shape;
pub mod store;
pub mod tasks;
pub mod text_to_sql;
pub mod unshaped;

pub use chat::{
    ChatRequest, Finish, Generated, Generator, GeneratorInfo, Message, Place, Sink, Speaker, TokenChoice, ToolCall,
    ToolSpec, ToolTurn, caveat_for,
};
pub use llama::{EmbeddedLlm, gguf_file, load_embedded};
pub use openai::{ChatServer, ServerConfig};
pub use shape::Shape;
pub use store::{ReplyStore, Stored};
