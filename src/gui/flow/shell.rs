//! The window: which view is shown, messages, the frame-time overlay, stopping work.

use crate::Error;
use crate::gui::app::RankLensApp;
use crate::gui::command::ShellCommand;
use crate::gui::jobs::JobKind;
use crate::gui::state::Notice;

impl RankLensApp {
    pub(super) fn apply_shell(&mut self, command: ShellCommand) {
        let data = &mut self.data;
        match command {
            ShellCommand::ShowView(view) => data.persisted.view = view,
            ShellCommand::Notify(m) => data.messages.push(m),
            ShellCommand::Dismiss(Some(i)) => {
                if i < data.messages.len() {
                    data.messages.remove(i);
                }
            }
            ShellCommand::Dismiss(None) => data.messages.clear(),
            ShellCommand::SetDebugOverlay(on) => data.persisted.debug_overlay = on,
            ShellCommand::Cancel(kind) => self.jobs.cancel(kind),
        }
    }

    /// Show a message.
    pub(super) fn say(&mut self, message: Notice) {
        self.data.messages.push(message);
    }
}

/// The message of a job that failed: the job's name and why.
pub(super) fn failed(kind: JobKind, failure: Option<&Error>) -> Notice {
    Notice::error(format!("{}: {}", kind.label(), failure.map(Error::report).unwrap_or_default()))
}
