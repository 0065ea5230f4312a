//! The graph a language model extracted from the corpus (GraphRAG), kept with the other neural
//! state and cached in the workspace: one file per corpus, model, prompt and number of passages
//! read (`graphrag/<corpus>-<model>-<prompts>-<n>.json`), so the same build is never run twice and
//! editing a prompt makes a new graph.

use std::path::PathBuf;
use std::sync::Arc;

use crate::Result;
use crate::generate::Generator;
use crate::graphrag::{self, BuildOptions, ModelGraph};
use crate::progress::Progress;

/// A name safe in a file name: letters and digits kept, anything else one `_`.
fn file_safe(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
            out.push(c);
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    out.trim_matches('_').chars().take(60).collect()
}

impl super::Workbench {
    /// The folder of cached graphs, when there is a workspace.
    pub fn model_graph_dir(&self) -> Option<PathBuf> {
        self.workspace().map(|w| w.join("graphrag"))
    }

    /// The start every cached graph of this corpus under the current prompts has.
    fn model_graph_prefix(&self) -> String {
        let fp = self.corpus().fingerprint();
        format!("{}-", &fp[..fp.len().min(16)])
    }

    /// The cache file of the graph `generator` extracts from the first `passages` passages: named
    /// by its label, and keyed by its identity (a new GGUF under the same name is another model)
    /// and by whether its replies were held to their shapes (a `--free` build is another graph).
    pub fn model_graph_path(&self, generator: &dyn Generator, passages: usize) -> Option<PathBuf> {
        let held = if generator.holds_shapes() { "held" } else { "free" };
        let key = crate::models::text_hash(&format!("{}\u{1f}{held}", generator.identity()));
        let name = format!(
            "{}{}-{}-{}-{passages}.json",
            self.model_graph_prefix(),
            file_safe(&generator.info().label()),
            &key[..12],
            graphrag::prompt_hash()
        );
        self.model_graph_dir().map(|d| d.join(name))
    }

    /// Use `graph` for GraphRAG's columns and answers.
    pub fn set_model_graph(&self, graph: Arc<ModelGraph>) -> Result<()> {
        self.with_neural(|n| n.model_graph = Some(graph))
    }

    /// The graph in use: the one set, else the newest cached for this corpus under the current
    /// prompts (by any model), which is then kept.
    pub fn model_graph(&self) -> Option<Arc<ModelGraph>> {
        if let Some(g) = self.neural().model_graph {
            return Some(g);
        }
        let dir = self.model_graph_dir()?;
        let prefix = self.model_graph_prefix();
        let suffix_hash = graphrag::prompt_hash();
        let mut found: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(&dir)
            .ok()?
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| {
                p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                    n.starts_with(&prefix) && n.contains(&format!("-{suffix_hash}-")) && n.ends_with(".json")
                })
            })
            .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
            .collect();
        found.sort();
        let (_, newest) = found.pop()?;
        let graph = Arc::new(ModelGraph::load(&newest).ok()?);
        if graph.data().corpus != self.corpus().fingerprint() {
            return None;
        }
        self.set_model_graph(graph.clone()).ok()?;
        Some(graph)
    }

    /// Build the graph of the first `options.limit` passages with `generator` (or read it from the
    /// cache when this corpus, model, prompts and count were built before), keep it, and use it.
    pub fn build_model_graph(
        &self,
        generator: &dyn Generator,
        options: BuildOptions,
        progress: &dyn Progress,
    ) -> Result<(Arc<ModelGraph>, bool)> {
        let passages = options.limit.unwrap_or(usize::MAX).min(self.corpus().len());
        let path = self.model_graph_path(generator, passages);
        if let Some(p) = &path
            && p.exists()
            && let Ok(g) = ModelGraph::load(p)
            && g.data().corpus == self.corpus().fingerprint()
            // A graph built without summaries does not stand for one asked with them: built again
            // (each passage's extraction comes from the reply store; only the summaries are asked).
            && !(options.summaries
                && !g.data().communities.is_empty()
                && g.data().communities.iter().all(|c| c.summary.is_none()))
            // Nor does one with a failed request in it: built again, only the failures asked (a
            // reply that could not be read is read the same way again: that graph stands).
            && !g.data().skipped.iter().any(|s| s.request_failed)
            && (!options.summaries || g.data().failed_summaries.is_empty())
        {
            let g = Arc::new(g);
            self.set_model_graph(g.clone())?;
            return Ok((g, true));
        }
        let graph = Arc::new(graphrag::build(generator, self.corpus(), options, progress)?);
        if let Some(p) = &path {
            if let Some(dir) = p.parent() {
                std::fs::create_dir_all(dir).map_err(|e| crate::Error::io(dir, e))?;
            }
            graph.save(p)?;
        }
        self.set_model_graph(graph.clone())?;
        Ok((graph, false))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_model_label_becomes_a_safe_file_name() {
        assert_eq!(file_safe("SmolLM2-135M-Instruct (98 MB, embedded)"), "SmolLM2-135M-Instruct_98_MB_embedded");
        assert_eq!(file_safe("../../etc/passwd"), ".._.._etc_passwd");
        assert_eq!(file_safe("qwen2.5:1.5b @ http://127.0.0.1:8080/v1"), "qwen2.5_1.5b_http_127.0.0.1_8080_v1");
    }
}
