//! `ranklens assignment new|grade|report`: one variant of a lesson's exercises per student, the
//! offline grader, and the class report.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};

use super::{CorpusArgs, Found};
use crate::classroom::{self, Key};
use crate::models::ModelManager;
use crate::progress::NoProgress;

/// `ranklens assignment`
#[derive(Debug, Args)]
pub struct AssignmentArgs {
    #[command(subcommand)]
    command: AssignmentCommand,
}

#[derive(Debug, Subcommand)]
enum AssignmentCommand {
    /// Write one variant per student: DIR/<student>/questions.json and handout.html, and DIR/key.json.
    New(NewArgs),
    /// Grade a folder of <student>.json answer files, or one CSV (student,question,answer).
    Grade(GradeArgs),
    /// What the class got wrong: per question the share right, each named mistake with who made
    /// it, the wrong answers no known mistake explains, and the score distribution.
    Report(ReportArgs),
}

/// The class report's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ReportFormat {
    Table,
    Csv,
    Json,
    /// A printable page.
    Html,
}

#[derive(Debug, Args)]
struct ReportArgs {
    /// The key written by `assignment new`.
    #[arg(long, value_name = "FILE", required_unless_present = "quiz", conflicts_with = "quiz")]
    key: Option<PathBuf>,
    /// A Moodle quiz's Responses report instead, for this lesson's checkpoints (see `grade`).
    #[arg(long, value_name = "LESSON")]
    quiz: Option<String>,
    /// A folder of <student>.json files or a CSV (student,question,answer); with --quiz, Moodle's
    /// Responses report.
    #[arg(long, value_name = "PATH")]
    answers: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: ReportFormat,
    /// Write to this file instead of the terminal.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

#[derive(Debug, Args)]
struct NewArgs {
    /// The lesson: tfidf, bm25, index, metrics, dense, splade, late, fusion.
    #[arg(long)]
    lesson: String,
    /// A CSV whose first column is the student's name (a header row allowed).
    #[arg(long, value_name = "CSV")]
    roster: PathBuf,
    /// The seed: the same lesson, roster and seed give the same variants.
    #[arg(long)]
    seed: u64,
    /// Where to write the variants and the key.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// The corpus the variants are drawn from (default: the bundled sample).
    #[command(flatten)]
    corpus: CorpusArgs,
}

/// The gradebook's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum GradeFormat {
    Table,
    Csv,
    Json,
    /// For Moodle's grade import: Student, Email address, ID number, the grade.
    Moodle,
    /// For Canvas's gradebook import: Student, ID, SIS User ID, SIS Login ID, Section, the grade,
    /// with a Points Possible row.
    Canvas,
}

#[derive(Debug, Args)]
struct GradeArgs {
    /// The key written by `assignment new`.
    #[arg(long, value_name = "FILE", required_unless_present = "quiz", conflicts_with = "quiz")]
    key: Option<PathBuf>,
    /// Grade a Moodle quiz's Responses report (CSV) instead: the quiz `ranklens lesson LESSON
    /// --format moodle` wrote, whose questions are this lesson's checkpoints.
    #[arg(long, value_name = "LESSON")]
    quiz: Option<String>,
    /// A folder of <student>.json files ({"answers": {"<question id>": value}}) or a CSV
    /// (student,question,answer); with --quiz, Moodle's Responses report.
    #[arg(long, value_name = "PATH")]
    answers: PathBuf,
    /// The roster, for its identifier columns (a header row naming email, id, sis user id,
    /// section) in the moodle and canvas formats.
    #[arg(long, value_name = "CSV")]
    roster: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: GradeFormat,
}

/// The key and the answers a grading reads: an assignment's key and its answers, or a lesson's
/// checkpoints and a Moodle quiz's responses.
fn key_and_answers(
    key: Option<&PathBuf>,
    quiz: Option<&str>,
    answers: &std::path::Path,
) -> anyhow::Result<(Key, classroom::Answers)> {
    match (key, quiz) {
        (Some(k), _) => Ok((Key::read(k)?, classroom::read_answers(answers)?)),
        (None, Some(lesson)) => {
            let kit = crate::lessons::LessonKit::load(&ModelManager::from_env(), &NoProgress)?;
            let built = crate::lessons::build(lesson, &kit, &crate::lessons::LessonParams::default(), None)?;
            let checkpoints: Vec<_> = built.checkpoints().cloned().collect();
            Ok(classroom::read_moodle_responses_file(answers, lesson, &checkpoints)?)
        }
        (None, None) => anyhow::bail!("give --key FILE, or --quiz LESSON for a Moodle quiz's responses"),
    }
}

/// `ranklens assignment`
pub fn assignment(a: AssignmentArgs) -> anyhow::Result<Found> {
    match a.command {
        AssignmentCommand::New(n) => {
            let roster = classroom::read_roster(&n.roster)?;
            let engine = n.corpus.workbench(&NoProgress)?;
            let needs = crate::lessons::lesson(&n.lesson)?.assignment.as_ref().map_or(&[][..], |a| a.needs);
            for &role in needs {
                engine.load_model(&ModelManager::from_env(), role, true, &NoProgress)?;
            }
            if !needs.is_empty() {
                engine.build_neural(&NoProgress)?;
            }
            let made = crate::classroom::make_assignment(&n.lesson, &roster, n.seed, &engine, &NoProgress)?;
            let written = made.write(&n.out)?;
            eprintln!(
                "wrote {} files for {} students: {}/<student>/questions.json, handout.html and {}",
                written.len(),
                roster.len(),
                n.out.display(),
                n.out.join("key.json").display()
            );
            Ok(Found::Some)
        }
        AssignmentCommand::Grade(g) => {
            let (key, answers) = key_and_answers(g.key.as_ref(), g.quiz.as_deref(), &g.answers)?;
            let roster = match &g.roster {
                Some(r) => Some((std::fs::read(r).map_err(|e| crate::Error::io(r, e))?, r.display().to_string())),
                None => None,
            };
            let roster = roster.as_ref().map(|(b, s)| (b.as_slice(), s.as_str()));
            let book = classroom::grade(&key, &answers)?;
            match g.format {
                GradeFormat::Table => print!("{}", book.to_table()),
                GradeFormat::Csv => print!("{}", book.to_csv()),
                GradeFormat::Json => println!("{}", serde_json::to_string_pretty(&book)?),
                GradeFormat::Moodle => {
                    print!("{}", classroom::gradebook_csv(&key, &answers, roster, classroom::Lms::Moodle)?)
                }
                GradeFormat::Canvas => {
                    print!("{}", classroom::gradebook_csv(&key, &answers, roster, classroom::Lms::Canvas)?)
                }
            }
            // Something needs the teacher's look: said on stderr whatever the format, and the exit
            // status is 1 (the others were graded).
            if book.needs_look() {
                if !matches!(g.format, GradeFormat::Table) {
                    eprint!("{}", book.needs_a_look());
                }
                return Ok(Found::Nothing);
            }
            Ok(Found::Some)
        }
        AssignmentCommand::Report(r) => {
            let (key, answers) = key_and_answers(r.key.as_ref(), r.quiz.as_deref(), &r.answers)?;
            let report = classroom::class_report(&key, &answers)?;
            let text = match r.format {
                ReportFormat::Table => report.to_table(),
                ReportFormat::Csv => report.to_csv(),
                ReportFormat::Json => serde_json::to_string_pretty(&report)? + "\n",
                ReportFormat::Html => report.to_html(),
            };
            match &r.out {
                Some(path) => {
                    crate::fsutil::write_atomic(path, text)?;
                    eprintln!("wrote {}", path.display());
                }
                None => print!("{text}"),
            }
            // What could not be graded is said on stderr (the table shows it first), exit status 1.
            let look = report.needs_a_look();
            if !look.is_empty() {
                if !matches!(r.format, ReportFormat::Table) || r.out.is_some() {
                    for line in &look {
                        eprintln!("needs a look: {line}");
                    }
                }
                return Ok(Found::Nothing);
            }
            Ok(Found::Some)
        }
    }
}
