//! A learner's history as a review log (`item_id,timestamp,grade,rating`, the format
//! `pathwise srs-eval` reads): one row per response, oldest first, each concept an item
//! whose first response is its introduction. So a learner can see which scheduler, SM-2 or
//! FSRS, would have served them better.

use crate::stores::MasteryStores;
use crate::{App, AppResult};
use pathwise_domain::LearnerId;
use pathwise_srs::{write_review_log, ReviewRow};
use pathwise_store::ResponseFilter;

/// Responses read per query.
const PAGE: i64 = 500;

impl<S: MasteryStores> App<S> {
    pub async fn review_log(&self, learner: LearnerId) -> AppResult<String> {
        let filter = ResponseFilter::default();
        let mut rows = Vec::new();
        loop {
            let page = self.store.list_responses(learner, &filter, rows.len() as i64, PAGE).await?;
            let done = (page.items.len() as i64) < PAGE;
            rows.extend(page.items.into_iter().map(|r| ReviewRow {
                item_id: r.node_id.to_string(),
                timestamp: r.responded_at,
                grade: r.quality,
                rating: r.rating,
            }));
            if done {
                break;
            }
        }
        rows.sort_by(|a, b| (a.timestamp, &a.item_id).cmp(&(b.timestamp, &b.item_id)));
        Ok(write_review_log(&rows))
    }
}
