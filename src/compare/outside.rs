//! Systems outside RankLens as columns of a comparison: a run file, a search engine (saved
//! responses or a live cluster), or vectors computed elsewhere. Each is one [`External`], one
//! member of a [`super::Plan`], so it appears wherever a built-in method does.
//!
//! A file is told apart by its contents ([`External::open`]): vectors by their extension or a
//! `vector` field, an engine response by its `hits` / `response.docs` / `root` shape, anything
//! else is read as a run.

use std::path::Path;
use std::sync::Arc;

use super::study::System;
use crate::config::Settings;
use crate::corpus::Corpus;
use crate::eval::RunFile;
use crate::external::{EngineSource, LiveEngine, SavedResponses, VectorFormat, VectorSet};
use crate::progress::Progress;
use crate::retrieve::vectors::vector_retriever;
use crate::retrieve::{EngineRetriever, MethodKind, Retriever, RunRetriever};
use crate::workbench::Workbench;
use crate::{Error, Result};

/// A system outside RankLens.
#[derive(Debug, Clone)]
pub enum External {
    /// A run file.
    Run(Arc<RunFile>),
    /// A search engine.
    Engine(EngineSource),
    /// Vectors from files.
    Vectors(Arc<VectorSet>),
}

impl PartialEq for External {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (External::Run(a), External::Run(b)) => Arc::ptr_eq(a, b) || a == b,
            (External::Engine(a), External::Engine(b)) => a == b,
            (External::Vectors(a), External::Vectors(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

/// How a file looks inside.
fn looks_like_vectors(path: &Path, head: &str) -> bool {
    match VectorFormat::from_path(path) {
        Ok(VectorFormat::Npy | VectorFormat::Safetensors) => true,
        Ok(VectorFormat::Jsonl) => {
            let line = head.lines().next().unwrap_or("");
            serde_json::from_str::<serde_json::Value>(line)
                .ok()
                .is_some_and(|v| v.get("vector").or_else(|| v.get("embedding")).is_some_and(|x| x.is_array()))
        }
        Err(_) => false,
    }
}

impl External {
    /// This system's retriever over an engine's corpus (a search engine is set beside the
    /// engine's own Lucene BM25 with the settings' analyzer).
    pub fn retriever(
        &self,
        workbench: &Workbench,
        settings: &Settings,
        progress: &dyn Progress,
    ) -> Result<Arc<dyn Retriever>> {
        let corpus = workbench.corpus().clone();
        Ok(match self {
            External::Run(run) => Arc::new(RunRetriever::new(run.clone(), corpus)),
            External::Engine(source) => {
                let index = workbench.index(settings.analyzer, progress)?;
                Arc::new(EngineRetriever::new(source.clone(), corpus, Some(index)))
            }
            External::Vectors(set) => {
                let model = match &set.query_model {
                    Some(dir) => Some(workbench.query_model(dir)?),
                    None => None,
                };
                Arc::new(vector_retriever(set.clone(), &corpus, model)?)
            }
        })
    }

    /// Open a file as whatever it is (vectors, an engine response, a run); `name` overrides the
    /// column's name. Vectors are matched to `corpus` (with the query file and model folder found
    /// beside them, see [`VectorSet::companions`]).
    pub fn open(path: &Path, name: Option<&str>, corpus: Option<&Corpus>) -> Result<External> {
        let head = {
            use std::io::Read;
            let mut buf = vec![0u8; 1 << 16];
            let n = std::fs::File::open(path).and_then(|mut f| f.read(&mut buf)).map_err(|e| Error::io(path, e))?;
            String::from_utf8_lossy(&buf[..n]).into_owned()
        };
        if looks_like_vectors(path, &head) {
            let Some(corpus) = corpus else {
                return Err(Error::invalid(path.display().to_string(), "vectors need a corpus to be matched to"));
            };
            let (queries, model) = VectorSet::companions(path);
            let mut set = VectorSet::open(path, queries.as_deref(), corpus, name)?.with_map();
            set.query_model = model;
            return Ok(External::Vectors(Arc::new(set)));
        }
        let plain = !head.as_bytes().starts_with(&[0x1f, 0x8b]);
        if plain && SavedResponses::sniff(&head) {
            return Ok(External::Engine(EngineSource::Saved(Arc::new(SavedResponses::load(path, name, None)?))));
        }
        Ok(External::Run(Arc::new(RunFile::load(path, name)?)))
    }

    /// Is this a file of another system (a run, saved engine responses, vectors) rather than a
    /// corpus? For files dropped on the app.
    pub fn is_system_file(path: &Path) -> bool {
        if path.is_dir() {
            return false;
        }
        if RunFile::looks_like_run(path)
            || matches!(VectorFormat::from_path(path), Ok(VectorFormat::Npy | VectorFormat::Safetensors))
        {
            return true;
        }
        use std::io::Read;
        let mut buf = vec![0u8; 1 << 16];
        let Ok(n) = std::fs::File::open(path).and_then(|mut f| f.read(&mut buf)) else { return false };
        let head = String::from_utf8_lossy(&buf[..n]);
        looks_like_vectors(path, &head) || SavedResponses::sniff(&head)
    }

    /// A live engine from its description.
    pub fn live(engine: LiveEngine) -> Result<External> {
        engine.validate()?;
        Ok(External::Engine(EngineSource::Live(Arc::new(engine))))
    }

    /// The column's name.
    pub fn name(&self) -> &str {
        match self {
            External::Run(r) => &r.name,
            External::Engine(e) => e.name(),
            External::Vectors(v) => &v.name,
        }
    }

    /// Its family.
    pub fn kind(&self) -> MethodKind {
        match self {
            External::Run(_) => MethodKind::Run,
            External::Engine(_) => MethodKind::Engine,
            External::Vectors(_) => MethodKind::Vectors,
        }
    }

    /// The file it was read from (`None` for a live engine).
    pub fn file(&self) -> Option<&Path> {
        match self {
            External::Run(r) => Some(&r.source),
            External::Engine(EngineSource::Saved(s)) => Some(&s.source),
            External::Engine(EngineSource::Live(_)) => None,
            External::Vectors(v) => Some(&v.passages_file),
        }
    }

    /// One line saying what it is, for column captions.
    pub fn caption(&self) -> String {
        let file = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        match self {
            External::Run(r) => {
                format!("run file {} · {} · {} queries", file(&r.source), r.format.name(), r.num_queries())
            }
            External::Engine(EngineSource::Saved(s)) => match &s.single {
                Some(r) => format!("saved {} response {} · {} hits", r.shape.engines(), file(&s.source), r.hits.len()),
                None => format!("saved responses {} · {} queries", file(&s.source), s.by_query.len()),
            },
            External::Engine(e @ EngineSource::Live(_)) => format!("live · {}", e.origin()),
            External::Vectors(v) => format!(
                "vectors {} · {}-d{}",
                file(&v.passages_file),
                v.dim,
                if v.queries.is_empty() { String::new() } else { format!(" · {} question vectors", v.queries.len()) }
            ),
        }
    }

    /// What was noticed while reading it.
    pub fn warnings(&self) -> Vec<String> {
        match self {
            External::Run(r) => {
                let mut w: Vec<String> = r.warnings.iter().map(ToString::to_string).collect();
                if r.more_warnings > 0 {
                    w.push(format!("{}: … and {} more problem(s)", r.source.display(), r.more_warnings));
                }
                w
            }
            External::Engine(EngineSource::Saved(s)) => s.problems.clone(),
            External::Engine(EngineSource::Live(_)) => Vec::new(),
            External::Vectors(v) => v.warnings.clone(),
        }
    }

    /// The same system under another name (to tell two of one name apart).
    pub fn renamed(&self, name: String) -> External {
        match self {
            External::Run(r) => External::Run(Arc::new(RunFile { name, ..(**r).clone() })),
            External::Engine(EngineSource::Saved(s)) => {
                External::Engine(EngineSource::Saved(Arc::new(SavedResponses { name, ..(**s).clone() })))
            }
            External::Engine(EngineSource::Live(l)) => {
                External::Engine(EngineSource::Live(Arc::new(LiveEngine { name, ..(**l).clone() })))
            }
            External::Vectors(v) => External::Vectors(Arc::new(VectorSet { name, ..(**v).clone() })),
        }
    }

    /// Its rankings over the question set: what its file holds, or (a live engine, vectors)
    /// asked question by question through `engine`, `depth` results each.
    pub fn system(
        &self,
        workbench: Option<&crate::workbench::Workbench>,
        settings: &crate::config::Settings,
        depth: usize,
        progress: &dyn crate::progress::Progress,
    ) -> Result<System> {
        if let Some(s) = self.saved_system() {
            return Ok(s);
        }
        let Some(workbench) = workbench else {
            return Err(Error::invalid(
                self.name(),
                "this system answers question by question: give the dataset (--dataset DIR) to ask it its questions",
            ));
        };
        let r = self.retriever(workbench, settings, progress)?;
        System::run(workbench, r.as_ref(), settings, depth, progress)
    }

    /// Its rankings over a question set without running anything: a run file's, or the saved
    /// responses of a question set. `None` for systems that must be asked (a live engine, vectors).
    pub fn saved_system(&self) -> Option<System> {
        match self {
            External::Run(r) => Some(System::from_file(r)),
            External::Engine(EngineSource::Saved(s)) if s.single.is_none() => {
                Some(System { label: s.name.clone(), kind: MethodKind::Engine, run: s.to_run(), note: None })
            }
            _ => None,
        }
    }
}

/// Give each of several systems a distinct name: a later one of a taken name gets ` (2)`, ` (3)`…
pub fn distinct_names(systems: &mut [External]) {
    for i in 0..systems.len() {
        let (before, rest) = systems.split_at_mut(i);
        let Some(this) = rest.first_mut() else { continue };
        let taken = |n: &str| before.iter().any(|s| s.name() == n);
        if taken(this.name()) {
            let base = this.name().to_string();
            let name = (2..).map(|i| format!("{base} ({i})")).find(|n| !taken(n)).unwrap_or(base);
            *this = this.renamed(name);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_opened_as_what_it_holds() {
        let dir = tempfile::tempdir().unwrap();
        let corpus = Corpus::from_texts("t", [("a", "alpha"), ("b", "beta")]);
        let run = dir.path().join("bm25.trec");
        std::fs::write(&run, "1 Q0 a 1 2.0 x\n").unwrap();
        let resp = dir.path().join("es.json");
        std::fs::write(&resp, r#"{"took": 1, "hits": {"total": {"value": 1}, "hits": [{"_id": "a", "_score": 1.0}]}}"#)
            .unwrap();
        let vecs = dir.path().join("passages.jsonl");
        std::fs::write(&vecs, "{\"id\": \"a\", \"vector\": [1, 0]}\n{\"id\": \"b\", \"vector\": [0, 1]}\n").unwrap();
        std::fs::write(dir.path().join("queries.jsonl"), "{\"id\": \"1\", \"vector\": [1, 1]}\n").unwrap();
        let kinds: Vec<MethodKind> =
            [&run, &resp, &vecs].iter().map(|p| External::open(p, None, Some(&corpus)).unwrap().kind()).collect();
        assert_eq!(kinds, [MethodKind::Run, MethodKind::Engine, MethodKind::Vectors]);
        let External::Vectors(v) = External::open(&vecs, Some("mine"), Some(&corpus)).unwrap() else { panic!() };
        assert_eq!((v.name.as_str(), v.queries.len()), ("mine", 1), "the query file beside it is found");
        let mut two = vec![External::open(&run, None, None).unwrap(), External::open(&run, None, None).unwrap()];
        distinct_names(&mut two);
        assert_eq!([two[0].name(), two[1].name()], ["bm25", "bm25 (2)"]);
    }
}
