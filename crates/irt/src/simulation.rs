//! Simulated adaptive tests: each examinee answers from the model at a known true ability,
//! and the report says how close the estimates came and how long tests ran.
//!
//! The protocol is fixed so that reports compare across banks and settings. Every examinee
//! takes items until 30 are answered and the SE has reached 0.3, or until 60 are answered,
//! with no SE stop; the test's item sequence does not depend on its stop rules, so the
//! length at which the SE first reached 0.3 is the length an SE <= 0.3 stop would give.
//! - `at_k`: bias (mean of estimate - truth), RMSE and mean SE after k = 5, 10, 20, 30 items.
//! - `mean_length_to_se_0.3`: the mean length at which the SE first reached 0.3; an
//!   examinee who has not reached it by 60 items counts as 60.
//! - `max_exposure_rate`: the share of examinees who were given the most used item in
//!   these tests; `items_used`: how many of the bank's items anyone was given.
//!
//! A bank smaller than a checkpoint cannot give k items: examinees stop when the bank is
//! exhausted, the checkpoint's figures are those after the whole bank, and its `items`
//! field says how many that was. An examinee who exhausts the bank without reaching SE 0.3
//! counts as 60, as one who never reaches it.
//!
//! Each examinee draws from their own ChaCha8 stream (the seed, stream = their index), so
//! one examinee's results do not depend on the others and a seed reproduces a report exactly.

use crate::bank::ItemBank;
use crate::cat::Cat;
use crate::json::{parse_located, Located};
use crate::settings::{CatSettings, SettingsError, StopRules};
use crate::Estimate;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use thiserror::Error;

/// The test lengths at which a report measures the estimates.
pub const CHECKPOINTS: [usize; 4] = [5, 10, 20, 30];
/// The SE whose reaching `mean_length_to_se_0.3` measures.
pub const SE_TARGET: f64 = 0.3;
/// The longest test simulated; examinees who never reach the SE target count as this long.
pub const LENGTH_CAP: usize = 60;

#[derive(Debug, Clone, PartialEq, Error)]
pub enum SimError {
    #[error("no examinees: the list of abilities is empty; give at least one")]
    NoExaminees,
    #[error("theta {index} = {value} is not a finite number; allowed: finite numbers")]
    Theta { index: usize, value: f64 },
    #[error(transparent)]
    Settings(#[from] SettingsError),
}

/// Why a list of abilities was refused.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ThetasError {
    #[error("the list of abilities is empty; give at least one, e.g. [-0.5, 0.0, 1.2]")]
    Empty,
    #[error("{location}: {message}")]
    Malformed { location: String, message: String },
}

/// Reads a JSON array of abilities (numbers).
pub fn parse_thetas(text: &str) -> Result<Vec<f64>, ThetasError> {
    let thetas: Vec<f64> = parse_located(text, "theta").map_err(|Located { location, message }| {
        let message = if location == "the file" {
            format!("{message}; abilities are a JSON array of numbers such as [-0.5, 0.0, 1.2]")
        } else {
            message
        };
        ThetasError::Malformed { location, message }
    })?;
    if thetas.is_empty() {
        return Err(ThetasError::Empty);
    }
    Ok(thetas)
}

/// The estimates after a given number of items, over all examinees.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Checkpoint {
    /// Items answered: the checkpoint's k, or the bank size if the bank is smaller.
    pub items: usize,
    pub bias: f64,
    pub rmse: f64,
    pub mean_se: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SimReport {
    pub at_5: Checkpoint,
    pub at_10: Checkpoint,
    pub at_20: Checkpoint,
    pub at_30: Checkpoint,
    #[serde(rename = "mean_length_to_se_0.3")]
    pub mean_length_to_se: f64,
    /// The share of examinees whose SE reached 0.3 within 60 items.
    #[serde(rename = "reached_se_0.3")]
    pub reached_se: f64,
    pub length_cap: usize,
    /// The exposure rate of the most used item: the share of examinees who were given it,
    /// over the protocol's tests (up to 30 items and SE 0.3, or 60). Without randomesque
    /// every test starts with the same item, so this is 1 whatever the rule; it says how
    /// evenly a bank is used only once `randomesque` spreads the first items.
    pub max_exposure_rate: f64,
    /// The index of that item (the lowest of the most used, if several were used as often).
    pub most_used_item: usize,
    /// How many of the bank's items at least one examinee was given.
    pub items_used: usize,
    pub examinees: usize,
    pub bank_size: usize,
    pub seed: u64,
    pub settings: CatSettings,
}

/// What one examinee's test gave.
struct Run {
    at: [Estimate; CHECKPOINTS.len()],
    length_to_target: Option<usize>,
}

pub fn simulate(bank: &ItemBank, thetas: &[f64], seed: u64, settings: &CatSettings) -> Result<SimReport, SimError> {
    if thetas.is_empty() {
        return Err(SimError::NoExaminees);
    }
    if let Some((index, &value)) = thetas.iter().enumerate().find(|(_, theta)| !theta.is_finite()) {
        return Err(SimError::Theta { index, value });
    }
    settings.validate()?;
    let mut sums = [(0.0, 0.0, 0.0); CHECKPOINTS.len()];
    let (mut total_length, mut reached) = (0usize, 0usize);
    // How many examinees were given each item.
    let mut exposures = vec![0usize; bank.len()];
    for (index, &theta) in thetas.iter().enumerate() {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(index as u64);
        let run = examinee(bank, theta, settings, &mut rng, &mut exposures)?;
        for (sum, estimate) in sums.iter_mut().zip(&run.at) {
            let error = estimate.theta - theta;
            *sum = (sum.0 + error, sum.1 + error * error, sum.2 + estimate.se);
        }
        total_length += run.length_to_target.unwrap_or(LENGTH_CAP);
        reached += run.length_to_target.is_some() as usize;
    }
    let n = thetas.len() as f64;
    // The first of the most used items: `max_by_key` would give the last.
    let most_used_item = (0..exposures.len()).rev().max_by_key(|&item| exposures[item]).unwrap_or(0);
    let checkpoint = |j: usize| {
        let (error, squared, se) = sums[j];
        Checkpoint {
            items: CHECKPOINTS[j].min(bank.len()),
            bias: error / n,
            rmse: (squared / n).sqrt(),
            mean_se: se / n,
        }
    };
    Ok(SimReport {
        at_5: checkpoint(0),
        at_10: checkpoint(1),
        at_20: checkpoint(2),
        at_30: checkpoint(3),
        mean_length_to_se: total_length as f64 / n,
        reached_se: reached as f64 / n,
        length_cap: LENGTH_CAP,
        max_exposure_rate: exposures[most_used_item] as f64 / n,
        most_used_item,
        items_used: exposures.iter().filter(|&&count| count > 0).count(),
        examinees: thetas.len(),
        bank_size: bank.len(),
        seed,
        settings: *settings,
    })
}

/// One examinee's test; adds 1 to `exposures` for each item given.
fn examinee(
    bank: &ItemBank,
    theta: f64,
    settings: &CatSettings,
    rng: &mut ChaCha8Rng,
    exposures: &mut [usize],
) -> Result<Run, SimError> {
    let no_stop = StopRules { se_target: None, min_items: 0, max_items: None };
    let mut cat = Cat::new(bank, *settings, no_stop)?;
    let last_checkpoint = CHECKPOINTS[CHECKPOINTS.len() - 1].min(bank.len());
    let mut run = Run { at: [cat.estimate(); CHECKPOINTS.len()], length_to_target: None };
    for length in 1..=LENGTH_CAP {
        let Some(index) = cat.next_item(rng) else { break };
        let correct = rng.gen::<f64>() < bank.items()[index].p(theta);
        let Ok(estimate) = cat.record(index, correct) else { break };
        exposures[index] += 1;
        if run.length_to_target.is_none() && estimate.se <= SE_TARGET {
            run.length_to_target = Some(length);
        }
        for (at, &k) in run.at.iter_mut().zip(&CHECKPOINTS) {
            if length == k.min(bank.len()) {
                *at = estimate;
            }
        }
        if length >= last_checkpoint && run.length_to_target.is_some() {
            break;
        }
    }
    Ok(run)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ItemParams;
    use crate::settings::{Estimator, Selection};
    use crate::synthetic::{random_3pl_bank, standard_normal_thetas};

    fn setup(bank_size: usize, examinees: usize) -> (ItemBank, Vec<f64>) {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        (random_3pl_bank(bank_size, &mut rng).unwrap(), standard_normal_thetas(examinees, &mut rng))
    }

    #[test]
    fn estimates_improve_with_length_and_a_seed_reproduces_the_report() {
        let (bank, thetas) = setup(200, 150);
        let report = simulate(&bank, &thetas, 5, &CatSettings::default()).unwrap();
        assert!(report.at_30.rmse < report.at_10.rmse && report.at_10.rmse < report.at_5.rmse, "{report:?}");
        assert!(report.at_30.mean_se < report.at_5.mean_se);
        assert!(report.at_30.bias.abs() < 0.1 && report.at_30.rmse < 0.4, "{report:?}");
        // The mean SE should track the actual error when the model is right.
        assert!((report.at_30.mean_se / report.at_30.rmse - 1.0).abs() < 0.25, "{report:?}");
        assert!(report.mean_length_to_se > 5.0 && report.mean_length_to_se <= 60.0);
        assert_eq!(report, simulate(&bank, &thetas, 5, &CatSettings::default()).unwrap());
        assert_ne!(report, simulate(&bank, &thetas, 6, &CatSettings::default()).unwrap());
    }

    #[test]
    fn mle_and_randomesque_run_too() {
        let (bank, thetas) = setup(100, 40);
        let mle = CatSettings { estimator: Estimator::Mle, ..CatSettings::default() };
        let report = simulate(&bank, &thetas, 1, &mle).unwrap();
        assert!(report.at_30.rmse < report.at_5.rmse && report.at_30.mean_se.is_finite(), "{report:?}");
        let randomesque = CatSettings { randomesque: 5, ..CatSettings::default() };
        assert!(simulate(&bank, &thetas, 1, &randomesque).unwrap().at_30.rmse < 0.6);
    }

    #[test]
    fn a_bank_smaller_than_the_checkpoints_reports_after_the_whole_bank() {
        let (bank, thetas) = setup(12, 20);
        let report = simulate(&bank, &thetas, 1, &CatSettings::default()).unwrap();
        assert_eq!([report.at_5.items, report.at_10.items, report.at_20.items, report.at_30.items], [5, 10, 12, 12]);
        assert_eq!(report.at_20, report.at_30);
        assert_eq!(report.bank_size, 12);
        // Twelve 3PL items cannot bring the SE to 0.3: every examinee counts as the cap.
        assert_eq!((report.mean_length_to_se, report.reached_se), (60.0, 0.0));
    }

    #[test]
    fn every_selection_rule_is_reproduced_by_its_seed() {
        let (bank, thetas) = setup(120, 30);
        for selection in Selection::ALL {
            let settings = CatSettings { selection, randomesque: 3, ..CatSettings::default() };
            let report = simulate(&bank, &thetas, 4, &settings).unwrap();
            assert_eq!(report.settings.selection, selection);
            assert!(report.at_30.rmse < report.at_5.rmse, "{selection}: {report:?}");
            assert_eq!(report, simulate(&bank, &thetas, 4, &settings).unwrap(), "{selection}");
            assert_ne!(report, simulate(&bank, &thetas, 5, &settings).unwrap(), "{selection}");
        }
    }

    #[test]
    fn the_exposure_of_the_most_used_item_counts_examinees_given_it() {
        // Two items: every examinee takes both, the first of the tied items is named.
        let bank = ItemBank::new(vec![ItemParams::three_pl(1.0, 0.5, 0.0).unwrap(); 2]).unwrap();
        let report = simulate(&bank, &[0.0, 1.0, -1.0], 1, &CatSettings::default()).unwrap();
        assert_eq!((report.max_exposure_rate, report.most_used_item, report.items_used), (1.0, 0, 2));
        // Without randomesque every test opens with the same item.
        let (bank, thetas) = setup(150, 40);
        let report = simulate(&bank, &thetas, 2, &CatSettings::default()).unwrap();
        assert_eq!(report.max_exposure_rate, 1.0);
        // With it, the count matches the items each examinee was given, tallied here again.
        let settings = CatSettings { randomesque: 10, ..CatSettings::default() };
        let report = simulate(&bank, &thetas, 2, &settings).unwrap();
        let mut given = vec![0usize; bank.len()];
        for (index, &theta) in thetas.iter().enumerate() {
            let mut rng = ChaCha8Rng::seed_from_u64(2);
            rng.set_stream(index as u64);
            let mut own = vec![0usize; bank.len()];
            examinee(&bank, theta, &settings, &mut rng, &mut own).unwrap();
            assert!(own.iter().all(|&count| count <= 1) && own.iter().sum::<usize>() >= 30);
            given.iter_mut().zip(&own).for_each(|(total, count)| *total += count);
        }
        let most = *given.iter().max().unwrap();
        assert_eq!(report.max_exposure_rate, most as f64 / 40.0);
        assert_eq!(given[report.most_used_item], most);
        assert_eq!(given.iter().position(|&count| count == most), Some(report.most_used_item));
        assert_eq!(report.items_used, given.iter().filter(|&&count| count > 0).count());
        assert!(report.max_exposure_rate < 1.0 && report.items_used > 60, "{report:?}");
    }

    #[test]
    fn a_single_item_bank_still_reports() {
        let bank = ItemBank::new(vec![ItemParams::three_pl(1.0, 0.0, 0.0).unwrap()]).unwrap();
        let report = simulate(&bank, &[0.0, 1.0], 1, &CatSettings::default()).unwrap();
        assert_eq!(report.at_5.items, 1);
        assert!(report.at_5.mean_se < 1.0);
    }

    #[test]
    fn bad_input_is_refused() {
        let (bank, _) = setup(10, 0);
        assert_eq!(simulate(&bank, &[], 1, &CatSettings::default()), Err(SimError::NoExaminees));
        assert_eq!(
            simulate(&bank, &[0.0, f64::NAN], 1, &CatSettings::default()).unwrap_err().to_string(),
            "theta 1 = NaN is not a finite number; allowed: finite numbers"
        );
        let bad = CatSettings { randomesque: 0, ..CatSettings::default() };
        assert!(matches!(simulate(&bank, &[0.0], 1, &bad), Err(SimError::Settings(_))));
    }

    #[test]
    fn thetas_parse_and_errors_name_the_element() {
        assert_eq!(parse_thetas("[0, -1.5, 2e0]").unwrap(), vec![0.0, -1.5, 2.0]);
        assert_eq!(parse_thetas("[]"), Err(ThetasError::Empty));
        let error = parse_thetas(r#"[0, "high"]"#).unwrap_err().to_string();
        assert!(error.starts_with("theta 1: invalid type: string \"high\", expected f64"), "{error}");
        let error = parse_thetas("[0] [1]").unwrap_err().to_string();
        assert!(error.starts_with("the file: trailing characters"), "{error}");
    }
}
