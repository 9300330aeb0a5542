//! Unit tests of `roles_sql`: every name quoted, every value a literal, no password in clear.

use super::*;

fn server() -> Vec<String> {
    vec!["studio_admin".to_string()]
}

#[test]
fn platform_postgres_and_server_roles_are_protected() {
    for name in
        ["postgres", "authenticator", "anon", "authenticated", "service_role", "supabase_auth_admin", "supabase_x"]
    {
        assert_eq!(protected(name, &[]), Some("one of the platform's roles"), "{name}");
    }
    assert_eq!(protected("pg_monitor", &[]), Some("one of Postgres's own roles"));
    assert_eq!(protected("studio_admin", &server()), Some("the role this server connects as"));
    assert_eq!(protected("reporting", &server()), None);
    assert_eq!(
        check_name("anon", &[]).unwrap_err().to_string(),
        "anon is one of the platform's roles: it cannot be created, altered, dropped or granted roles here"
    );
}

#[test]
fn names_are_checked() {
    assert_eq!(check_name("", &[]), Err(RoleSqlError::EmptyName));
    assert_eq!(check_name(&"r".repeat(64), &[]), Err(RoleSqlError::LongName));
    assert_eq!(check_name("a\0b", &[]), Err(RoleSqlError::NulInName));
    assert_eq!(check_name(&"r".repeat(63), &[]), Ok(()));
}

#[test]
fn create_writes_each_attribute_and_quotes_the_name() {
    let attrs = Attributes {
        login: Some(true),
        inherit: Some(false),
        create_db: Some(true),
        create_role: Some(false),
        bypass_rls: Some(false),
        connection_limit: Some(5),
        valid_until: Some("2030-01-01".into()),
        ..Attributes::default()
    };
    let built = create_role(r#"Rep"; drop table t; --"#, &attrs, None).unwrap();
    assert_eq!(
        built.run,
        vec![
            r#"create role "Rep""; drop table t; --" with login noinherit createdb nocreaterole nobypassrls connection limit 5 valid until E'2030-01-01'"#
        ]
    );
    assert_eq!(built.run, built.shown);
    assert!(!built.password_set);
    assert_eq!(create_role("r", &Attributes::default(), None).unwrap().run, vec![r#"create role "r" with nologin"#]);
}

#[test]
fn a_value_with_quotes_stays_a_literal() {
    let attrs = Attributes { valid_until: Some(r"2030' \x".into()), ..Attributes::default() };
    assert_eq!(alter_role("r", &attrs, None).unwrap().run, vec![r#"alter role "r" with valid until E'2030'' \\x'"#]);
    let clear = Attributes { valid_until: Some(" ".into()), ..Attributes::default() };
    assert_eq!(alter_role("r", &clear, None).unwrap().run, vec![r#"alter role "r" with valid until E'infinity'"#]);
}

#[test]
fn a_password_runs_as_a_verifier_and_is_never_shown() {
    let attrs = Attributes { login: Some(true), password: Some("s3cret'pw".into()), ..Attributes::default() };
    let v = verifier("s3cret'pw");
    assert!(v.starts_with("SCRAM-SHA-256$4096:"), "{v}");
    let built = create_role("app", &attrs, Some(&v)).unwrap();
    assert!(built.password_set);
    assert_eq!(built.run, vec![format!(r#"create role "app" with login password E'{v}'"#)]);
    assert_eq!(built.shown, vec![r#"create role "app" with login password '********'"#.to_string()]);
    assert_eq!(built.shown_sql(), r#"create role "app" with login password '********';"#);
    for text in built.run.iter().chain(&built.shown) {
        assert!(!text.contains("s3cret"), "{text}");
    }
    // Two verifiers of one password differ (a fresh salt), and both are Postgres's format.
    assert_ne!(v, verifier("s3cret'pw"));
}

#[test]
fn alter_may_clear_a_password_and_refuses_an_empty_change() {
    let attrs = Attributes { clear_password: true, ..Attributes::default() };
    let built = alter_role("app", &attrs, None).unwrap();
    assert_eq!(built.run, vec![r#"alter role "app" with password null"#]);
    assert!(!built.password_set);
    assert_eq!(alter_role("app", &Attributes::default(), None), Err(RoleSqlError::NothingToChange));
    let bad = Attributes { connection_limit: Some(-2), ..Attributes::default() };
    assert_eq!(alter_role("app", &bad, None), Err(RoleSqlError::ConnectionLimit));
}

#[test]
fn drop_and_membership_quote_both_names() {
    assert_eq!(drop_role("a\"b", false).run, vec![r#"drop role "a""b""#]);
    assert_eq!(drop_role("app", true).shown_sql(), "drop owned by \"app\";\ndrop role \"app\";");
    assert_eq!(membership("app", "authenticated", true).unwrap().run, vec![r#"grant "authenticated" to "app""#]);
    assert_eq!(membership("app", "authenticated", false).unwrap().run, vec![r#"revoke "authenticated" from "app""#]);
    assert_eq!(membership("app", "app", true), Err(RoleSqlError::SelfMembership));
}

#[test]
fn table_privileges_on_one_table_or_a_whole_schema() {
    let all = [Privilege::Delete, Privilege::Select, Privilege::Select];
    assert_eq!(
        table_privileges("app", "public", Some("Or\"ders"), &all, true).unwrap().run,
        vec![
            r#"grant usage on schema "public" to "app""#.to_string(),
            r#"grant select, delete on table "public"."Or""ders" to "app""#.to_string()
        ]
    );
    assert_eq!(
        table_privileges("app", "public", None, &[Privilege::Insert, Privilege::Update], false).unwrap().run,
        vec![r#"revoke insert, update on all tables in schema "public" from "app""#]
    );
    assert_eq!(table_privileges("app", "public", None, &[], true), Err(RoleSqlError::NoPrivileges));
}
