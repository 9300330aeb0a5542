//! The TypeScript the generator writes, as a small syntax tree (types, object types, tuples, and
//! the plain objects and arrays of `Constants`), laid out into a `doc::Doc` the way prettier's
//! TypeScript printer lays out the same source: object types that were written over several
//! lines stay broken, others print on one line when they fit; unions break one member a line
//! with a leading `|`; string literals and property keys quoted as prettier quotes them.
//!
//! It knows nothing of the database (`generate` builds the tree).

use super::doc::{align, concat, group, group_broken, hardline, if_break, indent, join, line, softline, text, Doc};

/// A type.
#[derive(Debug, Clone, PartialEq)]
pub enum Ty {
    /// A keyword, a reference or an indexed access, printed as it is.
    Atom(String),
    /// A string literal type (its value).
    Str(String),
    Array(Box<Ty>),
    Union(Vec<Ty>),
    Intersection(Vec<Ty>),
    /// An object type; `expanded` when the source wrote a line break after its `{` (prettier
    /// then keeps it broken).
    Object {
        members: Vec<Member>,
        expanded: bool,
    },
    Tuple(Vec<Ty>),
}

/// A member of an object type.
#[derive(Debug, Clone, PartialEq)]
pub enum Member {
    Prop {
        key: String,
        optional: bool,
        ty: Ty,
    },
    /// A member printed as it is (`[_ in never]: never`).
    Raw(String),
    /// A member after its `//` comment lines.
    Commented(Vec<String>, Box<Member>),
}

pub fn atom(s: &str) -> Ty {
    Ty::Atom(s.to_string())
}

pub fn prop(key: &str, optional: bool, ty: Ty) -> Member {
    Member::Prop { key: key.to_string(), optional, ty }
}

/// `a | b`, flattened as TypeScript reads `a|b | c` (one union of three).
pub fn union_of(a: Ty, b: Ty) -> Ty {
    let mut members = match a {
        Ty::Union(members) => members,
        other => vec![other],
    };
    match b {
        Ty::Union(more) => members.extend(more),
        other => members.push(other),
    }
    Ty::Union(members)
}

/// `ty[]` as the generator's text reads: `(ty)[]` when the source parenthesised it.
pub fn array_of(ty: Ty) -> Ty {
    Ty::Array(Box::new(ty))
}

/// `[]` appended to the printed text of `ty`, as the template does for a set-returning
/// function: on a union or an intersection it binds to the last member only.
pub fn append_brackets(ty: Ty) -> Ty {
    match ty {
        Ty::Union(mut members) => {
            if let Some(last) = members.pop() {
                members.push(append_brackets(last));
            }
            Ty::Union(members)
        }
        Ty::Intersection(mut members) => {
            if let Some(last) = members.pop() {
                members.push(append_brackets(last));
            }
            Ty::Intersection(members)
        }
        other => Ty::Array(Box::new(other)),
    }
}

/// The value `JSON.stringify` writes for a string (without the quotes).
fn json_escaped(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// A string literal as prettier prints `JSON.stringify(value)`: double quotes, unless the value
/// holds more double quotes than single ones.
pub fn quoted(value: &str) -> String {
    let doubles = value.matches('"').count();
    let singles = value.matches('\'').count();
    if doubles > singles {
        let inner = json_escaped(value).replace("\\\"", "\"").replace('\'', "\\'");
        format!("'{inner}'")
    } else {
        format!("\"{}\"", json_escaped(value))
    }
}

/// Whether prettier prints this key without quotes (an ES5 identifier name).
fn is_identifier_name(key: &str) -> bool {
    let mut chars = key.chars();
    let Some(first) = chars.next() else { return false };
    let start = |c: char| c == '$' || c == '_' || c.is_alphabetic();
    start(first) && chars.all(|c| start(c) || c.is_ascii_digit() || (!c.is_ascii() && c.is_alphanumeric()))
}

/// A property key as prettier prints it (`quoteProps: "as-needed"`).
pub fn key(name: &str) -> String {
    if is_identifier_name(name) {
        name.to_string()
    } else {
        quoted(name)
    }
}

fn is_object(ty: &Ty) -> bool {
    matches!(ty, Ty::Object { .. })
}

fn is_voidish(ty: &Ty) -> bool {
    matches!(ty, Ty::Atom(a) if a == "null" || a == "undefined" || a == "void")
}

/// The layout of a type.
pub fn ty_doc(ty: &Ty) -> Doc {
    match ty {
        Ty::Atom(a) => text(a.clone()),
        Ty::Str(s) => text(quoted(s)),
        Ty::Array(inner) => match inner.as_ref() {
            Ty::Union(members) => concat(vec![text("("), union_doc(members, true), text(")[]")]),
            Ty::Intersection(_) => concat(vec![text("("), ty_doc(inner), text(")[]")]),
            other => concat(vec![ty_doc(other), text("[]")]),
        },
        Ty::Union(members) => union_doc(members, false),
        Ty::Intersection(members) => intersection_doc(members),
        Ty::Object { members, expanded } => object_type_doc(members, *expanded),
        Ty::Tuple(items) => {
            if items.is_empty() {
                return text("[]");
            }
            group(concat(vec![
                text("["),
                indent(concat(vec![
                    softline(),
                    join(&concat(vec![text(","), line()]), items.iter().map(ty_doc).collect()),
                ])),
                if_break(text(","), text("")),
                softline(),
                text("]"),
            ]))
        }
    }
}

/// prettier's `printUnionType`: one object with `null`s hugs (`{ … } | null`); otherwise flat
/// when it fits, else one member a line after a leading `|`, aligned under it.
fn union_doc(members: &[Ty], parenthesised: bool) -> Doc {
    let objects = members.iter().filter(|m| is_object(m)).count();
    let voids = members.iter().filter(|m| is_voidish(m)).count();
    if objects >= 1 && members.len() - 1 == voids {
        return join(&text(" | "), members.iter().map(ty_doc).collect());
    }
    let printed: Vec<Doc> = members.iter().map(|m| align(2, ty_doc(m))).collect();
    let code = concat(vec![
        if_break(concat(vec![line(), text("| ")]), text("")),
        join(&concat(vec![line(), text("| ")]), printed),
    ]);
    if parenthesised {
        group(concat(vec![indent(code), softline()]))
    } else {
        group(indent(code))
    }
}

/// prettier's `printIntersectionType`, for the shapes the generator writes.
fn intersection_doc(members: &[Ty]) -> Doc {
    let mut parts = Vec::new();
    let mut was_indented = false;
    for (i, member) in members.iter().enumerate() {
        let printed = ty_doc(member);
        if i == 0 {
            parts.push(printed);
        } else if !is_object(&members[i - 1]) && !is_object(member) {
            parts.push(indent(concat(vec![text(" &"), line(), printed])));
        } else if is_object(&members[i - 1]) && is_object(member) {
            parts.push(text(" & "));
            parts.push(if was_indented { indent(printed) } else { printed });
        } else {
            if i > 1 {
                was_indented = true;
            }
            parts.push(text(" & "));
            parts.push(if i > 1 { indent(printed) } else { printed });
        }
    }
    group(concat(parts))
}

fn member_doc(member: &Member) -> Doc {
    match member {
        Member::Raw(raw) => text(raw.clone()),
        Member::Commented(comments, member) => {
            let mut parts: Vec<Doc> = comments.iter().flat_map(|c| [text(format!("// {c}")), hardline()]).collect();
            parts.push(member_doc(member));
            concat(parts)
        }
        Member::Prop { key: name, optional, ty } => {
            group(concat(vec![text(key(name)), text(if *optional { "?: " } else { ": " }), ty_doc(ty)]))
        }
    }
}

fn object_type_doc(members: &[Member], expanded: bool) -> Doc {
    if members.is_empty() {
        return text("{}");
    }
    let body = concat(vec![
        text("{"),
        indent(concat(vec![
            line(),
            join(&concat(vec![if_break(text(""), text(";")), line()]), members.iter().map(member_doc).collect()),
        ])),
        line(),
        text("}"),
    ]);
    if expanded {
        group_broken(body)
    } else {
        group(body)
    }
}

/// A JavaScript value of `Constants`.
#[derive(Debug, Clone)]
pub enum Value {
    /// An object written over several lines (kept broken), its properties in order.
    Object(Vec<(String, Value)>),
    /// An array of strings written on one line.
    Strings(Vec<String>),
}

/// The layout of a JavaScript value (trailing commas: prettier's `"all"`).
pub fn value_doc(value: &Value) -> Doc {
    match value {
        Value::Object(props) => {
            if props.is_empty() {
                return text("{}");
            }
            let printed = props
                .iter()
                .map(|(name, value)| group(concat(vec![text(key(name)), text(": "), value_doc(value)])))
                .collect();
            group_broken(concat(vec![
                text("{"),
                indent(concat(vec![line(), join(&concat(vec![text(","), line()]), printed)])),
                if_break(text(","), text("")),
                line(),
                text("}"),
            ]))
        }
        Value::Strings(items) => {
            if items.is_empty() {
                return text("[]");
            }
            group(concat(vec![
                text("["),
                indent(concat(vec![
                    softline(),
                    join(&concat(vec![text(","), line()]), items.iter().map(|s| text(quoted(s))).collect()),
                ])),
                if_break(text(","), text("")),
                softline(),
                text("]"),
            ]))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::doc::print;
    use super::*;

    #[test]
    fn keys_that_are_identifiers_lose_their_quotes() {
        assert_eq!(key("city"), "city");
        assert_eq!(key("Display Name"), "\"Display Name\"");
        assert_eq!(key("opening-hours"), "\"opening-hours\"");
        assert_eq!(key(""), "\"\"");
        assert_eq!(key("2fa"), "\"2fa\"");
    }

    #[test]
    fn a_string_with_more_double_quotes_takes_single_quotes() {
        assert_eq!(quoted("a\"b"), "'a\"b'");
        assert_eq!(quoted("it's"), "\"it's\"");
        assert_eq!(quoted("line\nbreak"), "\"line\\nbreak\"");
    }

    #[test]
    fn a_nullable_union_flattens_and_breaks_with_leading_bars() {
        let ty =
            union_of(atom(&format!("Database[\"public\"][\"CompositeTypes\"][\"{}\"]", "x".repeat(50))), atom("null"));
        let printed = print(concat(vec![text("key: "), ty_doc(&ty)]));
        assert!(printed.starts_with("key:\n  | Database"), "{printed}");
        assert!(printed.ends_with("\n  | null"), "{printed}");
    }

    #[test]
    fn an_enum_union_in_an_array_keeps_its_parentheses() {
        let ty = array_of(union_of(Ty::Str("a".into()), Ty::Str("b".into())));
        assert_eq!(print(ty_doc(&ty)), "(\"a\" | \"b\")[]");
    }
}
