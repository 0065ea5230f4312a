//! Models: loading and fetching each role's model, encoding the corpus with it, the precision the
//! encoders run in, and the language model (embedded, or a chat server).

use crate::compare::HeldOutSplit;
use std::sync::Arc;

use super::shell::failed;
use crate::Error;
use crate::gui::app::RankLensApp;
use crate::gui::command::ModelCommand;
use crate::gui::jobs::Polled;
use crate::models::Role;

impl RankLensApp {
    pub(super) fn apply_models(&mut self, command: ModelCommand) {
        match command {
            ModelCommand::Fetch(role) => {
                if role == Role::Generator {
                    self.data.persisted.chat_server = None;
                }
                self.start_model(role, true)
            }
            ModelCommand::UseChatServer(config) => {
                self.data.persisted.chat_server = config;
                self.start_generator(true);
            }
            ModelCommand::UseGenerator(id) => {
                self.data.persisted.chat_server = None;
                self.data.persisted.generator_model = Some(id);
                self.start_model(Role::Generator, true);
            }
            ModelCommand::SetOffline(offline) => self.data.persisted.offline = offline,
            ModelCommand::SetPrecision(precision) => self.set_precision(precision),
            ModelCommand::TrainAdapter => self.start_adapter(),
        }
    }

    /// Train a query adapter on the open corpus's judgements: every judged question but one in
    /// five (`HeldOutSplit::one_in_five`), which measures it; saved in the workspace, then shown
    /// as a column.
    fn start_adapter(&mut self) {
        let Some(engine) = self.data.workbench.clone() else { return };
        let qrels = self.all_qrels();
        let dir = self.data.workspace.clone().unwrap_or_else(std::env::temp_dir).join("adapters");
        let settings = self.data.persisted.settings.clone();
        self.jobs.adapter.start(self.waker(), move |p| {
            let corpus = engine.corpus();
            let HeldOutSplit { train, held, held_qrels } = HeldOutSplit::one_in_five(&corpus.queries, &qrels);
            let adapter = engine.train_adapter(&qrels, &train, &format!("{}: your judgements", corpus.name), p)?;
            std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
            let path = dir.join(format!("{}-{}.safetensors", corpus.fingerprint(), adapter.fingerprint()));
            adapter.save(&path)?;
            let ndcg = if held.is_empty() {
                (0.0, 0.0)
            } else {
                let gain = crate::compare::adapter_gain(&engine, &settings, &path, &held_qrels, &held, p)?;
                (gain.dense, gain.adapted)
            };
            Ok(crate::gui::state::TrainedAdapter {
                path,
                trained: adapter.trained,
                held_out: (held.len(), ndcg.0, ndcg.1),
            })
        });
    }

    pub(super) fn poll_adapter(&mut self) {
        match self.jobs.adapter.poll() {
            Polled::Ready => {
                let Some(t) = self.jobs.adapter.ready() else { return };
                let mut settings = self.data.persisted.settings.clone();
                settings.adapter = Some(t.path.clone());
                if !settings.methods.contains(&crate::retrieve::MethodKind::DenseAdapter) {
                    let at = settings.methods.iter().position(|k| *k == crate::retrieve::MethodKind::Dense);
                    settings.methods.insert(
                        at.map_or(settings.methods.len(), |i| i + 1),
                        crate::retrieve::MethodKind::DenseAdapter,
                    );
                }
                self.data.persisted.settings = settings;
                self.start_rank();
            }
            Polled::Failed => {
                let m = failed(self.jobs.adapter.kind(), self.jobs.adapter.failure());
                self.say(m);
            }
            Polled::Same => {}
        }
    }

    /// Run the encoders in `precision`: the loaded models load again, and the corpus is encoded
    /// (or read from the cache) under it.
    fn set_precision(&mut self, precision: crate::models::Precision) {
        let data = &mut self.data;
        if precision == data.persisted.precision {
            return;
        }
        data.persisted.precision = precision;
        data.models.manager = data.models.manager.clone().with_precision(precision);
        let loaded: Vec<Role> = data
            .workbench
            .as_ref()
            .map(|e| Role::ALL.into_iter().filter(|&r| e.has_model(r)).collect())
            .unwrap_or_default();
        for role in loaded {
            self.start_model(role, false);
        }
    }

    pub(super) fn poll_models(&mut self) {
        for role in Role::EVERY {
            let Some(job) = self.jobs.models.get_mut(&role) else { continue };
            match job.poll() {
                Polled::Ready => {
                    self.frames.event(&format!("model {role} loaded"));
                    self.data.models.errors.remove(&role);
                    self.refresh_models();
                    if matches!(role, Role::Reranker | Role::Generator | Role::Reader) {
                        // Rank again for the columns it serves; a ranking none of whose columns
                        // use it keeps going (its provisional encodings are not thrown away).
                        if self.data.persisted.settings.uses_model(role) {
                            self.start_rank();
                        }
                    } else {
                        self.start_encode(role);
                        // Its column answers now, provisionally over BM25's top passages until
                        // the encoding is done.
                        self.rank_with_new_model();
                    }
                }
                Polled::Failed => {
                    let m = job.failure().map(Error::report).unwrap_or_default();
                    self.data.models.errors.insert(role, m);
                }
                Polled::Same => {}
            }
            let Some(job) = self.jobs.encodings.get_mut(&role) else { continue };
            match job.poll() {
                Polled::Ready => {
                    self.frames.event(&format!("encodings {role} done"));
                    self.refresh_models();
                    self.start_rank();
                }
                Polled::Failed => {
                    let m = failed(job.kind(), job.failure());
                    self.say(m);
                }
                Polled::Same => {}
            }
        }
    }

    /// The language model: the chat server the user chose, else the embedded model when it is
    /// here (fetched only when asked).
    pub(super) fn start_generator(&mut self, rank: bool) {
        let Some(engine) = self.data.workbench.clone() else { return };
        match self.data.persisted.chat_server.clone() {
            Some(config) => {
                match crate::generate::ChatServer::new(config).and_then(|s| engine.set_generator(Arc::new(s))) {
                    Ok(()) => {
                        self.data.models.errors.remove(&Role::Generator);
                        if rank {
                            self.start_rank();
                        }
                    }
                    Err(e) => {
                        self.data.models.errors.insert(Role::Generator, e.report());
                    }
                }
            }
            None => self.start_model(Role::Generator, false),
        }
    }

    /// Load (or, when `download`, fetch) the model of a role; the corpus is then encoded with it.
    pub(super) fn start_model(&mut self, role: Role, download: bool) {
        let Some(engine) = self.data.workbench.clone() else { return };
        let mut manager = self.data.models.manager.clone().offline(self.data.persisted.offline);
        if role == Role::Generator
            && let Some(id) = &self.data.persisted.generator_model
        {
            // A GGUF file chosen in Models, or a manifest id.
            let path = std::path::Path::new(id);
            if path.is_file() {
                manager = manager.with_explicit(role, path.to_path_buf());
            } else {
                match manager.clone().with_choice(id) {
                    Ok(m) => manager = m,
                    Err(e) => {
                        self.data.models.errors.insert(role, e.report());
                        return;
                    }
                }
            }
        }
        let waker = self.waker();
        let Some(job) = self.jobs.models.get_mut(&role) else { return };
        job.start(waker, move |p| engine.load_model(&manager, role, download, p));
    }

    /// Hand the settings' windows and token bits to the engine and encode again with every loaded
    /// model (what is stored already is read back, not encoded twice).
    pub(super) fn apply_neural_options(&mut self) {
        let Some(engine) = self.data.workbench.clone() else { return };
        if let Err(e) = engine.set_neural_options(self.data.persisted.settings.neural_options()) {
            self.say(crate::gui::state::Notice::error(e.report()));
            return;
        }
        let n = engine.neural();
        let loaded = [
            (Role::Dense, n.dense.is_some()),
            (Role::Splade, n.splade.is_some()),
            (Role::LateInteraction, n.late.is_some()),
        ];
        for (role, is_loaded) in loaded {
            if is_loaded {
                self.start_encode(role);
            }
        }
    }

    /// Encode the corpus for a role whose model is loaded.
    fn start_encode(&mut self, role: Role) {
        let Some(engine) = self.data.workbench.clone() else { return };
        let waker = self.waker();
        let Some(job) = self.jobs.encodings.get_mut(&role) else { return };
        job.start(waker, move |p| match role {
            Role::Dense => engine.build_dense(p),
            Role::Splade => engine.build_splade(p),
            Role::LateInteraction => engine.build_late(p),
            Role::Reranker | Role::Generator | Role::Reader => Ok(()),
        });
    }

    /// Everything known about the models, for the Models view.
    fn refresh_models(&mut self) {
        self.data.models.status = self.data.models.manager.status();
    }
}
