//! What a RAG prompt is made of: the comparison's best list, and its top passages as the prompt
//! shows them (the prompt itself, with its instruction, is `generate::tasks::rag_prompt`).

use super::Comparison;
use crate::corpus::Corpus;
use crate::retrieve::{MethodKind, Ranking};

/// The list a RAG prompt should draw from: the reranked list when there is one, else fusion, else
/// BM25, else the first ranked (not set-valued) list.
pub fn best_list(comparison: &Comparison) -> Option<&Ranking> {
    let ranked = || comparison.runs.iter().filter_map(|r| r.ranking()).filter(|r| !r.unranked && !r.hits.is_empty());
    [MethodKind::Rerank, MethodKind::Fusion, MethodKind::Bm25]
        .into_iter()
        .find_map(|kind| ranked().find(|r| r.kind == kind))
        .or_else(|| ranked().next())
}

/// The top `n` passages of a ranking as (external id, title and text).
pub fn rag_passages(corpus: &Corpus, ranking: &Ranking, n: usize) -> Vec<(String, String)> {
    ranking.hits.iter().take(n).filter_map(|h| corpus.doc(h.doc)).map(|d| (d.id.clone(), d.passage_text())).collect()
}

#[cfg(test)]
mod tests {

    use crate::generate::tasks::rag_prompt;

    #[test]
    fn numbered_passages_and_the_instruction() {
        let p = rag_prompt("What is E140?", &[("errors-3".into(), "E140 appears when\na file is big.".into())]);
        assert!(p.starts_with("Answer the question using only the numbered passages"));
        assert!(p.contains("[1] (errors-3) E140 appears when a file is big.\n"));
        assert!(p.ends_with("Question: What is E140?\nAnswer:"));
    }
}
