//! What the app does, one file per feature. Each file is an `impl RankLensApp` block holding its
//! feature's commands (`apply_*`), the jobs it starts (`start_*`) and what happens when they
//! finish (`poll_*`). A new feature adds a command enum (`command.rs`), an arm to each dispatcher
//! below, and its file here.

mod corpus;
mod files;
mod grades;
mod lessons;
mod llm;
mod model_tools;
mod models;
mod outside;
mod ranking;
mod read;
mod shell;
mod structured;
mod study;
mod tools;

use super::app::RankLensApp;
use super::command::Command;

impl RankLensApp {
    /// Apply one command: the only place the app's data changes in answer to a view.
    pub(super) fn apply(&mut self, command: Command) {
        match command {
            Command::Corpus(c) => self.apply_corpus(c),
            Command::Rank(c) => self.apply_rank(c),
            Command::Outside(c) => self.apply_outside(c),
            Command::Structured(c) => self.apply_structured(c),
            Command::Models(c) => self.apply_models(c),
            Command::Llm(c) => self.apply_llm(c),
            Command::ModelTools(c) => self.apply_model_tools(c),
            Command::Study(c) => self.apply_study(c),
            Command::Read(c) => self.apply_read(c),
            Command::Lessons(c) => self.apply_lessons(c),
            Command::Files(c) => self.apply_files(c),
            Command::Tools(c) => self.apply_tools(c),
            Command::Shell(c) => self.apply_shell(c),
        }
    }

    /// Take in every finished job, and every piece a streaming job handed over.
    pub(super) fn poll_jobs(&mut self) {
        self.poll_corpus();
        self.poll_models();
        self.poll_adapter();
        self.poll_ranking();
        self.poll_outside();
        self.poll_structured();
        self.poll_study();
        self.poll_llm();
        self.poll_read();
        self.poll_model_tools();
        self.poll_lessons();
        self.poll_files();
        self.poll_tools();
    }
}
