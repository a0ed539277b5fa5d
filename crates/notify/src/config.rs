//! The `[[notifiers]]` tables of the config file and building notifiers from them.

use crate::{Notifier, NotifyError, SmtpNotifier, WebhookNotifier};
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

/// One `[[notifiers]]` table, told apart by its `kind`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum NotifierConfig {
    Webhook(WebhookConfig),
    Smtp(SmtpConfig),
}

/// `kind = "webhook"`: the message is POSTed as JSON to `url`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebhookConfig {
    /// `http://` or `https://`.
    pub url: String,
    /// Signs each body with HMAC-SHA256, sent as `X-Pathwise-Signature: sha256=<hex>`.
    #[serde(default)]
    pub secret: Option<Secret>,
    /// Sent as `Authorization: Bearer <token>`.
    #[serde(default)]
    pub bearer_token: Option<Secret>,
    /// Further request headers, e.g. an API key a gateway wants.
    #[serde(default)]
    pub headers: BTreeMap<String, Secret>,
    /// For one attempt, from connecting to the end of the answer.
    #[serde(default = "WebhookConfig::default_timeout_secs")]
    pub timeout_secs: u64,
    /// Including the first; further attempts follow transport failures and 5xx answers only.
    #[serde(default = "WebhookConfig::default_max_attempts")]
    pub max_attempts: u32,
    /// Before the second attempt; doubled before each one after.
    #[serde(default = "WebhookConfig::default_retry_backoff_ms")]
    pub retry_backoff_ms: u64,
}

impl WebhookConfig {
    pub const MAX_ATTEMPTS_LIMIT: u32 = 10;

    pub fn new(url: impl Into<String>) -> Self {
        WebhookConfig {
            url: url.into(),
            secret: None,
            bearer_token: None,
            headers: BTreeMap::new(),
            timeout_secs: Self::default_timeout_secs(),
            max_attempts: Self::default_max_attempts(),
            retry_backoff_ms: Self::default_retry_backoff_ms(),
        }
    }

    fn default_timeout_secs() -> u64 {
        10
    }

    fn default_max_attempts() -> u32 {
        3
    }

    fn default_retry_backoff_ms() -> u64 {
        500
    }
}

/// `kind = "smtp"`: the message is emailed to `to` through the server at `host`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SmtpConfig {
    pub host: String,
    /// Defaults to the usual port of `security`: 25, 587 or 465.
    #[serde(default)]
    pub port: Option<u16>,
    #[serde(default)]
    pub security: SmtpSecurity,
    #[serde(default)]
    pub username: Option<String>,
    #[serde(default)]
    pub password: Option<Secret>,
    /// `address@host` or `Name <address@host>`.
    pub from: String,
    /// One address or a list of them.
    #[serde(deserialize_with = "one_or_many")]
    pub to: Vec<String>,
    /// For each step of the SMTP conversation.
    #[serde(default = "SmtpConfig::default_timeout_secs")]
    pub timeout_secs: u64,
}

impl SmtpConfig {
    pub fn new(host: impl Into<String>, from: impl Into<String>, to: Vec<String>) -> Self {
        SmtpConfig {
            host: host.into(),
            port: None,
            security: SmtpSecurity::default(),
            username: None,
            password: None,
            from: from.into(),
            to,
            timeout_secs: Self::default_timeout_secs(),
        }
    }

    fn default_timeout_secs() -> u64 {
        30
    }
}

/// How the connection to the SMTP server is protected.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SmtpSecurity {
    /// Plain text throughout. Credentials are then accepted for a loopback host only.
    None,
    /// Plain connection upgraded with STARTTLS, which the server must offer (else nothing,
    /// credentials included, is sent).
    #[default]
    Starttls,
    /// TLS from the first byte (SMTPS).
    Tls,
}

impl SmtpSecurity {
    pub fn default_port(self) -> u16 {
        match self {
            SmtpSecurity::None => 25,
            SmtpSecurity::Starttls => 587,
            SmtpSecurity::Tls => 465,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            SmtpSecurity::None => "none",
            SmtpSecurity::Starttls => "starttls",
            SmtpSecurity::Tls => "tls",
        }
    }
}

/// A setting that must not show up in logs: its `Debug` is redacted.
#[derive(Clone, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

impl From<&str> for Secret {
    fn from(value: &str) -> Self {
        Secret::new(value)
    }
}

impl From<String> for Secret {
    fn from(value: String) -> Self {
        Secret(value)
    }
}

/// Checks every setting of `config` and builds its notifier.
pub fn build(config: &NotifierConfig) -> Result<Arc<dyn Notifier>, NotifyError> {
    Ok(match config {
        NotifierConfig::Webhook(webhook) => Arc::new(WebhookNotifier::new(webhook)?),
        NotifierConfig::Smtp(smtp) => Arc::new(SmtpNotifier::new(smtp)?),
    })
}

/// [`build`] for each `[[notifiers]]` table; an error names the table as `notifiers[i]`.
pub fn build_all(configs: &[NotifierConfig]) -> Result<Vec<Arc<dyn Notifier>>, NotifyError> {
    configs
        .iter()
        .enumerate()
        .map(|(index, config)| build(config).map_err(|e| e.within(&format!("notifiers[{index}]"))))
        .collect()
}

/// `to = "a@example.com"` reads as naturally as `to = ["a@example.com", "b@example.com"]`.
fn one_or_many<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<String>, D::Error> {
    struct OneOrMany;

    impl<'de> Visitor<'de> for OneOrMany {
        type Value = Vec<String>;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("an email address or a list of email addresses")
        }

        fn visit_str<E: de::Error>(self, value: &str) -> Result<Self::Value, E> {
            Ok(vec![value.to_owned()])
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut addresses = Vec::new();
            while let Some(address) = seq.next_element()? {
                addresses.push(address);
            }
            Ok(addresses)
        }
    }

    deserializer.deserialize_any(OneOrMany)
}
