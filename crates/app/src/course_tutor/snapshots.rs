//! A learner's snapshot of a course: made on first use together with the learner's map of
//! the course (one node per unit, whose mastery the drill and exam evidence moves), read,
//! and written back by compare-and-set.

use super::catalog::LoadedCourse;
use crate::StoreHandle;
use crate::{App, AppError, AppResult, ErrorCode, ErrorKind};
use chrono::{DateTime, Utc};
use pathwise_course::{Course, StudentSnapshot};
use pathwise_domain::curriculum::assign_sequence;
use pathwise_domain::graph::{recompute_depths, GraphLimits, COURSE_KEY};
use pathwise_domain::mastery::TierCounts;
use pathwise_domain::model::{Edge, MapAggregate, MapChanges, Metadata, MindMap, Node};
use pathwise_domain::{EdgeType, LearnerId, MapStatus, MindMapId, NodeId};
use pathwise_store::{AuthoringStore, JobStore, MapStore, TutorStore};
use pathwise_store::{CourseMap, SnapshotRecord, TutorCommit, TutorStep};
use serde_json::json;

/// How often a step is tried when the snapshot changes under it.
const SNAPSHOT_RETRIES: usize = 5;

/// A snapshot as read, with the version a write must find.
#[derive(Debug, Clone)]
pub(crate) struct VersionedSnapshot {
    pub record: SnapshotRecord,
    pub snapshot: StudentSnapshot,
}

impl VersionedSnapshot {
    /// The record to store for `snapshot` as the next version.
    pub fn next(&self, snapshot: &StudentSnapshot, now: DateTime<Utc>) -> AppResult<SnapshotRecord> {
        Ok(SnapshotRecord {
            snapshot: serde_json::to_value(snapshot)
                .map_err(|e| AppError::internal(format!("snapshot to JSON: {e}")))?,
            version: self.record.version + 1,
            updated_at: now,
            ..self.record.clone()
        })
    }

    pub fn map(&self) -> Option<MindMapId> {
        self.record.mind_map_id
    }
}

fn is_conflict(error: &AppError) -> bool {
    error.kind == ErrorKind::Conflict && error.code == ErrorCode::Conflict
}

impl<S: StoreHandle + AuthoringStore + JobStore + MapStore + TutorStore> App<S> {
    /// The learner's snapshot of a course, made (with the learner's map of the course) on
    /// first use (`getOrCreateSnapshot`).
    pub(crate) async fn course_snapshot(
        &self,
        learner: LearnerId,
        loaded: &LoadedCourse,
    ) -> AppResult<VersionedSnapshot> {
        let course = &loaded.course;
        if let Some(record) = self.store.get_tutor_snapshot(learner, course.id()).await? {
            return read(record);
        }
        let now = self.now();
        let snapshot = StudentSnapshot::new(&learner.to_string(), course.id(), course.entry_unit(), now);
        let map = course_map(course, learner, now)?;
        let record = SnapshotRecord {
            learner_id: learner,
            course_id: course.id().to_string(),
            snapshot: serde_json::to_value(&snapshot)
                .map_err(|e| AppError::internal(format!("snapshot to JSON: {e}")))?,
            version: 1,
            mind_map_id: Some(map.map.id),
            updated_at: now,
        };
        if !self.store.insert_tutor_snapshot(&record, Some(&map)).await? {
            // Made meanwhile by another request: use that one.
            let record = self.store.get_tutor_snapshot(learner, course.id()).await?;
            return read(record.ok_or_else(|| AppError::internal("a snapshot vanished right after it was made"))?);
        }
        self.review_jobs.sync(learner, map.map.id).await?;
        Ok(VersionedSnapshot { record, snapshot })
    }

    /// Write `step` with the snapshot as `change` leaves it, by compare-and-set; when the
    /// snapshot changed meanwhile (evidence from another tab), `change` is applied to the
    /// stored one and the step tried again. Answers the snapshot as written and what the
    /// step stored.
    pub(crate) async fn commit_with_snapshot(
        &self,
        learner: LearnerId,
        loaded: &LoadedCourse,
        mut snap: VersionedSnapshot,
        step: TutorStep<'_>,
        change: impl Fn(&mut StudentSnapshot),
    ) -> AppResult<(VersionedSnapshot, TutorCommit)> {
        let now = step.at.unwrap_or_else(|| self.now());
        for attempt in 1.. {
            change(&mut snap.snapshot);
            let record = snap.next(&snap.snapshot, now)?;
            match self.store.commit_tutor_step(TutorStep { snapshot: Some(&record), ..step.clone() }).await {
                Ok(commit) => {
                    snap.record = record;
                    return Ok((snap, commit));
                }
                Err(e) => {
                    let e = AppError::from(e);
                    if !is_conflict(&e) || attempt >= SNAPSHOT_RETRIES {
                        return Err(e);
                    }
                    snap = self.course_snapshot(learner, loaded).await?;
                }
            }
        }
        unreachable!("the loop returns")
    }

    /// On the learner's map of a course, the course's units at each tier, as the tutor counts
    /// them (its "Progress"); `None` for any other map, or a course no longer installed. The
    /// one place Maps and Progress read tiers from, so that they tell the tutor's story.
    pub(crate) async fn course_tiers(&self, learner: LearnerId, map: &MindMap) -> AppResult<Option<TierCounts>> {
        let Some(course_id) = map.metadata.get(COURSE_KEY).and_then(|v| v.as_str()) else { return Ok(None) };
        let loaded = match self.course(course_id).await {
            Ok(loaded) => loaded,
            Err(e) if e.kind == ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        let snapshot = match self.store.get_tutor_snapshot(learner, course_id).await? {
            Some(record) => read(record)?.snapshot,
            None => StudentSnapshot::new(&learner.to_string(), course_id, loaded.course.entry_unit(), self.now()),
        };
        let p = pathwise_course::lite::progress(&loaded.course, &snapshot);
        Ok(Some(TierCounts { bronze: p.bronze, silver: p.silver, gold: p.gold, total: p.total }))
    }

    /// The node standing for `unit` on the learner's map of the course, if there is one.
    pub(crate) async fn unit_node(
        &self,
        learner: LearnerId,
        snapshot: &VersionedSnapshot,
        unit: &str,
    ) -> AppResult<Option<(MindMapId, NodeId)>> {
        let Some(map) = snapshot.map() else { return Ok(None) };
        Ok(self.store.course_unit_node(learner, map, unit).await?.map(|node| (map, node)))
    }
}

fn read(record: SnapshotRecord) -> AppResult<VersionedSnapshot> {
    let snapshot = serde_json::from_value(record.snapshot.clone())
        .map_err(|e| AppError::internal(format!("stored snapshot is unreadable: {e}")))?;
    Ok(VersionedSnapshot { record, snapshot })
}

/// The learner's map of a course: a node per unit (labelled with its title, described by
/// its anchor), an edge per prerequisite, depths and a learning order computed by the same
/// rules as any map's. The entry unit is the root when it is the only unit without
/// prerequisites (so the map's nodes are exactly the course's units, and its counts are the
/// course's); a course with several such units gets a root for the course to hang them from.
pub(crate) fn course_map(course: &Course, learner: LearnerId, now: DateTime<Utc>) -> AppResult<CourseMap> {
    let new_id = uuid::Uuid::now_v7;
    let map_id = MindMapId(new_id());
    let mut unit_nodes = Vec::with_capacity(course.units().len());
    let mut nodes = Vec::with_capacity(course.units().len() + 1);
    for unit in course.units() {
        let id = NodeId(new_id());
        let mut meta = Metadata::new();
        meta.insert("unit_id".into(), json!(unit.id));
        let effort = unit.effort_minutes.map(|m| m.min(i32::MAX as u32) as i32);
        nodes.push(Node::new(id, map_id, unit.title.clone(), Some(clip(&unit.anchor)), effort, meta, now));
        unit_nodes.push((unit.id.clone(), id));
    }
    let node_of: std::collections::HashMap<&str, NodeId> = unit_nodes.iter().map(|(u, n)| (u.as_str(), *n)).collect();
    let starts: Vec<&str> =
        course.units().iter().filter(|u| u.prerequisites.is_empty()).map(|u| u.id.as_str()).collect();
    let root_id = match starts.as_slice() {
        [only] if *only == course.entry_unit() => {
            // The root comes first in a map's nodes.
            let at = nodes.iter().position(|n| n.id == node_of[only]).unwrap_or(0);
            nodes[..=at].rotate_right(1);
            node_of[only]
        }
        _ => {
            let root_id = NodeId(new_id());
            let root_label = if course.units().iter().any(|u| u.title.eq_ignore_ascii_case(course.title())) {
                format!("{} (course)", course.title())
            } else {
                course.title().to_string()
            };
            let mut root_meta = Metadata::new();
            root_meta.insert("course_root".into(), json!(true));
            // The course's name over its entry units, not a concept to learn.
            root_meta.insert(pathwise_domain::model::GROUPING_KEY.into(), json!(true));
            nodes.insert(
                0,
                Node::new(root_id, map_id, root_label, course.description().map(clip), None, root_meta, now),
            );
            root_id
        }
    };
    let mut metadata = Metadata::new();
    metadata.insert(COURSE_KEY.into(), json!(course.id()));
    let map = MindMap {
        id: map_id,
        learner_id: learner,
        title: course.title().to_string(),
        root_node_id: Some(root_id),
        status: MapStatus::Active,
        metadata,
        created_at: now,
        updated_at: now,
    };
    let mut edges = Vec::new();
    for unit in course.units() {
        let child = node_of[unit.id.as_str()];
        let parents: Vec<NodeId> = if unit.prerequisites.is_empty() {
            if child == root_id {
                continue;
            }
            vec![root_id]
        } else {
            unit.prerequisites.iter().map(|p| node_of[p.as_str()]).collect()
        };
        for parent in parents {
            edges.push(Edge {
                mind_map_id: map_id,
                parent_node_id: parent,
                child_node_id: child,
                edge_type: EdgeType::Prerequisite,
                created_at: now,
            });
        }
    }
    let mut agg = MapAggregate { map, nodes, edges };
    recompute_depths(&mut agg, GraphLimits::AUTHORED_COURSE)?;
    assign_sequence(&mut agg);
    let changes =
        MapChanges { insert_nodes: agg.nodes.clone(), insert_edges: agg.edges.clone(), ..MapChanges::default() };
    Ok(CourseMap { map: agg.map, changes, unit_nodes })
}

fn clip(text: &str) -> String {
    text.chars().take(pathwise_domain::edit::MAX_DESCRIPTION_CHARS).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pathwise_course::synthetic::generated_pack;
    use pathwise_items::Library;

    /// A course of four units whose prerequisite-free units are the first `starts`.
    fn course(starts: usize) -> Course {
        let mut pack = generated_pack(4, 12, 4, 7);
        let entry = pack.units[0].id.clone();
        for (i, unit) in pack.units.iter_mut().enumerate() {
            unit.prerequisites = if i < starts { Vec::new() } else { vec![entry.clone()] };
        }
        Course::from_pack(pack, &Library::new()).expect("a valid course")
    }

    #[test]
    fn a_course_with_one_entry_has_a_node_per_unit_and_no_more() {
        let course = course(1);
        let map = course_map(&course, LearnerId(uuid::Uuid::nil()), Utc::now()).unwrap();
        let nodes = &map.changes.insert_nodes;
        assert_eq!(nodes.len(), 4, "a node per unit");
        assert_eq!(map.map.root_node_id, Some(nodes[0].id), "the root comes first");
        assert_eq!(nodes[0].metadata["unit_id"], json!(course.entry_unit()));
        assert_eq!(map.changes.insert_edges.len(), 3, "an edge per prerequisite");
        assert!(nodes.iter().all(|n| n.metadata.contains_key("unit_id")));
    }

    #[test]
    fn a_course_with_several_starts_hangs_them_from_a_root_for_the_course() {
        let course = course(2);
        let map = course_map(&course, LearnerId(uuid::Uuid::nil()), Utc::now()).unwrap();
        let nodes = &map.changes.insert_nodes;
        assert_eq!(nodes.len(), 5, "a root and a node per unit");
        assert_eq!(map.map.root_node_id, Some(nodes[0].id));
        assert_eq!(nodes[0].metadata["course_root"], json!(true));
        assert!(nodes[0].is_grouping(), "the course's name, not a concept to learn");
        assert_eq!(map.changes.insert_edges.len(), 4, "two from the root, two prerequisites");
    }
}
