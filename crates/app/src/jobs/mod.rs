//! Jobs: the scheduler that runs due jobs (recurring ones from the configuration, and the
//! learners' own). A job calls a capability, never the reverse: what a job keeps in step
//! (a map's review jobs) is planned by `review_schedule`, below every capability.

pub mod scheduler;
