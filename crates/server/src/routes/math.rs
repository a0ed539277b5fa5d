//! LaTeX as MathML, rendered on the server so that the workspace shows math without a
//! script library (Chromium and Firefox render MathML themselves).

use crate::error::ApiResult;
use crate::extract::{Auth, JsonBody};
use axum::Json;
use pathwise_app::AppError;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

const MAX_ITEMS: usize = 200;
const MAX_CHARS: usize = 4_000;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MathRequest {
    /// LaTeX snippets, without `$` delimiters.
    latex: Vec<String>,
    /// Display (block) math rather than inline.
    #[serde(default)]
    display: bool,
}

#[derive(Serialize, ToSchema)]
pub struct MathReply {
    /// One per snippet, in order.
    items: Vec<Rendered>,
}

#[derive(Serialize, ToSchema)]
pub struct Rendered {
    /// The MathML, or none when the snippet is not LaTeX this renderer reads.
    mathml: Option<String>,
    error: Option<String>,
}

/// Render LaTeX snippets as MathML (at most 200 of 4,000 characters each).
#[utoipa::path(post, operation_id = "workspace_render_math", path = "/api/math", tag = "workspace", request_body = MathRequest,
    responses((status = 200, body = MathReply)), security(("bearer" = [])))]
pub async fn render(_learner: Auth, JsonBody(request): JsonBody<MathRequest>) -> ApiResult<Json<MathReply>> {
    if request.latex.len() > MAX_ITEMS {
        return Err(AppError::invalid("latex", format!("{} snippets; at most {MAX_ITEMS}", request.latex.len())).into());
    }
    if let Some(i) = request.latex.iter().position(|l| l.chars().count() > MAX_CHARS) {
        return Err(AppError::invalid(&format!("latex[{i}]"), format!("longer than {MAX_CHARS} characters")).into());
    }
    let style = if request.display { latex2mathml::DisplayStyle::Block } else { latex2mathml::DisplayStyle::Inline };
    let items = request
        .latex
        .iter()
        .map(|latex| match latex2mathml::latex_to_mathml(latex, style) {
            Ok(mathml) => Rendered { mathml: Some(mathml), error: None },
            Err(e) => Rendered { mathml: None, error: Some(e.to_string()) },
        })
        .collect();
    Ok(Json(MathReply { items }))
}
