//! The graph a model extracted: one node per entity (names that differ only in case, spacing or
//! punctuation are one), one edge per relation read from a passage, each edge keeping where it
//! came from — the passage, the model and the prompt's hash — so every link can be checked against
//! its passage. Stored as plain lists (the cache's JSON) and held as a petgraph graph.

use std::collections::{BTreeMap, BTreeSet};

use petgraph::graph::{NodeIndex, UnGraph};
use serde::{Deserialize, Serialize};

use super::extract::Extraction;

/// Where an edge came from.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Provenance {
    /// The passage it was read from.
    pub passage: String,
    /// The model that read it ([`crate::generate::GeneratorInfo::label`]).
    pub model: String,
    /// The hash of the extraction prompt ([`crate::generate::prompts::Prompt::hash`]).
    pub prompt: String,
}

/// An entity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GraphNode {
    /// The name it is matched by: lower-case words (`e2e plugin`).
    pub key: String,
    /// The name as first written.
    pub name: String,
    /// Its type as first given (`unknown` when none was).
    pub kind: String,
    /// The passages it was extracted from, in corpus order.
    pub passages: Vec<String>,
}

/// A relation read from one passage.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GraphEdge {
    /// The subject (a node's index).
    pub source: usize,
    /// The object.
    pub target: usize,
    /// The relation (`depends_on`).
    pub relation: String,
    /// Where it came from.
    pub provenance: Provenance,
}

/// A community of the graph with the model's summary of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Community {
    /// Its number (0 is the largest).
    pub id: usize,
    /// Its nodes.
    pub members: Vec<usize>,
    /// The model's summary (none for a single entity, or when summaries were not written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
}

/// A passage whose reply was not an extraction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Skipped {
    /// The passage.
    pub passage: String,
    /// What was wrong.
    pub reason: String,
    /// The start of the reply.
    pub reply: String,
    /// The request itself failed (there was no reply to read): the next build asks again, where
    /// a reply that could not be read would be read the same way from the store.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub request_failed: bool,
}

/// The extracted graph as stored.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct GraphData {
    /// The corpus's fingerprint.
    pub corpus: String,
    /// The model that extracted it.
    pub model: String,
    /// The extraction prompt's hash.
    pub prompt: String,
    /// Passages read.
    pub passages: usize,
    /// Its entities.
    pub nodes: Vec<GraphNode>,
    /// Its relations.
    pub edges: Vec<GraphEdge>,
    /// Its communities, largest first.
    pub communities: Vec<Community>,
    /// Passages whose reply was skipped, with why.
    pub skipped: Vec<Skipped>,
    /// Items (an entity, a relation) of replies otherwise read that broke the schema and were
    /// dropped.
    #[serde(default)]
    pub dropped_items: usize,
    /// Seconds the extraction took (and the summaries).
    pub seconds: f64,
    /// How many of the model's replies (extractions and summaries) came from the workspace's
    /// store of replies: the passages a stopped or smaller build had already read.
    #[serde(default)]
    pub stored_replies: usize,
    /// Each passage's reply as the model wrote it (cut to [`REPLY_CHARS`]), by passage id: what a
    /// click on an entity or a link shows beside its passage.
    #[serde(default)]
    pub replies: std::collections::BTreeMap<String, String>,
    /// Communities whose summary request failed (a server error, a prompt too long): left
    /// unsummarised, each named with why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed_summaries: Vec<FailedSummary>,
}

/// A community whose summary could not be had.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailedSummary {
    /// The community.
    pub community: usize,
    /// Its first entities, to tell it by.
    pub entities: Vec<String>,
    /// Why the request failed.
    pub reason: String,
}

impl FailedSummary {
    /// One line: which community, its first entities, why.
    pub fn line(&self) -> String {
        format!("no summary of community {} ({}): {}", self.community, self.entities.join(", "), self.reason)
    }
}

/// Characters of each passage's reply a graph keeps.
pub const REPLY_CHARS: usize = 2000;

/// The extracted graph.
#[derive(Debug, Clone, Default)]
pub struct ModelGraph {
    data: GraphData,
    graph: UnGraph<usize, usize>,
}

/// The key a name is matched by: lower-case alphanumeric words joined by one space, a leading
/// `the` dropped.
pub fn name_key(name: &str) -> String {
    let words: Vec<String> =
        name.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect();
    match words.split_first() {
        Some((first, rest)) if first == "the" && !rest.is_empty() => rest.join(" "),
        _ => words.join(" "),
    }
}

impl ModelGraph {
    /// The graph of `extractions` (passage id → its extraction), read by `model` with the prompt
    /// whose hash is `prompt`. Communities are left empty (see `communities.rs`).
    pub fn from_extractions(
        corpus: &str,
        model: &str,
        prompt: &str,
        extractions: &[(String, Extraction)],
        skipped: Vec<Skipped>,
    ) -> Self {
        let mut data = GraphData {
            corpus: corpus.into(),
            model: model.into(),
            prompt: prompt.into(),
            passages: extractions.len() + skipped.len(),
            skipped,
            dropped_items: extractions.iter().map(|(_, x)| x.dropped.len()).sum(),
            ..GraphData::default()
        };
        let mut by_key: BTreeMap<String, usize> = BTreeMap::new();
        let mut node = |data: &mut GraphData, name: &str, kind: &str, passage: &str| -> Option<usize> {
            let key = name_key(name);
            if key.is_empty() {
                return None;
            }
            let i = *by_key.entry(key.clone()).or_insert_with(|| {
                data.nodes.push(GraphNode { key, name: name.into(), kind: kind.into(), passages: Vec::new() });
                data.nodes.len() - 1
            });
            let n = &mut data.nodes[i];
            if n.kind == "unknown" && kind != "unknown" {
                n.kind = kind.into();
            }
            if !n.passages.iter().any(|p| p == passage) {
                n.passages.push(passage.into());
            }
            Some(i)
        };
        for (passage, x) in extractions {
            for e in &x.entities {
                node(&mut data, &e.name, &e.kind, passage);
            }
            for r in &x.relations {
                let (Some(source), Some(target)) =
                    (node(&mut data, &r.source, "unknown", passage), node(&mut data, &r.target, "unknown", passage))
                else {
                    continue;
                };
                if source == target {
                    continue;
                }
                let provenance = Provenance { passage: passage.clone(), model: model.into(), prompt: prompt.into() };
                let edge = GraphEdge { source, target, relation: r.relation.clone(), provenance };
                if !data.edges.contains(&edge) {
                    data.edges.push(edge);
                }
            }
        }
        Self::from_data(data)
    }

    /// The graph of stored data (its edges' ends checked: an edge to no node is dropped).
    pub fn from_data(mut data: GraphData) -> Self {
        let n = data.nodes.len();
        data.edges.retain(|e| e.source < n && e.target < n);
        let mut graph = UnGraph::with_capacity(n, data.edges.len());
        for i in 0..n {
            graph.add_node(i);
        }
        for (i, e) in data.edges.iter().enumerate() {
            graph.add_edge(NodeIndex::new(e.source), NodeIndex::new(e.target), i);
        }
        Self { data, graph }
    }

    /// The stored data.
    pub fn data(&self) -> &GraphData {
        &self.data
    }

    /// Set the communities (and their summaries).
    pub fn set_communities(&mut self, communities: Vec<Community>) {
        self.data.communities = communities;
    }

    /// Add the seconds the build took.
    pub fn set_seconds(&mut self, seconds: f64) {
        self.data.seconds = seconds;
    }

    /// Say how many replies came from the store.
    pub fn set_stored_replies(&mut self, stored: usize) {
        self.data.stored_replies = stored;
    }

    /// Name the communities whose summaries failed.
    pub fn set_failed_summaries(&mut self, failed: Vec<FailedSummary>) {
        self.data.failed_summaries = failed;
    }

    /// Keep each passage's reply (passage id, the reply as written).
    pub fn set_replies(&mut self, replies: impl IntoIterator<Item = (String, String)>) {
        self.data.replies = replies.into_iter().map(|(p, r)| (p, r.chars().take(REPLY_CHARS).collect())).collect();
    }

    /// Its entities.
    pub fn nodes(&self) -> &[GraphNode] {
        &self.data.nodes
    }

    /// Its relations.
    pub fn edges(&self) -> &[GraphEdge] {
        &self.data.edges
    }

    /// The petgraph graph: node weights are indexes into [`Self::nodes`], edge weights into
    /// [`Self::edges`].
    pub fn petgraph(&self) -> &UnGraph<usize, usize> {
        &self.graph
    }

    /// The edges touching node `i`.
    pub fn edges_of(&self, i: usize) -> Vec<&GraphEdge> {
        if i >= self.data.nodes.len() {
            return Vec::new();
        }
        let mut idx: Vec<usize> = self.graph.edges(NodeIndex::new(i)).map(|e| *e.weight()).collect();
        idx.sort_unstable();
        idx.iter().filter_map(|&e| self.data.edges.get(e)).collect()
    }

    /// Node `i`'s neighbours, in index order.
    pub fn neighbours(&self, i: usize) -> Vec<usize> {
        if i >= self.data.nodes.len() {
            return Vec::new();
        }
        let set: BTreeSet<usize> = self.graph.neighbors(NodeIndex::new(i)).map(|n| n.index()).collect();
        set.into_iter().collect()
    }

    /// The node a name (any case and spacing) is, if any.
    pub fn find(&self, name: &str) -> Option<usize> {
        let key = name_key(name);
        self.data.nodes.iter().position(|n| n.key == key)
    }

    /// A relation as words: `e2e plugin depends_on libsodium`.
    pub fn describe(&self, e: &GraphEdge) -> String {
        let name = |i: usize| self.data.nodes.get(i).map_or("?", |n| n.name.as_str());
        format!("{} {} {}", name(e.source), e.relation, name(e.target))
    }

    /// Write the graph as JSON.
    pub fn save(&self, path: &std::path::Path) -> crate::Result<()> {
        let json = serde_json::to_vec(&self.data).map_err(|e| crate::Error::caused(path.display().to_string(), e))?;
        crate::fsutil::write_atomic(path, &json)
    }

    /// Read a graph written by [`Self::save`].
    pub fn load(path: &std::path::Path) -> crate::Result<Self> {
        let bytes = std::fs::read(path).map_err(|e| crate::Error::io(path, e))?;
        let data: GraphData = serde_json::from_slice(&bytes)
            .map_err(|e| crate::Error::invalid(path.display().to_string(), format!("not a RankLens graph: {e}")))?;
        Ok(Self::from_data(data))
    }
}

#[cfg(test)]
mod tests {
    use super::super::extract::{ExtractedEntity, ExtractedRelation};
    use super::*;

    fn x(entities: &[(&str, &str)], relations: &[(&str, &str, &str)]) -> Extraction {
        Extraction {
            entities: entities
                .iter()
                .map(|(n, k)| ExtractedEntity { name: n.to_string(), kind: k.to_string() })
                .collect(),
            relations: relations
                .iter()
                .map(|(s, r, t)| ExtractedRelation {
                    source: s.to_string(),
                    relation: r.to_string(),
                    target: t.to_string(),
                })
                .collect(),
            dropped: Vec::new(),
        }
    }

    #[test]
    fn names_that_differ_in_case_and_spacing_are_one_node_and_every_edge_keeps_its_passage() {
        let g = ModelGraph::from_extractions(
            "fp",
            "m",
            "h",
            &[
                ("p1".into(), x(&[("The E2E plugin", "plugin")], &[("e2e  plugin", "depends_on", "libsodium")])),
                ("p2".into(), x(&[("Libsodium", "library")], &[("E2E-plugin", "depends_on", "libsodium")])),
            ],
            vec![],
        );
        let names: Vec<(&str, &str, Vec<&str>)> = g
            .nodes()
            .iter()
            .map(|n| (n.key.as_str(), n.kind.as_str(), n.passages.iter().map(String::as_str).collect()))
            .collect();
        assert_eq!(names, [("e2e plugin", "plugin", vec!["p1", "p2"]), ("libsodium", "library", vec!["p1", "p2"])]);
        // The same relation from two passages is two edges, one per passage.
        assert_eq!(g.edges().len(), 2);
        assert_eq!(g.edges()[1].provenance, Provenance { passage: "p2".into(), model: "m".into(), prompt: "h".into() });
        assert_eq!(g.neighbours(0), [1]);
        assert_eq!(g.edges_of(1).len(), 2);
        assert_eq!(g.find("E2E Plugin"), Some(0));
        assert_eq!(g.describe(&g.edges()[0]), "The E2E plugin depends_on libsodium");
    }

    #[test]
    fn a_saved_graph_reads_back_the_same() {
        let g = ModelGraph::from_extractions(
            "fp",
            "m",
            "h",
            &[("p1".into(), x(&[("a", "t")], &[("a", "r", "b")]))],
            vec![Skipped { passage: "p2".into(), reason: "no JSON".into(), reply: "hi".into(), request_failed: false }],
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.json");
        g.save(&path).unwrap();
        let back = ModelGraph::load(&path).unwrap();
        assert_eq!(back.data(), g.data());
        assert_eq!(back.data().passages, 2);
        std::fs::write(&path, b"{not json").unwrap();
        assert!(ModelGraph::load(&path).unwrap_err().to_string().contains("g.json"));
    }
}
