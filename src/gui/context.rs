//! What a view sees while it draws: the app's data and jobs, read-only, and a way to send
//! commands. A view changes nothing but its own state; everything else goes through a command.

use std::cell::RefCell;
use std::sync::Arc;

use super::command::Command;
use super::jobs::Jobs;
use super::state::{AppData, Ranked};
use crate::workbench::Workbench;

/// The per-frame context of the views.
pub struct ViewContext<'a> {
    /// The app's data.
    pub data: &'a AppData,
    /// The background jobs and their results.
    pub jobs: &'a Jobs,
    commands: &'a RefCell<Vec<Command>>,
}

impl<'a> ViewContext<'a> {
    /// A context that queues commands into `commands`.
    pub fn new(data: &'a AppData, jobs: &'a Jobs, commands: &'a RefCell<Vec<Command>>) -> Self {
        Self { data, jobs, commands }
    }

    /// Ask the app to do something (applied before the next frame).
    pub fn send(&self, command: impl Into<Command>) {
        self.commands.borrow_mut().push(command.into());
    }

    /// The current corpus's engine.
    pub fn workbench(&self) -> Option<&'a Arc<Workbench>> {
        self.data.workbench.as_ref()
    }

    /// The ranking to show: the last finished one (also while the next one runs).
    pub fn ranked(&self) -> Option<&'a Ranked> {
        self.jobs.rank.latest()
    }
}
