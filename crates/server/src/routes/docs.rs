//! The OpenAPI 3.1 document and a self-contained page to browse it (no CDN, no build step).

use axum::response::Html;
use axum::Json;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

use super::{analytics, courses, curriculum, flows, learners, library, maps, mastery, nodes, sessions, tutor};

#[derive(OpenApi)]
#[openapi(
    info(title = "Pathwise API", description = "A learner's concept maps, learning order, mastery and reviews. \
        Every call needs `Authorization: Bearer <token>`; errors are `{\"error\": {\"code\", \"message\", \"details\"}}`."),
    paths(
        learners::create, learners::me, learners::llm_usage, learners::preferences, learners::update_preferences, learners::review_log,
        maps::create_map, maps::list_maps, maps::get_map, maps::update_map, maps::delete_map,
        maps::create_node, maps::list_nodes, maps::create_edge, maps::delete_edge, maps::frontier,
        nodes::get_node, nodes::update_node, nodes::delete_node, nodes::history, nodes::subtree,
        curriculum::generate, curriculum::plan, curriculum::replan, curriculum::next_node,
        mastery::record, mastery::list, mastery::summary, mastery::struggles, mastery::map_reviews, mastery::all_reviews,
        flows::start, flows::list, flows::get, flows::abandon,
        flows::diagnostic_start, flows::diagnostic_answer, flows::diagnostic_complete,
        flows::plan, flows::teach, flows::quiz, flows::answer, flows::review, flows::advance,
        analytics::map_analytics, analytics::snapshot, analytics::portfolio, analytics::digest,
        analytics::jobs, analytics::runs,
        sessions::create, sessions::list, sessions::get, sessions::messages, sessions::stream, sessions::respond,
        sessions::terminate,
        courses::list, courses::get, courses::import,
        library::assessments, library::skills,
        tutor::create_thread, tutor::list_threads, tutor::get_thread, tutor::messages, tutor::turns, tutor::turn,
        tutor::grade_drill, tutor::mcq_submit, tutor::support_viewed, tutor::snapshot,
        crate::web::sign_in, crate::web::config, crate::web::transcribe, super::math::render,
    ),
    modifiers(&BearerAuth)
)]
pub struct ApiDoc;

struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
        );
    }
}

pub async fn openapi_json() -> Json<utoipa::openapi::OpenApi> {
    Json(ApiDoc::openapi())
}

pub async fn docs_page() -> Html<&'static str> {
    Html(include_str!("docs.html"))
}
