//! The only source of randomness: a ChaCha8 stream seeded from a `u64`. Bounded integers,
//! picks and shuffles are computed here from raw `u64`s rather than through `rand`'s
//! distributions, so an item depends only on the ChaCha8 stream, which is specified and
//! stable, and not on how a `rand` release implements `gen_range`.

use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

pub(crate) struct Dice(ChaCha8Rng);

impl Dice {
    /// A stream for `seed`, distinct per `salt` (a blueprint's id hash), so that two
    /// blueprints given the same seed do not draw the same numbers.
    pub fn new(seed: u64, salt: u64) -> Self {
        Dice(ChaCha8Rng::seed_from_u64(mix(seed, salt)))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in `0..n` (Lemire's multiply-and-reject); 0 when `n` is 0.
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        let mut wide = u128::from(self.next_u64()) * u128::from(n);
        if (wide as u64) < n {
            let threshold = n.wrapping_neg() % n;
            while (wide as u64) < threshold {
                wide = u128::from(self.next_u64()) * u128::from(n);
            }
        }
        (wide >> 64) as u64
    }

    /// Uniform in `lo..=hi`; `lo` when the range is empty.
    pub fn int(&mut self, lo: i64, hi: i64) -> i64 {
        if hi <= lo {
            return lo;
        }
        let span = (hi as i128 - lo as i128) as u64;
        let offset = if span == u64::MAX { self.next_u64() } else { self.below(span + 1) };
        (lo as i128 + offset as i128) as i64
    }

    pub fn digit(&mut self, lo: u32, hi: u32) -> u32 {
        self.int(i64::from(lo), i64::from(hi)) as u32
    }

    pub fn coin(&mut self) -> bool {
        self.next_u64() & 1 == 1
    }

    /// +1 or -1.
    pub fn sign(&mut self) -> i64 {
        if self.coin() {
            1
        } else {
            -1
        }
    }

    pub fn index(&mut self, len: usize) -> usize {
        self.below(len as u64) as usize
    }

    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.index(i + 1);
            items.swap(i, j);
        }
    }
}

/// SplitMix64's finalizer: spreads consecutive seeds over the whole `u64` range.
pub(crate) fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

pub(crate) fn mix(a: u64, b: u64) -> u64 {
    splitmix(a ^ splitmix(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stream_is_fixed_for_a_seed() {
        let a: Vec<u64> = (0..4).map(|_| Dice::new(42, 7).next_u64()).collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]));
        assert_ne!(Dice::new(42, 7).next_u64(), Dice::new(42, 8).next_u64());
        let mut d = Dice::new(1, 2);
        let first: Vec<i64> = (0..5).map(|_| d.int(0, 9)).collect();
        let mut d = Dice::new(1, 2);
        assert_eq!(first, (0..5).map(|_| d.int(0, 9)).collect::<Vec<_>>());
    }

    #[test]
    fn bounded_values_stay_in_range_and_cover_it() {
        let mut d = Dice::new(3, 0);
        let mut seen = [false; 7];
        for _ in 0..1000 {
            let v = d.int(-3, 3);
            assert!((-3..=3).contains(&v));
            seen[(v + 3) as usize] = true;
        }
        assert!(seen.iter().all(|s| *s));
        assert_eq!(d.int(5, 5), 5);
        assert_eq!(d.int(5, 4), 5);
        assert_eq!(d.below(0), 0);
        // The whole range must not overflow.
        d.int(i64::MIN, i64::MAX);
    }

    #[test]
    fn shuffle_is_a_permutation() {
        let mut d = Dice::new(9, 9);
        let mut v: Vec<u32> = (0..10).collect();
        d.shuffle(&mut v);
        let mut sorted = v.clone();
        sorted.sort();
        assert_eq!(sorted, (0..10).collect::<Vec<_>>());
    }
}
