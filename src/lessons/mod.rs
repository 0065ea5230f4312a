//! Lessons: worked examples whose every number is computed live by the code that ranks a user's
//! corpus — not canned. Each lesson builds a [`Lesson`] (text, tables, curves) the app draws and
//! `ranklens lesson NAME` prints. Each lesson with an assignment draws a student's variant of its
//! exercises ([`Drawer`]); the classroom ([`crate::classroom`]) hands them out and grades them.

mod atlas;
mod bm25;
pub mod checkpoint;
mod chunking;
mod data;
mod dense;
mod drawer;
mod entities;
mod entry;
pub mod exercises;
#[cfg(test)]
mod exercises_tests;
mod flips;
mod fusion;
mod index;
mod kit;
mod late;
mod lesson;
mod metric_exercises;
mod metrics;
mod mismatch;
mod one_word;
pub mod page_hunt;
mod params;
mod reader;
mod registry;
mod splade;
mod structure;
mod tfidf;

pub(crate) use crate::markup::f4;
pub use atlas::{ATLAS, AtlasCard, RunsHere, atlas_lesson};
pub use drawer::{DRAW_TRIES, DrawFn, Drawer, is_content_word};
pub use entities::{fellegi_sunter, jaro, jaro_winkler};
pub use entry::{AssignmentEntry, BuildFn, LessonEntry};
pub use kit::{LessonKit, Open};
pub use lesson::{Block, Lesson};
pub use params::{FieldWeights, IdfBase, Knob, LessonParams};
pub use registry::{LESSONS, build, lesson, with_assignments};
