//! Choosing the next item: maximum Fisher information at the current ability, among the
//! items a caller allows, optionally randomesque (uniformly among the k most informative)
//! to spread exposure across the bank.

use crate::bank::ItemBank;
use rand::Rng;

/// The index of the most informative item at `theta` among those `eligible` accepts, or,
/// with `randomesque` k > 1, one drawn uniformly from the k most informative. `None` when
/// no item is eligible. Ties go to the lower index, so k = 1 uses no randomness at all.
///
/// `eligible` is where content constraints layer on: the item not yet used, of the
/// wanted domain, not over its exposure quota.
pub fn select_item(
    bank: &ItemBank,
    theta: f64,
    eligible: impl Fn(usize) -> bool,
    randomesque: usize,
    rng: &mut impl Rng,
) -> Option<usize> {
    let candidates = bank.items().iter().enumerate().filter(|(index, _)| eligible(*index));
    if randomesque <= 1 {
        let mut best: Option<(usize, f64)> = None;
        for (index, item) in candidates {
            let information = item.information(theta);
            if best.is_none_or(|(_, top)| information > top) {
                best = Some((index, information));
            }
        }
        return best.map(|(index, _)| index);
    }
    // The k best so far, most informative first; k is small, so insertion beats a heap.
    let mut top: Vec<(usize, f64)> = Vec::with_capacity(randomesque + 1);
    for (index, item) in candidates {
        let information = item.information(theta);
        if top.len() == randomesque && top.last().is_some_and(|&(_, last)| information <= last) {
            continue;
        }
        let at = top.partition_point(|&(_, other)| other >= information);
        top.insert(at, (index, information));
        top.truncate(randomesque);
    }
    if top.is_empty() {
        return None;
    }
    Some(top[rng.gen_range(0..top.len())].0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ItemParams;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn bank() -> ItemBank {
        let items = [(1.0, -2.0), (1.0, 0.0), (1.0, 1.0), (2.0, 3.0), (0.5, 0.1)];
        ItemBank::new(items.iter().map(|&(a, b)| ItemParams::three_pl(a, b, 0.0).unwrap()).collect()).unwrap()
    }

    #[test]
    fn picks_the_most_informative_eligible_item() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        assert_eq!(select_item(&bank(), 0.0, |_| true, 1, &mut rng), Some(1));
        assert_eq!(select_item(&bank(), 3.0, |_| true, 1, &mut rng), Some(3));
        assert_eq!(select_item(&bank(), 0.0, |i| i != 1, 1, &mut rng), Some(2));
        assert_eq!(select_item(&bank(), 0.0, |_| false, 1, &mut rng), None);
    }

    #[test]
    fn randomesque_draws_only_among_the_k_most_informative() {
        // At theta 0.4: item 1 (b = 0) and item 2 (b = 1) lead, the rest trail.
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut seen = [0usize; 5];
        for _ in 0..400 {
            seen[select_item(&bank(), 0.4, |_| true, 2, &mut rng).unwrap()] += 1;
        }
        assert_eq!((seen[0], seen[3], seen[4]), (0, 0, 0), "{seen:?}");
        assert!(seen[1] > 150 && seen[2] > 150, "{seen:?}");
        assert_eq!(select_item(&bank(), 0.4, |i| i == 4, 3, &mut rng), Some(4));
        assert_eq!(select_item(&bank(), 0.4, |_| false, 3, &mut rng), None);
    }

    #[test]
    fn randomesque_of_one_matches_maximum_information_and_a_large_k_covers_the_bank() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut seen = [false; 5];
        for _ in 0..200 {
            seen[select_item(&bank(), 0.0, |_| true, 10, &mut rng).unwrap()] = true;
        }
        assert_eq!(seen, [true; 5]);
    }
}
