//! The HTML part of an outbox mail written as text only: the text's paragraphs (blank-line
//! separated) as `<p>`, its line breaks as `<br>`, everything escaped, in a plain layout that
//! mail clients show alike. Nothing here reads or decides what is sent.

use crate::auth::mail::templates::html_escape;

/// The HTML version of `text`.
pub fn text_to_html(text: &str) -> String {
    let paragraphs: String = text
        .replace("\r\n", "\n")
        .split("\n\n")
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| {
            let lines: Vec<String> = p.lines().map(html_escape).collect();
            format!("<p style=\"margin:0 0 16px\">{}</p>", lines.join("<br>"))
        })
        .collect();
    format!(
        "<!doctype html><html lang=\"fr\"><head><meta charset=\"utf-8\"></head>\
         <body style=\"font-family:Arial,Helvetica,sans-serif;color:#0f172a;line-height:1.5\">\
         <div style=\"max-width:560px;margin:0 auto;padding:24px\">{paragraphs}</div></body></html>"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paragraphs_and_lines_become_html_and_markup_is_escaped() {
        let html = text_to_html("Bonjour <Jean>,\n\nLigne 1\nLigne 2 & fin\n\n\nFin");
        assert!(html.contains("<p style=\"margin:0 0 16px\">Bonjour &lt;Jean&gt;,</p>"));
        assert!(html.contains(">Ligne 1<br>Ligne 2 &amp; fin</p>"));
        assert!(html.contains(">Fin</p>"));
        assert!(!html.contains("<Jean>"));
    }
}
