//! The model flags every command that can run a neural or language-model method shares
//! (`ModelArgs`): where the models come from, the precision, the chat server, the generator.

use std::path::{Path, PathBuf};

use clap::Args;

use crate::config::Settings;
use crate::models::{ModelManager, Precision, Role};
use crate::progress::Progress;
use crate::retrieve::MethodKind;
use crate::workbench::Workbench;

/// Model flags shared by commands that can run neural methods.
#[derive(Debug, Args, Clone)]
pub struct ModelArgs {
    /// Never touch the network (no model downloads).
    #[arg(long)]
    pub offline: bool,
    /// Download missing models for the methods shown (compare only; search and eval download the
    /// models of the method asked for).
    #[arg(long)]
    pub fetch_models: bool,
    /// A folder holding the dense model's files.
    #[arg(long, value_name = "DIR")]
    dense_model: Option<PathBuf>,
    /// A folder holding the SPLADE model's files.
    #[arg(long, value_name = "DIR")]
    splade_model: Option<PathBuf>,
    /// A folder holding the late-interaction (ColBERT) model's files.
    #[arg(long, value_name = "DIR")]
    late_model: Option<PathBuf>,
    /// A folder holding the cross-encoder's files.
    #[arg(long, value_name = "DIR")]
    rerank_model: Option<PathBuf>,
    /// Override the models' token limit (MiniLM truncates at 256 by default).
    #[arg(long, value_name = "N")]
    max_tokens: Option<usize>,
    /// Word pieces per window for documents longer than a model reads at once (default: the
    /// model's maximum length). Each window is encoded; a document scores by its best (MaxP).
    #[arg(long, value_name = "N")]
    window: Option<usize>,
    /// Word pieces from one window's start to the next (default: three quarters of the window).
    #[arg(long, value_name = "N")]
    window_stride: Option<usize>,
    /// Encode only the beginning of each long document, as far as the model reads, instead of
    /// windows (what sentence-transformers and MTEB's figures do).
    #[arg(long)]
    truncate: bool,
    /// Bits per dimension of the late-interaction token index: 1, 2, 4, 8, or 16 for f16
    /// (uncompressed). Default 2.
    #[arg(long, value_name = "BITS")]
    token_bits: Option<u8>,
    /// The arithmetic of the encoders' linear layers: f32 (exact to the reference), bf16 (bf16
    /// products summed in f32, where the CPU has AVX512-BF16; f32 elsewhere), int16 (16-bit
    /// integer products summed in i32, where the CPU has AVX2; f32 elsewhere), or
    /// auto (the default: each model's kernels timed on this CPU the first time it loads, the
    /// fastest at cosine ≥ 0.999 to f32 kept and remembered). Vectors are cached under the
    /// precision that made them.
    #[arg(long, value_name = "auto|f32|bf16|int16", value_parser = parse_precision)]
    pub precision: Option<Precision>,
    /// A chat server speaking OpenAI's chat-completions protocol, for the methods that need a
    /// language model (rewrite, hyde, rag, judge): its base URL, e.g. http://127.0.0.1:8080/v1
    /// (llama.cpp, Ollama, vLLM, LM Studio, OpenAI). Without it the embedded model runs.
    #[arg(long, value_name = "URL")]
    pub llm: Option<String>,
    /// The model the chat server should answer with.
    #[arg(long, value_name = "NAME", requires = "llm")]
    pub llm_model: Option<String>,
    /// The environment variable holding the chat server's API key (the key itself is never
    /// given on the command line or saved).
    #[arg(long, value_name = "VAR", requires = "llm")]
    pub llm_key_env: Option<String>,
    /// Seconds to wait for the chat server's answer to start.
    #[arg(long, value_name = "SECONDS", default_value_t = 120, requires = "llm")]
    pub llm_timeout: u64,
    /// The embedded generator: a model id of the manifest (`Qwen/Qwen2.5-Coder-1.5B-Instruct`,
    /// `HuggingFaceTB/SmolLM2-135M-Instruct`; fetched when missing, unless --offline), or a GGUF
    /// instruct model (the file, or a folder holding one).
    #[arg(long, value_name = "ID|PATH")]
    generator_model: Option<PathBuf>,
    /// Ask the language model every time: neither read nor keep replies in the workspace's store
    /// (a benchmark's timings, a model whose replies should be seen afresh).
    #[arg(long)]
    pub no_store: bool,
    /// Let the embedded model write freely, held to no task's shape (what a server that takes no
    /// grammar gives): for measuring what the shapes change.
    #[arg(long)]
    pub free: bool,
}

/// An error's text with each chat-server setting it names followed by the flag that gives it on
/// the command line (`chat server model (--llm-model)`): the library names settings, the command
/// line says where they are given.
pub fn name_flags(text: &str) -> String {
    use crate::generate::openai::setting;
    let mut out = text.to_string();
    for (name, flag) in [(setting::KEY_ENV, "--llm-key-env"), (setting::MODEL, "--llm-model"), (setting::URL, "--llm")]
    {
        out = out.replace(name, &format!("{name} ({flag})"));
    }
    out
}

fn parse_precision(s: &str) -> std::result::Result<Precision, String> {
    Precision::parse(s).map_err(|e| e.to_string())
}

impl ModelArgs {
    /// The token index's bits per dimension these flags ask for (the default otherwise).
    pub fn token_bits(&self) -> u8 {
        self.token_bits.unwrap_or(crate::index::tokens::DEFAULT_BITS)
    }

    /// The model manager these flags describe.
    pub fn manager(&self) -> ModelManager {
        let mut m = ModelManager::from_env().with_max_length(self.max_tokens);
        // A generator named by a manifest id rather than a path.
        if let Some(id) = self.generator_model.as_ref().and_then(|p| p.to_str()).filter(|p| !Path::new(p).exists())
            && m.manifest().get(id).is_some()
            && let Ok(chosen) = m.clone().with_choice(id)
        {
            m = chosen;
        }
        if let Some(p) = self.precision {
            m = m.with_precision(p);
        }
        if self.offline {
            m = m.offline(true);
        }
        for (role, dir) in [
            (Role::Dense, &self.dense_model),
            (Role::Splade, &self.splade_model),
            (Role::LateInteraction, &self.late_model),
            (Role::Reranker, &self.rerank_model),
            (Role::Generator, &self.generator_model),
        ] {
            // A generator chosen by id is not also a folder.
            if let Some(d) = dir
                && m.choice(role).is_none()
            {
                m = m.with_explicit(role, d.clone());
            }
        }
        m
    }

    /// The language model these flags ask for: the chat server given by --llm, else the embedded
    /// model (fetched when missing, unless --offline); its replies kept in the workspace's store
    /// (a request asked before, by a command or the app, is answered from there) unless
    /// --no-store.
    pub fn generator(&self, progress: &dyn Progress) -> anyhow::Result<std::sync::Arc<dyn crate::generate::Generator>> {
        let mut generator = self.unstored_generator(progress)?;
        if !self.no_store
            && let Ok(store) = crate::generate::ReplyStore::in_workspace(&crate::workspace_dir())
        {
            generator = crate::generate::Stored::wrap(generator, &std::sync::Arc::new(store));
        }
        // Outermost, so the store keeps a free reply under a request with no shape.
        if self.free {
            generator = std::sync::Arc::new(crate::generate::unshaped::Unshaped(generator));
        }
        Ok(generator)
    }

    /// The language model these flags ask for, every request asked.
    fn unstored_generator(
        &self,
        progress: &dyn Progress,
    ) -> anyhow::Result<std::sync::Arc<dyn crate::generate::Generator>> {
        if let Some(url) = &self.llm {
            let mut config =
                crate::generate::ServerConfig::new(url.clone(), self.llm_model.clone().unwrap_or_default());
            config.key_env = self.llm_key_env.clone();
            config.timeout_secs = self.llm_timeout;
            return Ok(std::sync::Arc::new(crate::generate::ChatServer::new(config)?));
        }
        let (llm, _) = crate::generate::load_embedded(&self.manager(), !self.offline, progress)?;
        Ok(std::sync::Arc::new(llm))
    }

    /// The reader of `kind` on `workbench`: its model loaded (the trained reader's fetched when
    /// missing, unless --offline; the language model these flags ask for). A reader that cannot be
    /// had is an error saying why and how to get it.
    pub fn reader(
        &self,
        workbench: &Workbench,
        kind: crate::read::ReaderKind,
        progress: &dyn Progress,
    ) -> anyhow::Result<std::sync::Arc<dyn crate::read::Reader>> {
        use crate::read::ReaderKind;
        match kind {
            ReaderKind::Span if !workbench.has_model(Role::Reader) => {
                // The failure is kept by the workbench; `reader` says it with how to fix it.
                let _ = workbench.load_model(&self.manager(), Role::Reader, !self.offline, progress);
            }
            // The generator these flags make, with their store (or none, --no-store) and shapes
            // (--free): the workbench's own would keep every reply in its store.
            ReaderKind::Generator => {
                return Ok(std::sync::Arc::new(crate::read::GeneratorReader::new(self.generator(progress)?)));
            }
            _ => {}
        }
        Ok(workbench.reader(kind)?)
    }

    /// Load the models the given families need (downloading when allowed) and encode the corpus.
    /// A model that cannot be had is reported and its methods say why; nothing else stops.
    pub fn prepare(
        &self,
        workbench: &Workbench,
        kinds: &[MethodKind],
        settings: &Settings,
        download: bool,
        progress: &dyn Progress,
    ) -> anyhow::Result<()> {
        let mut roles: Vec<Role> = kinds.iter().flat_map(|k| settings.models_for(*k)).collect();
        roles.sort();
        roles.dedup();
        if roles.is_empty() {
            return Ok(());
        }
        let mut options = settings.neural_options();
        options.tokens = roles.contains(&Role::LateInteraction);
        options.windows.size = self.window.unwrap_or(options.windows.size);
        options.windows.stride = self.window_stride.unwrap_or(options.windows.stride);
        options.token_bits = self.token_bits.unwrap_or(options.token_bits);
        options.windows.truncate |= self.truncate;
        let mut checked = settings.clone();
        (checked.windows, checked.token_bits) = (options.windows, options.token_bits);
        checked.validate()?;
        workbench.set_neural_options(options)?;
        let manager = self.manager();
        for role in &roles {
            // A chat server, or replies left free (`--free` wraps the generator outermost): the
            // generator these flags make, not the one the workbench would load.
            if *role == Role::Generator && (self.llm.is_some() || self.free) {
                workbench.set_generator(self.generator(progress)?)?;
                continue;
            }
            if let Err(e) = workbench.load_model(&manager, *role, download && !self.offline, progress) {
                let optional = *role == Role::LateInteraction && roles.contains(&Role::Dense);
                if !optional {
                    eprintln!("note: {role} model unavailable: {}", e.report().lines().next().unwrap_or(""));
                }
            }
        }
        workbench.build_neural(progress)?;
        for line in workbench.window_notes() {
            eprintln!("note: {line}");
        }
        Ok(())
    }
}
