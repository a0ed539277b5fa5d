//! Random banks and abilities for simulations, benchmarks and tests.

use crate::bank::{BankError, ItemBank};
use crate::model::ItemParams;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The ChaCha8 stream [`population`] draws from: [`simulate`](crate::simulate) draws the
/// answers of examinee i from stream i of its seed, so the same seed can serve both
/// without the bank being correlated with any examinee's answers.
pub const POPULATION_STREAM: u64 = u64::MAX;

/// A [`random_3pl_bank`] of `items` items and `examinees` abilities from N(0, 1), drawn
/// from `seed` (stream [`POPULATION_STREAM`]): a bank and population that anyone can
/// reproduce from three numbers. Refused only when `items` is 0.
pub fn population(items: usize, examinees: usize, seed: u64) -> Result<(ItemBank, Vec<f64>), BankError> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(POPULATION_STREAM);
    let bank = random_3pl_bank(items, &mut rng)?;
    Ok((bank, standard_normal_thetas(examinees, &mut rng)))
}

/// A 3PL bank typical of calibrated tests in the logistic metric: a = 1.2 exp(0.3 z)
/// (median 1.2, most within 0.7 to 2.1), b ~ N(0, 1), c ~ U(0.1, 0.25).
/// Refused only when `size` is 0.
pub fn random_3pl_bank(size: usize, rng: &mut impl Rng) -> Result<ItemBank, BankError> {
    let items = (0..size)
        .filter_map(|_| {
            let a = 1.2 * (0.3 * standard_normal(rng)).exp();
            let b = standard_normal(rng);
            let c = rng.gen_range(0.1..0.25);
            // Always valid: a > 0, b finite, 0 <= c < 1 = d.
            ItemParams::three_pl(a, b, c).ok()
        })
        .collect();
    ItemBank::new(items)
}

/// `count` abilities drawn from N(0, 1).
pub fn standard_normal_thetas(count: usize, rng: &mut impl Rng) -> Vec<f64> {
    (0..count).map(|_| standard_normal(rng)).collect()
}

/// One N(0, 1) draw by the Box-Muller transform.
pub fn standard_normal(rng: &mut impl Rng) -> f64 {
    // 1 - U lies in (0, 1], so the logarithm is finite.
    let radius = (-2.0 * (1.0 - rng.gen::<f64>()).ln()).sqrt();
    radius * (std::f64::consts::TAU * rng.gen::<f64>()).cos()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn normal_draws_have_mean_zero_and_unit_variance() {
        let thetas = standard_normal_thetas(20_000, &mut ChaCha8Rng::seed_from_u64(2));
        let mean = thetas.iter().sum::<f64>() / thetas.len() as f64;
        let variance = thetas.iter().map(|t| (t - mean).powi(2)).sum::<f64>() / thetas.len() as f64;
        assert!(mean.abs() < 0.03 && (variance - 1.0).abs() < 0.05, "{mean} {variance}");
    }

    #[test]
    fn banks_have_the_asked_size_and_plausible_parameters() {
        let bank = random_3pl_bank(500, &mut ChaCha8Rng::seed_from_u64(3)).unwrap();
        assert_eq!(bank.len(), 500);
        assert!(bank.items().iter().all(|it| it.a() > 0.3 && it.a() < 4.0 && (0.1..0.25).contains(&it.c())));
        assert!(random_3pl_bank(0, &mut ChaCha8Rng::seed_from_u64(3)).is_err());
    }

    #[test]
    fn a_population_is_reproduced_by_its_seed() {
        let (bank, thetas) = population(40, 25, 9).unwrap();
        assert_eq!((bank.len(), thetas.len()), (40, 25));
        assert_eq!(population(40, 25, 9).unwrap(), (bank.clone(), thetas));
        assert_ne!(population(40, 25, 10).unwrap().0, bank);
        assert!(population(0, 25, 9).is_err());
    }
}
