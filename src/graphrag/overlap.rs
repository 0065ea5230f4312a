//! What the model extracted against what a person wrote: the entities and the links in both, in
//! the model's graph only, and in the hand-built graph only. A model's entity is the person's when
//! its name resolves to a hand-built entity (its id or any of its names, case and spacing aside);
//! a model's edge is the person's when its two ends are the two ends of a hand-built fact (either
//! direction: the relations' names differ between the two).

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::graph::{ModelGraph, name_key};
use crate::structured::KnowledgeGraph;

/// The two graphs side by side.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct GraphOverlap {
    /// Hand-built entities the model also found (their ids).
    pub entities_both: Vec<String>,
    /// The model's entities the person did not write (their names).
    pub entities_model_only: Vec<String>,
    /// Hand-built entities the model did not find (their ids).
    pub entities_hand_only: Vec<String>,
    /// Hand-built facts the model also linked (`subject relation object`).
    pub edges_both: Vec<String>,
    /// The model's links the person did not write (`name relation name`).
    pub edges_model_only: Vec<String>,
    /// Hand-built facts the model did not link.
    pub edges_hand_only: Vec<String>,
    /// The model's nodes (indices) that are hand-built entities, each with the entity's id: what
    /// both drawings mark as held by both.
    #[serde(default)]
    pub shared_nodes: Vec<(usize, String)>,
    /// The model's edges (indices) that are hand-built facts, each with the fact
    /// (`subject relation object`).
    #[serde(default)]
    pub shared_edges: Vec<(usize, String)>,
}

impl GraphOverlap {
    /// One line: `entities 9 in both, 14 model only, 4 hand only; edges …`.
    pub fn summary(&self) -> String {
        format!(
            "entities: {} in both, {} the model's only, {} the person's only; links: {} in both, {} the model's only, {} \
             the person's only",
            self.entities_both.len(),
            self.entities_model_only.len(),
            self.entities_hand_only.len(),
            self.edges_both.len(),
            self.edges_model_only.len(),
            self.edges_hand_only.len()
        )
    }
}

/// The hand-built entity a name is, if any: its id or one of its names, compared as keys.
fn resolve(hand: &KnowledgeGraph, name: &str) -> Option<String> {
    let key = name_key(name);
    hand.entities()
        .into_iter()
        .find(|e| name_key(&e.id) == key || e.names.iter().any(|n| name_key(n) == key))
        .map(|e| e.id.clone())
}

/// Compare `model` with `hand`.
pub fn compare(model: &ModelGraph, hand: &KnowledgeGraph) -> GraphOverlap {
    let resolved: Vec<Option<String>> = model.nodes().iter().map(|n| resolve(hand, &n.name)).collect();
    let found: BTreeSet<&str> = resolved.iter().flatten().map(String::as_str).collect();
    let mut out = GraphOverlap::default();
    for e in hand.entities() {
        if found.contains(e.id.as_str()) {
            out.entities_both.push(e.id.clone());
        } else {
            out.entities_hand_only.push(e.id.clone());
        }
    }
    out.entities_model_only =
        model.nodes().iter().zip(&resolved).filter(|(_, r)| r.is_none()).map(|(n, _)| n.name.clone()).collect();
    out.shared_nodes = resolved.iter().enumerate().filter_map(|(i, r)| r.clone().map(|id| (i, id))).collect();
    let mut linked: BTreeSet<(String, String)> = BTreeSet::new();
    let mut model_only: BTreeSet<String> = BTreeSet::new();
    let facts = hand.facts();
    for (index, e) in model.edges().iter().enumerate() {
        let ends = (resolved.get(e.source).cloned().flatten(), resolved.get(e.target).cloned().flatten());
        let hit = match &ends {
            (Some(a), Some(b)) => {
                facts.iter().find(|f| (f.subject == *a && f.object == *b) || (f.subject == *b && f.object == *a))
            }
            _ => None,
        };
        match hit {
            Some(f) => {
                linked.insert((f.subject.clone(), f.object.clone()));
                out.shared_edges.push((index, format!("{} {} {}", f.subject, f.relation, f.object)));
            }
            None => {
                model_only.insert(model.describe(e));
            }
        }
    }
    for f in facts {
        let line = format!("{} {} {}", f.subject, f.relation, f.object);
        if linked.contains(&(f.subject.clone(), f.object.clone())) {
            out.edges_both.push(line);
        } else {
            out.edges_hand_only.push(line);
        }
    }
    out.edges_model_only = model_only.into_iter().collect();
    out
}

#[cfg(test)]
mod tests {
    use super::super::extract::{ExtractedEntity, ExtractedRelation, Extraction};
    use super::*;

    #[test]
    fn entities_and_links_are_sorted_into_both_and_either_only() {
        let (hand, _) = KnowledgeGraph::parse(
            "node e2e | plugin | e2e-encrypt, end-to-end encryption\nnode sodium | library | libsodium\n\
             node links | plugin | share-links\nfact e2e depends_on sodium | p1\nfact links depends_on sodium | p2\n",
            std::path::Path::new("graph.txt"),
        );
        let x = Extraction {
            entities: vec![ExtractedEntity { name: "End-to-end encryption".into(), kind: "feature".into() }],
            relations: vec![
                ExtractedRelation {
                    source: "libsodium".into(),
                    relation: "used_by".into(),
                    target: "end-to-end encryption".into(),
                },
                ExtractedRelation { source: "libsodium".into(), relation: "written_in".into(), target: "C".into() },
            ],
            dropped: Vec::new(),
        };
        let model = ModelGraph::from_extractions("c", "m", "h", &[("p1".into(), x)], vec![]);
        let o = compare(&model, &hand);
        assert_eq!(o.entities_both, ["e2e", "sodium"]);
        assert_eq!(o.entities_hand_only, ["links"]);
        assert_eq!(o.entities_model_only, ["C"]);
        // The model's link runs the other way, with another name: it is the person's fact still.
        assert_eq!(o.edges_both, ["e2e depends_on sodium"]);
        assert_eq!(o.edges_hand_only, ["links depends_on sodium"]);
        assert_eq!(o.edges_model_only, ["libsodium written_in C"]);
        // Which of the model's nodes and edges are the person's, for the drawings.
        let name = |i: usize| model.nodes()[i].name.clone();
        let shared: Vec<(String, String)> = o.shared_nodes.iter().map(|(i, id)| (name(*i), id.clone())).collect();
        assert_eq!(
            shared,
            [("End-to-end encryption".to_string(), "e2e".to_string()), ("libsodium".into(), "sodium".into())]
        );
        assert_eq!(o.shared_edges.len(), 1);
        assert_eq!(model.describe(&model.edges()[o.shared_edges[0].0]), "libsodium used_by End-to-end encryption");
        assert_eq!(o.shared_edges[0].1, "e2e depends_on sodium");
        assert!(
            o.summary().starts_with("entities: 2 in both, 1 the model's only, 1 the person's only; links: 1 in both")
        );
    }
}
