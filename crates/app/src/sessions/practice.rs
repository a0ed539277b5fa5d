//! "Practise what you missed": an evaluation made of the items a finished evaluation of the
//! same learner scored wrong or only partly right. A generated item comes back as a fresh
//! item of the same skill and about the same difficulty (the learner has seen the missed
//! one's answer in the results); an inline item comes back as it was.

use super::bank;
use super::config::{EvaluationConfig, SessionConfig};
use super::state::SessionState;
use crate::stores::SessionStores;
use crate::{App, AppError, AppResult};
use pathwise_domain::wording::with_article;
use pathwise_domain::{LearnerId, SessionId, SessionType};

/// What the new session is made of: its configuration as stored (inline items copied into
/// it, since its items are resolved from it) and its form, in the order they were missed.
pub(crate) struct Practice {
    pub config: EvaluationConfig,
    pub form: Vec<String>,
}

const FIELD: &str = "config.missed_in";

pub(crate) async fn missed<S: SessionStores>(
    app: &App<S>,
    learner: LearnerId,
    config: &EvaluationConfig,
    source: SessionId,
    seed: u64,
) -> AppResult<Practice> {
    let record = app.load_session(learner, source).await?;
    if record.session_type != SessionType::Evaluation {
        return Err(AppError::invalid(
            FIELD,
            format!(
                "session {source} is {}; only an evaluation's missed items can be practised",
                with_article(&format!("{} session", record.session_type))
            ),
        ));
    }
    if !record.status.is_final() {
        return Err(AppError::invalid(
            FIELD,
            format!("session {source} is not over yet (it is {}); practise what you missed once it is", record.status),
        ));
    }
    let state: SessionState = serde_json::from_value(record.state.clone())
        .map_err(|e| AppError::internal(format!("session {source} has unreadable state: {e}")))?;
    let SessionConfig::Evaluation(source_config) = SessionConfig::parse(record.session_type, &record.config)? else {
        return Err(AppError::internal(format!("session {source} is an evaluation with another type's configuration")));
    };
    let missed: Vec<&str> =
        state.evaluation.iter().flat_map(|e| &e.results).filter(|r| !r.correct).map(|r| r.item_id.as_str()).collect();
    if missed.is_empty() {
        return Err(AppError::invalid(
            FIELD,
            format!("session {source} has no item answered wrong: there is nothing to practise"),
        ));
    }
    let lib = app.library();
    if let Some(items) = &source_config.items {
        let again = missed
            .iter()
            .map(|id| bank::inline_index(id).and_then(|i| items.get(i)).cloned())
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| AppError::internal(format!("session {source} scored an inline item it does not have")))?;
        let form = (0..again.len()).map(bank::inline_id).collect();
        return Ok(Practice {
            config: EvaluationConfig { items: Some(again), missed_in: None, ..config.clone() },
            form,
        });
    }
    let before = missed.iter().map(|id| bank::regenerate(lib, id)).collect::<AppResult<Vec<_>>>()?;
    // None of the missed items again, and no fresh item twice.
    let mut seen: Vec<String> = before.iter().map(bank::content_key).collect();
    let mut form = Vec::with_capacity(before.len());
    for (i, item) in before.iter().enumerate() {
        let fresh = bank::generate_unique(lib, &item.blueprint_id, seed, i as u64, item.difficulty, &seen)?;
        seen.push(bank::content_key(&fresh));
        form.push(fresh.id);
    }
    Ok(Practice { config: config.clone(), form })
}
