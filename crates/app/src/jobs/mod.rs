//! Jobs: the scheduler that runs due jobs (recurring ones from the configuration, and the
//! learners' own), and the review jobs kept in step with the maps.

pub mod review_jobs;
pub mod scheduler;
