//! The layout algorithm of prettier (its `doc` printer), reduced to the parts the generated types
//! use: text, groups that print flat when they fit in 80 columns, indentation, alignment, soft,
//! plain and hard line breaks, and `ifBreak`. The generator builds these documents the way
//! prettier's TypeScript printer would for the same source, so the text comes out as prettier
//! formats it, without Node at run time.
//!
//! It knows nothing of TypeScript (that is `ts`) nor of the database.

/// Prettier's `printWidth` (postgres-meta leaves the default).
pub const WIDTH: usize = 80;

/// A document to lay out.
#[derive(Debug, Clone)]
pub enum Doc {
    Text(String),
    Concat(Vec<Doc>),
    /// Printed flat when it fits (and holds no hard break), else broken.
    Group(Box<Doc>, bool),
    Indent(Box<Doc>),
    /// Indented by this many spaces more.
    Align(usize, Box<Doc>),
    /// A space when flat (none when soft), a new line when broken; hard lines always break.
    Line {
        soft: bool,
        hard: bool,
    },
    /// The first when the enclosing group is broken, the second when flat.
    IfBreak(Box<Doc>, Box<Doc>),
}

pub fn text(s: impl Into<String>) -> Doc {
    Doc::Text(s.into())
}
pub fn concat(parts: Vec<Doc>) -> Doc {
    Doc::Concat(parts)
}
pub fn group(doc: Doc) -> Doc {
    Doc::Group(Box::new(doc), false)
}
/// A group that breaks whatever its width (prettier's `shouldBreak`).
pub fn group_broken(doc: Doc) -> Doc {
    Doc::Group(Box::new(doc), true)
}
pub fn indent(doc: Doc) -> Doc {
    Doc::Indent(Box::new(doc))
}
pub fn align(n: usize, doc: Doc) -> Doc {
    Doc::Align(n, Box::new(doc))
}
pub fn line() -> Doc {
    Doc::Line { soft: false, hard: false }
}
pub fn softline() -> Doc {
    Doc::Line { soft: true, hard: false }
}
pub fn hardline() -> Doc {
    Doc::Line { soft: false, hard: true }
}
pub fn if_break(broken: Doc, flat: Doc) -> Doc {
    Doc::IfBreak(Box::new(broken), Box::new(flat))
}
/// `parts` with `sep` between each two.
pub fn join(sep: &Doc, parts: Vec<Doc>) -> Doc {
    let mut out = Vec::with_capacity(parts.len() * 2);
    for (i, part) in parts.into_iter().enumerate() {
        if i > 0 {
            out.push(sep.clone());
        }
        out.push(part);
    }
    Doc::Concat(out)
}

/// A group holding a hard break or a broken group is broken too (prettier's `propagateBreaks`).
/// Returns whether `doc` holds either.
fn propagate(doc: &mut Doc) -> bool {
    match doc {
        Doc::Text(_) => false,
        Doc::Line { hard, .. } => *hard,
        Doc::Concat(parts) => parts.iter_mut().fold(false, |acc, part| propagate(part) | acc),
        Doc::Group(inner, broken) => {
            let hard = propagate(inner);
            *broken |= hard;
            *broken
        }
        Doc::Indent(inner) | Doc::Align(_, inner) => propagate(inner),
        Doc::IfBreak(broken, flat) => propagate(broken) | propagate(flat),
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Flat,
    Break,
}

/// The columns `s` takes (one per character: the generated names are not East Asian wide).
fn width_of(s: &str) -> usize {
    s.chars().count()
}

/// Whether `next` fits in `width` columns, the commands after it included up to their first
/// line break (prettier's `fits`).
fn fits(next: (usize, Mode, &Doc), rest: &[(usize, Mode, &Doc)], width: usize) -> bool {
    let mut width = width as isize;
    let mut rest_idx = rest.len();
    let mut cmds: Vec<(Mode, &Doc)> = vec![(next.1, next.2)];
    while width >= 0 {
        let Some((mode, doc)) = cmds.pop() else {
            if rest_idx == 0 {
                return true;
            }
            rest_idx -= 1;
            cmds.push((rest[rest_idx].1, rest[rest_idx].2));
            continue;
        };
        match doc {
            Doc::Text(s) => width -= width_of(s) as isize,
            Doc::Concat(parts) => cmds.extend(parts.iter().rev().map(|p| (mode, p))),
            Doc::Indent(inner) | Doc::Align(_, inner) => cmds.push((mode, inner)),
            Doc::Group(inner, broken) => cmds.push((if *broken { Mode::Break } else { mode }, inner)),
            Doc::IfBreak(broken, flat) => cmds.push((mode, if mode == Mode::Break { broken } else { flat })),
            Doc::Line { soft, hard } => {
                if mode == Mode::Break || *hard {
                    return true;
                }
                if !soft {
                    width -= 1;
                }
            }
        }
    }
    false
}

/// Lay `doc` out at indentation 0.
pub fn print(mut doc: Doc) -> String {
    propagate(&mut doc);
    let mut out = String::new();
    let mut pos = 0usize;
    let mut cmds: Vec<(usize, Mode, &Doc)> = vec![(0, Mode::Break, &doc)];
    while let Some((ind, mode, doc)) = cmds.pop() {
        match doc {
            Doc::Text(s) => {
                out.push_str(s);
                pos += width_of(s);
            }
            Doc::Concat(parts) => cmds.extend(parts.iter().rev().map(|p| (ind, mode, p))),
            Doc::Indent(inner) => cmds.push((ind + 2, mode, inner)),
            Doc::Align(n, inner) => cmds.push((ind + n, mode, inner)),
            Doc::Group(inner, broken) => match mode {
                Mode::Flat => cmds.push((ind, if *broken { Mode::Break } else { Mode::Flat }, inner)),
                Mode::Break => {
                    let next = (ind, Mode::Flat, inner.as_ref());
                    if !*broken && fits(next, &cmds, WIDTH.saturating_sub(pos)) {
                        cmds.push(next);
                    } else {
                        cmds.push((ind, Mode::Break, inner));
                    }
                }
            },
            Doc::IfBreak(broken, flat) => cmds.push((ind, mode, if mode == Mode::Break { broken } else { flat })),
            Doc::Line { soft, hard } => {
                if mode == Mode::Flat && !*hard {
                    if !*soft {
                        out.push(' ');
                        pos += 1;
                    }
                    continue;
                }
                let trimmed = out.trim_end_matches([' ', '\t']).len();
                out.truncate(trimmed);
                out.push('\n');
                out.push_str(&" ".repeat(ind));
                pos = ind;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(members: Vec<Doc>) -> Doc {
        group(concat(vec![
            text("{"),
            indent(concat(vec![line(), join(&concat(vec![if_break(text(""), text(";")), line()]), members)])),
            line(),
            text("}"),
        ]))
    }

    #[test]
    fn a_group_that_fits_prints_flat() {
        assert_eq!(print(object(vec![text("a: number"), text("b: string")])), "{ a: number; b: string }");
    }

    #[test]
    fn a_group_too_wide_breaks_one_member_a_line() {
        let long = "x".repeat(70);
        let printed = print(object(vec![text(format!("a: {long}")), text("b: string")]));
        assert_eq!(printed, format!("{{\n  a: {long}\n  b: string\n}}"));
    }

    #[test]
    fn a_hard_line_breaks_the_groups_around_it() {
        let printed = print(object(vec![concat(vec![text("a:"), hardline(), text("b")])]));
        assert_eq!(printed, "{\n  a:\n  b\n}");
    }

    #[test]
    fn the_text_after_a_group_counts_toward_its_fit() {
        let tail = "y".repeat(75);
        let printed = print(concat(vec![object(vec![text("a: true")]), text(format!(" & {tail}"))]));
        assert_eq!(printed, format!("{{\n  a: true\n}} & {tail}"));
    }
}
