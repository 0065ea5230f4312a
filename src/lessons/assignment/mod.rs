//! Assignments: one variant of a lesson's exercises per student — different passages, questions
//! and parameters drawn from a corpus with a seed — written as `questions.json` and a printable
//! `handout.html` per student and one `key.json` (with a checksum, so an edited key is refused);
//! and the grader that reads the students' answers against the key.
//!
//! Every key is computed by the code that ranks and evaluates ([`super::exercises`] over the
//! corpus's own index and models); nothing is graded silently as zero: a roster, an answer file
//! or a key that is wrong stops with an error naming the file, the line and the field.

mod answers;
mod drawer;
mod files;
mod grade;
mod lms;
mod printout;
mod random;
mod report;
mod roster;

pub use answers::{Answers, parse_answer_file, parse_answers_csv, read_answers};
pub(crate) use drawer::round4;
pub use drawer::{DRAW_TRIES, DrawFn, Drawer, is_content_word, make};
pub use files::{Assignment, Key, Questions, Sheet};
pub use grade::{Feedback, Grade, Gradebook, grade};
pub use lms::{Lms, gradebook_csv, read_moodle_responses, read_moodle_responses_file, roster_columns};
pub use random::SplitMix64;
pub use report::{ClassReport, MistakeCount, QuestionReport, Score, Unmatched, class_report, mistakes_by_question};
pub use roster::{parse_roster, read_roster};

#[cfg(test)]
mod tests;
