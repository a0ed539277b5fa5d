//! Item response theory: 1PL-4PL models, ability estimation, adaptive item selection and simulation.
//!
//! The engine of computerized adaptive testing (CAT): after each answer the ability
//! estimate is updated and the next item is the one that tells most about the examinee at
//! that estimate, until the estimate is precise enough. The crate does no I/O and reads no
//! clock; randomness comes from an `Rng` or a seed the caller passes.
//!
//! - [`model`]: an item's 4PL parameters, P(correct) and Fisher information (D = 1).
//! - [`bank`]: a validated item bank, read from JSON with errors naming the item at fault;
//!   it keeps its items' values on the quadrature grid once a selection rule needs them.
//! - [`posterior`]: EAP estimation on a quadrature grid, updated incrementally; its weights
//!   and support for the selection rules that average over it.
//! - [`mle`]: maximum likelihood by bounded Fisher scoring.
//! - [`selection`]: item selection by maximum information at the estimate, by Fisher
//!   information averaged over the posterior, or by posterior-weighted Kullback-Leibler
//!   information (KLP); randomesque, with a filter.
//! - [`settings`]: estimator, prior, grid, selection and stop rules; the defaults are the
//!   project's best settings and say why.
//! - [`cat`]: one examinee's adaptive test.
//! - [`simulation`]: simulated tests at known abilities, the precision they reach and the
//!   exposure of the most used item.
//! - [`synthetic`]: random banks and abilities, and a bank and population from one seed.

pub mod bank;
pub mod cat;
mod json;
pub mod mle;
pub mod model;
pub mod posterior;
pub mod selection;
pub mod settings;
pub mod simulation;
pub mod synthetic;

pub use bank::{BankError, ItemBank};
pub use cat::{Cat, CatError, Response, StopReason};
pub use mle::{mle, test_information};
pub use model::{ItemError, ItemParams, SCALE};
pub use posterior::Posterior;
pub use selection::{select_item, select_item_by};
pub use settings::{CatSettings, Estimator, Grid, MleSettings, NormalPrior, Selection, SettingsError, StopRules};
pub use simulation::{parse_thetas, simulate, Checkpoint, SimError, SimReport, ThetasError};

use serde::{Deserialize, Serialize};

/// An ability estimate and its standard error.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    pub theta: f64,
    pub se: f64,
}
