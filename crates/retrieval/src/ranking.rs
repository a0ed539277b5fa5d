//! Turning a namespace's matches into a ranking: by BM25 score, or by reciprocal rank fusion
//! (RRF) of BM25 and cosine similarity when the query has an embedding. Ties always go to the
//! document that comes first in the caller's order (pack order, or the order of the scoped
//! units), so results are deterministic.

use crate::namespace::Scored;
use std::cmp::Ordering;

/// RRF's constant (Cormack et al. 2009): it damps the weight of the very top ranks so that one
/// ranking cannot outvote the other alone.
pub(crate) const RRF_K: f64 = 60.0;

/// Orders by score, highest first; `tie` gives each ordinal its place among equals (lower first).
pub(crate) fn by_score(scored: &mut [Scored], tie: impl Fn(u32) -> usize) {
    scored.sort_unstable_by(|a, b| descending(a.score, b.score).then_with(|| tie(a.ordinal).cmp(&tie(b.ordinal))));
}

/// Reciprocal rank fusion: each document scores `sum 1 / (RRF_K + rank)` over the rankings it is
/// in. The BM25 ranking holds the candidates that matched a term; the dense ranking holds every
/// candidate, by `similarity`. Returns the candidates ordered by fused score, their `score`
/// replaced by it.
pub(crate) fn fused(candidates: &[Scored], similarity: impl Fn(u32) -> f64, tie: impl Fn(u32) -> usize) -> Vec<Scored> {
    let ordinals: Vec<u32> = candidates.iter().map(|c| c.ordinal).collect();
    let bm25: Vec<f64> = candidates.iter().map(|c| c.score).collect();
    let dense: Vec<f64> = ordinals.iter().map(|&o| similarity(o)).collect();
    let mut fused: Vec<Scored> = ordinals.iter().map(|&ordinal| Scored { ordinal, score: 0.0 }).collect();
    for (rank, i) in ranked(&bm25, &ordinals, &tie).into_iter().filter(|&i| bm25[i] > 0.0).enumerate() {
        fused[i].score += reciprocal(rank);
    }
    for (rank, i) in ranked(&dense, &ordinals, &tie).into_iter().enumerate() {
        fused[i].score += reciprocal(rank);
    }
    by_score(&mut fused, tie);
    fused
}

/// Positions into `scores` (and `ordinals`), best score first, ties by `tie`.
fn ranked(scores: &[f64], ordinals: &[u32], tie: &impl Fn(u32) -> usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_unstable_by(|&a, &b| {
        descending(scores[a], scores[b]).then_with(|| tie(ordinals[a]).cmp(&tie(ordinals[b])))
    });
    order
}

/// The RRF term of a 0-based position (ranks count from 1).
fn reciprocal(position: usize) -> f64 {
    1.0 / (RRF_K + (position + 1) as f64)
}

fn descending(a: f64, b: f64) -> Ordering {
    b.total_cmp(&a)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scored(pairs: &[(u32, f64)]) -> Vec<Scored> {
        pairs.iter().map(|&(ordinal, score)| Scored { ordinal, score }).collect()
    }

    fn ordinals(scored: &[Scored]) -> Vec<u32> {
        scored.iter().map(|s| s.ordinal).collect()
    }

    #[test]
    fn ties_follow_the_callers_order() {
        let mut s = scored(&[(3, 1.0), (1, 2.0), (2, 1.0), (0, 0.0)]);
        by_score(&mut s, |o| o as usize);
        assert_eq!(ordinals(&s), [1, 2, 3, 0]);
        by_score(&mut s, |o| 10 - o as usize);
        assert_eq!(ordinals(&s), [1, 3, 2, 0]);
    }

    #[test]
    fn fusion_adds_reciprocal_ranks_and_skips_bm25_non_matches() {
        // BM25: 0 then 1; 2 matched no term. Dense: 1, 2, 0.
        let similarity = |o: u32| [0.1, 0.9, 0.5][o as usize];
        let fused = fused(&scored(&[(0, 3.0), (1, 2.0), (2, 0.0)]), similarity, |o| o as usize);
        assert_eq!(ordinals(&fused), [1, 0, 2]);
        let expected = [1.0 / 62.0 + 1.0 / 61.0, 1.0 / 61.0 + 1.0 / 63.0, 1.0 / 62.0];
        for (hit, expected) in fused.iter().zip(expected) {
            assert!((hit.score - expected).abs() < 1e-12, "{fused:?}");
        }
    }
}
