//! The rules a response is recorded by: which maps take one, and the node as the response
//! leaves it. A store reads a [`ResponseContext`] inside its write transaction, asks
//! [`ResponseRules::decide`], and writes the [`ResponseDecision`] it gets back, so that the
//! rule and the write cannot drift apart under concurrent responses.

use crate::mastery::{self, MasteryState, Quality, RecentHistory};
use crate::model::Node;
use crate::{DomainError, MapStatus, MasteryStatus, ResponseType};
use chrono::{DateTime, Utc};

/// What the rules read before a response is recorded.
#[derive(Debug, Clone, PartialEq)]
pub struct ResponseContext {
    pub map_status: MapStatus,
    pub node: Node,
    pub history: RecentHistory,
}

/// What the rules decided: the node as it must be after the response.
#[derive(Debug, Clone, PartialEq)]
pub struct ResponseDecision {
    pub node: Node,
    /// The node became mastered; the map completes if no other node is left unmastered.
    pub became_mastered: bool,
    /// The node's recent history with this response, stored with the node.
    pub history: RecentHistory,
}

/// The rules for one response: its quality and kind, at the time it was given. (A plain
/// value rather than a closure, so that whoever carries it across an `await` stays `Send`.)
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ResponseRules {
    pub quality: Quality,
    pub response_type: ResponseType,
    pub now: DateTime<Utc>,
    /// What other evidence shows of the concept already (a course unit's tier, which an
    /// exam earned): the node is never left below it. `None` for a plain response.
    pub floor: Option<MasteryStatus>,
}

impl ResponseRules {
    /// The node as the response leaves it; refused on a map that is not open (a draft is
    /// still being built, an abandoned map is closed).
    pub fn decide(&self, ctx: &ResponseContext) -> Result<ResponseDecision, DomainError> {
        if matches!(ctx.map_status, MapStatus::Draft | MapStatus::Abandoned) {
            return Err(DomainError::MapNotOpen {
                status: ctx.map_status,
                operation: "recording a response",
                needs: "active or completed",
            });
        }
        let outcome = mastery::apply_response(
            &MasteryState::of(&ctx.node),
            &ctx.history,
            self.quality,
            self.response_type,
            self.now,
        );
        let mut node = ctx.node.clone();
        outcome.state.write_to(&mut node);
        if let Some(floor) = self.floor.filter(|floor| floor.rank() > node.mastery_status.rank()) {
            node.mastery_status = floor;
        }
        node.updated_at = self.now;
        let became_mastered =
            ctx.node.mastery_status != MasteryStatus::Mastered && node.mastery_status == MasteryStatus::Mastered;
        if node.mastery_status == MasteryStatus::Mastered && node.mastered_at.is_none() {
            // The answer's own time: an imported review of weeks ago mastered it then.
            node.mastered_at = Some(self.now);
        }
        Ok(ResponseDecision { node, became_mastered, history: outcome.history })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Metadata;
    use crate::{MindMapId, NodeId};
    use uuid::Uuid;

    fn at(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text).unwrap().with_timezone(&Utc)
    }

    fn context(map_status: MapStatus) -> ResponseContext {
        let node = Node::new(
            NodeId(Uuid::nil()),
            MindMapId(Uuid::nil()),
            "Fractions".into(),
            None,
            None,
            Metadata::new(),
            at("2026-03-01T09:00:00Z"),
        );
        ResponseContext { map_status, node, history: RecentHistory::default() }
    }

    fn rules(quality: i64) -> ResponseRules {
        ResponseRules {
            quality: Quality::new(quality).unwrap(),
            response_type: ResponseType::Teach,
            now: at("2026-03-01T10:00:00Z"),
            floor: None,
        }
    }

    #[test]
    fn a_tier_puts_the_node_at_least_where_it_says_and_never_lower() {
        let gold = ResponseRules { floor: Some(MasteryStatus::Mastered), ..rules(5) };
        let decided = gold.decide(&context(MapStatus::Active)).unwrap();
        assert_eq!(decided.node.mastery_status, MasteryStatus::Mastered);
        assert!(decided.became_mastered, "the map may complete");
        let bronze = ResponseRules { floor: Some(MasteryStatus::Reviewing), ..rules(1) };
        assert_eq!(bronze.decide(&context(MapStatus::Active)).unwrap().node.mastery_status, MasteryStatus::Reviewing);
        let mut mastered = context(MapStatus::Active);
        mastered.node.mastery_status = MasteryStatus::Mastered;
        let decided = bronze.decide(&mastered).unwrap();
        assert_eq!(decided.node.mastery_status, MasteryStatus::Mastered, "a floor never lowers");
        assert!(!decided.became_mastered);
    }

    #[test]
    fn a_node_is_dated_mastered_by_the_answer_that_mastered_it_and_keeps_that_date() {
        let old = at("2025-10-01T08:00:00Z");
        let gold = ResponseRules { floor: Some(MasteryStatus::Mastered), now: old, ..rules(5) };
        let decided = gold.decide(&context(MapStatus::Active)).unwrap();
        assert_eq!(decided.node.mastered_at, Some(old), "the answer's own time, however long ago");
        let again = ResponseContext { node: decided.node, ..context(MapStatus::Active) };
        let later = rules(5).decide(&again).unwrap();
        assert_eq!(later.node.mastered_at, Some(old), "first mastered then, not by a later answer");
        let learning = rules(5).decide(&context(MapStatus::Active)).unwrap();
        assert_eq!(learning.node.mastered_at, None, "not mastered");
    }

    #[test]
    fn a_draft_or_abandoned_map_takes_no_response() {
        for status in [MapStatus::Draft, MapStatus::Abandoned] {
            let refused = rules(5).decide(&context(status)).unwrap_err();
            assert!(matches!(refused, DomainError::MapNotOpen { status: s, .. } if s == status), "{refused:?}");
        }
    }

    #[test]
    fn an_open_map_takes_a_response_and_the_node_moves_with_it() {
        for status in [MapStatus::Active, MapStatus::Completed] {
            let decided = rules(5).decide(&context(status)).unwrap();
            assert_eq!(
                decided.node.mastery_status,
                MasteryStatus::Learning,
                "a first answer while taught starts learning"
            );
            assert!(decided.node.mastery_score > 0.0);
            assert_eq!(decided.node.repetitions, 1);
            assert_eq!(decided.node.last_reviewed_at, Some(at("2026-03-01T10:00:00Z")));
            assert_eq!(decided.node.updated_at, at("2026-03-01T10:00:00Z"));
            assert_eq!(decided.history.qualities, vec![5]);
            assert!(!decided.became_mastered);
        }
    }
}
