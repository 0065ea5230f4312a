//! Building the model's graph of a corpus: each passage's extraction (a reply that is not the
//! schema's JSON is named, skipped and counted), the graph with each edge's provenance, its
//! communities, and the model's summary of each community of two or more entities. Long work:
//! progress per passage, cancellable between passages.

use std::time::Instant;

use super::communities::communities;
use super::extract::{Extraction, extract};
use super::graph::{ModelGraph, Skipped};
use crate::Result;
use crate::corpus::Corpus;
use crate::generate::{Generator, prompts};
use crate::progress::{Progress, check_cancel};

/// Communities summarised at most (the largest), so a big graph's summaries stay minutes.
pub const MAX_SUMMARIES: usize = 40;
/// Relations a community's summary prompt lists at most.
const SUMMARY_RELATIONS: usize = 30;
/// Characters of a skipped reply kept to show.
const SKIPPED_REPLY_CHARS: usize = 200;

/// What to build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuildOptions {
    /// Read only the first this many passages (all when `None`).
    pub limit: Option<usize>,
    /// Write a summary of each community (global search needs them).
    pub summaries: bool,
}

impl Default for BuildOptions {
    fn default() -> Self {
        Self { limit: None, summaries: true }
    }
}

/// The hash a graph's cache is keyed by, with the corpus and the model: both prompts'.
pub fn prompt_hash() -> String {
    // The schema a reply is held to is part of what is asked: `j2` marks extractions asked with
    // the bounded schema (at most ten entities and ten relations).
    format!("{}j2-{}", prompts::EXTRACT.hash(), prompts::COMMUNITY.hash())
}

/// Extract the graph of `corpus` with `generator`.
pub fn build(
    generator: &dyn Generator,
    corpus: &Corpus,
    options: BuildOptions,
    progress: &dyn Progress,
) -> Result<ModelGraph> {
    let started = Instant::now();
    let docs = &corpus.docs()[..options.limit.unwrap_or(usize::MAX).min(corpus.len())];
    let model = generator.info().label();
    let mut extractions: Vec<(String, Extraction)> = Vec::new();
    let mut skipped = Vec::new();
    let mut stored = 0usize;
    let mut replies: Vec<(String, String)> = Vec::new();
    progress.stage("extracting entities and relations", docs.len() as u64);
    for d in docs {
        check_cancel(progress)?;
        match extract(generator, &d.passage_text(), progress) {
            Err(crate::Error::Cancelled) => return Err(crate::Error::Cancelled),
            // A request that fails (a server that went away, a prompt too long for the model)
            // skips its passage, named and counted; the build goes on, and the replies already
            // written are kept in the store for the next build.
            Err(e) => skipped.push(Skipped {
                passage: d.id.clone(),
                reason: format!("the request failed: {}", e.report()),
                reply: String::new(),
                request_failed: true,
            }),
            Ok((reply, Ok(x))) => {
                stored += usize::from(reply.stored);
                replies.push((d.id.clone(), reply.text));
                extractions.push((d.id.clone(), x));
            }
            Ok((reply, Err(reason))) => {
                stored += usize::from(reply.stored);
                replies.push((d.id.clone(), reply.text.clone()));
                skipped.push(Skipped {
                    passage: d.id.clone(),
                    reason,
                    reply: reply.text.chars().take(SKIPPED_REPLY_CHARS).collect(),
                    request_failed: false,
                });
            }
        }
        progress.advance(1);
    }
    let mut graph =
        ModelGraph::from_extractions(&corpus.fingerprint(), &model, &prompts::EXTRACT.hash(), &extractions, skipped);
    let mut found = communities(&graph);
    let mut failed = Vec::new();
    if options.summaries {
        let worth: Vec<usize> =
            found.iter().filter(|c| c.members.len() >= 2).map(|c| c.id).take(MAX_SUMMARIES).collect();
        progress.stage("summarising communities", worth.len() as u64);
        for id in worth {
            check_cancel(progress)?;
            let request = summary_request(&graph, &found[id].members);
            match generator.chat(&request, &mut |_| {}, progress) {
                Err(crate::Error::Cancelled) => return Err(crate::Error::Cancelled),
                // A summary that cannot be had leaves its community unsummarised (global search
                // reads the others), named with why.
                Err(e) => failed.push(super::graph::FailedSummary {
                    community: id,
                    entities: found[id]
                        .members
                        .iter()
                        .take(4)
                        .filter_map(|&i| graph.data().nodes.get(i).map(|n| n.name.clone()))
                        .collect(),
                    reason: e.report(),
                }),
                Ok(reply) => {
                    stored += usize::from(reply.stored);
                    let text = reply.text.split_whitespace().collect::<Vec<_>>().join(" ");
                    found[id].summary = (!text.is_empty()).then_some(text);
                }
            }
            progress.advance(1);
        }
    }
    graph.set_communities(found);
    graph.set_failed_summaries(failed);
    graph.set_seconds(started.elapsed().as_secs_f64());
    graph.set_stored_replies(stored);
    graph.set_replies(replies);
    Ok(graph)
}

/// The request summarising one community: its entities with their types, and its relations.
pub fn summary_request(graph: &ModelGraph, members: &[usize]) -> crate::generate::ChatRequest {
    let nodes = graph.nodes();
    let entities: Vec<String> =
        members.iter().filter_map(|&i| nodes.get(i)).map(|n| format!("{} ({})", n.name, n.kind)).collect();
    let mut relations: Vec<String> = Vec::new();
    for e in graph.edges() {
        if members.contains(&e.source) && members.contains(&e.target) {
            let line = format!("- {}", graph.describe(e));
            if !relations.contains(&line) {
                relations.push(line);
            }
        }
    }
    relations.truncate(SUMMARY_RELATIONS);
    prompts::COMMUNITY.request(&[("entities", &entities.join(", ")), ("relations", &relations.join("\n"))])
}
