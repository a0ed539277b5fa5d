//! Scoring an answer to a bank item: exactly against its computed key, or, for code, by
//! running it in the sandbox against the item's generated tests, for partial credit.

use super::bank::{BankItem, Scored};
use crate::StoreHandle;
use crate::{App, AppError, AppResult};
use pathwise_domain::session::widgets::ClientResponse;
use pathwise_items::Answer;
use pathwise_store::MapStore;
use serde_json::{json, Value};

/// Score an answer against the item's computed key; code runs in the sandbox against the
/// item's generated tests, for partial credit.
pub(crate) async fn score<S: StoreHandle + MapStore>(
    app: &App<S>,
    item: &BankItem,
    response: &ClientResponse,
) -> AppResult<Scored> {
    let answer = match response {
        ClientResponse::Choice { selected_index, .. } => Answer::Choice(*selected_index),
        ClientResponse::Text { text } => Answer::Text(text.clone()),
        ClientResponse::Skipped => {
            let expected = item.check(&Answer::Text(String::new())).map(|c| c.expected).unwrap_or_default();
            return Ok(Scored { correct: false, credit: 0.0, expected, detail: json!({ "skipped": true }) });
        }
        ClientResponse::Code { code } => return super::code::run(app, item, code).await,
    };
    let check = item.check(&answer).map_err(|e| AppError::invalid("response", e))?;
    Ok(Scored { correct: check.correct, credit: check.credit, expected: check.expected, detail: Value::Null })
}
