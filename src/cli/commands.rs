//! The commands (clap) and the one dispatcher from a command to its file, with ripgrep's exit
//! codes: 0 when something was found, 1 when nothing was, 2 on error.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use super::{Found, RunArgs};
use super::{
    adapter, agent, assignment, bench, bench_encode, bench_llm, bench_read, bench_scale, compare, data, embed, eval,
    graphrag, index, judge, lesson, llm, models, read, report, response, search, structured, why_not,
};

/// RankLens: one question, many retrieval methods, every score explained.
#[derive(Debug, Parser)]
#[command(name = "ranklens", version, about, long_about = None)]
pub struct Cli {
    /// What to do; without a command the desktop app opens.
    #[command(subcommand)]
    pub command: Option<CliCommand>,
    /// Desktop app: open this corpus (folder, .jsonl/.csv/.tsv or BEIR folder) instead of the last one.
    #[arg(long, value_name = "PATH")]
    pub open: Option<std::path::PathBuf>,
    /// Desktop app: ask this question once the corpus is open (a corpus other than the last one
    /// otherwise starts with an empty question bar and example questions).
    #[arg(long, value_name = "TEXT")]
    pub question: Option<String>,
    /// Desktop app: cut folders into one passage per paragraph.
    #[arg(long)]
    pub paragraphs: bool,
    /// Desktop app: show these runs beside the methods.
    #[command(flatten)]
    pub runs: RunArgs,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum CliCommand {
    /// Rank a corpus for a question with one method (and explain it).
    Search(search::SearchArgs),
    /// Every lexical method side by side for one question.
    Compare(compare::CompareArgs),
    /// What would bring a passage a method missed into its top k: the smallest question edits (and
    /// BM25 / TF-IDF knob changes), each verified by ranking again
    WhyNot(why_not::WhyNotArgs),
    /// Evaluate methods over a dataset's queries and judgements (BEIR folder).
    Eval(eval::EvalArgs),
    /// Build an on-disk index that `--corpus DIR` can reopen later.
    Index(index::IndexArgs),
    /// Measure indexing time and queries per second.
    Bench(bench::BenchArgs),
    /// Encoding speed of the dense and SPLADE models, and the late-interaction index's memory.
    BenchEncode(bench_encode::BenchEncodeArgs),
    /// A generated corpus of real size (100,000 passages) through every method: index time,
    /// memory and query time per method.
    BenchScale(bench_scale::BenchScaleArgs),
    /// The embedded language model's speed and memory on one request (the prompt written out for
    /// llama.cpp's side of `scripts/bench-llm.sh`).
    BenchLlm(bench_llm::BenchLlmArgs),
    /// What a reader costs: the corpus's questions with answers read from a method's top k, per
    /// passage and per question (the pairs written out for the reference).
    BenchRead(bench_read::BenchReadArgs),
    /// Run a read-only SQL statement over the corpus's tables.
    Sql(structured::SqlArgs),
    /// Run a knowledge-graph pattern (joins with ?variables).
    Graph(structured::GraphArgs),
    /// List or fetch the public test collections (BEIR's SciFact, NFCorpus, FiQA …) by name.
    Data(data::DataArgs),
    /// List or fetch the neural models.
    Models(models::ModelsArgs),
    /// Write a shareable report (HTML, Markdown, JSON or CSV) of a question or a question set.
    Report(report::ReportArgs),
    /// Read a saved search-engine response: each hit's explanation as term rows that sum to its
    /// score, or as the tree it is.
    Response(response::ResponseArgs),
    /// Write RankLens's dense vectors of a corpus and its questions (.npy, .jsonl, .safetensors),
    /// to take elsewhere and bring back with --vectors.
    Embed(embed::EmbedArgs),
    /// Print a lesson, or write it as a printable handout (HTML, Markdown).
    Lesson(lesson::LessonArgs),
    /// Assignments: one variant per student of a lesson's exercises, and the offline grader.
    Assignment(assignment::AssignmentArgs),
    /// Train a query adapter on a dataset's judgements (a linear map on the dense model's
    /// question vectors), and measure it on the held-out judgements.
    Adapter(adapter::AdapterArgs),
    /// Ask the language model to rewrite a question for search (or, with --draft, to write a
    /// hypothetical answer, HyDE's draft).
    Rewrite(llm::RewriteArgs),
    /// Answer a question from a method's top passages with the language model, its citations
    /// checked against the passages.
    Rag(llm::RagArgs),
    /// Retrieve, then read: a method's top k passages read for the answer span (a trained
    /// extractive reader, the language model held to a span, or the toy), or "no answer".
    Read(read::ReadArgs),
    /// A language model searches the corpus with RankLens's methods as tools (bm25, dense, splade,
    /// sql, graph) and answers with citations; the trace shows every step.
    Agent(agent::AgentArgs),
    /// GraphRAG: build the language model's graph of the corpus (entities, relations, communities
    /// and their summaries), and answer from the summaries (global search).
    Graphrag(graphrag::GraphragArgs),
    /// Judge a dataset's pooled top passages with the language model, and its agreement with the
    /// people's judgements (Cohen's κ).
    Judge(judge::JudgeArgs),
}

/// Run a subcommand and turn the outcome into an exit code.
pub fn run(command: CliCommand) -> ExitCode {
    let result = match command {
        CliCommand::Search(a) => search::search(a),
        CliCommand::WhyNot(a) => why_not::why_not(a),
        CliCommand::Compare(a) => compare::compare(a),
        CliCommand::Eval(a) => eval::eval(a),
        CliCommand::Index(a) => index::index(a),
        CliCommand::Bench(a) => bench::bench(a),
        CliCommand::BenchEncode(a) => bench_encode::bench_encode(a),
        CliCommand::BenchScale(a) => bench_scale::bench_scale(a),
        CliCommand::BenchLlm(a) => bench_llm::bench_llm(a),
        CliCommand::BenchRead(a) => bench_read::bench_read(a),
        CliCommand::Data(a) => data::data(a),
        CliCommand::Sql(a) => structured::sql(a),
        CliCommand::Graph(a) => structured::graph(a),
        CliCommand::Models(a) => models::models(a),
        CliCommand::Report(a) => report::report(a),
        CliCommand::Response(a) => response::response(a),
        CliCommand::Embed(a) => embed::embed(a),
        CliCommand::Lesson(a) => lesson::lesson(a),
        CliCommand::Assignment(a) => assignment::assignment(a),
        CliCommand::Adapter(a) => adapter::adapter(a),
        CliCommand::Rewrite(a) => llm::rewrite(a),
        CliCommand::Rag(a) => llm::rag(a),
        CliCommand::Read(a) => read::read(a),
        CliCommand::Judge(a) => judge::judge(a),
        CliCommand::Agent(a) => agent::agent(a),
        CliCommand::Graphrag(a) => graphrag::graphrag(a),
    };
    match result {
        Ok(Found::Some) => ExitCode::SUCCESS,
        Ok(Found::Nothing) => ExitCode::from(1),
        Err(e) => {
            eprintln!("error: {}", super::model_args::name_flags(&crate::error::report(e.as_ref())));
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_is_a_valid_clap_definition() {
        // clap checks its definitions (unique ids, flags) only when asked, or in a debug build at
        // the first parse of that command.
        <Cli as clap::CommandFactory>::command().debug_assert();
    }

    #[test]
    fn a_run_argument_is_a_name_and_a_path_or_just_a_path() {
        assert_eq!(super::super::split_run_arg("bm25=runs/a.trec"), (Some("bm25".into()), "runs/a.trec".into()));
        assert_eq!(super::super::split_run_arg("runs/a.trec"), (None, "runs/a.trec".into()));
        assert_eq!(
            super::super::split_run_arg("dir/x=y.trec"),
            (None, "dir/x=y.trec".into()),
            "a slash before = is a path"
        );
    }
}
