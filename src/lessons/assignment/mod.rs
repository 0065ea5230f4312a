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
mod tests {
    use super::*;

    #[test]
    fn splitmix64_is_the_published_sequence() {
        // The first outputs of SplitMix64 seeded with 1234567 (Vigna's reference implementation).
        let mut r = SplitMix64::new(1234567);
        assert_eq!(r.next_u64(), 6457827717110365317);
        assert_eq!(r.next_u64(), 3203168211198807973);
        assert_eq!(r.next_u64(), 9817491932198370423);
    }

    #[test]
    fn a_roster_with_a_header_blank_lines_and_quotes_is_read() {
        let r = parse_roster(b"name,email\n\nAda Lovelace,ada@x\n\"Turing, Alan\",a@t\n", "r.csv").unwrap();
        assert_eq!(r, ["Ada Lovelace", "Turing, Alan"]);
    }

    #[test]
    fn roster_errors_name_the_line() {
        let e = parse_roster(b"Ada\nBob\nada\n", "r.csv").unwrap_err().to_string();
        assert!(e.contains("r.csv:3") && e.contains("line 1"), "{e}");
        let e = parse_roster(b"Ada\n,x\n", "r.csv").unwrap_err().to_string();
        assert!(e.contains("r.csv:2") && e.contains("empty"), "{e}");
        let e = parse_roster(b"a/b\n", "r.csv").unwrap_err().to_string();
        assert!(e.contains("r.csv:1"), "{e}");
        assert!(parse_roster(b"name\n", "r.csv").is_err());
    }
}
