//! Delivery of Pathwise messages, such as each learner's weekly learning digest, through the
//! notifiers listed in the config file: a webhook (a signed JSON POST) or SMTP email.
//!
//! A config file names its notifiers as `[[notifiers]]` tables, each with a `kind`;
//! [`NotifierConfig`] is what one of them deserialises to, and [`build`] (or [`build_all`]
//! for the whole list) checks every setting and turns it into an `Arc<dyn Notifier>`. Bad
//! settings are refused there, naming the setting and what it may be, so that a notifier
//! that was built fails at send time only for reasons outside Pathwise (a receiver down or
//! refusing).
//!
//! Nothing here reads the clock for the content of a message: the caller stamps
//! [`Message::sent_at`], so that a digest carries the time it was composed for, and a
//! receiver can tell a retried delivery from a new digest.

mod config;
mod error;
mod smtp;
mod webhook;

pub use config::{build, build_all, NotifierConfig, Secret, SmtpConfig, SmtpSecurity, WebhookConfig};
pub use error::NotifyError;
pub use smtp::SmtpNotifier;
pub use webhook::{WebhookNotifier, SIGNATURE_HEADER};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::future::Future;
use std::pin::Pin;

/// One message to one learner. Serialised, it is exactly the webhook's JSON body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub subject: String,
    pub text: String,
    /// An HTML rendering of `text`, for notifiers that can show one.
    pub html: Option<String>,
    #[serde(flatten)]
    pub recipient: Recipient,
    /// When the message was composed, stamped by the caller.
    pub sent_at: Option<DateTime<Utc>>,
}

impl Message {
    pub fn new(subject: impl Into<String>, text: impl Into<String>, recipient: Recipient) -> Self {
        Message { subject: subject.into(), text: text.into(), html: None, recipient, sent_at: None }
    }

    pub fn with_html(mut self, html: impl Into<String>) -> Self {
        self.html = Some(html.into());
        self
    }

    pub fn with_sent_at(mut self, sent_at: DateTime<Utc>) -> Self {
        self.sent_at = Some(sent_at);
        self
    }
}

/// Who a message is for, as far as a notifier needs to know.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Recipient {
    pub learner_name: String,
    pub learner_id: Option<String>,
}

impl Recipient {
    pub fn new(learner_name: impl Into<String>) -> Self {
        Recipient { learner_name: learner_name.into(), learner_id: None }
    }

    pub fn with_id(mut self, learner_id: impl Into<String>) -> Self {
        self.learner_id = Some(learner_id.into());
        self
    }
}

/// What a notifier knows of a message it handed over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    /// The notifier's [`Notifier::describe`].
    pub notifier: String,
    /// 1 unless earlier attempts failed in a way worth repeating.
    pub attempts: u32,
    /// The receiver's answer, e.g. `HTTP 200 OK` or `250 queued as 1234`.
    pub response: String,
}

/// A way of delivering messages, configured once and shared as `Arc<dyn Notifier>`.
pub trait Notifier: Send + Sync {
    fn send<'a>(
        &'a self,
        message: &'a Message,
    ) -> Pin<Box<dyn Future<Output = Result<Delivery, NotifyError>> + Send + 'a>>;

    /// Which notifier this is, for logs and errors, without secrets: e.g.
    /// `webhook https://hooks.example.com/pathwise`.
    fn describe(&self) -> String;
}
