//! The learner's maps as resources: `pathwise://mind-maps` lists them, and
//! `pathwise://mind-maps/{id}` is one map with its nodes, edges, mastery and summary, so that
//! an assistant can put a map in its context without a tool call.

use pathwise_app::{App, AppError, AppResult, ErrorKind};
use pathwise_domain::{LearnerId, MindMapId};
use rmcp::model::{Resource, ResourceContents, ResourceTemplate};
use serde_json::json;

pub const MAPS_URI: &str = "pathwise://mind-maps";
const MAP_TEMPLATE: &str = "pathwise://mind-maps/{mind_map_id}";
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
    Ok(resources)
}

pub fn templates() -> Vec<ResourceTemplate> {
    vec![ResourceTemplate::new(MAP_TEMPLATE, "mind-map")
        .with_title("A mind map")
        .with_description("One map with its nodes (in learning order, with mastery), edges and mastery summary.")
        .with_mime_type(JSON)]
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
    } else {
        return Err(unknown(uri));
    }
    .map_err(|e| AppError::internal(e.to_string()))?;
    Ok(ResourceContents::text(body.to_string(), uri).with_mime_type(JSON))
}

fn unknown(uri: &str) -> AppError {
    AppError::new(
        ErrorKind::NotFound,
        "unknown_resource",
        format!("no resource {uri}; the resources are {MAPS_URI} and {MAP_TEMPLATE}"),
    )
}
