//! The SMTP notifier: the message as an email, text with an HTML alternative when there is
//! one, over lettre with rustls.
//!
//! A message is sent once: an SMTP server that accepted DATA may have queued it even if the
//! connection broke before its answer, and a digest is better missed than sent twice.

use crate::config::{SmtpConfig, SmtpSecurity};
use crate::{Delivery, Message, Notifier, NotifyError};
use lettre::message::{Mailbox, MultiPart, SinglePart};
use lettre::transport::smtp::authentication::{Credentials, Mechanism};
use lettre::transport::smtp::client::{Tls, TlsParameters};
use lettre::{AsyncSmtpTransport, AsyncTransport, Tokio1Executor};
use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;
use std::time::{Duration, SystemTime};

pub struct SmtpNotifier {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
    to: Vec<Mailbox>,
    description: String,
}

impl SmtpNotifier {
    pub fn new(config: &SmtpConfig) -> Result<Self, NotifyError> {
        let host = config.host.trim();
        check_host(host)?;
        let port = config.port.unwrap_or(config.security.default_port());
        if port == 0 {
            return Err(NotifyError::config("port", "must be from 1 to 65535"));
        }
        if config.timeout_secs == 0 {
            return Err(NotifyError::config("timeout_secs", "must be at least 1 (seconds)"));
        }
        let from = parse_mailbox("from", &config.from)?;
        if config.to.is_empty() {
            return Err(NotifyError::config("to", "must name at least one recipient address"));
        }
        let to = config
            .to
            .iter()
            .enumerate()
            .map(|(index, address)| parse_mailbox(&format!("to[{index}]"), address))
            .collect::<Result<Vec<_>, _>>()?;

        let tls = match config.security {
            SmtpSecurity::None => Tls::None,
            SmtpSecurity::Starttls => Tls::Required(tls_parameters(host)?),
            SmtpSecurity::Tls => Tls::Wrapper(tls_parameters(host)?),
        };
        let mut builder = AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(host)
            .port(port)
            .tls(tls)
            .timeout(Some(Duration::from_secs(config.timeout_secs)));
        if let Some(credentials) = credentials(config, host)? {
            builder = builder.credentials(credentials).authentication(vec![Mechanism::Plain, Mechanism::Login]);
        }

        let description = format!("smtp {host}:{port} ({})", config.security.as_str());
        Ok(SmtpNotifier { transport: builder.build(), from, to, description })
    }

    async fn deliver(&self, message: &Message) -> Result<Delivery, NotifyError> {
        let email = self.email(message)?;
        match self.transport.send(email).await {
            Ok(response) => {
                let text = response.message().collect::<Vec<_>>().join(" ");
                Ok(Delivery {
                    notifier: self.description.clone(),
                    attempts: 1,
                    response: format!("{} {text}", response.code()).trim_end().to_owned(),
                })
            }
            Err(error) => Err(self.failure(error)),
        }
    }

    fn email(&self, message: &Message) -> Result<lettre::Message, NotifyError> {
        let mut email = lettre::Message::builder().from(self.from.clone()).subject(message.subject.clone());
        for recipient in &self.to {
            email = email.to(recipient.clone());
        }
        if let Some(sent_at) = message.sent_at {
            email = email.date(SystemTime::from(sent_at));
        }
        let built = match &message.html {
            Some(html) => email.multipart(MultiPart::alternative_plain_html(message.text.clone(), html.clone())),
            None => email.singlepart(SinglePart::plain(message.text.clone())),
        };
        built.map_err(|e| NotifyError::InvalidMessage {
            notifier: self.description.clone(),
            problem: format!("cannot build the email: {e}"),
        })
    }

    fn failure(&self, error: lettre::transport::smtp::Error) -> NotifyError {
        let notifier = self.description.clone();
        if let Some(code) = error.status() {
            let code = code.to_string().parse().ok();
            return NotifyError::Smtp { notifier, code, problem: format!("the server refused: {error}") };
        }
        if error.is_client() || error.is_response() || error.is_tls() {
            return NotifyError::Smtp { notifier, code: None, problem: error_chain(&error) };
        }
        NotifyError::Transport { notifier, attempts: 1, problem: error_chain(&error) }
    }
}

impl Notifier for SmtpNotifier {
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

fn check_host(host: &str) -> Result<(), NotifyError> {
    if host.is_empty() {
        return Err(NotifyError::config("host", "must name the SMTP server, e.g. \"smtp.example.com\""));
    }
    if host.contains("://") {
        return Err(NotifyError::config(
            "host",
            format!("must be a host name without a scheme ({host:?}); set `security` for TLS"),
        ));
    }
    if host.contains(':') && host.parse::<IpAddr>().is_err() {
        return Err(NotifyError::config(
            "host",
            format!("must be a host name alone ({host:?}); set `port` for the port"),
        ));
    }
    if host.chars().any(|c| c.is_whitespace() || c == '/' || c == '@') {
        return Err(NotifyError::config("host", format!("is not a host name: {host:?}")));
    }
    Ok(())
}

fn parse_mailbox(field: &str, address: &str) -> Result<Mailbox, NotifyError> {
    address.trim().parse::<Mailbox>().map_err(|e| {
        NotifyError::config(
            field,
            format!(
                "must be an email address like \"a@example.com\" or \"Name <a@example.com>\"; {address:?} is not ({e})"
            ),
        )
    })
}

fn tls_parameters(host: &str) -> Result<TlsParameters, NotifyError> {
    TlsParameters::new(host.to_owned())
        .map_err(|e| NotifyError::config("host", format!("cannot be used to verify a TLS certificate: {e}")))
}

/// Credentials over plain text are allowed to this machine only, where a local relay or a test
/// server listens; anywhere else they would cross a network readable by others.
fn credentials(config: &SmtpConfig, host: &str) -> Result<Option<Credentials>, NotifyError> {
    let (username, password) = match (&config.username, &config.password) {
        (None, None) => return Ok(None),
        (Some(username), Some(password)) => (username, password),
        (Some(_), None) => return Err(NotifyError::config("password", "is required when `username` is set")),
        (None, Some(_)) => return Err(NotifyError::config("username", "is required when `password` is set")),
    };
    if username.is_empty() {
        return Err(NotifyError::config(
            "username",
            "must not be empty; leave out both username and password to send without logging in",
        ));
    }
    if config.security == SmtpSecurity::None && !is_loopback(host) {
        return Err(NotifyError::config(
            "security",
            format!(
                "\"none\" would send the password unencrypted to {host}; use \"starttls\" or \"tls\" (\"none\" with credentials is allowed for localhost only)"
            ),
        ));
    }
    Ok(Some(Credentials::new(username.clone(), password.expose().to_owned())))
}

fn is_loopback(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost") || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

fn error_chain(error: &dyn std::error::Error) -> String {
    // lettre's Display already includes its immediate source.
    let mut message = error.to_string();
    let mut source = error.source().and_then(|s| s.source());
    while let Some(cause) = source {
        message.push_str(": ");
        message.push_str(&cause.to_string());
        source = cause.source();
    }
    message
}
