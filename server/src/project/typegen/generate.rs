//! The catalogue turned into the syntax tree of `Database` and `Constants`, with the rules of
//! postgres-meta's TypeScript template (the Supabase CLI's generator): how a column's type,
//! nullability and optionality read, tables, views, computed fields, relationships, enums,
//! composite types, and the order of every list (`functions` has the rules of `Functions`).
//!
//! It reads no database (`catalogue` does) and lays nothing out (`ts`, `doc` do).

use std::collections::HashMap;

use super::catalogue::{Arg, ArgMode, Catalogue, Column, Function, PgType, Relation, Relationship};
use super::collate::locale_compare;
use super::functions::callable;
use super::ts::{array_of, atom, prop, quoted, union_of, Member, Ty, Value};

const NO_MEMBERS: &str = "[_ in never]: never";

/// A function PostgREST can call, with its input arguments.
pub(super) type Callable = (Function, Vec<Arg>);

#[derive(Default)]
pub(super) struct SchemaParts<'a> {
    pub(super) tables: Vec<(&'a Relation, Vec<&'a Relationship>)>,
    pub(super) views: Vec<(Relation, Vec<&'a Relationship>)>,
    pub(super) functions: Vec<Callable>,
    pub(super) enums: Vec<&'a PgType>,
    pub(super) composites: Vec<&'a PgType>,
}

pub(super) struct Ctx<'a> {
    pub(super) cat: &'a Catalogue,
    pub(super) detect_one_to_one: bool,
    pub(super) columns: HashMap<i64, Vec<&'a Column>>,
    pub(super) relation_names: HashMap<i64, &'a str>,
    pub(super) types_by_id: HashMap<i64, &'a PgType>,
    pub(super) relation_types: HashMap<i64, &'a PgType>,
}

pub(super) fn index_type(schema: &str, section: &str, name: &str) -> String {
    format!("Database[{}][\"{section}\"][{}]", quoted(schema), quoted(name))
}

pub(super) fn nullable(ty: Ty, is_nullable: bool) -> Ty {
    if !is_nullable || matches!(&ty, Ty::Atom(a) if a == "unknown" || a == "any") {
        ty
    } else {
        union_of(ty, atom("null"))
    }
}

pub(super) fn object(members: Vec<Member>) -> Ty {
    Ty::Object { members, expanded: true }
}

pub(super) fn inline(members: Vec<Member>) -> Ty {
    Ty::Object { members, expanded: false }
}

pub(super) fn section(members: Vec<Member>) -> Ty {
    if members.is_empty() {
        object(vec![Member::Raw(NO_MEMBERS.into())])
    } else {
        object(members)
    }
}

impl<'a> Ctx<'a> {
    pub(super) fn in_schemas(&self, schema: &str) -> bool {
        self.cat.schemas.iter().any(|s| s == schema)
    }

    /// postgres-meta's `pgTypeToTsType`.
    pub(super) fn ts_type(&self, schema: &str, pg_type: &str) -> Ty {
        match pg_type {
            "bool" => return atom("boolean"),
            "int2" | "int4" | "int8" | "float4" | "float8" | "numeric" => return atom("number"),
            "bytea" | "bpchar" | "varchar" | "date" | "text" | "citext" | "time" | "timetz" | "timestamp"
            | "timestamptz" | "uuid" | "vector" | "interval" => return atom("string"),
            "json" | "jsonb" => return atom("Json"),
            "void" => return atom("undefined"),
            "record" => return atom("Record<string, unknown>"),
            _ => {}
        }
        if let Some(element) = pg_type.strip_prefix('_') {
            return array_of(self.ts_type(schema, element));
        }
        let types = &self.cat.types;
        let pick = |candidates: Vec<&'a PgType>| -> Option<&'a PgType> {
            candidates.iter().find(|t| t.schema == schema).or(candidates.first()).copied()
        };
        if let Some(e) = pick(types.iter().filter(|t| t.name == pg_type && !t.enums.is_empty()).collect()) {
            if self.in_schemas(&e.schema) {
                return atom(&index_type(&e.schema, "Enums", &e.name));
            }
            return e.enums.iter().map(|v| Ty::Str(v.clone())).reduce(union_of).unwrap_or(atom("never"));
        }
        if let Some(c) = pick(types.iter().filter(|t| t.name == pg_type && !t.attributes.is_empty()).collect()) {
            return if self.in_schemas(&c.schema) {
                atom(&index_type(&c.schema, "CompositeTypes", &c.name))
            } else {
                atom("unknown")
            };
        }
        for (kinds, section) in [(&['r', 'p'][..], "Tables"), (&['v'][..], "Views")] {
            let found: Vec<&Relation> =
                self.cat.relations.iter().filter(|r| kinds.contains(&r.kind) && r.name == pg_type).collect();
            if let Some(r) = found.iter().find(|r| r.schema == schema).or(found.first()) {
                return if self.in_schemas(&r.schema) {
                    atom(&format!("{}[\"Row\"]", index_type(&r.schema, section, &r.name)))
                } else {
                    atom("unknown")
                };
            }
        }
        atom("unknown")
    }

    pub(super) fn type_name_ts(&self, schema: &str, type_id: i64) -> Ty {
        self.types_by_id.get(&type_id).map(|t| self.ts_type(schema, &t.name)).unwrap_or(atom("unknown"))
    }

    pub(super) fn column(&self, schema: &str, column: &Column, optional: bool, is_nullable: bool) -> Member {
        prop(&column.name, optional, nullable(self.ts_type(schema, &column.format), is_nullable))
    }

    pub(super) fn columns_of(&self, id: i64) -> &[&'a Column] {
        self.columns.get(&id).map(Vec::as_slice).unwrap_or(&[])
    }

    pub(super) fn table_name_from_relation(&self, relation_id: Option<i64>, return_type_id: i64) -> Option<String> {
        let relation_id = relation_id?;
        if let Some(name) = self.relation_names.get(&relation_id) {
            return Some(name.to_string());
        }
        self.relation_types.get(&return_type_id).map(|t| t.name.clone())
    }

    /// postgres-meta's `getFunctionReturnType`.
    fn relationships(&self, list: &[&Relationship]) -> Ty {
        let strings = |items: &[String]| Ty::Tuple(items.iter().map(|s| Ty::Str(s.clone())).collect());
        Ty::Tuple(
            list.iter()
                .map(|r| {
                    let mut members = vec![
                        prop("foreignKeyName", false, Ty::Str(r.foreign_key_name.clone())),
                        prop("columns", false, strings(&r.columns)),
                    ];
                    if self.detect_one_to_one {
                        members.push(prop("isOneToOne", false, atom(if r.is_one_to_one { "true" } else { "false" })));
                    }
                    members.push(prop("referencedRelation", false, Ty::Str(r.referenced_relation.clone())));
                    members.push(prop("referencedColumns", false, strings(&r.referenced_columns)));
                    object(members)
                })
                .collect(),
        )
    }

    fn computed_fields(&self, schema: &str, parts: &SchemaParts, relation: &str) -> Vec<Member> {
        parts
            .functions
            .iter()
            .filter(|(f, _)| f.argument_types == relation)
            .map(|(f, _)| prop(&f.name, false, nullable(self.return_type(schema, parts, f), true)))
            .collect()
    }

    fn tables(&self, schema: &str, parts: &SchemaParts) -> Vec<Member> {
        let mut out = Vec::new();
        for (table, relationships) in &parts.tables {
            let columns = self.columns_of(table.id);
            let mut row: Vec<Member> = columns.iter().map(|c| self.column(schema, c, false, c.is_nullable)).collect();
            row.extend(self.computed_fields(schema, parts, &table.name));
            let write = |insert: bool| -> Vec<Member> {
                columns
                    .iter()
                    .map(|c| {
                        if c.identity_always {
                            prop(&c.name, true, atom("never"))
                        } else {
                            let optional = !insert || c.is_nullable || c.is_identity || c.has_default;
                            self.column(schema, c, optional, c.is_nullable)
                        }
                    })
                    .collect()
            };
            out.push(prop(
                &table.name,
                false,
                object(vec![
                    prop("Row", false, object(row)),
                    prop("Insert", false, object(write(true))),
                    prop("Update", false, object(write(false))),
                    prop("Relationships", false, self.relationships(relationships)),
                ]),
            ));
        }
        out
    }

    fn views(&self, schema: &str, parts: &SchemaParts) -> Vec<Member> {
        let mut out = Vec::new();
        for (view, relationships) in &parts.views {
            let columns = self.columns_of(view.id);
            let mut row: Vec<Member> = columns.iter().map(|c| self.column(schema, c, false, c.is_nullable)).collect();
            row.extend(self.computed_fields(schema, parts, &view.name));
            let mut members = vec![prop("Row", false, object(row))];
            if view.updatable {
                let write = || -> Vec<Member> {
                    columns
                        .iter()
                        .map(|c| {
                            if c.is_updatable {
                                self.column(schema, c, true, true)
                            } else {
                                prop(&c.name, true, atom("never"))
                            }
                        })
                        .collect()
                };
                members.push(prop("Insert", false, object(write())));
                members.push(prop("Update", false, object(write())));
            }
            members.push(prop("Relationships", false, self.relationships(relationships)));
            out.push(prop(&view.name, false, object(members)));
        }
        out
    }

    fn composites(&self, schema: &str, parts: &SchemaParts) -> Vec<Member> {
        parts
            .composites
            .iter()
            .map(|t| {
                let attributes = t
                    .attributes
                    .iter()
                    .map(|(name, type_id)| {
                        let ty = match self.types_by_id.get(type_id) {
                            Some(ty) => nullable(self.ts_type(schema, &ty.name), true),
                            None => atom("unknown"),
                        };
                        prop(name, false, ty)
                    })
                    .collect();
                prop(&t.name, false, object(attributes))
            })
            .collect()
    }
}

/// The `Database` type and the `Constants` value of the catalogue; with a PostgREST version,
/// `Database` opens with the `__InternalSupabase` member supabase-js reads it from.
pub fn build(cat: &Catalogue, detect_one_to_one: bool, postgrest_version: Option<&str>) -> (Ty, Value) {
    let mut schemas = cat.schemas.clone();
    schemas.sort_by(|a, b| locale_compare(a, b));
    schemas.dedup();
    let mut relationships: Vec<&Relationship> = cat.relationships.iter().collect();
    relationships.sort_by(|a, b| {
        locale_compare(&a.foreign_key_name, &b.foreign_key_name)
            .then_with(|| locale_compare(&a.referenced_relation, &b.referenced_relation))
            .then_with(|| {
                let json = |c: &[String]| serde_json::to_string(c).unwrap_or_default();
                locale_compare(&json(&a.referenced_columns), &json(&b.referenced_columns))
            })
    });
    let mut columns: HashMap<i64, Vec<&Column>> = HashMap::new();
    let mut relation_names = HashMap::new();
    for r in &cat.relations {
        columns.insert(r.id, Vec::new());
        relation_names.insert(r.id, r.name.as_str());
    }
    for c in &cat.columns {
        if let Some(list) = columns.get_mut(&c.table_id) {
            list.push(c);
        }
    }
    for list in columns.values_mut() {
        list.sort_by(|a, b| locale_compare(&a.name, &b.name));
    }
    let types_by_id = cat.types.iter().map(|t| (t.id, t)).collect();
    let relation_types = cat.types.iter().filter(|t| t.type_relation_id.is_some()).map(|t| (t.id, t)).collect();
    let ctx = Ctx { cat, detect_one_to_one, columns, relation_names, types_by_id, relation_types };

    let mut parts: HashMap<&str, SchemaParts> = schemas.iter().map(|s| (s.as_str(), SchemaParts::default())).collect();
    for t in &cat.types {
        if let Some(p) = parts.get_mut(t.schema.as_str()) {
            if !t.enums.is_empty() {
                p.enums.push(t);
            }
            if !t.attributes.is_empty() {
                p.composites.push(t);
            }
        }
    }
    let related = |r: &Relation| -> Vec<&Relationship> {
        relationships
            .iter()
            .filter(|rel| rel.schema == r.schema && rel.relation == r.name && rel.referenced_schema == r.schema)
            .copied()
            .collect()
    };
    for kinds in [&['r', 'p'][..], &['f'][..]] {
        for r in cat.relations.iter().filter(|r| kinds.contains(&r.kind)) {
            if let Some(p) = parts.get_mut(r.schema.as_str()) {
                p.tables.push((r, related(r)));
            }
        }
    }
    for kind in ['v', 'm'] {
        for r in cat.relations.iter().filter(|r| r.kind == kind) {
            if let Some(p) = parts.get_mut(r.schema.as_str()) {
                let view = Relation { updatable: kind == 'v' && r.updatable, ..r.clone() };
                p.views.push((view, related(r)));
            }
        }
    }
    for f in &cat.functions {
        if let Some(p) = parts.get_mut(f.schema.as_str()) {
            let mut f = f.clone();
            f.args.sort_by(|a, b| locale_compare(&a.name, &b.name));
            let in_args: Vec<Arg> = f
                .args
                .iter()
                .filter(|a| matches!(a.mode, ArgMode::In | ArgMode::InOut | ArgMode::Variadic))
                .cloned()
                .collect();
            if callable(&in_args, &ctx.relation_types) {
                p.functions.push((f, in_args));
            }
        }
    }
    for p in parts.values_mut() {
        p.tables.sort_by(|a, b| locale_compare(&a.0.name, &b.0.name));
        p.views.sort_by(|a, b| locale_compare(&a.0.name, &b.0.name));
        p.functions.sort_by(|a, b| locale_compare(&a.0.name, &b.0.name));
        p.enums.sort_by(|a, b| locale_compare(&a.name, &b.name));
        p.composites.sort_by(|a, b| locale_compare(&a.name, &b.name));
    }

    let mut database = Vec::new();
    if let Some(version) = postgrest_version {
        let internal =
            prop("__InternalSupabase", false, object(vec![prop("PostgrestVersion", false, Ty::Str(version.into()))]));
        database.push(Member::Commented(
            vec![
                "Allows to automatically instantiate createClient with right options".into(),
                "instead of createClient<Database, { PostgrestVersion: 'XX' }>(URL, KEY)".into(),
            ],
            Box::new(internal),
        ));
    }
    let mut constants = Vec::new();
    for schema in &schemas {
        let Some(p) = parts.get(schema.as_str()) else { continue };
        let enums: Vec<Member> = p
            .enums
            .iter()
            .map(|e| {
                let ty = e.enums.iter().map(|v| Ty::Str(v.clone())).reduce(union_of).unwrap_or(atom("never"));
                prop(&e.name, false, ty)
            })
            .collect();
        database.push(prop(
            schema,
            false,
            object(vec![
                prop("Tables", false, section(ctx.tables(schema, p))),
                prop("Views", false, section(ctx.views(schema, p))),
                prop("Functions", false, section(ctx.functions(schema, p))),
                prop("Enums", false, section(enums)),
                prop("CompositeTypes", false, section(ctx.composites(schema, p))),
            ]),
        ));
        let enum_values = p.enums.iter().map(|e| (e.name.clone(), Value::Strings(e.enums.clone()))).collect();
        constants.push((schema.clone(), Value::Object(vec![("Enums".into(), Value::Object(enum_values))])));
    }
    (object(database), Value::Object(constants))
}
