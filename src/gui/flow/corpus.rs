//! Opening a corpus: loading it in the background (the current one stays until the new one is
//! ready), and installing it — its warnings, its SQL and graph examples, its grades and the
//! model's judgements, the other systems reopened, its models loaded and the question ranked.

use std::sync::Arc;

use super::shell::failed;
use crate::corpus::{self, LoadOptions};
use crate::gui::app::RankLensApp;
use crate::gui::command::CorpusCommand;
use crate::gui::jobs::Polled;
use crate::gui::state::{CorpusChoice, LoadedCorpus, Notice};
use crate::models::Role;
use crate::progress::Progress;
use crate::workbench::Workbench;

impl RankLensApp {
    pub(super) fn apply_corpus(&mut self, command: CorpusCommand) {
        match command {
            CorpusCommand::Open(choice) => self.start_corpus(choice),
            CorpusCommand::SetOpenSplit(split) => self.data.open_split = split,
        }
    }

    /// Load a corpus in the background; the current one stays until the new one is ready, and a
    /// corpus that cannot be read leaves everything as it was and says why.
    fn start_corpus(&mut self, choice: CorpusChoice) {
        let workspace = self.data.workspace.clone();
        self.jobs.corpus.start(self.waker(), move |progress| {
            let path = match &choice {
                // A test collection is fetched (with the job's progress and Stop) the first time.
                CorpusChoice::Collection(name) => {
                    let data = crate::datasets::data_dir(workspace.as_deref().unwrap_or(&crate::workspace_dir()));
                    crate::datasets::Fetcher::new(data).fetch(name, progress)?
                }
                other => other.path()?,
            };
            progress.stage("reading files", 0);
            let corpus = corpus::load_documents(&path, LoadOptions { split: choice.split(), format: None })?;
            let mut engine = Workbench::new(corpus);
            if let Some(ws) = workspace {
                engine = engine.with_workspace(ws);
            }
            if path.is_dir() {
                engine.load_structured(&path)?;
            }
            Ok(LoadedCorpus { workbench: engine, choice })
        });
    }

    pub(super) fn poll_corpus(&mut self) {
        match self.jobs.corpus.poll() {
            Polled::Ready => {
                if let Some(loaded) = self.jobs.corpus.take_ready() {
                    self.frames.event(&format!(
                        "corpus {} ({} passages)",
                        loaded.workbench.corpus().name,
                        loaded.workbench.corpus().len()
                    ));
                    self.install_engine(loaded);
                }
            }
            Polled::Failed => {
                let m = failed(self.jobs.corpus.kind(), self.jobs.corpus.failure());
                self.say(m);
            }
            Polled::Same => {}
        }
    }

    fn install_engine(&mut self, loaded: LoadedCorpus) {
        let engine = Arc::new(loaded.workbench);
        let data = &mut self.data;
        for w in engine.corpus().report.warnings.iter().chain(engine.structured().warnings.iter()) {
            data.messages.push(Notice::warning(w.to_string()));
        }
        // Another corpus than the last one: its own questions, not the last corpus's. The bar
        // starts empty with examples drawn from the corpus (see `Chrome::question_bar_ui`).
        if let Some(q) = self.first_question.take() {
            data.persisted.question = q;
        } else if data.persisted.corpus != loaded.choice {
            data.persisted.question.clear();
        }
        data.persisted.corpus = loaded.choice;
        data.selection = None;
        data.hovered = None;
        // Offer the corpus's own SQL and graph examples where the editors are empty.
        let templates = &engine.corpus().templates;
        if engine.structured().sql.is_some()
            && data.persisted.sql.trim().is_empty()
            && let Some(sql) = templates.values().find_map(|t| t.sql.clone())
        {
            data.persisted.sql = sql;
        }
        if engine.structured().graph.is_some()
            && data.persisted.pattern.trim().is_empty()
            && let Some(p) = templates.values().find_map(|t| t.graph.clone())
        {
            data.persisted.pattern = p;
        }
        if let Err(e) = engine.set_neural_options(data.persisted.settings.neural_options()) {
            data.messages.push(Notice::error(e.report()));
        }
        data.workbench = Some(engine);
        self.jobs.rank.clear();
        self.jobs.rank_slow.clear();
        self.jobs.explain.clear();
        self.jobs.sql.clear();
        self.jobs.graph.clear();
        self.jobs.judge.clear();
        self.views.corpus_changed();
        self.refresh_grades();
        self.load_model_judgements();
        self.reopen_systems();
        self.start_rank();
        for role in Role::ALL {
            self.start_model(role, false);
        }
        self.start_generator(false);
    }
}
