//! Systems outside RankLens as columns: run files, saved engine responses and vectors opened by
//! content, live engines asked per question; remembered and reopened with the next corpus.

use crate::compare::External;
use crate::gui::app::RankLensApp;
use crate::gui::command::OutsideCommand;
use crate::gui::jobs::Polled;
use crate::gui::state::Notice;
use crate::progress::Progress;

impl RankLensApp {
    pub(super) fn apply_outside(&mut self, command: OutsideCommand) {
        match command {
            OutsideCommand::OpenRuns(files) => self.start_runs(files),
            OutsideCommand::AddEngine(live) => match External::live(live.clone()) {
                Ok(system) => {
                    self.data.persisted.engines.retain(|e| e.name != live.name);
                    self.data.persisted.engines.push(live);
                    self.add_systems(vec![(None, Ok(system))]);
                }
                Err(e) => self.say(Notice::error(format!("engine not added: {}", e.report()))),
            },
            OutsideCommand::Remove(name) => {
                let data = &mut self.data;
                data.systems.retain(|r| r.name() != name);
                data.persisted.runs.retain(|(n, _)| *n != name);
                data.persisted.engines.retain(|e| e.name != name);
                self.start_rank();
            }
        }
    }

    pub(super) fn poll_outside(&mut self) {
        if self.jobs.runs.poll() == Polled::Ready
            && let Some(loaded) = self.jobs.runs.take_ready()
        {
            self.add_systems(loaded.into_iter().map(|(p, r)| (Some(p), r)).collect());
        }
    }

    /// Read other systems' files in the background, each as what it holds (a run, saved engine
    /// responses, vectors matched to the open corpus).
    fn start_runs(&mut self, files: Vec<(Option<String>, std::path::PathBuf)>) {
        if files.is_empty() {
            return;
        }
        // Before the first corpus is in, remember them: they open with it (vectors are matched to it).
        if self.data.workbench.is_none() {
            for (name, path) in files {
                let name = name.unwrap_or_else(|| crate::eval::RunFile::default_name(&path));
                self.data.persisted.runs.retain(|(_, p)| *p != path);
                self.data.persisted.runs.push((name, path));
            }
            return;
        }
        let corpus = self.data.workbench.as_ref().map(|e| e.corpus().clone());
        self.jobs.runs.start(self.waker(), move |p| {
            p.stage("reading other systems' files", files.len() as u64);
            let mut out = Vec::new();
            for (name, path) in files {
                crate::progress::check_cancel(p)?;
                let system = External::open(&path, name.as_deref(), corpus.as_deref());
                out.push((path, system));
                p.advance(1);
            }
            Ok(out)
        });
    }

    /// Show systems as columns: one of the same file (or engine name) replaces the old one; two
    /// of one name are told apart by a number. Problems of each are shown, a file that could not
    /// be read says why, and every system already shown stays.
    fn add_systems(&mut self, loaded: Vec<(Option<std::path::PathBuf>, crate::Result<External>)>) {
        let data = &mut self.data;
        for (path, result) in loaded {
            let system = match result {
                Ok(system) => system,
                Err(e) => {
                    data.messages.push(Notice::error(format!("not opened: {}", e.report())));
                    continue;
                }
            };
            match &path {
                Some(path) => data.systems.retain(|r| r.file() != Some(path.as_path())),
                None => data.systems.retain(|r| r.file().is_some() || r.name() != system.name()),
            }
            let mut all = std::mem::take(&mut data.systems);
            all.push(system);
            crate::compare::distinct_names(&mut all);
            data.systems = all;
            let Some(system) = data.systems.last() else { continue };
            let warnings = system.warnings();
            for w in warnings.iter().take(5) {
                data.messages.push(Notice::warning(w.clone()));
            }
            if warnings.len() > 5 {
                data.messages.push(Notice::warning(format!("{}: … and {} more", system.name(), warnings.len() - 5)));
            }
            if let Some(path) = path {
                data.persisted.runs.retain(|(_, p)| *p != path);
                data.persisted.runs.push((system.name().to_string(), path));
            }
        }
        self.start_rank();
    }

    /// The systems to (re)open for a newly installed corpus: every remembered file not shown yet,
    /// and every vector file again (its vectors are matched to the corpus).
    pub(super) fn reopen_systems(&mut self) {
        let data = &mut self.data;
        data.systems.retain(|s| !matches!(s, External::Vectors(_)));
        let shown: Vec<std::path::PathBuf> = data.systems.iter().filter_map(|s| s.file().map(Into::into)).collect();
        let files: Vec<(Option<String>, std::path::PathBuf)> = data
            .persisted
            .runs
            .iter()
            .filter(|(_, p)| !shown.contains(p))
            .map(|(n, p)| (Some(n.clone()), p.clone()))
            .collect();
        let live: Vec<_> = data
            .persisted
            .engines
            .iter()
            .filter(|e| !data.systems.iter().any(|s| s.name() == e.name))
            .cloned()
            .collect();
        for e in live {
            match External::live(e) {
                Ok(s) => data.systems.push(s),
                Err(err) => data.messages.push(Notice::error(format!("engine not added: {}", err.report()))),
            }
        }
        self.start_runs(files);
    }
}
