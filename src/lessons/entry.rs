//! What a lesson is to the app and the command line: its id and title, how its page is built, and,
//! when it has one, what its assignment asks and how a student's variant is drawn.

use super::drawer::DrawFn;
use super::{Knob, Lesson, LessonKit, LessonParams, Open};
use crate::Result;

/// Builds a lesson's page: on the textbook's example, then on `Open` (the open corpus and question)
/// where the lesson runs on a user's corpus.
pub type BuildFn = fn(&LessonKit, &LessonParams, &Open) -> Result<Lesson>;

/// One lesson of the registry ([`super::LESSONS`]).
pub struct LessonEntry {
    /// Its id (`tfidf`): what `ranklens lesson NAME`, the app's list and saved state name it by.
    pub id: &'static str,
    /// Its title.
    pub title: &'static str,
    /// Builds its page (the registry names it with `id` and `title`).
    pub build: BuildFn,
    /// What a learner can change on its page, in the order the app draws them.
    pub knobs: &'static [Knob],
    /// Its assignment, when it has one.
    pub assignment: Option<AssignmentEntry>,
}

/// A lesson's assignment: what it asks, and the drawer of one student's questions.
pub struct AssignmentEntry {
    /// What the questions ask, in a line (the assignment dialog and `ranklens assignment` list it).
    pub asks: &'static str,
    /// Draws one student's questions with their keys.
    pub draw: DrawFn,
    /// The models its draws rank with (loaded, and fetched when missing, before drawing).
    pub needs: &'static [crate::models::Role],
}
