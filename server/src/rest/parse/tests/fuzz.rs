//! Generated-input checks (no extra dependency): random garbage built from the grammar's
//! significant tokens, mutations of valid inputs, and randomly generated valid `select`
//! lists. Every call must return (no panic, no hang) and errors must be well formed.
//! They must not use randomness that differs between runs: seeds are fixed.

use super::*;

/// xorshift64*: deterministic, dependency-free.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

const TOKENS: &[&str] = &[
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ".",
    ":",
    "::",
    "!",
    "\"",
    "\\",
    "*",
    "-",
    "->",
    "->>",
    ">",
    " ",
    "\t",
    "\n",
    "=",
    ";",
    "'",
    "$",
    "_",
    "a",
    "Z",
    "0",
    "9",
    "-1",
    "é",
    "😀",
    "\u{0}",
    "eq",
    "not.",
    "or(",
    "and(",
    "in.(",
    "is.",
    "null",
    "fts",
    "(english)",
    "(any)",
    "(all)",
    "...",
    "!inner",
    "!left",
    "count()",
    ".sum()",
    "asc",
    "desc",
    "nullsfirst",
    ".nullslast",
    "select",
    "int",
    "[]",
    "(10)",
    "with time zone",
];

const KEYS: &[&str] = &[
    "select",
    "order",
    "rel.order",
    "or",
    "and",
    "not.or",
    "rel.not.and",
    "columns",
    "on_conflict",
    "limit",
    "rel.offset",
    "col",
    "rel.col",
    "data->a",
    "\"q\".x",
];

fn garbage(rng: &mut Rng) -> String {
    let len = rng.below(40);
    (0..len).map(|_| rng.pick(TOKENS)).collect()
}

fn check(key: &str, value: &str) {
    let pairs = vec![(key.to_string(), value.to_string())];
    match parse_query(&pairs) {
        Ok(_) => {}
        Err(e) => {
            assert!(matches!(e.code(), "PGRST100"), "{e:?}");
            assert!(e.message().starts_with("\"failed to parse "), "{e:?}");
            assert!(e.details().is_some_and(|d| !d.is_empty()), "{e:?}");
            if let ParseError::Syntax { line, column, .. } | ParseError::TooDeep { line, column, .. } = e {
                assert!(line >= 1 && column >= 1);
            }
        }
    }
    // Whatever it makes of them, the RPC reading does not panic either.
    let _ = parse_rpc_query(&pairs);
}

#[test]
fn random_garbage_never_panics() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..20_000 {
        let key = if rng.below(4) == 0 { garbage(&mut rng) } else { rng.pick(KEYS).to_string() };
        let value = garbage(&mut rng);
        check(&key, &value);
        let headers = [value.as_str(), key.as_str()];
        let _ = parse_prefer(headers);
        let _ = parse_range_header(&value);
    }
}

const VALID: &[(&str, &str)] = &[
    ("select", "id,alias:data->a->>b::text,rel!hint!inner(*,n:count()),...sp(x.sum()::int)"),
    ("order", "a.desc.nullslast,rel(b).asc,data->>k"),
    ("or", "(a.eq.1,and(b.in.(1,\"2,3\"),c.not.like.*x*),not.or(d.cs.{1,2},e.fts(english).q))"),
    ("col", "not.eq(any).{1,2}"),
    ("rel.col->0", "in.(\"a\\\"b\",c)"),
    ("columns", "\"a b\",c-d"),
];

#[test]
fn mutations_of_valid_inputs_never_panic() {
    let mut rng = Rng(42);
    for (k, v) in VALID {
        check(k, v);
        assert!(parse_query(&pairs(&[(k, v)])).is_ok(), "{k}={v}");
    }
    for _ in 0..20_000 {
        let (k, v) = VALID[rng.below(VALID.len())];
        let mut chars: Vec<char> = v.chars().collect();
        for _ in 0..=rng.below(3) {
            let at = rng.below(chars.len() + 1);
            match rng.below(3) {
                0 if at < chars.len() => {
                    chars.remove(at);
                }
                1 => {
                    let t = rng.pick(TOKENS);
                    for (n, c) in t.chars().enumerate() {
                        chars.insert(at + n, c);
                    }
                }
                _ => chars.truncate(at),
            }
        }
        let mutated: String = chars.into_iter().collect();
        check(k, &mutated);
    }
}

fn gen_item(rng: &mut Rng, depth: usize, out: &mut String) -> usize {
    const NAMES: &[&str] = &["id", "name", "my col", "\"a,b\"", "a-b", "$x"];
    match rng.below(if depth < 4 { 6 } else { 4 }) {
        0 => out.push('*'),
        1 => {
            if rng.below(2) == 0 {
                out.push_str("al:");
            }
            out.push_str(rng.pick(NAMES));
            out.push_str(rng.pick(&["", "->a", "->>0", "->a->>b"]));
            out.push_str(rng.pick(&["", "::int", "::numeric(10,2)", "::text[]"]));
            out.push_str(rng.pick(&["", ".sum()", ".count()::bigint"]));
        }
        2 => out.push_str(rng.pick(&["count()", "c:count()::int"])),
        3 => out.push_str(rng.pick(NAMES)),
        _ => {
            out.push_str(rng.pick(&["rel", "a:rel", "rel!fk", "rel!inner", "...rel!fk!left", "\"r r\""]));
            out.push('(');
            gen_list(rng, depth + 1, out);
            out.push(')');
        }
    }
    1
}

fn gen_list(rng: &mut Rng, depth: usize, out: &mut String) -> usize {
    let n = rng.below(4);
    for i in 0..n {
        if i > 0 {
            out.push_str(rng.pick(&[",", " , "]));
        }
        gen_item(rng, depth, out);
    }
    n
}

#[test]
fn generated_valid_selects_parse() {
    let mut rng = Rng(7);
    for _ in 0..5_000 {
        let mut s = String::new();
        let n = gen_list(&mut rng, 0, &mut s);
        match parse_query(&pairs(&[("select", &s)])) {
            Ok(q) => assert_eq!(q.select.len(), n, "{s}"),
            Err(e) => panic!("{s}: {e}"),
        }
    }
}

#[test]
fn large_inputs_finish() {
    let n = 50_000;
    let list = vec!["a"; n].join(",");
    assert_eq!(select(&list).len(), n);
    assert_eq!(parse(&[("order", &list)]).order[0].1.len(), n);
    assert_eq!(parse(&[("columns", &list)]).columns.map(|c| c.len()), Some(n));
    let tree = format!("({})", vec!["a.eq.1"; n].join(","));
    assert!(matches!(&parse(&[("or", &tree)]).logic[0].1, LogicTree::Node { children, .. } if children.len() == n));
    let (_, f) = filter(&format!("data{}", "->a".repeat(n)), "eq.1");
    assert_eq!(f.field.json_path.len(), n);
    assert!(matches!(op(&format!("in.({list})")).1, Operation::In(v) if v.len() == n));
    let long_name = "x".repeat(1_000_000);
    assert_eq!(select(&long_name), vec![column(&long_name)]);
    let _ = parse_query(&pairs(&[("select", &"a(".repeat(1_000_000))]));
    let _ = parse_query(&pairs(&[("and", &"(".repeat(1_000_000))]));
    let _ = parse_query(&pairs(&[("select", &"\"".repeat(1_000_001))]));
    let _ = parse_query(&pairs(&[("select", &format!("c::int{}", " precision".repeat(n)))]));
    let _ = parse_prefer([",".repeat(1_000_000).as_str()]);
}
