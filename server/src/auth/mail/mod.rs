//! Sending auth mail: through SMTP (lettre) when `SMTP_HOST` is set, otherwise into the
//! development inbox (`auth.dev_inbox`, shown at `/inbox`). The SMTP settings and the templates
//! can change while the server runs (Studio's overrides, `auth::live`): each is held as a
//! snapshot swapped whole, and each mail takes the snapshot in force when it starts.
//!
//! The mailer only delivers rendered messages; what to send and when (spacing, limits) is the
//! handlers' business. SMTP errors are returned so the request fails as GoTrue's does. A message
//! may carry files (the outbox's attachments): over SMTP it is then `multipart/mixed` (the text
//! and HTML alternatives, then each file), and the development inbox keeps the files beside it.

pub mod inbox;
pub mod templates;

use deadpool_postgres::Pool;
use lettre::message::{header::ContentType, Mailbox, MultiPart, SinglePart};
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Tls, TlsParameters};
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use secrecy::ExposeSecret;

use super::error::AuthError;
use crate::config::AuthConfig;
pub use templates::{Kind, Rendered, Templates, Vars};

/// A file sent with a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attachment {
    /// The name the recipient sees (no folders).
    pub filename: String,
    /// Its MIME type (`application/pdf`).
    pub content_type: String,
    pub content: Vec<u8>,
}

/// Where mail goes.
enum Transport {
    Smtp(Box<AsyncSmtpTransport<Tokio1Executor>>),
    Inbox,
}

/// The transport and sender in force, built from the SMTP settings (start-up values with
/// Studio's overrides) and swapped whole by the live settings: a mail being sent keeps the one
/// it started with, the next mail takes the new one. Building opens no connection.
pub struct Delivery {
    transport: Transport,
    from: Mailbox,
}

impl std::fmt::Debug for Delivery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self.transport {
            Transport::Smtp(_) => "smtp",
            Transport::Inbox => "inbox",
        };
        f.debug_struct("Delivery").field("transport", &kind).field("from", &self.from.to_string()).finish()
    }
}

impl Delivery {
    /// The delivery `config`'s SMTP settings describe; an error names the setting at fault.
    pub fn new(config: &AuthConfig) -> Result<Delivery, String> {
        let from_address = config.smtp_admin_email.trim().parse().map_err(|e| format!("SMTP_ADMIN_EMAIL: {e}"))?;
        let from = Mailbox::new(Some(config.smtp_sender_name.clone()).filter(|n| !n.is_empty()), from_address);
        let transport = match config.smtp_host.as_deref().map(str::trim) {
            Some(host) if !host.is_empty() => {
                let tls_params = || TlsParameters::new(host.to_string()).map_err(|e| format!("SMTP_HOST: TLS: {e}"));
                let tls = match (config.smtp_tls.as_str(), config.smtp_port) {
                    ("auto", 465) | ("tls", _) => Tls::Wrapper(tls_params()?),
                    ("auto", _) => Tls::Opportunistic(tls_params()?),
                    ("starttls", _) => Tls::Required(tls_params()?),
                    ("none", _) => Tls::None,
                    (other, _) => return Err(format!("SMTP_TLS: {other:?}: expected auto, starttls, tls or none")),
                };
                let mut builder =
                    AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(host).port(config.smtp_port).tls(tls);
                if let Some(user) = config.smtp_user.as_ref().filter(|u| !u.is_empty()) {
                    let pass = config.smtp_pass.as_ref().map(|p| p.expose_secret().to_string()).unwrap_or_default();
                    builder = builder.credentials(Credentials::new(user.clone(), pass));
                }
                Transport::Smtp(Box::new(builder.build()))
            }
            _ => Transport::Inbox,
        };
        Ok(Delivery { transport, from })
    }

    /// Whether mail goes to the development inbox.
    pub fn uses_inbox(&self) -> bool {
        matches!(self.transport, Transport::Inbox)
    }
}

/// Renders and delivers auth mail.
pub struct Mailer {
    /// The transport in force: built from the configuration, swapped by the live settings.
    delivery: std::sync::RwLock<std::sync::Arc<Delivery>>,
    /// The templates in force: built from the configuration, swapped by the live settings.
    templates: std::sync::RwLock<std::sync::Arc<Templates>>,
    pool: Pool,
}

impl std::fmt::Debug for Mailer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mailer").field("delivery", &self.delivery()).finish()
    }
}

impl Mailer {
    /// Build the mailer from the configuration (no connection is opened yet).
    pub fn new(config: &AuthConfig, pool: Pool) -> Result<Mailer, String> {
        let delivery = Delivery::new(config)?;
        let templates = Templates::load(config.mailer_templates_dir.as_deref())
            .with_file(Kind::Confirmation, config.mailer_templates_confirmation.as_deref())
            .with_file(Kind::Recovery, config.mailer_templates_recovery.as_deref())
            .with_file(Kind::MagicLink, config.mailer_templates_magic_link.as_deref())
            .with_file(Kind::Invite, config.mailer_templates_invite.as_deref())
            .with_file(Kind::EmailChange, config.mailer_templates_email_change.as_deref())
            .with_file(Kind::Reauthentication, config.mailer_templates_reauthentication.as_deref())
            .with_subject(Kind::Confirmation, config.mailer_subjects_confirmation.as_deref())
            .with_subject(Kind::Recovery, config.mailer_subjects_recovery.as_deref())
            .with_subject(Kind::MagicLink, config.mailer_subjects_magic_link.as_deref())
            .with_subject(Kind::Invite, config.mailer_subjects_invite.as_deref())
            .with_subject(Kind::EmailChange, config.mailer_subjects_email_change.as_deref())
            .with_subject(Kind::Reauthentication, config.mailer_subjects_reauthentication.as_deref());
        Ok(Mailer {
            delivery: std::sync::RwLock::new(std::sync::Arc::new(delivery)),
            templates: std::sync::RwLock::new(std::sync::Arc::new(templates)),
            pool,
        })
    }

    /// The transport in force.
    pub fn delivery(&self) -> std::sync::Arc<Delivery> {
        match self.delivery.read() {
            Ok(guard) => guard.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// Put `delivery` in force (the live settings do, on each reload): the next mail takes it.
    pub fn set_delivery(&self, delivery: std::sync::Arc<Delivery>) {
        match self.delivery.write() {
            Ok(mut guard) => *guard = delivery,
            Err(poisoned) => *poisoned.into_inner() = delivery,
        }
    }

    /// The templates in force.
    pub fn templates(&self) -> std::sync::Arc<Templates> {
        match self.templates.read() {
            Ok(guard) => guard.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// Put `templates` in force (the live settings do, on each reload).
    pub fn set_templates(&self, templates: std::sync::Arc<Templates>) {
        match self.templates.write() {
            Ok(mut guard) => *guard = templates,
            Err(poisoned) => *poisoned.into_inner() = templates,
        }
    }

    /// Whether mail goes to the development inbox.
    pub fn uses_inbox(&self) -> bool {
        self.delivery().uses_inbox()
    }

    /// Render `kind` and deliver it to `to`.
    pub async fn send(&self, to: &str, kind: Kind, vars: &Vars) -> Result<(), AuthError> {
        let rendered = self.templates().render(kind, vars);
        self.deliver(to, kind.name(), &rendered, Some(&vars.confirmation_url)).await
    }

    /// Deliver a message rendered elsewhere (the outbox's); `kind` names it in the inbox, `link`
    /// is the one the inbox shows beside it.
    pub async fn deliver(
        &self,
        to: &str,
        kind: &str,
        rendered: &Rendered,
        link: Option<&str>,
    ) -> Result<(), AuthError> {
        self.deliver_with(to, kind, rendered, link, &[]).await
    }

    /// [`deliver`](Self::deliver) with files attached.
    pub async fn deliver_with(
        &self,
        to: &str,
        kind: &str,
        rendered: &Rendered,
        link: Option<&str>,
        attachments: &[Attachment],
    ) -> Result<(), AuthError> {
        let delivery = self.delivery();
        match &delivery.transport {
            Transport::Inbox => inbox::store(&self.pool, to, kind, rendered, link, attachments).await,
            Transport::Smtp(smtp) => {
                let to_box: Mailbox = to.parse().map_err(|e| AuthError::internal(format!("recipient {to}: {e}")))?;
                let message = Message::builder()
                    .from(delivery.from.clone())
                    .to(to_box)
                    .subject(rendered.subject.clone())
                    .multipart(body(rendered, attachments)?)
                    .map_err(|e| AuthError::internal(format!("building mail: {e}")))?;
                smtp.send(message).await.map_err(|e| AuthError::internal(format!("smtp: {e}")))?;
                Ok(())
            }
        }
    }
}

/// The text and HTML as alternatives; with files, those alternatives then each file in a
/// `multipart/mixed`.
fn body(rendered: &Rendered, attachments: &[Attachment]) -> Result<MultiPart, AuthError> {
    let alternative = MultiPart::alternative()
        .singlepart(SinglePart::builder().header(ContentType::TEXT_PLAIN).body(rendered.text.clone()))
        .singlepart(SinglePart::builder().header(ContentType::TEXT_HTML).body(rendered.html.clone()));
    if attachments.is_empty() {
        return Ok(alternative);
    }
    let mut mixed = MultiPart::mixed().multipart(alternative);
    for file in attachments {
        let content_type = ContentType::parse(&file.content_type)
            .map_err(|e| AuthError::internal(format!("attachment {}: content type: {e}", file.filename)))?;
        mixed = mixed.singlepart(
            lettre::message::Attachment::new(file.filename.clone()).body(file.content.clone(), content_type),
        );
    }
    Ok(mixed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rendered() -> Rendered {
        Rendered { subject: "Reçu".into(), html: "<p>Bonjour</p>".into(), text: "Bonjour".into() }
    }

    fn formatted(part: MultiPart) -> String {
        String::from_utf8_lossy(&part.formatted()).into_owned()
    }

    #[test]
    fn a_message_without_files_is_text_and_html_alternatives() {
        let text = formatted(body(&rendered(), &[]).expect("body"));
        assert!(text.contains("multipart/alternative"), "{text}");
        assert!(!text.contains("multipart/mixed"), "{text}");
    }

    #[test]
    fn files_follow_the_alternatives_in_a_mixed_message() {
        let pdf = Attachment {
            filename: "recu-ABCDEF12.pdf".into(),
            content_type: "application/pdf".into(),
            content: b"%PDF-1.7 fake".to_vec(),
        };
        let text = formatted(body(&rendered(), &[pdf]).expect("body"));
        assert!(text.contains("multipart/mixed"), "{text}");
        assert!(text.contains("multipart/alternative"), "{text}");
        assert!(text.contains("Content-Type: application/pdf"), "{text}");
        assert!(text.contains("attachment; filename=\"recu-ABCDEF12.pdf\""), "{text}");
        let at_mixed = text.find("multipart/mixed").expect("mixed");
        assert!(at_mixed < text.find("multipart/alternative").expect("alternative"));
    }

    #[test]
    fn a_file_with_a_malformed_content_type_is_an_error_not_a_panic() {
        let bad = Attachment { filename: "x".into(), content_type: "not a type".into(), content: vec![1] };
        assert!(body(&rendered(), &[bad]).is_err());
    }
}
