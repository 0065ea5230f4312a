//! Retrieve, then read: a reader takes a question and the passages a ranking put first and finds
//! the answer span in them — or says there is none.
//!
//! Three readers keep one contract ([`Reader`], [`Readout`]): the trained extractive model
//! ([`trained`], start and end scores per token, `[CLS]` as the no-answer), a language model held
//! to a verbatim span ([`generated`], scored by the span's probability under the model), and the
//! anchor-and-boundary toy the lesson shows failing ([`toy`]). Each reads one passage at a time;
//! [`decide`] takes the best span over the passages read unless the no-answer beats it.

pub mod generated;
mod reading;
pub mod toy;
pub mod trained;

pub use generated::GeneratorReader;
pub use reading::{
    Decision, GeneratedReading, LeftOut, PassageReading, ReadDetail, Reader, ReaderAnswer, ReaderInfo, ReaderKind,
    Readout, Span, SpanParts, decide, read,
};
pub use toy::{ToyReader, extract_answer};
pub use trained::TrainedReader;
