//! What an assistant can put in its context without a tool call: the learner's maps
//! (`pathwise://mind-maps`, and `pathwise://mind-maps/{id}` with its nodes, edges, mastery and
//! summary), each course (`pathwise://courses/{id}`: its units in learning order) with the
//! learner's snapshot of it (`pathwise://courses/{id}/snapshot`) and the passages of its
//! material a tutor's card cites (`pathwise://courses/{id}/passages/{passage_id}`), and a session's transcript
//! (`pathwise://sessions/{id}/transcript`).

use pathwise_app::{App, AppError, AppResult, ErrorCode, ErrorKind};
use pathwise_domain::{LearnerId, MindMapId, SessionId};
use rmcp::model::{Resource, ResourceContents, ResourceTemplate};
use serde_json::json;

pub const MAPS_URI: &str = "pathwise://mind-maps";
const MAP_TEMPLATE: &str = "pathwise://mind-maps/{mind_map_id}";
const COURSES_URI: &str = "pathwise://courses";
const COURSE_TEMPLATE: &str = "pathwise://courses/{course_id}";
const SNAPSHOT_TEMPLATE: &str = "pathwise://courses/{course_id}/snapshot";
const PASSAGE_TEMPLATE: &str = "pathwise://courses/{course_id}/passages/{passage_id}";
const SESSIONS_URI: &str = "pathwise://sessions";
const TRANSCRIPT_TEMPLATE: &str = "pathwise://sessions/{session_id}/transcript";
/// How many sessions `resources/list` names (the most recently active).
const LISTED_SESSIONS: i64 = 20;
const JSON: &str = "application/json";
/// How many maps `resources/list` names one by one (all are in the index).
const LISTED_MAPS: i64 = 100;

pub async fn list(app: &App, learner: LearnerId) -> AppResult<Vec<Resource>> {
    let maps = app.list_maps(learner, None, Some(0), Some(LISTED_MAPS)).await?;
    let mut resources = vec![Resource::new(MAPS_URI, "mind-maps")
        .with_title("Your mind maps")
        .with_description("Every mind map with its status, newest first.")
        .with_mime_type(JSON)];
    resources.extend(maps.items.into_iter().map(|map| {
        Resource::new(map_uri(map.id), format!("mind-map-{}", map.id))
            .with_title(map.title.clone())
            .with_description(format!("The {} map '{}': nodes, edges, mastery and summary.", map.status, map.title))
            .with_mime_type(JSON)
    }));
    for course in app.list_courses(learner).await? {
        resources.push(
            Resource::new(format!("{COURSES_URI}/{}", course.id), format!("course-{}", course.id))
                .with_title(course.title.clone())
                .with_description(format!(
                    "The course '{}': its {} units in learning order.",
                    course.title, course.unit_count
                ))
                .with_mime_type(JSON),
        );
        resources.push(
            Resource::new(format!("{COURSES_URI}/{}/snapshot", course.id), format!("course-{}-snapshot", course.id))
                .with_title(format!("Your progress in {}", course.title))
                .with_description("Per unit the drill streak, the tier passed and the exam history; the focus.")
                .with_mime_type(JSON),
        );
    }
    let sessions = app.list_sessions(learner, Some(0), Some(LISTED_SESSIONS)).await?;
    resources.extend(sessions.items.into_iter().filter(|s| !s.status.is_final()).map(|session| {
        Resource::new(format!("{SESSIONS_URI}/{}/transcript", session.id), format!("session-{}-transcript", session.id))
            .with_title(format!("Transcript: {}", session.title))
            .with_description(format!("The open {} session's conversation so far.", session.session_type))
            .with_mime_type(JSON)
    }));
    Ok(resources)
}

pub fn templates() -> Vec<ResourceTemplate> {
    vec![
        ResourceTemplate::new(MAP_TEMPLATE, "mind-map")
            .with_title("A mind map")
            .with_description("One map with its nodes (in learning order, with mastery), edges and mastery summary.")
            .with_mime_type(JSON),
        ResourceTemplate::new(COURSE_TEMPLATE, "course")
            .with_title("A course")
            .with_description("A course's units in learning order, with prerequisites and exam questions per tier.")
            .with_mime_type(JSON),
        ResourceTemplate::new(SNAPSHOT_TEMPLATE, "course-snapshot")
            .with_title("The learner's progress in a course")
            .with_description("The learner's snapshot of a course and SnapshotLite: what the next turn works on.")
            .with_mime_type(JSON),
        ResourceTemplate::new(PASSAGE_TEMPLATE, "course-passage")
            .with_title("A passage of a course's material")
            .with_description("A passage a tutor's card cites (sources[].passageId): its unit, citation and text.")
            .with_mime_type(JSON),
        ResourceTemplate::new(TRANSCRIPT_TEMPLATE, "session-transcript")
            .with_title("A session's transcript")
            .with_description("A session's conversation: what was asked and answered, in order.")
            .with_mime_type(JSON),
    ]
}

pub fn map_uri(id: MindMapId) -> String {
    format!("{MAPS_URI}/{id}")
}

pub async fn read(app: &App, learner: LearnerId, uri: &str) -> AppResult<ResourceContents> {
    let body = if uri == MAPS_URI {
        let maps = app.list_maps(learner, None, Some(0), Some(pathwise_app::paging::MAX_LIMIT)).await?;
        serde_json::to_value(maps)
    } else if let Some(id) = uri.strip_prefix(MAPS_URI).and_then(|rest| rest.strip_prefix('/')) {
        let id: MindMapId = id.parse().map_err(|_| unknown(uri))?;
        let map = app.get_map(learner, id).await?;
        let summary = app.map_summary(learner, id).await?;
        Ok(json!({ "map": map.map, "nodes": map.nodes, "edges": map.edges, "summary": summary }))
    } else if let Some(rest) = uri.strip_prefix(COURSES_URI).and_then(|rest| rest.strip_prefix('/')) {
        match rest.split_once('/') {
            None => serde_json::to_value(app.course_outline(learner, rest).await?),
            Some((course, "snapshot")) => serde_json::to_value(app.tutor_snapshot(learner, course).await?),
            Some((course, rest)) if rest.starts_with("passages/") => {
                let passage = &rest["passages/".len()..];
                serde_json::to_value(app.course_passage(learner, course, passage).await?)
            }
            Some(_) => return Err(unknown(uri)),
        }
    } else if let Some(rest) = uri.strip_prefix(SESSIONS_URI).and_then(|rest| rest.strip_prefix('/')) {
        let id = rest.strip_suffix("/transcript").ok_or_else(|| unknown(uri))?;
        let id: SessionId = id.parse().map_err(|_| unknown(uri))?;
        let messages = app.session_messages(learner, id).await?;
        Ok(json!({ "session_id": id, "messages": messages }))
    } else {
        return Err(unknown(uri));
    }
    .map_err(|e| AppError::internal(e.to_string()))?;
    Ok(ResourceContents::text(body.to_string(), uri).with_mime_type(JSON))
}

fn unknown(uri: &str) -> AppError {
    AppError::new(
        ErrorKind::NotFound,
        ErrorCode::UnknownResource,
        format!(
            "no resource {uri}; the resources are {MAPS_URI}, {MAP_TEMPLATE}, {COURSE_TEMPLATE}, \
             {SNAPSHOT_TEMPLATE} and {TRANSCRIPT_TEMPLATE}"
        ),
    )
}
