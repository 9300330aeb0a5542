//! A migration file split into statements the way the Supabase CLI splits it, so the statements
//! recorded in `supabase_migrations.schema_migrations` are the ones the CLI would record: a `;`
//! ends a statement unless it is inside a quote (`'…'`, `"…"`, doubled quotes kept), a
//! dollar-quoted body (`$$…$$`, `$tag$…$tag$`), a comment (`-- …` to the end of the line, nested
//! `/* … */`), parentheses (up to the first `)`), or a `BEGIN ATOMIC … END` body; a backslash
//! outside those escapes the next character. Each statement keeps its comments, loses its
//! trailing `;` and surrounding white space, and an empty one is dropped.

#[derive(Debug, Clone, PartialEq, Eq)]
enum State {
    Ready,
    /// After one `-`: a comment if the next is `-`.
    Dash,
    /// After a `/` (depth 0: a block comment if the next is `*`), or inside `/* … */` at this depth.
    Block(usize),
    /// Inside a quote; `closing` after a delimiter (a doubled one stays inside).
    Quote {
        delimiter: char,
        closing: bool,
    },
    /// Reading a `$tag$` opener that starts at this byte.
    Tag(usize),
    /// Inside a body that ends at this delimiter (a dollar tag, or `\n` for a line comment).
    Until(String),
    /// The character after a backslash.
    Escape,
    /// Inside parentheses or `BEGIN ATOMIC`: `;` does not split until `delimiter` (outside quotes).
    Atomic {
        inner: Box<State>,
        delimiter: &'static str,
    },
}

/// The statements of `sql`, as the Supabase CLI's `SplitAndTrim` gives them.
pub fn split(sql: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut state = State::Ready;
    for (i, c) in sql.char_indices() {
        let end = i + c.len_utf8();
        match next(state, c, &sql[start..end]) {
            Some(s) => state = s,
            None => {
                push(&mut out, &sql[start..end]);
                start = end;
                state = State::Ready;
            }
        }
    }
    push(&mut out, &sql[start..]);
    out
}

fn push(out: &mut Vec<String>, token: &str) {
    let trimmed = token.trim_end_matches(';').trim();
    if !trimmed.is_empty() {
        out.push(trimmed.to_string());
    }
}

/// The state after `c`; `None` ends the statement. `data` is the statement so far, `c` included.
fn next(state: State, c: char, data: &str) -> Option<State> {
    match state {
        State::Ready => ready(c, data),
        State::Dash if c == '-' => Some(State::Until("\n".into())),
        State::Dash => ready(c, data),
        State::Block(depth) => {
            if data.ends_with("/*") {
                Some(State::Block(depth + 1))
            } else if depth == 0 {
                ready(c, data)
            } else if data.ends_with("*/") {
                Some(if depth == 1 { State::Ready } else { State::Block(depth - 1) })
            } else {
                Some(State::Block(depth))
            }
        }
        State::Quote { delimiter, closing } => {
            if closing {
                if c == delimiter {
                    Some(State::Quote { delimiter, closing: false })
                } else {
                    ready(c, data)
                }
            } else {
                Some(State::Quote { delimiter, closing: c == delimiter })
            }
        }
        State::Tag(offset) => {
            if c == '$' {
                Some(State::Until(data[offset..].to_string()))
            } else if c.is_alphanumeric() || c == '_' {
                Some(State::Tag(offset))
            } else {
                ready(c, data)
            }
        }
        State::Until(delimiter) => {
            if data.ends_with(delimiter.as_str()) {
                Some(State::Ready)
            } else {
                Some(State::Until(delimiter))
            }
        }
        State::Escape => Some(State::Ready),
        State::Atomic { inner, delimiter } => {
            let inner = next(*inner, c, data).unwrap_or(State::Ready);
            if inner == State::Ready && ends_with_ignore_case(data, delimiter) {
                Some(State::Ready)
            } else {
                Some(State::Atomic { inner: Box::new(inner), delimiter })
            }
        }
    }
}

fn ready(c: char, data: &str) -> Option<State> {
    Some(match c {
        '$' => State::Tag(data.len() - 1),
        '\'' | '"' => State::Quote { delimiter: c, closing: false },
        '-' => State::Dash,
        '/' => State::Block(0),
        '\\' => State::Escape,
        ';' => return None,
        '(' => State::Atomic { inner: Box::new(State::Ready), delimiter: ")" },
        'c' | 'C' if begins_atomic(data) => State::Atomic { inner: Box::new(State::Ready), delimiter: "END" },
        _ => State::Ready,
    })
}

/// `data` ends with `ATOMIC` (any case) after white space.
fn begins_atomic(data: &str) -> bool {
    const WORD: &str = "ATOMIC";
    data.len() > WORD.len()
        && ends_with_ignore_case(data, WORD)
        && data[..data.len() - WORD.len()].chars().next_back().is_some_and(char::is_whitespace)
}

fn ends_with_ignore_case(data: &str, suffix: &str) -> bool {
    data.len() >= suffix.len()
        && data.is_char_boundary(data.len() - suffix.len())
        && data[data.len() - suffix.len()..].eq_ignore_ascii_case(suffix)
}

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn statements_lose_their_semicolon_and_white_space_and_keep_their_comments() {
        let sql = "create table a (id int);\n\n-- the second one\ninsert into a values (1);;\n  \n";
        assert_eq!(split(sql), vec!["create table a (id int)", "-- the second one\ninsert into a values (1)"]);
    }

    #[test]
    fn semicolons_inside_quotes_comments_and_dollar_bodies_do_not_split() {
        let sql = "select 'a;b', \"c;d\", 'it''s; fine';\n\
                   -- a comment; with a semicolon\n\
                   select 1 /* block; /* nested; */ still; */;\n\
                   create function f() returns int language plpgsql as $body$ begin return 1; end $body$;\n\
                   do $$ begin perform 1; end $$;";
        assert_eq!(
            split(sql),
            vec![
                "select 'a;b', \"c;d\", 'it''s; fine'",
                "-- a comment; with a semicolon\nselect 1 /* block; /* nested; */ still; */",
                "create function f() returns int language plpgsql as $body$ begin return 1; end $body$",
                "do $$ begin perform 1; end $$",
            ]
        );
    }

    #[test]
    fn begin_atomic_bodies_and_parentheses_hold_their_semicolons() {
        let sql = "create function g() returns int language sql begin atomic select 1; select 2; end;\n\
                   create rule r as on insert to a do also (insert into b select 1; insert into c select 2);\n\
                   select 3";
        assert_eq!(
            split(sql),
            vec![
                "create function g() returns int language sql begin atomic select 1; select 2; end",
                "create rule r as on insert to a do also (insert into b select 1; insert into c select 2)",
                "select 3",
            ]
        );
    }

    #[test]
    fn as_in_the_cli_a_closing_parenthesis_ends_every_group_it_closes() {
        // `(…(1); …)`: the `)` of `(1)` also ends the outer group, so the `;` after it splits
        assert_eq!(
            split("do also (insert into b values (1); select 2)"),
            vec!["do also (insert into b values (1)", "select 2)"]
        );
    }

    #[test]
    fn a_backslash_escapes_the_next_character_and_a_lone_dollar_is_not_a_quote() {
        assert_eq!(split("select 1 \\; select 2; select $1;"), vec!["select 1 \\; select 2", "select $1"]);
        // as in the CLI, a quote does not know backslashes: E'a\' ends at the second quote
        assert_eq!(split("select E'a\\';b'"), vec!["select E'a\\'", "b'"]);
        assert_eq!(split("select 1 - 2; select 4 / 2"), vec!["select 1 - 2", "select 4 / 2"]);
        assert!(split("  ;\n;  ").is_empty());
    }
}
