//! The SMTP notifier against a minimal SMTP server on 127.0.0.1 that records each session.

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine;
use chrono::{TimeZone, Utc};
use pathwise_notify::{build, Message, NotifierConfig, NotifyError, Recipient, Secret, SmtpConfig, SmtpSecurity};
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::tcp::OwnedWriteHalf;
use tokio::net::{TcpListener, TcpStream};

#[derive(Clone, Copy)]
struct ServerBehaviour {
    /// The mechanisms advertised after `250-AUTH`, if any.
    auth: Option<&'static str>,
    accept_credentials: bool,
}

const PLAIN_SERVER: ServerBehaviour = ServerBehaviour { auth: None, accept_credentials: true };

#[derive(Debug, Default, Clone)]
struct Session {
    ehlo: Option<String>,
    /// Mechanism, user name, password.
    auth: Option<(String, String, String)>,
    mail_from: Option<String>,
    rcpt_to: Vec<String>,
    data: Option<String>,
}

type Sessions = Arc<Mutex<Vec<Session>>>;

async fn start_smtp_server(behaviour: ServerBehaviour) -> (u16, Sessions) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let sessions: Sessions = Arc::default();
    let recorded = sessions.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let index = {
                let mut sessions = recorded.lock().unwrap();
                sessions.push(Session::default());
                sessions.len() - 1
            };
            let sessions = recorded.clone();
            tokio::spawn(async move {
                // A session that ends early (the client gave up) is simply over.
                let _ = serve(stream, behaviour, |update: &dyn Fn(&mut Session)| {
                    update(&mut sessions.lock().unwrap()[index])
                })
                .await;
            });
        }
    });
    (port, sessions)
}

/// Every change is recorded before the reply is written, so a client that has its answer finds
/// the session up to date.
async fn serve(
    stream: TcpStream,
    behaviour: ServerBehaviour,
    record: impl Fn(&dyn Fn(&mut Session)),
) -> std::io::Result<()> {
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::new(read);
    reply(&mut write, "220 smtp.test ESMTP ready").await?;
    loop {
        let line = read_line(&mut lines).await?;
        let upper = line.to_ascii_uppercase();
        if upper.starts_with("EHLO") || upper.starts_with("HELO") {
            let name = line[4..].trim().to_owned();
            record(&|s| s.ehlo = Some(name.clone()));
            let mut greeting = String::from("250-smtp.test greets you\r\n");
            if let Some(mechanisms) = behaviour.auth {
                greeting.push_str(&format!("250-AUTH {mechanisms}\r\n"));
            }
            greeting.push_str("250 8BITMIME");
            reply(&mut write, &greeting).await?;
        } else if upper.starts_with("AUTH PLAIN") {
            let encoded = match line[10..].trim() {
                "" => {
                    reply(&mut write, "334 ").await?;
                    read_line(&mut lines).await?
                }
                initial => initial.to_owned(),
            };
            let decoded = String::from_utf8(BASE64.decode(encoded.trim()).unwrap()).unwrap();
            let parts: Vec<&str> = decoded.split('\0').collect();
            let (user, password) = (parts[1].to_owned(), parts[2].to_owned());
            record(&|s| s.auth = Some(("PLAIN".into(), user.clone(), password.clone())));
            answer_credentials(&mut write, behaviour).await?;
        } else if upper.starts_with("AUTH LOGIN") {
            reply(&mut write, &format!("334 {}", BASE64.encode("Username:"))).await?;
            let user = decode(&read_line(&mut lines).await?);
            reply(&mut write, &format!("334 {}", BASE64.encode("Password:"))).await?;
            let password = decode(&read_line(&mut lines).await?);
            record(&|s| s.auth = Some(("LOGIN".into(), user.clone(), password.clone())));
            answer_credentials(&mut write, behaviour).await?;
        } else if upper.starts_with("MAIL FROM:") {
            let from = line[10..].trim().to_owned();
            record(&|s| s.mail_from = Some(from.clone()));
            reply(&mut write, "250 2.1.0 Ok").await?;
        } else if upper.starts_with("RCPT TO:") {
            let to = line[8..].trim().to_owned();
            if to.contains("nobody@") {
                reply(&mut write, "550 5.1.1 No such mailbox here").await?;
                continue;
            }
            record(&|s| s.rcpt_to.push(to.clone()));
            reply(&mut write, "250 2.1.5 Ok").await?;
        } else if upper == "DATA" {
            reply(&mut write, "354 End data with <CR><LF>.<CR><LF>").await?;
            let mut data = String::new();
            loop {
                let line = read_line(&mut lines).await?;
                if line == "." {
                    break;
                }
                // Dot-stuffing: a line starting with '.' was sent with one more.
                data.push_str(line.strip_prefix('.').unwrap_or(&line));
                data.push_str("\r\n");
            }
            record(&|s| s.data = Some(data.clone()));
            reply(&mut write, "250 2.0.0 Ok: queued as TEST1").await?;
        } else if upper == "QUIT" {
            reply(&mut write, "221 2.0.0 Bye").await?;
            return Ok(());
        } else if upper == "RSET" || upper == "NOOP" {
            reply(&mut write, "250 2.0.0 Ok").await?;
        } else {
            reply(&mut write, "502 5.5.2 Command not recognised").await?;
        }
    }
}

async fn answer_credentials(write: &mut OwnedWriteHalf, behaviour: ServerBehaviour) -> std::io::Result<()> {
    if behaviour.accept_credentials {
        reply(write, "235 2.7.0 Authentication successful").await
    } else {
        reply(write, "535 5.7.8 Authentication credentials invalid").await
    }
}

async fn read_line(lines: &mut BufReader<tokio::net::tcp::OwnedReadHalf>) -> std::io::Result<String> {
    let mut line = String::new();
    if lines.read_line(&mut line).await? == 0 {
        return Err(std::io::ErrorKind::UnexpectedEof.into());
    }
    Ok(line.trim_end_matches(['\r', '\n']).to_owned())
}

async fn reply(write: &mut OwnedWriteHalf, text: &str) -> std::io::Result<()> {
    write.write_all(format!("{text}\r\n").as_bytes()).await
}

fn decode(line: &str) -> String {
    String::from_utf8(BASE64.decode(line.trim()).unwrap()).unwrap()
}

fn local(port: u16) -> SmtpConfig {
    SmtpConfig {
        port: Some(port),
        security: SmtpSecurity::None,
        timeout_secs: 5,
        ..SmtpConfig::new(
            "127.0.0.1",
            "Pathwise <digest@pathwise.test>",
            vec!["ada@example.test".into(), "Grace Hopper <grace@example.test>".into()],
        )
    }
}

fn digest() -> Message {
    Message::new("Your week in Pathwise", "You mastered 3 concepts this week.", Recipient::new("Ada"))
        .with_sent_at(Utc.with_ymd_and_hms(2025, 6, 2, 8, 0, 0).unwrap())
}

fn only_session(sessions: &Sessions) -> Session {
    let sessions = sessions.lock().unwrap();
    assert_eq!(sessions.len(), 1, "{sessions:?}");
    sessions[0].clone()
}

#[tokio::test]
async fn sends_a_plain_text_email_to_every_recipient() {
    let (port, sessions) = start_smtp_server(PLAIN_SERVER).await;
    let notifier = build(&NotifierConfig::Smtp(local(port))).unwrap();

    let delivery = notifier.send(&digest()).await.unwrap();

    assert_eq!(delivery.attempts, 1);
    assert!(delivery.response.starts_with("250 "), "{}", delivery.response);
    assert!(delivery.response.contains("queued as TEST1"), "{}", delivery.response);
    let session = only_session(&sessions);
    assert!(session.ehlo.is_some());
    assert_eq!(session.auth, None, "no credentials configured");
    assert_eq!(session.mail_from.as_deref(), Some("<digest@pathwise.test>"));
    assert_eq!(session.rcpt_to, ["<ada@example.test>", "<grace@example.test>"]);
    let data = session.data.unwrap();
    assert!(data.contains("Subject: Your week in Pathwise\r\n"), "{data}");
    assert!(data.contains("From: Pathwise <digest@pathwise.test>\r\n"), "{data}");
    assert!(data.contains("ada@example.test") && data.contains("\"Grace Hopper\" <grace@example.test>"), "{data}");
    assert!(data.contains("Date: Mon, 02 Jun 2025 08:00:00 +0000\r\n"), "{data}");
    assert!(data.contains("Content-Type: text/plain; charset=utf-8\r\n"), "{data}");
    assert!(data.contains("\r\n\r\nYou mastered 3 concepts this week."), "{data}");
    assert!(!data.contains("text/html"), "{data}");
}

#[tokio::test]
async fn sends_the_html_as_an_alternative_to_the_text() {
    let (port, sessions) = start_smtp_server(PLAIN_SERVER).await;
    let notifier = build(&NotifierConfig::Smtp(local(port))).unwrap();

    notifier.send(&digest().with_html("<p>You mastered <b>3</b> concepts.</p>")).await.unwrap();

    let data = only_session(&sessions).data.unwrap();
    assert!(data.contains("Content-Type: multipart/alternative;"), "{data}");
    let text_at = data.find("Content-Type: text/plain").expect("a text part");
    let html_at = data.find("Content-Type: text/html").expect("an html part");
    assert!(text_at < html_at, "the preferred (html) part comes last: {data}");
    assert!(data.contains("You mastered 3 concepts this week."), "{data}");
    assert!(data.contains("<p>You mastered <b>3</b> concepts.</p>"), "{data}");
}

fn with_credentials(port: u16) -> SmtpConfig {
    SmtpConfig { username: Some("ada".into()), password: Some(Secret::new("correct horse")), ..local(port) }
}

#[tokio::test]
async fn logs_in_with_auth_plain_when_offered() {
    let (port, sessions) =
        start_smtp_server(ServerBehaviour { auth: Some("PLAIN LOGIN"), accept_credentials: true }).await;
    let notifier = build(&NotifierConfig::Smtp(with_credentials(port))).unwrap();

    notifier.send(&digest()).await.unwrap();

    let session = only_session(&sessions);
    assert_eq!(session.auth, Some(("PLAIN".into(), "ada".into(), "correct horse".into())));
    assert!(session.data.is_some());
}

#[tokio::test]
async fn logs_in_with_auth_login_when_that_is_all_there_is() {
    let (port, sessions) = start_smtp_server(ServerBehaviour { auth: Some("LOGIN"), accept_credentials: true }).await;
    let notifier = build(&NotifierConfig::Smtp(with_credentials(port))).unwrap();

    notifier.send(&digest()).await.unwrap();

    let session = only_session(&sessions);
    assert_eq!(session.auth, Some(("LOGIN".into(), "ada".into(), "correct horse".into())));
    assert!(session.data.is_some());
}

#[tokio::test]
async fn refused_credentials_are_reported_and_nothing_is_sent() {
    let (port, sessions) =
        start_smtp_server(ServerBehaviour { auth: Some("PLAIN LOGIN"), accept_credentials: false }).await;
    let notifier = build(&NotifierConfig::Smtp(with_credentials(port))).unwrap();

    let error = notifier.send(&digest()).await.unwrap_err();

    let NotifyError::Smtp { code, problem, .. } = &error else { panic!("{error:?}") };
    assert_eq!(*code, Some(535));
    assert!(problem.contains("Authentication credentials invalid"), "{problem}");
    let session = only_session(&sessions);
    assert_eq!(session.mail_from, None);
    assert_eq!(session.data, None);
}

#[tokio::test]
async fn a_refused_recipient_is_reported_with_the_servers_code() {
    let (port, sessions) = start_smtp_server(PLAIN_SERVER).await;
    let config = SmtpConfig { to: vec!["nobody@example.test".into()], ..local(port) };
    let notifier = build(&NotifierConfig::Smtp(config)).unwrap();

    let error = notifier.send(&digest()).await.unwrap_err();

    let NotifyError::Smtp { code, problem, .. } = &error else { panic!("{error:?}") };
    assert_eq!(*code, Some(550));
    assert!(problem.contains("No such mailbox"), "{problem}");
    assert_eq!(only_session(&sessions).data, None);
}

#[tokio::test]
async fn starttls_that_the_server_does_not_offer_stops_before_the_credentials() {
    let (port, sessions) =
        start_smtp_server(ServerBehaviour { auth: Some("PLAIN LOGIN"), accept_credentials: true }).await;
    let config = SmtpConfig { security: SmtpSecurity::Starttls, ..with_credentials(port) };
    let notifier = build(&NotifierConfig::Smtp(config)).unwrap();

    let error = notifier.send(&digest()).await.unwrap_err();

    let NotifyError::Smtp { code: None, problem, .. } = &error else { panic!("{error:?}") };
    assert!(problem.contains("STARTTLS"), "{problem}");
    let session = only_session(&sessions);
    assert_eq!(session.auth, None, "the password must not cross an unencrypted connection");
    assert_eq!(session.mail_from, None);
}

#[tokio::test]
async fn an_unreachable_server_is_reported() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let notifier = build(&NotifierConfig::Smtp(local(port))).unwrap();

    let error = notifier.send(&digest()).await.unwrap_err();

    let NotifyError::Transport { attempts: 1, notifier: name, .. } = &error else { panic!("{error:?}") };
    assert_eq!(name, &format!("smtp 127.0.0.1:{port} (none)"));
}
