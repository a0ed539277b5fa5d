//! `pathwise cat-sim --bank FILE --thetas FILE [--seed N]`: simulated adaptive tests at known
//! abilities, reported as one JSON object. Needs no database or configuration; the work is
//! `pathwise_irt::simulate`, whose documentation describes the protocol and the report.

use anyhow::{Context, Result};
use pathwise_irt::{CatSettings, Estimator, ItemBank};
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct CatSimFlags {
    /// The item bank: a JSON array of items {"a", "b", "c"} with an optional upper asymptote
    /// "d" (a defaults to 1, c to 0, d to 1; logistic metric, D = 1).
    #[arg(long)]
    bank: PathBuf,
    /// The examinees' true abilities: a JSON array of numbers.
    #[arg(long)]
    thetas: PathBuf,
    /// Seed of the simulated answers; the same seed gives the same report.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The ability estimator: eap (the default: N(0, 1) prior) or mle.
    #[arg(long, default_value = "eap", value_parser = ["eap", "mle"])]
    estimator: String,
    /// Choose among this many most informative items at random (exposure control); 1 is
    /// maximum information, the default.
    #[arg(long, default_value_t = 1)]
    randomesque: usize,
}

pub fn run(flags: CatSimFlags) -> Result<()> {
    let bank =
        ItemBank::from_json(&read(&flags.bank)?).map_err(|e| anyhow::anyhow!("{}: {e}", flags.bank.display()))?;
    let thetas = pathwise_irt::parse_thetas(&read(&flags.thetas)?)
        .map_err(|e| anyhow::anyhow!("{}: {e}", flags.thetas.display()))?;
    let estimator = if flags.estimator == "mle" { Estimator::Mle } else { Estimator::Eap };
    let settings = CatSettings { estimator, randomesque: flags.randomesque, ..CatSettings::default() };
    let report = pathwise_irt::simulate(&bank, &thetas, flags.seed, &settings)?;
    crate::output::json(&report)
}

fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))
}
