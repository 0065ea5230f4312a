//! `ranklens models list|fetch`: what is here, and downloads.

use anyhow::bail;
use clap::Args;
use serde::Serialize;

use super::Found;
use super::args::FormatArg;
use super::printer::{Printable, print};
use super::progress::TermProgress;
use super::table::Table;
use crate::models::{ModelManager, ModelStatus, Role};

/// `ranklens models`
#[derive(Debug, Args)]
pub struct ModelsArgs {
    #[command(subcommand)]
    action: ModelsAction,
}

/// What to do with models.
#[derive(Debug, clap::Subcommand)]
pub enum ModelsAction {
    /// Every model RankLens knows, per role, and whether it is here.
    List {
        #[command(flatten)]
        format: FormatArg,
    },
    /// Download and verify models (the preferred one of a role first, then its alternatives; a
    /// model fetched only on request, such as Qwen/Qwen2.5-Coder-1.5B-Instruct, by its --id).
    Fetch {
        /// Only this role: dense, splade, late, reranker, generator.
        #[arg(long)]
        role: Option<String>,
        /// Only this model id.
        #[arg(long)]
        id: Option<String>,
    },
}

#[derive(Serialize)]
#[serde(transparent)]
struct ModelList {
    status: Vec<ModelStatus>,
    #[serde(skip)]
    cache: String,
    /// What the encoders' default precision runs as on this machine.
    #[serde(skip)]
    precision: String,
    /// Auto's choices made on this CPU and build: each model's timings and what runs.
    #[serde(skip)]
    timed: Vec<String>,
}

impl Printable for ModelList {
    fn table(&self) -> String {
        let mut t = Table::new(["role", "model", "here", "sources", "hashes"].map(String::from).to_vec(), 99);
        for s in &self.status {
            t.row(vec![
                s.role.to_string(),
                s.id.clone(),
                s.present.as_ref().map(|p| p.display().to_string()).unwrap_or_else(|| "missing".into()),
                s.sources.join(", "),
                if s.pinned { "pinned".into() } else { "recorded on first download".into() },
            ]);
        }
        let timed: String = self.timed.iter().map(|l| format!("\n  {l}")).collect();
        format!("cache: {}\nprecision: {}{timed}\n{}", self.cache, self.precision, t.render())
    }
}

/// `ranklens models list|fetch`
pub fn models(a: ModelsArgs) -> anyhow::Result<Found> {
    let manager = ModelManager::from_env();
    match a.action {
        ModelsAction::List { format } => {
            let list = ModelList {
                status: manager.status(),
                cache: manager.cache_dir().display().to_string(),
                precision: crate::models::precision::describe(manager.precision()),
                timed: timed_here(&manager),
            };
            print(&list, format.value)?;
            Ok(if list.status.iter().any(|s| s.present.is_some()) { Found::Some } else { Found::Nothing })
        }
        ModelsAction::Fetch { role, id } => fetch(&manager, role.as_deref(), id.as_deref()),
    }
}

/// Auto's choices on this CPU and build, one line a model.
fn timed_here(manager: &ModelManager) -> Vec<String> {
    use crate::models::auto_precision::{build_id, cpu_model, remembered_all};
    let (cpu, build) = (cpu_model(), build_id());
    remembered_all(manager.cache_dir())
        .into_values()
        .filter(|c| c.cpu == cpu && c.build == build)
        .map(|c| format!("{}: {}", c.model, c.describe()))
        .collect()
}

fn fetch(manager: &ModelManager, role: Option<&str>, id: Option<&str>) -> anyhow::Result<Found> {
    let role: Option<Role> = role.map(str::parse).transpose()?;
    let progress = TermProgress::new();
    let mut fetched = 0;
    let mut failures = Vec::new();
    for r in Role::EVERY.into_iter().filter(|r| role.is_none_or(|x| x == *r)) {
        // Without an id, a model fetched only on request is left out.
        let wanted: Vec<_> =
            manager.manifest().for_role(r).into_iter().filter(|s| id.map_or(!s.on_request, |i| i == s.id)).collect();
        let mut got = None;
        for spec in &wanted {
            match manager.fetch(spec, &progress) {
                Ok(m) => {
                    got = Some(m);
                    break;
                }
                Err(crate::Error::Cancelled) => bail!("cancelled"),
                Err(e) => failures.push(format!("{}: {}", spec.id, e.report())),
            }
        }
        if let Some(m) = got {
            fetched += 1;
            eprintln!();
            println!("{r}: {} ready in {} ({:?})", m.spec.id, m.dir.display(), m.source);
        }
    }
    drop(progress);
    for f in &failures {
        eprintln!("could not fetch {f}");
    }
    if fetched == 0 {
        bail!("nothing fetched");
    }
    Ok(Found::Some)
}
