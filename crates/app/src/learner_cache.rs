//! A value of each learner's trusted for a short while before it is read again: another
//! server may have changed it. Holds the learner's choice of scheduler and their FSRS
//! parameters, which every response of an FSRS learner needs and which rarely change, so
//! that SM-2 learners pay nothing and FSRS learners one read in a while.

use pathwise_domain::LearnerId;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a learner's cached value is trusted.
pub(crate) const TRUSTED_FOR: Duration = Duration::from_secs(30);

#[derive(Clone)]
pub(crate) struct LearnerCache<T> {
    trusted_for: Duration,
    entries: Arc<Mutex<HashMap<LearnerId, (T, Instant)>>>,
}

impl<T> Default for LearnerCache<T> {
    fn default() -> Self {
        LearnerCache { trusted_for: TRUSTED_FOR, entries: Arc::default() }
    }
}

impl<T: Clone> LearnerCache<T> {
    #[cfg(test)]
    fn trusted_for(trusted_for: Duration) -> Self {
        LearnerCache { trusted_for, entries: Arc::default() }
    }

    /// The learner's value, if it was kept recently enough to be trusted.
    pub(crate) fn get(&self, learner: LearnerId) -> Option<T> {
        let entries = self.entries.lock().expect("learner cache lock");
        entries.get(&learner).filter(|(_, at)| at.elapsed() < self.trusted_for).map(|(value, _)| value.clone())
    }

    pub(crate) fn keep(&self, learner: LearnerId, value: T) {
        self.entries.lock().expect("learner cache lock").insert(learner, (value, Instant::now()));
    }

    /// Read it again next time: this server changed it, or the learner is gone.
    pub(crate) fn forget(&self, learner: LearnerId) {
        self.entries.lock().expect("learner cache lock").remove(&learner);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use uuid::Uuid;

    #[test]
    fn a_kept_value_is_read_until_forgotten_and_each_learners_own() {
        let cache = LearnerCache::default();
        let (ada, bob) = (LearnerId(Uuid::from_u128(1)), LearnerId(Uuid::from_u128(2)));
        cache.keep(ada, 7);
        assert_eq!((cache.get(ada), cache.get(bob)), (Some(7), None));
        cache.forget(ada);
        assert_eq!(cache.get(ada), None);
    }

    #[test]
    fn a_value_past_its_trust_is_read_again() {
        let cache = LearnerCache::trusted_for(Duration::ZERO);
        let ada = LearnerId(Uuid::from_u128(1));
        cache.keep(ada, "fsrs");
        assert_eq!(cache.get(ada), None);
    }
}
