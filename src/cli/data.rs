//! `ranklens data list|fetch`: the public test collections by name, in the workspace's data folder.

use clap::Args;
use serde::Serialize;

use super::Found;
use super::args::FormatArg;
use super::printer::{Printable, print};
use super::progress::TermProgress;
use super::table::Table;
use crate::datasets::{Fetcher, data_dir};

/// `ranklens data`
#[derive(Debug, Args)]
pub struct DataArgs {
    #[command(subcommand)]
    action: DataAction,
}

/// What to do with the collections.
#[derive(Debug, clap::Subcommand)]
pub enum DataAction {
    /// Every public BEIR collection: its size, whether it is here, and where.
    List {
        #[command(flatten)]
        format: FormatArg,
    },
    /// Download a collection (checked against BEIR's published md5) and unpack it into the data
    /// folder; `--dataset NAME` then finds it from anywhere.
    Fetch {
        /// The collection: scifact, nfcorpus, arguana, scidocs, fiqa, trec-covid, quora, …; or a
        /// question set with answers: squad-dev, squad2-dev, nq-test, trivia-test
        name: String,
        /// Download from this address instead of the published one (a mirror).
        #[arg(long, value_name = "URL")]
        from: Option<String>,
    },
}

#[derive(Serialize)]
struct Row {
    name: String,
    about: String,
    queries: String,
    passages: String,
    here: Option<String>,
    url: String,
}

#[derive(Serialize)]
#[serde(transparent)]
struct Rows {
    rows: Vec<Row>,
    #[serde(skip)]
    folder: String,
}

impl Printable for Rows {
    fn table(&self) -> String {
        let mut t = Table::new(["collection", "questions", "passages", "here", "what"].map(String::from).to_vec(), 99);
        for r in &self.rows {
            t.row(vec![
                r.name.clone(),
                r.queries.clone(),
                r.passages.clone(),
                r.here.clone().unwrap_or_else(|| "not yet: ranklens data fetch NAME".into()),
                r.about.clone(),
            ]);
        }
        format!("data folder: {}\n{}", self.folder, t.render())
    }
}

/// `ranklens data list|fetch`
pub fn data(a: DataArgs) -> anyhow::Result<Found> {
    let folder = data_dir(&crate::workspace_dir());
    match a.action {
        DataAction::List { format } => {
            let fetcher = Fetcher::new(folder.clone());
            let rows: Vec<Row> = fetcher
                .list()
                .into_iter()
                .map(|(c, here)| Row {
                    name: c.name.into(),
                    about: c.about.into(),
                    queries: c.queries.into(),
                    passages: c.passages.into(),
                    here: here.map(|p| p.display().to_string()),
                    url: fetcher.url(&c),
                })
                .collect();
            let mut rows = rows;
            rows.extend(fetcher.list_qa().into_iter().map(|(q, here)| Row {
                name: q.name.into(),
                about: q.about.into(),
                queries: q.questions.into(),
                passages: match q.format {
                    crate::datasets::QaFormat::Squad => "its paragraphs".into(),
                    crate::datasets::QaFormat::Dpr => "answers only".into(),
                },
                here: here.map(|p| p.display().to_string()),
                url: fetcher.qa_url(&q),
            }));
            // A listing always lists (fourteen collections and four question sets): it found
            // something, here or not.
            print(&Rows { rows, folder: folder.display().to_string() }, format.value)?;
            Ok(Found::Some)
        }
        DataAction::Fetch { name, from } => {
            let mut fetcher = Fetcher::new(folder);
            if let Some(url) = from {
                fetcher = fetcher.with_base_url(url);
            }
            let progress = TermProgress::new();
            let dir = fetcher.fetch(&name, &progress)?;
            drop(progress);
            println!("{name}: {}", dir.display());
            Ok(Found::Some)
        }
    }
}
