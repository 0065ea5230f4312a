//! The classroom, apart from the lessons it hands out: assignments — one variant of a lesson's
//! exercises per student, different passages, questions and parameters drawn from a corpus with
//! a seed — written as `questions.json` and a printable `handout.html` per student and one
//! `key.json` (with a checksum, so an edited key is refused); the grader that reads the students'
//! answers against the key, the class report and the LMS gradebooks; a lesson's checkpoints as a
//! quiz ([`exchange`]); a lesson as a printable handout ([`handout`]).
//!
//! Every key is computed by the code that ranks and evaluates ([`crate::lessons::exercises`] over the
//! corpus's own index and models); nothing is graded silently as zero: a roster, an answer file
//! or a key that is wrong stops with an error naming the file, the line and the field.

mod answers;
pub mod exchange;
mod files;
mod grade;
pub mod handout;
pub mod hunt;
mod lms;
mod make;
mod printout;
mod report;
mod roster;

pub use answers::{Answers, Unread, parse_answer_file, parse_answers_csv, read_answers};
pub use files::{Assignment, Key, Questions, Sheet};
pub use grade::{Feedback, Grade, Gradebook, grade};
pub use lms::{Lms, gradebook_csv, read_moodle_responses, read_moodle_responses_file, roster_columns};
pub use make::{make, make_assignment};
pub use report::{ClassReport, MistakeCount, QuestionReport, Score, Unmatched, class_report, mistakes_by_question};
pub use roster::{parse_roster, read_roster};

#[cfg(test)]
mod tests;
