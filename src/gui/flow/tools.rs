//! The analysis tools: one text through every analyzer (the question ranked under each), and one
//! passage under two states (what moved its rank and score).

use crate::gui::app::RankLensApp;
use crate::gui::command::ToolCommand;

impl RankLensApp {
    pub(super) fn apply_tools(&mut self, command: ToolCommand) {
        let Some(engine) = self.data.workbench.clone() else { return };
        let question = self.data.persisted.question.clone();
        match command {
            ToolCommand::CompareAnalyzers(text) => {
                let settings = self.data.persisted.settings.clone();
                self.jobs.analyzers.start(self.waker(), move |p| {
                    crate::compare::analyzers::compare_analyzers(&engine, &settings, &text, &question, 5, p)
                });
            }
            ToolCommand::FindFixes { doc, kind } => {
                let settings = self.data.persisted.settings.clone();
                self.jobs.fixes.start(self.waker(), move |p| {
                    crate::compare::fixes::find_fixes(&engine, kind, &settings, &question, doc, settings.k, p)
                });
            }
            ToolCommand::PageHunt { doc, kind, round, question } => {
                let settings = self.data.persisted.settings.clone();
                self.jobs.page_hunt.start(self.waker(), move |p| {
                    crate::lessons::page_hunt::play(&engine, kind, &settings, round, doc, &question, p)
                });
            }
            ToolCommand::WhatMoved { doc, before, after } => {
                self.jobs.moved.start(self.waker(), move |_| {
                    crate::compare::moved::what_moved(&engine, &question, doc, &before, &after)
                });
            }
        }
    }

    pub(super) fn poll_tools(&mut self) {
        // Their views show their results and failures.
        self.jobs.analyzers.poll();
        self.jobs.moved.poll();
        self.jobs.fixes.poll();
        self.jobs.page_hunt.poll();
    }
}
