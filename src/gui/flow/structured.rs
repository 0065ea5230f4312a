//! The SQL table and the knowledge graph: the editors' statement and pattern, run in the
//! background and shown in the Structured view and their columns.

use crate::Error;
use crate::gui::app::RankLensApp;
use crate::gui::command::StructuredCommand;
use crate::structured::SqlLimits;

impl RankLensApp {
    pub(super) fn apply_structured(&mut self, command: StructuredCommand) {
        match command {
            StructuredCommand::SetSql(sql) => self.data.persisted.sql = sql,
            StructuredCommand::SetPattern(p) => self.data.persisted.pattern = p,
            StructuredCommand::RunSql => {
                self.start_sql();
                self.start_rank();
            }
            StructuredCommand::RunGraph => {
                self.start_graph();
                self.start_rank();
            }
        }
    }

    pub(super) fn poll_structured(&mut self) {
        // The view draws the rows and bindings from their jobs, failures included.
        self.jobs.sql.poll();
        self.jobs.graph.poll();
    }

    /// Run the SQL editor's statement (read-only, time-limited).
    fn start_sql(&mut self) {
        let Some(engine) = self.data.workbench.clone() else { return };
        let sql = self.data.persisted.sql.clone();
        self.jobs.sql.start(self.waker(), move |_| {
            let Some(db) = &engine.structured().sql else {
                return Err(Error::Unavailable("this corpus has no tables: put a .csv file next to it".into()));
            };
            db.query(&sql, SqlLimits::default())
        });
    }

    /// Run the graph pattern.
    fn start_graph(&mut self) {
        let Some(engine) = self.data.workbench.clone() else { return };
        let pattern = self.data.persisted.pattern.clone();
        self.jobs.graph.start(self.waker(), move |_| match &engine.structured().graph {
            None => Err(Error::Unavailable("this corpus has no knowledge graph (graph.txt)".into())),
            Some(g) => g.query(&pattern),
        });
    }
}
