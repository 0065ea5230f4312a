//! Communities of the extracted graph by modularity: Louvain's local-moving phase (Blondel et al.
//! 2008). Every node starts alone; in index order each moves to the neighbouring community that
//! raises modularity most (gain k_i,in − Σ_tot · k_i / 2m), staying put on a tie, until a sweep
//! moves nothing. Deterministic, so the same graph gives the same communities.
//!
//! Label propagation, the other cheap method, was tried first: run in a fixed order with ties to
//! the smallest label (deterministic, as a test needs), it pulls two triangles joined by one edge
//! into one community, which local moving keeps apart (the test below). Leiden improves on
//! Louvain's communities on large graphs; no maintained Rust crate implements it.

use std::collections::BTreeMap;

use super::graph::{Community, ModelGraph};

/// Sweeps at most (local moving settles in a handful on real graphs).
pub const MAX_SWEEPS: usize = 100;

/// The communities of `graph`, largest first (ties by smallest member), numbered from 0, with no
/// summaries yet. A node with no edge is a community of its own.
pub fn communities(graph: &ModelGraph) -> Vec<Community> {
    let n = graph.nodes().len();
    // Edge weights between distinct nodes (several relations between two nodes add up).
    let weights: Vec<BTreeMap<usize, f64>> = (0..n)
        .map(|i| {
            let mut w: BTreeMap<usize, f64> = BTreeMap::new();
            for e in graph.edges_of(i) {
                let other = if e.source == i { e.target } else { e.source };
                *w.entry(other).or_default() += 1.0;
            }
            w
        })
        .collect();
    let k: Vec<f64> = weights.iter().map(|w| w.values().sum()).collect();
    let two_m: f64 = k.iter().sum();
    let mut community: Vec<usize> = (0..n).collect();
    let mut total: Vec<f64> = k.clone();
    if two_m > 0.0 {
        for _ in 0..MAX_SWEEPS {
            let mut moved = false;
            for i in 0..n {
                if weights[i].is_empty() {
                    continue;
                }
                let own = community[i];
                total[own] -= k[i];
                let mut k_in: BTreeMap<usize, f64> = BTreeMap::new();
                for (&j, &w) in &weights[i] {
                    *k_in.entry(community[j]).or_default() += w;
                }
                let gain = |c: usize| k_in.get(&c).copied().unwrap_or(0.0) - total[c] * k[i] / two_m;
                let mut best = (own, gain(own));
                for &c in k_in.keys() {
                    let g = gain(c);
                    if g > best.1 + 1e-12 {
                        best = (c, g);
                    }
                }
                community[i] = best.0;
                total[best.0] += k[i];
                moved |= best.0 != own;
            }
            if !moved {
                break;
            }
        }
    }
    let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (i, c) in community.iter().enumerate() {
        groups.entry(*c).or_default().push(i);
    }
    let mut list: Vec<Vec<usize>> = groups.into_values().collect();
    list.sort_by(|a, b| b.len().cmp(&a.len()).then(a[0].cmp(&b[0])));
    list.into_iter().enumerate().map(|(id, members)| Community { id, members, summary: None }).collect()
}

#[cfg(test)]
mod tests {
    use super::super::extract::{ExtractedEntity, ExtractedRelation, Extraction};
    use super::*;

    fn graph(edges: &[(&str, &str)], lone: &[&str]) -> ModelGraph {
        let relations = edges
            .iter()
            .map(|(s, t)| ExtractedRelation { source: s.to_string(), relation: "r".into(), target: t.to_string() })
            .collect();
        let entities = lone.iter().map(|n| ExtractedEntity { name: n.to_string(), kind: "t".into() }).collect();
        ModelGraph::from_extractions(
            "c",
            "m",
            "h",
            &[("p".into(), Extraction { entities, relations, dropped: Vec::new() })],
            vec![],
        )
    }

    #[test]
    fn two_triangles_joined_by_one_edge_are_two_communities() {
        // Worked by hand (2m = 14; node degrees a 2, b 2, c 3, d 3, e 2, f 2): a joins b (gain
        // 1 − 2·2/14 beats c's 1 − 3·2/14), c joins them (2 − 4·3/14 = 1.14 against d's 0.36), d
        // joins e (c's community would lose: 1 − 7·3/14 < 0), e moves to f (0.71 > 0.57); in the
        // second sweep d follows e and f (2 − 4·3/14 = 1.14), and the third moves nothing.
        let g = graph(&[("a", "b"), ("b", "c"), ("a", "c"), ("d", "e"), ("e", "f"), ("d", "f"), ("c", "d")], &["z"]);
        let c = communities(&g);
        let names = |m: &[usize]| m.iter().map(|&i| g.nodes()[i].key.clone()).collect::<Vec<_>>();
        assert_eq!(c.len(), 3);
        assert_eq!(names(&c[0].members), ["a", "b", "c"]);
        assert_eq!(names(&c[1].members), ["d", "e", "f"]);
        assert_eq!(names(&c[2].members), ["z"], "a node with no edge is alone");
        assert_eq!(c.iter().map(|x| x.id).collect::<Vec<_>>(), [0, 1, 2]);
    }

    #[test]
    fn a_star_is_one_community_and_the_result_repeats() {
        let g = graph(&[("hub", "a"), ("hub", "b"), ("hub", "c"), ("x", "y")], &[]);
        let c = communities(&g);
        assert_eq!(c, communities(&g));
        let names = |m: &[usize]| m.iter().map(|&i| g.nodes()[i].key.clone()).collect::<Vec<_>>();
        assert_eq!(names(&c[0].members), ["hub", "a", "b", "c"]);
        assert_eq!(names(&c[1].members), ["x", "y"]);
        assert!(communities(&graph(&[], &[])).is_empty());
    }
}
