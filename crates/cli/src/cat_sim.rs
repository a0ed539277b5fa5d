//! `pathwise cat-sim`: simulated adaptive tests at known abilities, reported as JSON. Needs
//! no database or configuration; the work is `pathwise_irt::simulate`, whose documentation
//! describes the protocol and the report.
//!
//! - `--bank FILE --thetas FILE`: a bank and abilities of one's own.
//! - `--generate N [--examinees M]`: an N-item 3PL bank from `synthetic::random_3pl_bank`
//!   and M abilities from N(0, 1), both drawn from `--seed`, so that rules and settings
//!   compare on a bank and population anyone can reproduce with no files.
//! - `--selection RULE` picks the item selection rule; `--compare` runs every rule on the
//!   same bank, abilities and seed and prints the reports side by side, by rule name.

use anyhow::{Context, Result};
use pathwise_irt::{CatSettings, Estimator, ItemBank, Selection, SimReport};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct CatSimFlags {
    /// The item bank: a JSON array of items {"a", "b", "c"} with an optional upper asymptote
    /// "d" (a defaults to 1, c to 0, d to 1; logistic metric, D = 1). Needs --thetas; or
    /// use --generate instead.
    #[arg(long, required_unless_present = "generate", requires = "thetas", conflicts_with = "generate")]
    bank: Option<PathBuf>,
    /// The examinees' true abilities: a JSON array of numbers. Needs --bank.
    #[arg(long, requires = "bank", conflicts_with = "generate")]
    thetas: Option<PathBuf>,
    /// Instead of --bank and --thetas: a generated 3PL bank of this many items (1-100000;
    /// a ~ 1.2 exp(0.3 z), b ~ N(0, 1), c ~ U(0.1, 0.25)) and --examinees abilities from
    /// N(0, 1), both drawn from --seed.
    #[arg(long, value_name = "ITEMS", value_parser = clap::value_parser!(u64).range(1..=100_000))]
    generate: Option<u64>,
    /// With --generate: how many examinees (1-1000000).
    #[arg(long, default_value_t = 1000, requires = "generate", value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    examinees: u64,
    /// Seed of the simulated answers (and of the generated bank and abilities); the same
    /// seed gives the same report.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The ability estimator: eap (the default: N(0, 1) prior) or mle.
    #[arg(long, default_value = "eap", value_parser = ["eap", "mle"])]
    estimator: String,
    /// The item selection rule: max_info (Fisher information at the estimate),
    /// posterior_weighted_info (Fisher information averaged over the posterior) or kl
    /// (Kullback-Leibler information averaged over the posterior). Default: the engine's
    /// default rule.
    #[arg(long, value_parser = ["max_info", "posterior_weighted_info", "kl"], conflicts_with = "compare")]
    selection: Option<String>,
    /// Run every selection rule on the same bank, abilities and seed and print their
    /// reports side by side: one JSON object keyed by rule name.
    #[arg(long)]
    compare: bool,
    /// Choose among this many best items at random (exposure control); 1, the default,
    /// always takes the best.
    #[arg(long, default_value_t = 1)]
    randomesque: usize,
}

pub fn run(flags: CatSimFlags) -> Result<()> {
    let (bank, thetas) = population(&flags)?;
    let estimator = if flags.estimator == "mle" { Estimator::Mle } else { Estimator::Eap };
    let settings = CatSettings { estimator, randomesque: flags.randomesque, ..CatSettings::default() };
    if flags.compare {
        let mut reports = Map::new();
        for selection in Selection::ALL {
            let report = simulate(&bank, &thetas, flags.seed, CatSettings { selection, ..settings })?;
            reports.insert(selection.name().to_string(), serde_json::to_value(report)?);
        }
        return crate::output::json(&Value::Object(reports));
    }
    let selection = match &flags.selection {
        // clap has already refused names outside the list.
        Some(name) => name.parse::<Selection>()?,
        None => settings.selection,
    };
    crate::output::json(&simulate(&bank, &thetas, flags.seed, CatSettings { selection, ..settings })?)
}

fn simulate(bank: &ItemBank, thetas: &[f64], seed: u64, settings: CatSettings) -> Result<SimReport> {
    Ok(pathwise_irt::simulate(bank, thetas, seed, &settings)?)
}

/// The bank and abilities: read from the files, or generated from the seed.
fn population(flags: &CatSimFlags) -> Result<(ItemBank, Vec<f64>)> {
    if let Some(items) = flags.generate {
        let population = pathwise_irt::synthetic::population(items as usize, flags.examinees as usize, flags.seed)?;
        return Ok(population);
    }
    // clap requires --bank and --thetas together unless --generate is given.
    let (Some(bank_path), Some(thetas_path)) = (&flags.bank, &flags.thetas) else {
        anyhow::bail!("give --bank FILE and --thetas FILE, or --generate ITEMS");
    };
    let bank = ItemBank::from_json(&read(bank_path)?).map_err(|e| anyhow::anyhow!("{}: {e}", bank_path.display()))?;
    let thetas = pathwise_irt::parse_thetas(&read(thetas_path)?)
        .map_err(|e| anyhow::anyhow!("{}: {e}", thetas_path.display()))?;
    Ok((bank, thetas))
}

fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))
}
