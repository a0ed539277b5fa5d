//! The MCP front door (rmcp): the learning loop as tools, prompts and resources for an
//! assistant, over stdio (`pathwise mcp`, one learner) and streamable HTTP (`/mcp` on
//! `pathwise serve`, the learner of the bearer token). Like the HTTP routes, it parses,
//! calls one application operation and serializes; the rules are the application's.

mod args;
mod author_tools;
pub mod http;
mod learner_tools;
pub mod prompts;
mod registry;
pub mod resources;
mod shape;
pub mod tools;
mod tutor_tools;

pub use registry::MAX_ARGUMENT_BYTES;

use pathwise_app::{App, AppError, ErrorKind, Learner};
use pathwise_domain::LearnerId;
use registry::Registry;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ErrorData, GetPromptRequestParams, GetPromptResponse, Implementation,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::ServerHandler;
use std::sync::{Arc, LazyLock};

/// How often a call that goes on (one that waits for the language model) tells a client
/// that asked for progress how long it has been working.
const PROGRESS_EVERY: std::time::Duration = std::time::Duration::from_secs(5);

/// `call`, with a progress notification every [`PROGRESS_EVERY`] while it runs: the seconds
/// so far (rising, as the protocol asks), so that a client can show the wait and knows the
/// call is alive rather than timing it out.
async fn with_progress<T>(
    call: impl std::future::Future<Output = T>,
    peer: &rmcp::Peer<RoleServer>,
    token: rmcp::model::ProgressToken,
) -> T {
    tokio::pin!(call);
    let started = tokio::time::Instant::now();
    let mut ticks = tokio::time::interval_at(started + PROGRESS_EVERY, PROGRESS_EVERY);
    loop {
        tokio::select! {
            result = &mut call => return result,
            _ = ticks.tick() => {
                let seconds = started.elapsed().as_secs();
                let note = rmcp::model::ProgressNotificationParam::new(token.clone(), seconds as f64)
                    .with_message(format!("still working: {seconds} s so far"));
                // A client that has gone does not stop the call: its result is still stored.
                let _ = peer.notify_progress(note).await;
            }
        }
    }
}

static REGISTRY: LazyLock<Arc<Registry>> = LazyLock::new(|| Arc::new(Registry::new(tools::all())));

const INSTRUCTIONS: &str = "Pathwise keeps a learner's concept maps, mastery and spaced-repetition schedule. \
To teach a topic: teaching_flow_start, then the `diagnostic` and `teaching` prompts (or curriculum_generate \
with your own decomposition, following the `curriculum_planning` prompt, and the `teaching` prompt on the map). \
Record every answer (mastery_record_response or teaching_flow_advance) so that reviews get scheduled; run due \
reviews with the `review` prompt. For a shipped course, course_list, then the `tutor_course` prompt: the policy \
tutor's turns, drills and exams (tutor_*). For a quiz or survey, library_assessments, then the `run_evaluation` \
prompt: session_create, session_run, session_respond. To make a course of the learner's own notes: author_ingest, \
author_draft_outline, author_draft_edit, author_draft_units (exam questions and drills citing the notes), \
author_draft_edit until it has no problems, author_draft_publish. Every tool that writes \
takes an idempotency_key of yours: a retry with the same key and arguments answers the first result and changes \
nothing; the same key with other arguments is refused. A refused call says what was wrong: fix the arguments and \
call again.";

/// Who the calls act for.
#[derive(Clone)]
enum Identity {
    /// One learner for the whole connection (stdio).
    Fixed(LearnerId),
    /// The learner the HTTP layer authenticated for each request.
    PerRequest,
}

/// The MCP server: cheap to clone, one per connection or request.
#[derive(Clone)]
pub struct PathwiseMcp {
    app: App,
    identity: Identity,
    registry: Arc<Registry>,
}

impl PathwiseMcp {
    /// A server acting for one learner, as `pathwise mcp` on stdio does.
    pub fn for_learner(app: App, learner: LearnerId) -> Self {
        PathwiseMcp { app, identity: Identity::Fixed(learner), registry: REGISTRY.clone() }
    }

    /// A server acting for the learner each HTTP request was authenticated as.
    pub fn per_request(app: App) -> Self {
        PathwiseMcp { app, identity: Identity::PerRequest, registry: REGISTRY.clone() }
    }

    /// Every tool, for documentation and tests.
    pub fn tools() -> Vec<Tool> {
        REGISTRY.tools().to_vec()
    }

    fn learner(&self, context: &RequestContext<RoleServer>) -> Result<LearnerId, ErrorData> {
        match &self.identity {
            Identity::Fixed(learner) => Ok(*learner),
            Identity::PerRequest => context
                .extensions
                .get::<axum::http::request::Parts>()
                .and_then(|parts| parts.extensions.get::<Learner>())
                .map(|learner| learner.id)
                // The HTTP layer refuses unauthenticated requests before they get here.
                .ok_or_else(|| ErrorData::internal_error("no authenticated learner on this request", None)),
        }
    }
}

/// A refusal as a JSON-RPC error, its code in `data` as in an HTTP error's body.
fn protocol_error(error: AppError) -> ErrorData {
    let message = registry::in_tools(&error.message);
    let data = Some(serde_json::json!({ "code": error.code }));
    match error.kind {
        ErrorKind::NotFound => ErrorData::resource_not_found(message, data),
        ErrorKind::Internal => {
            tracing::error!(message = %error.message, "an MCP request failed");
            ErrorData::internal_error("internal error; the server log has the details", data)
        }
        _ => ErrorData::invalid_params(message, data),
    }
}

impl ServerHandler for PathwiseMcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_prompts().enable_resources().build())
            .with_server_info(Implementation::new("pathwise", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.registry.tools().to_vec()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.registry.get(name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let learner = self.learner(&context)?;
        let call = self.registry.call(self.app.clone(), learner, &request.name, request.arguments);
        let result = match context.meta.get_progress_token() {
            Some(token) => with_progress(call, &context.peer, token).await,
            None => call.await,
        };
        Ok(result.into())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::with_all_items(prompts::list()))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        prompts::get(&request.name, request.arguments)
            .map(Into::into)
            .map_err(|message| ErrorData::invalid_params(message, None))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let learner = self.learner(&context)?;
        let resources = resources::list(&self.app, learner).await.map_err(protocol_error)?;
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(resources::templates()))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let learner = self.learner(&context)?;
        let contents = resources::read(&self.app, learner, &request.uri).await.map_err(protocol_error)?;
        Ok(ReadResourceResult::new(vec![contents]).into())
    }
}
