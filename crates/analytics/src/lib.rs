//! Pure learning analytics (learning-loop-design.md D6): a map's metrics, trends between
//! snapshots, a learner's portfolio, the re-plan trigger and the weekly digest.
//!
//! Like the domain crate, nothing here performs I/O, reads the clock or draws random
//! numbers: the application loads a map's nodes, edges, recent responses, totals and an
//! earlier snapshot, passes `now`, and gets what [`metrics::compute`] returns: the figures
//! every read shows, and what the nightly job stores as the day's row of
//! `analytics_snapshots`. Rules that the domain already states (struggle detection, the
//! prerequisite graph) are called, not restated.
//!
//! - [`metrics`]: [`MapMetrics`], the snapshot's `metrics` JSON, and [`compute`].
//! - [`activity`]: the windows, sessions and time-of-day buckets the metrics count in.
//! - [`mod@trend`]: the change between the oldest and newest snapshot of the last days.
//! - [`mod@portfolio`]: totals and the map needing most attention across a learner's maps.
//! - [`feedback`]: when a map should be re-planned, and why.
//! - [`digest`]: the facts of a weekly digest and their plain-text rendering.

pub mod activity;
pub mod digest;
pub mod feedback;
pub mod metrics;
pub mod portfolio;
pub mod trend;

#[cfg(test)]
mod fixtures;

pub use activity::{current_streak_days, streak_through, TimeOfDayDistribution};
pub use digest::{digest_facts, render_text, DigestFacts, DigestInput, DigestMapFacts, DigestMapInput, NamedNode};
pub use feedback::{replan_trigger, ReplanCause, ReplanTrigger};
pub use metrics::{compute, snapshot_date, MapInput, MapMetrics, ResponseTotals, ReviewTally, Snapshot};
pub use portfolio::{portfolio, Portfolio, PortfolioEntry, PortfolioMap};
pub use trend::{trend, CountChange, Direction, MapTrend, RateChange};
