//! GraphRAG's local search as a column (Edge et al. 2024): the entities of the model's graph that
//! the question names, then their neighbourhood, then the passages those entities were extracted
//! from. A passage scores the sum of the weights of the entities it holds: 1 for an entity the
//! question names, ½ for a neighbour of one (an entity one relation away). The explanation lists
//! those entities, so its parts add up to the score exactly (halves and ones are exact in binary).
//!
//! The question names an entity when every word of the entity's name (analysed as BM25 analyses,
//! stop words aside) is among the question's words: "the E2E plugin" is named by "Why does the
//! e2e plugin fail?". No model runs at question time: the graph was extracted beforehand
//! (`graphrag::build`), so the column answers at once.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::{Detail, Explanation, MethodKind, Prepared, QueryContext, Ranking, Retriever};
use crate::Result;
use crate::analysis::{Analyzer, AnalyzerConfig, Preset};
use crate::corpus::{Corpus, DocId};
use crate::graphrag::{EntityPart, ModelGraph, NAMED_WEIGHT, NEIGHBOUR_WEIGHT};

/// Local search over a graph a language model extracted from the corpus.
pub struct GraphLocalRetriever {
    graph: Arc<ModelGraph>,
    corpus: Arc<Corpus>,
    analyzer: Analyzer,
}

impl GraphLocalRetriever {
    /// Local search over `graph`, extracted from `corpus`.
    pub fn new(graph: Arc<ModelGraph>, corpus: Arc<Corpus>) -> Self {
        Self { graph, corpus, analyzer: Analyzer::new(AnalyzerConfig::preset(Preset::English)) }
    }

    /// The entities `question` names, by index, in index order.
    pub fn named(&self, question: &str) -> Vec<usize> {
        let words: Vec<String> = self.analyzer.terms(question);
        self.graph
            .nodes()
            .iter()
            .enumerate()
            .filter(|(_, n)| {
                let terms = self.analyzer.terms(&n.name);
                !terms.is_empty() && terms.iter().all(|t| words.contains(t))
            })
            .map(|(i, _)| i)
            .collect()
    }

    /// Each entity of the question's neighbourhood with its part: the named ones, then the
    /// neighbours of each (a neighbour of several counts once, through the first named one).
    fn neighbourhood(&self, question: &str) -> BTreeMap<usize, EntityPart> {
        let nodes = self.graph.nodes();
        let named = self.named(question);
        let mut out: BTreeMap<usize, EntityPart> = BTreeMap::new();
        for &i in &named {
            out.insert(
                i,
                EntityPart { entity: nodes[i].name.clone(), via: None, relation: None, weight: NAMED_WEIGHT },
            );
        }
        for &i in &named {
            for e in self.graph.edges_of(i) {
                let other = if e.source == i { e.target } else { e.source };
                if out.contains_key(&other) {
                    continue;
                }
                let Some(node) = nodes.get(other) else { continue };
                out.insert(
                    other,
                    EntityPart {
                        entity: node.name.clone(),
                        via: Some(nodes[i].name.clone()),
                        relation: Some(self.graph.describe(e)),
                        weight: NEIGHBOUR_WEIGHT,
                    },
                );
            }
        }
        out
    }
}

impl Retriever for GraphLocalRetriever {
    fn kind(&self) -> MethodKind {
        MethodKind::GraphLocal
    }

    fn label(&self) -> String {
        let d = self.graph.data();
        format!(
            "GraphRAG local ({}: {} entities, {} relations from {} passages)",
            d.model,
            d.nodes.len(),
            d.edges.len(),
            d.passages
        )
    }

    fn prepare(&self, query: &QueryContext) -> Result<Arc<dyn Prepared>> {
        let parts = self.neighbourhood(query.text());
        let nodes = self.graph.nodes();
        let mut per_doc: BTreeMap<DocId, Vec<EntityPart>> = BTreeMap::new();
        for (&i, part) in &parts {
            for p in &nodes[i].passages {
                if let Some(doc) = self.corpus.lookup(p) {
                    per_doc.entry(doc).or_default().push(part.clone());
                }
            }
        }
        let named: Vec<String> = parts.values().filter(|p| p.via.is_none()).map(|p| p.entity.clone()).collect();
        Ok(Arc::new(PreparedLocal { label: self.label(), query: query.clone(), per_doc, named, entities: parts.len() }))
    }
}

struct PreparedLocal {
    label: String,
    query: QueryContext,
    per_doc: BTreeMap<DocId, Vec<EntityPart>>,
    named: Vec<String>,
    entities: usize,
}

fn score(parts: &[EntityPart]) -> f64 {
    parts.iter().map(|p| p.weight).sum()
}

impl PreparedLocal {
    fn note(&self) -> String {
        if self.named.is_empty() {
            "the question names no entity of the model's graph, so local search finds nothing".into()
        } else {
            format!(
                "the question names {}; with their neighbours, {} entities",
                self.named.iter().map(|n| format!("“{n}”")).collect::<Vec<_>>().join(", "),
                self.entities
            )
        }
    }
}

impl Prepared for PreparedLocal {
    fn search(&self, k: usize) -> Result<Ranking> {
        let hits = self.per_doc.iter().filter(|(d, _)| self.query.allows(**d)).map(|(d, parts)| (*d, score(parts)));
        let mut r = Ranking::top(self.label.clone(), MethodKind::GraphLocal, hits, k);
        r.note = Some(self.note());
        Ok(r)
    }

    fn explain(&self, doc: DocId) -> Result<Explanation> {
        if !self.query.allows(doc) {
            return Ok(self.query.filtered_explanation(&self.label));
        }
        let parts = self.per_doc.get(&doc).cloned().unwrap_or_default();
        let value = score(&parts);
        let summary = if parts.is_empty() {
            format!("No entity of the question's neighbourhood was extracted from this passage ({}).", self.note())
        } else {
            let named = parts.iter().filter(|p| p.via.is_none()).count();
            format!(
                "The model extracted {} entit{} of the question's neighbourhood from this passage: {named} the \
                 question names (1 each), {} neighbour{} of one (½ each).",
                parts.len(),
                if parts.len() == 1 { "y" } else { "ies" },
                parts.len() - named,
                if parts.len() - named == 1 { "" } else { "s" }
            )
        };
        let mut e = Explanation::new(
            self.label.clone(),
            value,
            "score = Σ over the passage's entities in the neighbourhood: 1 if the question names it, ½ if it \
             neighbours one",
            summary,
        );
        e.detail = Detail::GraphLocal { parts };
        Ok(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graphrag::{ExtractedEntity, ExtractedRelation, Extraction};

    fn corpus() -> Arc<Corpus> {
        Arc::new(Corpus::from_texts("t", [("p1", "one"), ("p2", "two"), ("p3", "three"), ("p4", "four")]))
    }

    fn graph() -> Arc<ModelGraph> {
        let x = |ents: &[&str], rels: &[(&str, &str, &str)]| Extraction {
            entities: ents.iter().map(|n| ExtractedEntity { name: n.to_string(), kind: "thing".into() }).collect(),
            relations: rels
                .iter()
                .map(|(s, r, t)| ExtractedRelation {
                    source: s.to_string(),
                    relation: r.to_string(),
                    target: t.to_string(),
                })
                .collect(),
            dropped: Vec::new(),
        };
        Arc::new(ModelGraph::from_extractions(
            "c",
            "m",
            "h",
            &[
                ("p1".into(), x(&["E2E plugin", "libsodium"], &[("E2E plugin", "depends_on", "libsodium")])),
                ("p2".into(), x(&["libsodium", "version 4.2"], &[("version 4.2", "bundles", "libsodium")])),
                ("p3".into(), x(&["sync token"], &[])),
                ("p4".into(), x(&["E2E plugins", "desktop app"], &[("desktop app", "loads", "E2E plugins")])),
            ],
            vec![],
        ))
    }

    #[test]
    fn named_entities_count_one_and_their_neighbours_a_half() {
        let r = GraphLocalRetriever::new(graph(), corpus());
        let c = corpus();
        // "plugins" is stemmed as "plugin": both spellings are named (they are two nodes, since
        // their keys differ). libsodium neighbours the first, desktop app the second.
        let p = r.prepare(&QueryContext::new("Why does the e2e plugin fail to load?")).unwrap();
        let ranking = p.search(10).unwrap();
        let got: Vec<(&str, f64)> = ranking.hits.iter().map(|h| (c.external_id(h.doc), h.score)).collect();
        // p1: E2E plugin (1) + libsodium (½); p4: E2E plugins (1) + desktop app (½); p2: libsodium (½).
        assert_eq!(got, [("p1", 1.5), ("p4", 1.5), ("p2", 0.5)]);
        let e = p.explain(c.lookup("p2").unwrap()).unwrap();
        assert_eq!(e.value, 0.5);
        assert_eq!(e.parts_sum(), Some(0.5));
        match &e.detail {
            Detail::GraphLocal { parts } => {
                assert_eq!(parts[0].via.as_deref(), Some("E2E plugin"));
                assert_eq!(parts[0].relation.as_deref(), Some("E2E plugin depends_on libsodium"));
            }
            other => panic!("{other:?}"),
        }
        let none = p.explain(c.lookup("p3").unwrap()).unwrap();
        assert_eq!((none.value, none.parts_sum()), (0.0, Some(0.0)));
    }

    #[test]
    fn a_question_that_names_nothing_finds_nothing_and_says_so() {
        let r = GraphLocalRetriever::new(graph(), corpus());
        let p = r.prepare(&QueryContext::new("How do I change my password?")).unwrap();
        let ranking = p.search(10).unwrap();
        assert!(ranking.hits.is_empty());
        assert!(ranking.note.unwrap().contains("names no entity"));
        // A word of a two-word name is not the name.
        assert!(r.named("what is a token?").is_empty());
        assert_eq!(r.named("the sync token expired"), [3]);
    }
}
