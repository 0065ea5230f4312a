//! Background work, typed. Every long operation (loading, indexing, encoding, downloads, ranking,
//! explaining, asking the language model) runs on a named thread as a [`Job`] whose result has
//! its own type, and whose state is one enum: idle, running (with progress and the previous
//! result), ready, or failed with the message. A [`Streaming`] job also hands over pieces while it
//! runs (an answer as it is written, judgements as they are made) through the same run's channel.
//!
//! Each run of a job has its own result channel. Starting a job again (a new question while the
//! old one ranks) or cancelling it drops the old run's receiver and cancels its progress token, so
//! a superseded result can never land: no generation counters, no flags.

mod job;
mod kind;
mod registry;
mod stream;

pub use job::{Job, JobState, JobView, Polled, Running, WorkItem};
pub use kind::JobKind;
pub use registry::{BuiltLesson, Jobs};
pub use stream::{Parts, Streaming};
