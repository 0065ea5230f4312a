//! The language model with RankLens's own tools: a SELECT written from a question (shown and
//! editable before it runs, refused unless it is one read), the graph the model extracts from the
//! corpus (GraphRAG; long work with progress, cancellable, cached in the workspace), and global
//! search over that graph's community summaries. The agent is a column (`retrieve::agent`), run
//! by the ranking like any other.

use super::shell::failed;
use crate::Error;
use crate::generate::text_to_sql;
use crate::graphrag::BuildOptions;
use crate::gui::app::RankLensApp;
use crate::gui::command::ModelToolCommand;
use crate::gui::jobs::Polled;
use crate::gui::state::Notice;
use crate::structured::SqlLimits;

/// What the app says when a command needs the language model and none is loaded.
const NO_GENERATOR: &str = "No language model: load one in Models → Generator (the embedded model, or a chat server).";

impl RankLensApp {
    pub(super) fn apply_model_tools(&mut self, command: ModelToolCommand) {
        match command {
            ModelToolCommand::WriteSql(question) => self.start_sql_ask(question),
            ModelToolCommand::EditModelSql(sql) => self.data.model_sql = sql,
            ModelToolCommand::RunModelSql => self.start_model_sql(),
            ModelToolCommand::BuildGraph(limit) => self.start_graph_build(limit),
            ModelToolCommand::AskGlobal(question) => self.start_global(question),
        }
    }

    pub(super) fn poll_model_tools(&mut self) {
        if self.jobs.sql_ask.poll() == Polled::Ready
            && let Some(asked) = self.jobs.sql_ask.ready()
        {
            // The statement is shown in its editor; it runs only when the user says so.
            self.data.model_sql = asked.sql.clone();
        }
        self.jobs.sql_model.poll();
        match self.jobs.graph_build.poll() {
            Polled::Ready => {
                // Its local-search column answers from it now: rank again if it is shown.
                if self.data.persisted.settings.methods.contains(&crate::retrieve::MethodKind::GraphLocal) {
                    self.start_rank();
                }
            }
            Polled::Failed => {
                let m = failed(self.jobs.graph_build.kind(), self.jobs.graph_build.failure());
                self.say(m);
            }
            Polled::Same => {}
        }
        self.jobs.graph_global.poll();
    }

    /// Ask the language model for one SELECT over the corpus's tables.
    fn start_sql_ask(&mut self, question: String) {
        let Some(engine) = self.data.workbench.clone() else { return };
        let Some(generator) = engine.generator() else {
            self.say(Notice::error(NO_GENERATOR));
            return;
        };
        self.jobs.sql_model.cancel();
        self.jobs.sql_ask.start(self.waker(), move |p| {
            let Some(db) = &engine.structured().sql else {
                return Err(Error::Unavailable("this corpus has no tables: put a .csv file next to it".into()));
            };
            text_to_sql::write_sql(generator.as_ref(), db, &question, p)
        });
    }

    /// Run the model's statement as edited: one SELECT, read-only, under the usual limits.
    fn start_model_sql(&mut self) {
        let Some(engine) = self.data.workbench.clone() else { return };
        let sql = self.data.model_sql.clone();
        self.jobs.sql_model.start(self.waker(), move |_| {
            let Some(db) = &engine.structured().sql else {
                return Err(Error::Unavailable("this corpus has no tables: put a .csv file next to it".into()));
            };
            Ok((sql.clone(), text_to_sql::run(db, &sql, SqlLimits::default())))
        });
    }

    /// Extract the model's graph of the corpus (or read it from the cache).
    fn start_graph_build(&mut self, limit: Option<usize>) {
        let Some(engine) = self.data.workbench.clone() else { return };
        let Some(generator) = engine.generator() else {
            self.say(Notice::error(NO_GENERATOR));
            return;
        };
        self.jobs.graph_build.start(self.waker(), move |p| {
            engine.build_model_graph(generator.as_ref(), BuildOptions { limit, summaries: true }, p)
        });
    }

    /// Answer a question from the graph's community summaries.
    fn start_global(&mut self, question: String) {
        let Some(engine) = self.data.workbench.clone() else { return };
        let Some(generator) = engine.generator() else {
            self.say(Notice::error(NO_GENERATOR));
            return;
        };
        self.jobs.graph_global.start(self.waker(), move |p| {
            let Some(graph) = engine.model_graph() else {
                return Err(Error::Unavailable(
                    "no graph of this corpus yet: build it in the Structured view (Build the model's graph)".into(),
                ));
            };
            crate::graphrag::global_answer(generator.as_ref(), &graph, &question, p)
        });
    }
}
