//! Map lifecycle: draft -> active -> completed | abandoned.

use crate::model::{MapAggregate, Metadata, MindMap};
use crate::order;
use crate::status::{MapStatus, MasteryStatus};
use crate::{DomainError, LearnerId, MindMapId};
use chrono::{DateTime, Utc};

pub const MAX_TITLE_CHARS: usize = 200;

/// A new, empty map in `draft`.
pub fn new_map(
    id: MindMapId,
    learner_id: LearnerId,
    title: &str,
    metadata: Metadata,
    now: DateTime<Utc>,
) -> Result<MindMap, DomainError> {
    Ok(MindMap {
        id,
        learner_id,
        title: clean_text("title", title, MAX_TITLE_CHARS)?,
        root_node_id: None,
        status: MapStatus::Draft,
        metadata,
        created_at: now,
        updated_at: now,
    })
}

/// Trim a required piece of text and check its length.
pub fn clean_text(field: &str, text: &str, max_chars: usize) -> Result<String, DomainError> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(DomainError::invalid(field, "must not be empty"));
    }
    if trimmed.chars().count() > max_chars {
        return Err(DomainError::invalid(field, format!("must be at most {max_chars} characters")));
    }
    Ok(trimmed.to_string())
}

/// Refuse graph edits on maps that are finished.
pub fn require_editable(map: &MindMap, operation: &'static str) -> Result<(), DomainError> {
    match map.status {
        MapStatus::Draft | MapStatus::Active => Ok(()),
        status => Err(DomainError::MapNotOpen { status, operation, needs: "draft or active" }),
    }
}

/// Refuse operations that only make sense while learning is under way.
pub fn require_active(map: &MindMap, operation: &'static str) -> Result<(), DomainError> {
    match map.status {
        MapStatus::Active => Ok(()),
        status => Err(DomainError::MapNotOpen { status, operation, needs: "active" }),
    }
}

fn allowed_from(from: MapStatus) -> &'static [MapStatus] {
    use MapStatus::*;
    match from {
        Draft => &[Active, Abandoned],
        Active => &[Completed, Abandoned],
        Completed | Abandoned => &[],
    }
}

/// Move a map to another status by request, enforcing the lifecycle.
pub fn change_status(agg: &mut MapAggregate, to: MapStatus, now: DateTime<Utc>) -> Result<(), DomainError> {
    let from = agg.map.status;
    if from == to {
        return Ok(());
    }
    let allowed = allowed_from(from);
    if !allowed.contains(&to) {
        return Err(DomainError::invalid_transition("status", from, to, allowed));
    }
    match to {
        MapStatus::Active if agg.nodes.is_empty() => {
            return Err(DomainError::Conflict {
                message: "status: a map becomes active only once it has nodes; add a root node first".into(),
            })
        }
        MapStatus::Active => order::assign_sequence(agg),
        MapStatus::Completed if !all_mastered(agg) => {
            return Err(DomainError::Conflict {
                message: "status: a map is completed when every node is mastered, and some are not".into(),
            })
        }
        _ => {}
    }
    agg.map.status = to;
    agg.map.updated_at = now;
    Ok(())
}

/// Every concept of the map is mastered (a node that only groups others is not one).
fn all_mastered(agg: &MapAggregate) -> bool {
    let mut concepts = agg.nodes.iter().filter(|n| !n.is_grouping()).peekable();
    concepts.peek().is_some() && concepts.all(|n| n.mastery_status == MasteryStatus::Mastered)
}

/// An active map whose last node was just mastered completes by itself.
pub fn complete_if_all_mastered(agg: &mut MapAggregate, now: DateTime<Utc>) -> bool {
    if agg.map.status == MapStatus::Active && all_mastered(agg) {
        agg.map.status = MapStatus::Completed;
        agg.map.updated_at = now;
        true
    } else {
        false
    }
}
