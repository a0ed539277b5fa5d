//! The analytics-to-curriculum feedback loop: when a map's figures call for a re-plan.

use crate::metrics::MapMetrics;
use pathwise_domain::model::NodeProgress;
use pathwise_domain::NodeId;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A map with at least this many struggling nodes is re-planned.
pub const REPLAN_STRUGGLING_NODES: usize = 3;
/// A map whose 7-day retention is below this (and that had reviews) is re-planned.
pub const REPLAN_RETENTION_BELOW: f64 = 0.60;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReplanCause {
    /// At least [`REPLAN_STRUGGLING_NODES`] struggling nodes.
    StrugglingNodes,
    /// 7-day retention below [`REPLAN_RETENTION_BELOW`].
    LowRetention,
}

/// Why a map should be re-planned, for `curriculum_replan(reason = ...)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema, schemars::JsonSchema)]
pub struct ReplanTrigger {
    pub causes: Vec<ReplanCause>,
    /// For a person or a model, naming the figures: "3 struggling concepts: Ownership,
    /// Borrowing, Lifetimes; 7-day retention 0.52 is below 0.60".
    pub reason: String,
    /// Every struggling node, whichever cause fired, in the order of the metrics.
    pub struggling_node_ids: Vec<NodeId>,
    pub retention_rate_7d: Option<f64>,
}

/// Whether the map these metrics describe should be re-planned: when it has 3 or more
/// struggling nodes, or a 7-day retention below 0.60 (only when it had review responses
/// in the window: `retention_rate_7d` is then not null). `nodes` supply the labels; a node
/// missing from them is named by its id. Whether the map is active is the caller's check.
pub fn replan_trigger(metrics: &MapMetrics, nodes: &[NodeProgress]) -> Option<ReplanTrigger> {
    let mut causes = Vec::new();
    let mut reasons = Vec::new();
    let struggling = &metrics.struggling_nodes;
    if struggling.len() >= REPLAN_STRUGGLING_NODES {
        let labels: Vec<String> = struggling
            .iter()
            .map(|id| nodes.iter().find(|n| n.id == *id).map_or_else(|| id.to_string(), |n| n.label.clone()))
            .collect();
        causes.push(ReplanCause::StrugglingNodes);
        reasons.push(format!("{} struggling concepts: {}", struggling.len(), labels.join(", ")));
    }
    if let Some(rate) = metrics.retention_rate_7d.filter(|&rate| rate < REPLAN_RETENTION_BELOW) {
        causes.push(ReplanCause::LowRetention);
        reasons.push(format!("7-day retention {} is below {REPLAN_RETENTION_BELOW:.2}", rate_below(rate)));
    }
    (!causes.is_empty()).then(|| ReplanTrigger {
        causes,
        reason: reasons.join("; "),
        struggling_node_ids: struggling.clone(),
        retention_rate_7d: metrics.retention_rate_7d,
    })
}

/// A rate under the threshold with two decimals, or as many more as it takes not to
/// print "0.60 is below 0.60" for 0.5999.
fn rate_below(rate: f64) -> String {
    (2..=6)
        .map(|decimals| format!("{rate:.decimals$}"))
        .find(|text| text.parse::<f64>().is_ok_and(|shown| shown < REPLAN_RETENTION_BELOW))
        .unwrap_or_else(|| rate.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{node, node_id};
    use pathwise_domain::MasteryStatus::Learning;

    fn nodes() -> Vec<NodeProgress> {
        vec![
            node(1, "Ownership", Learning, 0.2),
            node(2, "Borrowing", Learning, 0.2),
            node(3, "Lifetimes", Learning, 0.1),
        ]
    }

    fn metrics(struggling: &[u128], retention: Option<f64>) -> MapMetrics {
        MapMetrics {
            struggling_nodes: struggling.iter().map(|&n| node_id(n)).collect(),
            retention_rate_7d: retention,
            ..Default::default()
        }
    }

    #[test]
    fn two_struggling_nodes_do_not_trigger_and_three_do() {
        assert_eq!(replan_trigger(&metrics(&[1, 2], Some(0.9)), &nodes()), None);
        let trigger = replan_trigger(&metrics(&[1, 2, 3], Some(0.9)), &nodes()).unwrap();
        assert_eq!(trigger.causes, vec![ReplanCause::StrugglingNodes]);
        assert_eq!(trigger.reason, "3 struggling concepts: Ownership, Borrowing, Lifetimes");
        assert_eq!(trigger.struggling_node_ids, vec![node_id(1), node_id(2), node_id(3)]);
    }

    #[test]
    fn retention_of_exactly_060_does_not_trigger_and_059_does() {
        assert_eq!(replan_trigger(&metrics(&[], Some(0.60)), &nodes()), None);
        assert_eq!(replan_trigger(&metrics(&[], Some(3.0 / 5.0)), &nodes()), None);
        let trigger = replan_trigger(&metrics(&[2], Some(0.59)), &nodes()).unwrap();
        assert_eq!(trigger.causes, vec![ReplanCause::LowRetention]);
        assert_eq!(trigger.reason, "7-day retention 0.59 is below 0.60");
        assert_eq!(trigger.struggling_node_ids, vec![node_id(2)], "the struggling nodes travel along");
    }

    #[test]
    fn without_reviews_there_is_no_retention_trigger() {
        assert_eq!(replan_trigger(&metrics(&[], None), &nodes()), None);
        assert_eq!(replan_trigger(&MapMetrics::default(), &[]), None);
    }

    #[test]
    fn both_causes_are_named_and_unknown_nodes_go_by_id() {
        let trigger = replan_trigger(&metrics(&[1, 2, 9], Some(0.52)), &nodes()).unwrap();
        assert_eq!(trigger.causes, vec![ReplanCause::StrugglingNodes, ReplanCause::LowRetention]);
        assert_eq!(
            trigger.reason,
            format!("3 struggling concepts: Ownership, Borrowing, {}; 7-day retention 0.52 is below 0.60", node_id(9))
        );
    }

    #[test]
    fn a_rate_just_under_the_threshold_is_not_rounded_up_to_it() {
        let trigger = replan_trigger(&metrics(&[], Some(0.5999)), &nodes()).unwrap();
        assert_eq!(trigger.reason, "7-day retention 0.5999 is below 0.60");
    }
}
