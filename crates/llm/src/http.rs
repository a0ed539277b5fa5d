//! What the OpenAI-compatible endpoints besides chat (embeddings, transcriptions) share: the
//! HTTP client and how a request's failure becomes an [`LlmError`].

use crate::openai::OpenAiConfig;
use crate::LlmError;

pub(crate) fn client(config: &OpenAiConfig) -> Result<reqwest::Client, LlmError> {
    reqwest::Client::builder().timeout(config.timeout).build().map_err(|e| LlmError::Transport {
        url: config.base_url.clone(),
        message: format!("cannot build the HTTP client: {e}"),
    })
}

/// Send `call` (to `url`, with the key of `config`) and return the body of a 2xx answer.
pub(crate) async fn send(config: &OpenAiConfig, url: &str, call: reqwest::RequestBuilder) -> Result<String, LlmError> {
    let call = match &config.api_key {
        Some(key) => call.bearer_auth(key),
        None => call,
    };
    let response = call.send().await.map_err(|e| {
        if e.is_timeout() {
            LlmError::Timeout(config.timeout)
        } else {
            LlmError::Transport { url: url.to_string(), message: e.to_string() }
        }
    })?;
    let status = response.status();
    let body =
        response.text().await.map_err(|e| LlmError::Transport { url: url.to_string(), message: e.to_string() })?;
    if !status.is_success() {
        return Err(LlmError::Status { status: status.as_u16(), body: body.chars().take(500).collect() });
    }
    Ok(body)
}
