//! The adaptive diagnostic (learning-loop-design.md D4): which concept of an inventory,
//! ranked from easiest to hardest, to probe next, and what the answers say about the rest.
//!
//! A binary search for the boundary between what the learner knows and what they do not:
//! the first probe is the median concept, a correct answer moves to harder concepts and a
//! wrong one to easier ones. Then up to three targeted probes where the answers are
//! ambiguous: answers that contradict each other (a hard concept known, an easier one not),
//! borderline answers (quality 2 or 3) whose neighbours were not asked, or a boundary with
//! an untested concept beside it. Three to seven probes in all, fewer
//! only when the inventory is smaller than three.

use crate::curriculum::DiagnosticResult;

/// Probes of the binary search at most; with 15 concepts it converges in four.
pub const MAX_SEARCH_PROBES: usize = 4;
/// Targeted probes at most, after the search.
pub const MAX_TARGETED_PROBES: usize = 3;
pub const MIN_PROBES: usize = 3;
pub const MAX_PROBES: usize = 7;

/// The quality a concept is given when the diagnostic infers, without asking, that the
/// learner knows it (decided with every other kind of evidence in [`crate::evidence`]).
pub const INFERRED_QUALITY: u8 = crate::evidence::INFERRED_QUALITY.value();

/// One graded probe: the concept's rank in the inventory (0 = easiest) and the quality of
/// the answer (0-5; 3 or more is correct).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Probe {
    pub rank: usize,
    pub quality: u8,
}

impl Probe {
    pub fn correct(&self) -> bool {
        self.quality >= crate::mastery::Quality::PASS.value()
    }

    /// Barely right or barely wrong: it says little on its own.
    pub fn borderline(&self) -> bool {
        matches!(self.quality, 2 | 3)
    }
}

/// The rank of the concept to probe next, or `None` when the diagnostic is complete.
pub fn next_probe(inventory: usize, probes: &[Probe]) -> Option<usize> {
    if inventory == 0 || probes.len() >= MAX_PROBES.min(inventory) {
        return None;
    }
    let tested = |rank: usize| probes.iter().any(|p| p.rank == rank);
    let search = search_probes(inventory, probes);
    if search < MAX_SEARCH_PROBES {
        if let Some(rank) = midpoint(inventory, probes).filter(|&r| !tested(r)) {
            return Some(rank);
        }
    }
    let targeted = probes.len() - search;
    if targeted >= MAX_TARGETED_PROBES {
        return None;
    }
    let ambiguous = ambiguous_ranks(inventory, probes).into_iter().find(|&r| !tested(r));
    match ambiguous {
        Some(rank) => Some(rank),
        // Nothing ambiguous: ask more only to reach the minimum, nearest the boundary.
        None if probes.len() < MIN_PROBES => nearest_untested(inventory, probes, boundary(inventory, probes)),
        None => None,
    }
}

/// How many of `probes` the binary search asked: it replays the search over them.
fn search_probes(inventory: usize, probes: &[Probe]) -> usize {
    let (mut low, mut high) = (0_isize, inventory as isize - 1);
    let mut count = 0;
    for probe in probes {
        if count >= MAX_SEARCH_PROBES || low > high {
            break;
        }
        let mid = ((low + high) / 2) as usize;
        if probe.rank != mid {
            break;
        }
        count += 1;
        if probe.correct() {
            low = mid as isize + 1;
        } else {
            high = mid as isize - 1;
        }
    }
    count
}

/// The next rank of the binary search, if it has not converged.
fn midpoint(inventory: usize, probes: &[Probe]) -> Option<usize> {
    let (mut low, mut high) = (0_isize, inventory as isize - 1);
    for probe in probes.iter().take(search_probes(inventory, probes)) {
        if probe.correct() {
            low = probe.rank as isize + 1;
        } else {
            high = probe.rank as isize - 1;
        }
    }
    (low <= high).then_some(((low + high) / 2) as usize)
}

/// The first rank the learner is taken not to know: one above the highest correct answer
/// that no wrong answer below it contradicts, as far as the answers go.
pub fn boundary(inventory: usize, probes: &[Probe]) -> usize {
    let lowest_wrong = probes.iter().filter(|p| !p.correct()).map(|p| p.rank).min().unwrap_or(inventory);
    probes.iter().filter(|p| p.correct() && p.rank < lowest_wrong).map(|p| p.rank + 1).max().unwrap_or(0)
}

/// Untested ranks where the answers leave doubt, most doubtful first: between a wrong
/// answer and a harder correct one, then the untested neighbours of the boundary.
fn ambiguous_ranks(inventory: usize, probes: &[Probe]) -> Vec<usize> {
    let mut ranks = Vec::new();
    let lowest_wrong = probes.iter().filter(|p| !p.correct()).map(|p| p.rank).min();
    let highest_right = probes.iter().filter(|p| p.correct()).map(|p| p.rank).max();
    if let (Some(wrong), Some(right)) = (lowest_wrong, highest_right) {
        if right > wrong {
            // Contradiction: probe inside it, from its middle outwards.
            let middle = (wrong + right) / 2;
            let mut inside: Vec<usize> = (wrong..=right).collect();
            inside.sort_by_key(|&r| r.abs_diff(middle));
            ranks.extend(inside);
        }
    }
    for probe in probes.iter().filter(|p| p.borderline()) {
        ranks
            .extend([probe.rank.checked_sub(1), Some(probe.rank + 1).filter(|&r| r < inventory)].into_iter().flatten());
    }
    let edge = boundary(inventory, probes);
    let beside = [edge.checked_sub(1), (edge < inventory).then_some(edge)];
    let settled = |rank: usize| probes.iter().any(|p| p.rank == rank);
    // The boundary is certain only when both of its sides were asked.
    if beside.iter().flatten().any(|&r| !settled(r)) {
        ranks.extend(beside.iter().flatten());
    }
    ranks
}

fn nearest_untested(inventory: usize, probes: &[Probe], around: usize) -> Option<usize> {
    (0..inventory).filter(|r| !probes.iter().any(|p| p.rank == *r)).min_by_key(|r| r.abs_diff(around))
}

/// What the diagnostic found, as results that seed a plan: each probed concept with its
/// answer's quality, and the untested concepts below the boundary as known at
/// [`INFERRED_QUALITY`]. `labels` is the inventory, easiest first.
pub fn results(labels: &[String], probes: &[Probe]) -> Vec<DiagnosticResult> {
    let edge = boundary(labels.len(), probes);
    labels
        .iter()
        .enumerate()
        .filter_map(|(rank, label)| {
            let quality = match probes.iter().find(|p| p.rank == rank) {
                Some(probe) => probe.quality,
                None if rank < edge => INFERRED_QUALITY,
                None => return None,
            };
            Some(DiagnosticResult { node_label: label.clone(), quality: i64::from(quality) })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Run the diagnostic against a learner who answers `answer(rank)`.
    fn run(inventory: usize, answer: impl Fn(usize) -> u8) -> Vec<Probe> {
        let mut probes = Vec::new();
        while let Some(rank) = next_probe(inventory, &probes) {
            assert!(!probes.iter().any(|p: &Probe| p.rank == rank), "rank {rank} probed twice");
            probes.push(Probe { rank, quality: answer(rank) });
        }
        probes
    }

    #[test]
    fn the_first_probe_is_the_median_concept() {
        assert_eq!(next_probe(15, &[]), Some(7));
        assert_eq!(next_probe(10, &[]), Some(4));
    }

    #[test]
    fn a_correct_answer_moves_harder_and_a_wrong_one_easier() {
        assert_eq!(next_probe(15, &[Probe { rank: 7, quality: 4 }]), Some(11));
        assert_eq!(next_probe(15, &[Probe { rank: 7, quality: 1 }]), Some(3));
    }

    #[test]
    fn borderline_answers_get_targeted_probes_beside_them() {
        // Shaky around the middle: the search alone would settle on a guess.
        let probes = run(15, |rank| match rank {
            0..=5 => 5,
            6..=8 => 3,
            _ => 1,
        });
        let targeted = &probes[search_probes(15, &probes)..];
        assert!(!targeted.is_empty() && targeted.len() <= MAX_TARGETED_PROBES, "{probes:?}");
        assert!(targeted.iter().all(|p| (5..=9).contains(&p.rank)), "{probes:?}");
        assert!(probes.len() <= MAX_PROBES);
    }

    #[test]
    fn contradicting_answers_get_targeted_probes_between_them() {
        // A targeted probe finds an easier concept unknown below harder ones known: the
        // untested concept between them is asked next.
        let probes = [(7, 4), (11, 1), (9, 4), (10, 4), (6, 1)].map(|(rank, quality)| Probe { rank, quality });
        assert_eq!(boundary(15, &probes), 0, "nothing above a wrong answer is trusted");
        assert_eq!(next_probe(15, &probes), Some(8));
    }

    #[test]
    fn tiny_inventories_ask_every_concept() {
        assert_eq!(run(2, |_| 4).len(), 2);
        assert_eq!(run(0, |_| 4).len(), 0);
    }

    #[test]
    fn results_infer_the_easier_concepts_and_leave_the_harder_unseen() {
        let labels: Vec<String> = (0..15).map(|i| format!("C{i}")).collect();
        let probes = run(15, |rank| if rank < 6 { 5 } else { 1 });
        let found = results(&labels, &probes);
        let known: Vec<&str> = found.iter().filter(|r| r.quality >= 3).map(|r| r.node_label.as_str()).collect();
        assert_eq!(known, vec!["C0", "C1", "C2", "C3", "C4", "C5"]);
        assert!(found.iter().all(|r| r.node_label != "C10" || r.quality < 3));
    }

    proptest! {
        /// A consistent learner (knows exactly the `k` easiest concepts): three to seven
        /// distinct probes, and the boundary found is exactly `k`.
        #[test]
        fn a_consistent_learner_is_placed_exactly(inventory in 3_usize..=15, known in 0_usize..=15) {
            let k = known.min(inventory);
            let probes = run(inventory, |rank| if rank < k { 4 } else { 1 });
            prop_assert!((MIN_PROBES..=MAX_PROBES).contains(&probes.len()), "{probes:?}");
            prop_assert_eq!(boundary(inventory, &probes), k, "{:?}", probes);
        }

        /// Any learner at all: the diagnostic ends within seven distinct probes.
        #[test]
        fn any_learner_ends_within_seven_probes(inventory in 0_usize..=20, answers in proptest::collection::vec(0_u8..=5, 20)) {
            let probes = run(inventory, |rank| answers[rank]);
            prop_assert!(probes.len() <= MAX_PROBES);
            prop_assert!(probes.len() >= MIN_PROBES.min(inventory));
        }
    }
}
