//! The store traits each group of capabilities uses, named once. A capability's
//! `impl<S: ...> App<S>` names its group; a group that calls another includes it, so the
//! dependency is written where the compiler checks it.

use crate::StoreHandle;
use pathwise_store::{
    AuthoringStore, EvidenceStore, FlowStore, JobStore, LearnerAdminStore, SessionStore, SnapshotStore, TutorStore,
    UsageStore,
};

/// A group of store traits as one bound, implemented by every store that has them all.
macro_rules! store_group {
    ($(#[$doc:meta])* $name:ident: $($trait:path),+) => {
        $(#[$doc])*
        pub trait $name: StoreHandle $(+ $trait)+ {}
        impl<T: StoreHandle $(+ $trait)+> $name for T {}
    };
}

/// FSRS's own group, declared with its service.
pub use crate::fsrs::FsrsStores;

store_group!(
    /// Recording evidence and reading mastery: a response on its node (with its key), its
    /// schedule, and the tiers of the course a map was made for.
    MasteryStores: FsrsStores, AuthoringStore, EvidenceStore, JobStore, TutorStore, UsageStore
);
store_group!(
    /// The learning loop's flows, which teach and review through mastery.
    TeachingStores: MasteryStores, FlowStore
);
store_group!(
    /// Sessions, whose runs teach, evaluate and record through the learning loop.
    SessionStores: TeachingStores, SessionStore
);
store_group!(
    /// Analytics and the nightly snapshot with its re-plan, over every learner.
    AnalyticsStores: MasteryStores, LearnerAdminStore, SnapshotStore
);
store_group!(
    /// The scheduler, which runs every kind of job.
    SchedulerStores: AnalyticsStores, FlowStore
);
