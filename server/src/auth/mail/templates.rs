//! E-mail templates: the built-in ones (compiled in) and a deployment's replacements.
//!
//! A template is an HTML and a text file per kind (`confirmation`, `recovery`, `magic_link`,
//! `invite`, `email_change`, `reauthentication`) using GoTrue's placeholders: `{{ .ConfirmationURL }}`,
//! `{{ .Token }}`, `{{ .TokenHash }}`, `{{ .SiteURL }}`, `{{ .RedirectTo }}`, `{{ .Email }}`,
//! `{{ .NewEmail }}`. Files found in `MAILER_TEMPLATES_DIR` replace the built-in ones, and a
//! kind's `MAILER_TEMPLATES_<KIND>` file (with its `.txt` beside it) replaces both; they are
//! read once at start. Subjects are GoTrue's unless `MAILER_SUBJECTS_*` replace them. Values are
//! HTML-escaped in the HTML part. Nothing here sends mail.

use std::collections::HashMap;
use std::path::Path;

/// The kinds of auth mail.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Confirmation,
    Recovery,
    MagicLink,
    Invite,
    EmailChange,
    Reauthentication,
}

impl Kind {
    pub const ALL: [Kind; 6] =
        [Kind::Confirmation, Kind::Recovery, Kind::MagicLink, Kind::Invite, Kind::EmailChange, Kind::Reauthentication];

    /// File stem and inbox label.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Confirmation => "confirmation",
            Kind::Recovery => "recovery",
            Kind::MagicLink => "magic_link",
            Kind::Invite => "invite",
            Kind::EmailChange => "email_change",
            Kind::Reauthentication => "reauthentication",
        }
    }

    /// GoTrue's default subjects.
    pub fn subject(self) -> &'static str {
        match self {
            Kind::Confirmation => "Confirm Your Email",
            Kind::Recovery => "Reset Your Password",
            Kind::MagicLink => "Your Magic Link",
            Kind::Invite => "You have been invited",
            Kind::EmailChange => "Confirm Email Change",
            Kind::Reauthentication => "Confirm reauthentication",
        }
    }

    fn builtin(self) -> (&'static str, &'static str) {
        match self {
            Kind::Confirmation => {
                (include_str!("templates/confirmation.html"), include_str!("templates/confirmation.txt"))
            }
            Kind::Recovery => (include_str!("templates/recovery.html"), include_str!("templates/recovery.txt")),
            Kind::MagicLink => (include_str!("templates/magic_link.html"), include_str!("templates/magic_link.txt")),
            Kind::Invite => (include_str!("templates/invite.html"), include_str!("templates/invite.txt")),
            Kind::EmailChange => {
                (include_str!("templates/email_change.html"), include_str!("templates/email_change.txt"))
            }
            Kind::Reauthentication => {
                (include_str!("templates/reauthentication.html"), include_str!("templates/reauthentication.txt"))
            }
        }
    }
}

/// The values a template may use.
#[derive(Debug, Clone, Default)]
pub struct Vars {
    pub confirmation_url: String,
    pub token: String,
    pub token_hash: String,
    pub site_url: String,
    pub redirect_to: String,
    pub email: String,
    pub new_email: String,
}

impl Vars {
    fn pairs(&self) -> [(&'static str, &str); 7] {
        [
            ("ConfirmationURL", &self.confirmation_url),
            ("Token", &self.token),
            ("TokenHash", &self.token_hash),
            ("SiteURL", &self.site_url),
            ("RedirectTo", &self.redirect_to),
            ("Email", &self.email),
            ("NewEmail", &self.new_email),
        ]
    }
}

/// A rendered message.
#[derive(Debug, Clone)]
pub struct Rendered {
    pub subject: String,
    pub html: String,
    pub text: String,
}

/// The templates in force.
#[derive(Debug, Clone)]
pub struct Templates {
    by_kind: HashMap<Kind, (String, String)>,
    subjects: HashMap<Kind, String>,
}

impl Templates {
    /// Built-in templates, replaced by the files of `dir` that exist.
    pub fn load(dir: Option<&Path>) -> Templates {
        let mut by_kind = HashMap::new();
        for kind in Kind::ALL {
            let (html, text) = kind.builtin();
            let read = |ext: &str, fallback: &str| -> String {
                let Some(dir) = dir else { return fallback.to_string() };
                let path = dir.join(format!("{}.{ext}", kind.name()));
                match std::fs::read_to_string(&path) {
                    Ok(content) => content,
                    Err(err) if err.kind() == std::io::ErrorKind::NotFound => fallback.to_string(),
                    Err(err) => {
                        tracing::warn!(path = %path.display(), error = %err, "cannot read mail template; using the built-in one");
                        fallback.to_string()
                    }
                }
            };
            by_kind.insert(kind, (read("html", html), read("txt", text)));
        }
        Templates { by_kind, subjects: HashMap::new() }
    }

    /// Replace the HTML of `kind` by the file `html` (a `MAILER_TEMPLATES_<KIND>` setting), and
    /// its text part by the `.txt` file beside it when there is one. A file that cannot be read
    /// is a warning; the template in force stays.
    pub fn with_file(mut self, kind: Kind, html: Option<&Path>) -> Templates {
        let Some(html) = html else { return self };
        let Some(entry) = self.by_kind.get_mut(&kind) else { return self };
        match std::fs::read_to_string(html) {
            Ok(content) => entry.0 = content,
            Err(err) => {
                tracing::warn!(path = %html.display(), error = %err, "cannot read mail template; using the one in force");
                return self;
            }
        }
        if let Ok(text) = std::fs::read_to_string(html.with_extension("txt")) {
            entry.1 = text;
        }
        self
    }

    /// Replace the HTML of `kind` by `html` (an operator's, from Studio); the text part becomes
    /// the HTML's text (tags dropped, entities of the built-in set decoded, blank runs folded).
    pub fn with_html(mut self, kind: Kind, html: &str) -> Templates {
        self.by_kind.insert(kind, (html.to_string(), text_of_html(html)));
        self
    }

    /// Replace the subject of `kind` (a `MAILER_SUBJECTS_*` setting); blank keeps GoTrue's.
    pub fn with_subject(mut self, kind: Kind, subject: Option<&str>) -> Templates {
        if let Some(subject) = subject.map(str::trim).filter(|s| !s.is_empty()) {
            self.subjects.insert(kind, subject.to_string());
        }
        self
    }

    /// The subject and HTML of `kind` in force, unrendered (what Studio shows to edit).
    pub fn source(&self, kind: Kind) -> (String, String) {
        let subject = self.subjects.get(&kind).cloned().unwrap_or_else(|| kind.subject().to_string());
        let html = self.by_kind.get(&kind).map(|(h, _)| h.clone()).unwrap_or_else(|| kind.builtin().0.to_string());
        (subject, html)
    }

    /// Render `kind` with `vars`.
    pub fn render(&self, kind: Kind, vars: &Vars) -> Rendered {
        let (html, text) = self.by_kind.get(&kind).cloned().unwrap_or_else(|| {
            let (h, t) = kind.builtin();
            (h.to_string(), t.to_string())
        });
        Rendered {
            subject: self.subjects.get(&kind).cloned().unwrap_or_else(|| kind.subject().to_string()),
            html: substitute(&html, vars, true),
            text: substitute(&text, vars, false),
        }
    }
}

/// Replace `{{ .Name }}` (any inner spacing) by its value.
fn substitute(template: &str, vars: &Vars, escape: bool) -> String {
    let mut out = String::with_capacity(template.len() + 256);
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else {
            out.push_str(&rest[start..]);
            return out;
        };
        let name = after[..end].trim().trim_start_matches('.');
        match vars.pairs().iter().find(|(k, _)| *k == name) {
            Some((_, value)) if escape => out.push_str(&html_escape(value)),
            Some((_, value)) => out.push_str(value),
            None => out.push_str(&rest[start..start + 2 + end + 2]),
        }
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    out
}

/// The readable text of an HTML template: tags dropped (a link keeps its `href` after its text,
/// so the plain part still carries the `{{ .ConfirmationURL }}`), blank lines folded.
pub fn text_of_html(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    let mut href = None;
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        let Some(close) = rest[open..].find('>') else {
            rest = "";
            break;
        };
        let tag = &rest[open + 1..open + close];
        let lower = tag.to_ascii_lowercase();
        if lower.starts_with("a ") {
            href = attribute(tag, "href");
        } else if lower == "/a" {
            if let Some(href) = href.take() {
                out.push_str(&format!(" ({href})"));
            }
        }
        if ["p", "/p", "br", "br/", "br /", "div", "/div", "h1", "/h1", "h2", "/h2", "li"]
            .iter()
            .any(|t| lower == *t || lower.starts_with(&format!("{t} ")))
        {
            out.push('\n');
        }
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    let decoded = out
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&");
    let lines: Vec<&str> = decoded.lines().map(str::trim).collect();
    let mut text = String::new();
    for line in lines {
        if line.is_empty() && (text.is_empty() || text.ends_with("\n\n")) {
            continue;
        }
        text.push_str(line);
        text.push('\n');
    }
    text.trim_end().to_string() + "\n"
}

fn attribute<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let at = tag.find(&format!("{name}=\""))? + name.len() + 2;
    let end = tag[at..].find('"')?;
    Some(&tag[at..at + end])
}

/// Escape text for HTML content and attributes.
pub fn html_escape(value: &str) -> String {
    value.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&#39;")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars() -> Vars {
        Vars {
            confirmation_url: "http://x.test/verify?token=abc&type=signup".into(),
            token: "123456".into(),
            email: "a@b.test".into(),
            ..Vars::default()
        }
    }

    #[test]
    fn builtin_confirmation_has_link_and_code() {
        let out = Templates::load(None).render(Kind::Confirmation, &vars());
        assert!(out.html.contains("href=\"http://x.test/verify?token=abc&amp;type=signup\""));
        assert!(out.text.contains("http://x.test/verify?token=abc&type=signup"));
        assert!(out.text.contains("123456"));
        assert_eq!(out.subject, "Confirm Your Email");
    }

    #[test]
    fn unknown_placeholders_stay_and_spacing_is_free() {
        assert_eq!(substitute("{{.Token}}-{{ .Nope }}-{{ .Email}}", &vars(), false), "123456-{{ .Nope }}-a@b.test");
        assert_eq!(substitute("open {{ .Token", &vars(), false), "open {{ .Token");
    }

    #[test]
    fn a_directory_replaces_only_the_files_it_has() {
        let dir = std::env::temp_dir().join(format!("tpl-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("recovery.html"), "<b>{{ .Token }}</b>").unwrap();
        let t = Templates::load(Some(&dir));
        assert_eq!(t.render(Kind::Recovery, &vars()).html, "<b>123456</b>");
        assert!(t.render(Kind::Recovery, &vars()).text.contains("Reset Password"));
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn an_operators_html_replaces_both_parts_and_keeps_the_link_in_the_text() {
        let t = Templates::load(None).with_html(
            Kind::Confirmation,
            "<h2>Welcome aboard</h2><p>Follow <a href=\"{{ .ConfirmationURL }}\">this link</a></p>",
        );
        let out = t.render(Kind::Confirmation, &vars());
        assert!(out.html.contains("Welcome aboard"));
        assert_eq!(out.text, "Welcome aboard\n\nFollow this link (http://x.test/verify?token=abc&type=signup)\n");
    }

    #[test]
    fn subjects_are_gotrue_s_unless_replaced() {
        let t = Templates::load(None)
            .with_subject(Kind::Recovery, Some("Réinitialisez votre mot de passe"))
            .with_subject(Kind::Invite, Some("  "));
        assert_eq!(t.render(Kind::Recovery, &vars()).subject, "Réinitialisez votre mot de passe");
        assert_eq!(t.render(Kind::Invite, &vars()).subject, "You have been invited");
    }

    #[test]
    fn a_kinds_file_replaces_its_html_and_text_parts() {
        let dir = std::env::temp_dir().join(format!("mail-template-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(dir.join("recovery.html"), "<p>{{ .Token }}</p>").expect("html");
        std::fs::write(dir.join("recovery.txt"), "code {{ .Token }}").expect("txt");
        let templates = Templates::load(None).with_file(Kind::Recovery, Some(&dir.join("recovery.html")));
        let vars = Vars { token: "123456".into(), ..Default::default() };
        let out = templates.render(Kind::Recovery, &vars);
        assert_eq!(out.html, "<p>123456</p>");
        assert_eq!(out.text, "code 123456");
        let kept = Templates::load(None).with_file(Kind::Recovery, Some(&dir.join("missing.html")));
        assert_eq!(kept.render(Kind::Recovery, &vars).html, Templates::load(None).render(Kind::Recovery, &vars).html);
        std::fs::remove_dir_all(&dir).expect("cleanup");
    }
}
