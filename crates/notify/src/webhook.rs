//! The webhook notifier: the message as a JSON POST, optionally signed.
//!
//! Transport failures and 5xx answers are tried again, with backoff, because the receiver
//! most likely did not act on them; any other answer is final, since repeating a request the
//! receiver has judged would only be judged the same. A timed-out request may have been
//! acted on all the same, so a receiver can see a message twice: `learner_id` with
//! `sent_at` identify a digest.

use crate::config::WebhookConfig;
use crate::{Delivery, Message, Notifier, NotifyError};
use hmac::{Hmac, Mac};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue, AUTHORIZATION, CONTENT_TYPE};
use reqwest::Url;
use sha2::Sha256;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

/// Carries `sha256=<hex of HMAC-SHA256(secret, body)>` when a `secret` is configured.
pub const SIGNATURE_HEADER: &str = "x-pathwise-signature";

/// How much of a refusing receiver's body an error quotes.
const QUOTED_BODY_CHARS: usize = 200;

pub struct WebhookNotifier {
    url: Url,
    description: String,
    http: reqwest::Client,
    headers: HeaderMap,
    signer: Option<Hmac<Sha256>>,
    timeout: Duration,
    max_attempts: u32,
    backoff: Duration,
}

impl WebhookNotifier {
    pub fn new(config: &WebhookConfig) -> Result<Self, NotifyError> {
        let url = parse_url(&config.url)?;
        if config.timeout_secs == 0 {
            return Err(NotifyError::config("timeout_secs", "must be at least 1 (seconds)"));
        }
        if !(1..=WebhookConfig::MAX_ATTEMPTS_LIMIT).contains(&config.max_attempts) {
            return Err(NotifyError::config(
                "max_attempts",
                format!("must be from 1 to {}, got {}", WebhookConfig::MAX_ATTEMPTS_LIMIT, config.max_attempts),
            ));
        }
        let signer = match &config.secret {
            None => None,
            Some(secret) if secret.expose().is_empty() => {
                return Err(NotifyError::config("secret", "must not be empty; leave it out to send unsigned requests"))
            }
            Some(secret) => Some(
                Hmac::<Sha256>::new_from_slice(secret.expose().as_bytes())
                    .map_err(|e| NotifyError::config("secret", format!("cannot be used as an HMAC key: {e}")))?,
            ),
        };
        let headers = request_headers(config)?;
        let timeout = Duration::from_secs(config.timeout_secs);
        let http = reqwest::Client::builder()
            .timeout(timeout)
            // A redirected POST would lose its body or its signature's meaning; the configured
            // URL is expected to be the receiver itself.
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("pathwise-notify/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| NotifyError::config("url", format!("cannot build an HTTP client for it: {e}")))?;
        let description = format!("webhook {}{}", url.origin().ascii_serialization(), url.path());
        Ok(WebhookNotifier {
            url,
            description,
            http,
            headers,
            signer,
            timeout,
            max_attempts: config.max_attempts,
            backoff: Duration::from_millis(config.retry_backoff_ms),
        })
    }

    async fn deliver(&self, message: &Message) -> Result<Delivery, NotifyError> {
        let body = serde_json::to_vec(message).map_err(|e| NotifyError::InvalidMessage {
            notifier: self.description.clone(),
            problem: format!("cannot serialise it as JSON: {e}"),
        })?;
        let mut headers = self.headers.clone();
        if let Some(signer) = &self.signer {
            let mut mac = signer.clone();
            mac.update(&body);
            let signature = format!("sha256={}", hex::encode(mac.finalize().into_bytes()));
            let value = HeaderValue::from_str(&signature).map_err(|e| NotifyError::InvalidMessage {
                notifier: self.description.clone(),
                problem: format!("cannot put its signature in a header: {e}"),
            })?;
            headers.insert(SIGNATURE_HEADER, value);
        }

        let mut attempt = 1;
        loop {
            match self.attempt(&headers, &body, attempt).await {
                Err(Retry::Worth(error)) if attempt < self.max_attempts => {
                    let wait = self.backoff.saturating_mul(2u32.saturating_pow(attempt - 1));
                    tracing::warn!(notifier = %self.description, %error, attempt, ?wait, "webhook delivery failed; retrying");
                    tokio::time::sleep(wait).await;
                    attempt += 1;
                }
                Err(Retry::Worth(error) | Retry::Pointless(error)) => return Err(error),
                Ok(delivery) => return Ok(delivery),
            }
        }
    }

    async fn attempt(&self, headers: &HeaderMap, body: &[u8], attempt: u32) -> Result<Delivery, Retry> {
        let transport = |e: reqwest::Error| {
            let problem = if e.is_timeout() { format!("no answer within {:?}", self.timeout) } else { error_chain(&e) };
            Retry::Worth(NotifyError::Transport { notifier: self.description.clone(), attempts: attempt, problem })
        };
        let response = self
            .http
            .post(self.url.clone())
            .headers(headers.clone())
            .body(body.to_vec())
            .send()
            .await
            .map_err(transport)?;
        let status = response.status();
        let text = response.text().await.map_err(transport)?;
        if status.is_success() {
            return Ok(Delivery {
                notifier: self.description.clone(),
                attempts: attempt,
                response: format!("HTTP {status}"),
            });
        }
        let error = NotifyError::Status {
            notifier: self.description.clone(),
            status: status.as_u16(),
            attempts: attempt,
            body: text.chars().take(QUOTED_BODY_CHARS).collect(),
        };
        Err(if status.is_server_error() { Retry::Worth(error) } else { Retry::Pointless(error) })
    }
}

enum Retry {
    Worth(NotifyError),
    Pointless(NotifyError),
}

impl Notifier for WebhookNotifier {
    fn send<'a>(
        &'a self,
        message: &'a Message,
    ) -> Pin<Box<dyn Future<Output = Result<Delivery, NotifyError>> + Send + 'a>> {
        Box::pin(self.deliver(message))
    }

    fn describe(&self) -> String {
        self.description.clone()
    }
}

fn parse_url(raw: &str) -> Result<Url, NotifyError> {
    let url = Url::parse(raw.trim()).map_err(|e| {
        NotifyError::config("url", format!("must be an absolute http:// or https:// URL; {raw:?} is not a URL ({e})"))
    })?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(NotifyError::config(
            "url",
            format!("must use http:// or https://, not {}:// ({raw:?})", url.scheme()),
        ));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(NotifyError::config("url", format!("must name a host ({raw:?})")));
    }
    Ok(url)
}

fn request_headers(config: &WebhookConfig) -> Result<HeaderMap, NotifyError> {
    let mut headers = HeaderMap::new();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    for (name, value) in &config.headers {
        let field = format!("headers.{name}");
        let header = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| NotifyError::config(&field, "is not a valid HTTP header name"))?;
        let reserved = header == CONTENT_TYPE
            || header == reqwest::header::CONTENT_LENGTH
            || header == reqwest::header::HOST
            || header.as_str() == SIGNATURE_HEADER
            || (header == AUTHORIZATION && config.bearer_token.is_some());
        if reserved {
            return Err(NotifyError::config(
                &field,
                "is set by the notifier itself (use `bearer_token` for Authorization, `secret` for the signature)",
            ));
        }
        let mut value = HeaderValue::from_str(value.expose()).map_err(|_| {
            NotifyError::config(&field, "must be visible ASCII text without line breaks to be sent as a header")
        })?;
        value.set_sensitive(true);
        headers.insert(header, value);
    }
    if let Some(token) = &config.bearer_token {
        if token.expose().trim().is_empty() {
            return Err(NotifyError::config(
                "bearer_token",
                "must not be empty; leave it out to send no Authorization",
            ));
        }
        let mut value = HeaderValue::from_str(&format!("Bearer {}", token.expose()))
            .map_err(|_| NotifyError::config("bearer_token", "must be visible ASCII text without line breaks"))?;
        value.set_sensitive(true);
        headers.insert(AUTHORIZATION, value);
    }
    Ok(headers)
}

/// reqwest's own message is often just "error sending request"; the cause is further down.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut message = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        message.push_str(": ");
        message.push_str(&cause.to_string());
        source = cause.source();
    }
    message
}
