//! `docs/configuration.md`, rendered from the flag definitions of [`crate::config::Cli`], so the
//! page cannot drift from `server --help`: one table per help heading (the surfaces' settings are
//! flattened under their own heading), and the commands.
//!
//! It only renders text. The test below compares the rendering with the committed page and fails
//! when they differ; `make docs-config` writes the page again (`UPDATE_DOCS=1`).

use clap::{Arg, Command, CommandFactory};

use crate::config::Cli;

/// The heading of settings that belong to no surface.
const GENERAL: &str = "General";

/// The whole page, as committed in `docs/configuration.md`.
pub fn render() -> String {
    let cli = Cli::command();
    let mut out = String::from(
        "# Configuration\n\n\
         Generated from the server's flag definitions (`server/src/config.rs` and each surface's \
         `config.rs`) by `make docs-config`: edit the doc comments there, not this page. A test \
         fails when the page is stale.\n\n\
         Every setting is a command-line flag and an environment variable; names follow Supabase's, \
         GoTrue's or PostgREST's where one exists. A project's `config.toml` sets them too \
         ([projects.md](projects.md)); the environment and the flags win over it. \
         `server --help` prints the same list.\n",
    );
    let mut headings: Vec<String> = Vec::new();
    for arg in settings(&cli) {
        let heading = heading_of(arg);
        if !headings.contains(&heading) {
            headings.push(heading);
        }
    }
    for heading in &headings {
        out.push_str(&format!("\n## {heading}\n\n"));
        out.push_str("| variable | flag | default | meaning |\n| --- | --- | --- | --- |\n");
        for arg in settings(&cli).filter(|a| &heading_of(a) == heading) {
            out.push_str(&row(arg));
        }
    }
    out.push_str(
        "\n## Commands\n\nWithout a command the server serves.\n\n| command | what it does |\n| --- | --- |\n",
    );
    commands(&cli, "server", &mut out);
    out
}

/// The top-level arguments that are settings (not `--help` / `--version`).
fn settings(cli: &Command) -> impl Iterator<Item = &Arg> {
    cli.get_arguments().filter(|a| !matches!(a.get_id().as_str(), "help" | "version"))
}

fn heading_of(arg: &Arg) -> String {
    arg.get_help_heading().unwrap_or(GENERAL).to_string()
}

fn row(arg: &Arg) -> String {
    let variable = arg.get_env().map(|e| format!("`{}`", e.to_string_lossy())).unwrap_or_else(|| "—".to_string());
    let flag = arg.get_long().map(|l| format!("`--{l}`")).unwrap_or_else(|| "—".to_string());
    let defaults: Vec<String> = arg.get_default_values().iter().map(|v| v.to_string_lossy().into_owned()).collect();
    let default = if defaults.is_empty() || defaults.iter().all(String::is_empty) {
        "unset".to_string()
    } else {
        format!("`{}`", defaults.join(","))
    };
    let mut meaning =
        arg.get_long_help().or_else(|| arg.get_help()).map(|h| one_line(&h.to_string())).unwrap_or_default();
    let values: Vec<String> =
        arg.get_possible_values().iter().filter(|v| !v.is_hide_set()).map(|v| format!("`{}`", v.get_name())).collect();
    // Booleans list `true` / `false`, which says nothing the default does not.
    if !values.is_empty() && values != ["`true`", "`false`"] {
        meaning.push_str(&format!(" One of {}.", values.join(", ")));
    }
    format!("| {variable} | {flag} | {} | {} |\n", cell(&default), cell(&meaning))
}

/// Each subcommand, and theirs, with its first help line.
fn commands(cmd: &Command, prefix: &str, out: &mut String) {
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        let name = format!("{prefix} {}", sub.get_name());
        let about = sub.get_about().map(|a| one_line(&a.to_string())).unwrap_or_default();
        out.push_str(&format!("| `{name}` | {} |\n", cell(&about)));
        commands(sub, &name, out);
    }
}

/// Help text written over several lines in the doc comments, as one line.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A table cell: a `|` would end it.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page_path() -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/configuration.md")
    }

    #[test]
    fn the_configuration_page_is_the_rendering_of_the_flags() {
        let rendered = render();
        if std::env::var_os("UPDATE_DOCS").is_some() {
            std::fs::write(page_path(), &rendered).expect("write docs/configuration.md");
            return;
        }
        let committed = std::fs::read_to_string(page_path()).unwrap_or_default();
        assert!(
            committed == rendered,
            "docs/configuration.md is not the rendering of the flags: run `make docs-config`"
        );
    }

    #[test]
    fn every_setting_has_a_variable_and_a_meaning() {
        let cli = Cli::command();
        for arg in settings(&cli) {
            assert!(arg.get_env().is_some(), "{} has no variable", arg.get_id());
            assert!(arg.get_help().is_some(), "{} has no doc comment", arg.get_id());
        }
    }

    #[test]
    fn surfaces_have_their_own_heading_and_cells_escape_bars() {
        let page = render();
        for heading in ["## General", "## Auth", "## REST", "## Storage", "## Realtime"] {
            assert!(page.contains(&format!("\n{heading}\n")), "{heading} missing");
        }
        assert_eq!(cell("a|b"), "a\\|b");
        assert!(page.contains("| `PORT` | `--port` | `54321` |"));
    }
}
