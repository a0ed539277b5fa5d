//! `[[notifiers]]` tables as written in the config file, and the checks `build` makes.

use pathwise_notify::{build, build_all, NotifierConfig, NotifyError, Secret, SmtpConfig, SmtpSecurity, WebhookConfig};
use serde::Deserialize;

#[derive(Debug, Deserialize)]
struct ConfigFile {
    notifiers: Vec<NotifierConfig>,
}

fn parse(toml_text: &str) -> Result<Vec<NotifierConfig>, String> {
    toml::from_str::<ConfigFile>(toml_text).map(|file| file.notifiers).map_err(|e| e.to_string())
}

fn parse_error(toml_text: &str) -> String {
    parse(toml_text).expect_err("the config should be refused")
}

/// The setting an error names, and its explanation.
fn config_error(result: Result<impl Sized, NotifyError>) -> (String, String) {
    match result {
        Err(NotifyError::Config { field, problem }) => (field, problem),
        Err(other) => panic!("expected a config error, got {other:?}"),
        Ok(_) => panic!("expected a config error, got a notifier"),
    }
}

const EXAMPLE: &str = r#"
[[notifiers]]
kind = "webhook"
url = "https://hooks.example.com/pathwise"
secret = "shared-secret"
bearer_token = "token-123"
headers = { "X-Api-Key" = "gateway-key" }
timeout_secs = 5
max_attempts = 2
retry_backoff_ms = 250

[[notifiers]]
kind = "smtp"
host = "smtp.example.com"
port = 2525
security = "tls"
username = "pathwise"
password = "app-password"
from = "Pathwise <digest@example.com>"
to = ["ada@example.com", "Grace <grace@example.com>"]

[[notifiers]]
kind = "webhook"
url = "http://127.0.0.1:9000/hook"

[[notifiers]]
kind = "smtp"
host = "localhost"
from = "digest@example.com"
to = "ada@example.com"
"#;

#[test]
fn the_documented_examples_parse_with_their_defaults() {
    let notifiers = parse(EXAMPLE).unwrap();

    assert_eq!(notifiers.len(), 4);
    let NotifierConfig::Webhook(full) = &notifiers[0] else { panic!("{:?}", notifiers[0]) };
    assert_eq!(full.url, "https://hooks.example.com/pathwise");
    assert_eq!(full.secret, Some(Secret::new("shared-secret")));
    assert_eq!(full.bearer_token, Some(Secret::new("token-123")));
    assert_eq!(full.headers["X-Api-Key"].expose(), "gateway-key");
    assert_eq!((full.timeout_secs, full.max_attempts, full.retry_backoff_ms), (5, 2, 250));

    let NotifierConfig::Smtp(smtp) = &notifiers[1] else { panic!("{:?}", notifiers[1]) };
    assert_eq!(smtp.port, Some(2525));
    assert_eq!(smtp.security, SmtpSecurity::Tls);
    assert_eq!(smtp.username.as_deref(), Some("pathwise"));
    assert_eq!(smtp.to, ["ada@example.com", "Grace <grace@example.com>"]);

    assert_eq!(notifiers[2], NotifierConfig::Webhook(WebhookConfig::new("http://127.0.0.1:9000/hook")));
    assert_eq!(
        notifiers[3],
        NotifierConfig::Smtp(SmtpConfig::new("localhost", "digest@example.com", vec!["ada@example.com".into()]))
    );

    let built = build_all(&notifiers).unwrap();
    let descriptions: Vec<String> = built.iter().map(|n| n.describe()).collect();
    assert_eq!(
        descriptions,
        [
            "webhook https://hooks.example.com/pathwise",
            "smtp smtp.example.com:2525 (tls)",
            "webhook http://127.0.0.1:9000/hook",
            "smtp localhost:587 (starttls)",
        ]
    );
}

#[test]
fn secrets_stay_out_of_debug_output_and_descriptions() {
    let notifiers = parse(EXAMPLE).unwrap();
    let debug = format!("{notifiers:?}");
    for secret in ["shared-secret", "token-123", "gateway-key", "app-password"] {
        assert!(!debug.contains(secret), "{secret} leaked into {debug}");
    }
    for notifier in build_all(&notifiers).unwrap() {
        assert!(!notifier.describe().contains("secret"));
    }
}

#[test]
fn an_unknown_kind_lists_the_known_ones() {
    let error = parse_error("[[notifiers]]\nkind = \"slack\"\nurl = \"https://x\"\n");
    assert!(error.contains("unknown variant `slack`, expected `webhook` or `smtp`"), "{error}");
}

#[test]
fn a_missing_kind_is_named() {
    let error = parse_error("[[notifiers]]\nurl = \"https://example.com/hook\"\n");
    assert!(error.contains("missing field `kind`"), "{error}");
}

#[test]
fn missing_required_settings_are_named() {
    let error = parse_error("[[notifiers]]\nkind = \"webhook\"\nsecret = \"s\"\n");
    assert!(error.contains("missing field `url`"), "{error}");

    let error = parse_error("[[notifiers]]\nkind = \"smtp\"\nhost = \"smtp.example.com\"\nfrom = \"a@example.com\"\n");
    assert!(error.contains("missing field `to`"), "{error}");
}

#[test]
fn a_misspelt_setting_is_refused_rather_than_ignored() {
    let error = parse_error("[[notifiers]]\nkind = \"webhook\"\nurl = \"https://example.com/hook\"\nsecert = \"s\"\n");
    assert!(error.contains("unknown field `secert`"), "{error}");
    assert!(error.contains("`secret`"), "the known settings are listed: {error}");
}

#[test]
fn an_unknown_security_lists_the_allowed_ones() {
    let error = parse_error(
        "[[notifiers]]\nkind = \"smtp\"\nhost = \"h\"\nsecurity = \"ssl\"\nfrom = \"a@example.com\"\nto = \"b@example.com\"\n",
    );
    assert!(error.contains("unknown variant `ssl`, expected one of `none`, `starttls`, `tls`"), "{error}");
}

#[test]
fn a_recipient_that_is_not_text_is_explained() {
    let error = parse_error("[[notifiers]]\nkind = \"smtp\"\nhost = \"h\"\nfrom = \"a@example.com\"\nto = 42\n");
    assert!(error.contains("an email address or a list of email addresses"), "{error}");
}

fn webhook(config: WebhookConfig) -> Result<impl Sized, NotifyError> {
    build(&NotifierConfig::Webhook(config))
}

#[test]
fn webhook_urls_must_be_http_or_https() {
    let (field, problem) = config_error(webhook(WebhookConfig::new("ftp://example.com/hook")));
    assert_eq!(field, "url");
    assert!(problem.contains("http:// or https://") && problem.contains("ftp://"), "{problem}");

    let (field, problem) = config_error(webhook(WebhookConfig::new("hooks.example.com/pathwise")));
    assert_eq!(field, "url");
    assert!(problem.contains("absolute http:// or https:// URL"), "{problem}");

    let (field, _) = config_error(webhook(WebhookConfig::new("")));
    assert_eq!(field, "url");
}

#[test]
fn webhook_settings_out_of_range_are_refused() {
    let base = WebhookConfig::new("https://example.com/hook");

    let (field, problem) = config_error(webhook(WebhookConfig { max_attempts: 0, ..base.clone() }));
    assert_eq!(field, "max_attempts");
    assert!(problem.contains("from 1 to 10"), "{problem}");

    let (field, _) = config_error(webhook(WebhookConfig { timeout_secs: 0, ..base.clone() }));
    assert_eq!(field, "timeout_secs");

    let (field, problem) = config_error(webhook(WebhookConfig { secret: Some(Secret::new("")), ..base.clone() }));
    assert_eq!(field, "secret");
    assert!(problem.contains("must not be empty"), "{problem}");

    let (field, _) = config_error(webhook(WebhookConfig { bearer_token: Some(Secret::new(" ")), ..base.clone() }));
    assert_eq!(field, "bearer_token");
}

#[test]
fn webhook_headers_must_be_valid_and_not_clash_with_the_notifiers_own() {
    let base = WebhookConfig::new("https://example.com/hook");
    let with_header = |name: &str, value: &str| WebhookConfig {
        headers: [(name.to_owned(), Secret::new(value))].into(),
        bearer_token: Some(Secret::new("t")),
        ..base.clone()
    };

    let (field, problem) = config_error(webhook(with_header("Bad Header", "v")));
    assert_eq!(field, "headers.Bad Header");
    assert!(problem.contains("not a valid HTTP header name"), "{problem}");

    let (field, _) = config_error(webhook(with_header("X-Note", "line\nbreak")));
    assert_eq!(field, "headers.X-Note");

    for reserved in ["Content-Type", "Authorization", "X-Pathwise-Signature"] {
        let (field, problem) = config_error(webhook(with_header(reserved, "v")));
        assert_eq!(field, format!("headers.{reserved}"));
        assert!(problem.contains("set by the notifier itself"), "{problem}");
    }

    // Without a bearer_token, an Authorization header of another scheme is the caller's own.
    let basic = WebhookConfig { headers: [("Authorization".into(), Secret::new("Basic YTpi"))].into(), ..base.clone() };
    assert!(webhook(basic).is_ok());
}

fn smtp(config: SmtpConfig) -> Result<impl Sized, NotifyError> {
    build(&NotifierConfig::Smtp(config))
}

fn smtp_base() -> SmtpConfig {
    SmtpConfig::new("smtp.example.com", "digest@example.com", vec!["ada@example.com".into()])
}

#[test]
fn smtp_addresses_are_checked_naming_the_field() {
    let (field, problem) = config_error(smtp(SmtpConfig { from: "not an address".into(), ..smtp_base() }));
    assert_eq!(field, "from");
    assert!(problem.contains("\"not an address\""), "{problem}");

    let to = vec!["ada@example.com".into(), "grace at example.com".into()];
    let (field, problem) = config_error(smtp(SmtpConfig { to, ..smtp_base() }));
    assert_eq!(field, "to[1]");
    assert!(problem.contains("grace at example.com"), "{problem}");

    let (field, problem) = config_error(smtp(SmtpConfig { to: vec![], ..smtp_base() }));
    assert_eq!(field, "to");
    assert!(problem.contains("at least one"), "{problem}");
}

#[test]
fn smtp_hosts_are_host_names_alone() {
    for (host, hint) in [
        ("", "must name the SMTP server"),
        ("smtps://smtp.example.com", "without a scheme"),
        ("smtp.example.com:587", "set `port`"),
        ("smtp example com", "is not a host name"),
    ] {
        let (field, problem) = config_error(smtp(SmtpConfig { host: host.into(), ..smtp_base() }));
        assert_eq!(field, "host", "{host}");
        assert!(problem.contains(hint), "{host}: {problem}");
    }
    assert!(smtp(SmtpConfig { host: "::1".into(), ..smtp_base() }).is_ok());
}

#[test]
fn smtp_credentials_come_in_pairs() {
    let (field, _) = config_error(smtp(SmtpConfig { username: Some("ada".into()), ..smtp_base() }));
    assert_eq!(field, "password");

    let (field, _) = config_error(smtp(SmtpConfig { password: Some(Secret::new("pw")), ..smtp_base() }));
    assert_eq!(field, "username");

    let (field, _) = config_error(smtp(SmtpConfig { port: Some(0), ..smtp_base() }));
    assert_eq!(field, "port");
}

#[test]
fn unencrypted_credentials_are_allowed_to_this_machine_only() {
    let unencrypted = |host: &str| SmtpConfig {
        host: host.into(),
        security: SmtpSecurity::None,
        username: Some("ada".into()),
        password: Some(Secret::new("pw")),
        ..smtp_base()
    };

    let (field, problem) = config_error(smtp(unencrypted("smtp.example.com")));
    assert_eq!(field, "security");
    assert!(problem.contains("\"starttls\" or \"tls\""), "{problem}");

    for local in ["localhost", "127.0.0.1", "::1"] {
        assert!(smtp(unencrypted(local)).is_ok(), "{local}");
    }
    assert!(smtp(SmtpConfig { security: SmtpSecurity::Starttls, ..unencrypted("smtp.example.com") }).is_ok());
}

#[test]
fn build_all_names_the_table_at_fault() {
    let configs = vec![
        NotifierConfig::Webhook(WebhookConfig::new("https://example.com/hook")),
        NotifierConfig::Smtp(SmtpConfig { to: vec!["ada@example.com".into(), "nope".into()], ..smtp_base() }),
    ];

    let error = build_all(&configs).err().expect("the second table is invalid");

    let (field, _) = config_error(Err::<(), _>(error.clone()));
    assert_eq!(field, "notifiers[1].to[1]");
    assert!(
        error.to_string().starts_with("notifier setting `notifiers[1].to[1]`: must be an email address"),
        "{error}"
    );
}
