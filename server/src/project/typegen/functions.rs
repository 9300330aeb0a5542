//! The `Functions` of a schema, with postgres-meta's rules: which functions PostgREST can call,
//! their `Args` and `Returns` (a table's row, `returns table`, a set), `SetofOptions`, overloads
//! grouped under one name, and the `{ error: true } & "…"` of those PostgREST cannot tell apart.

use std::collections::HashMap;

use super::catalogue::{Arg, ArgMode, Function, PgType};
use super::collate::locale_compare;
use super::generate::{inline, object, Callable, Ctx, SchemaParts};
use super::ts::{append_brackets, atom, prop, union_of, Member, Ty};

/// json, jsonb and text: the types of the single unnamed argument PostgREST passes a body to.
const VALID_UNNAMED_ARG_TYPES: [i64; 3] = [114, 3802, 25];

impl Ctx<'_> {
    pub(super) fn return_type(&self, schema: &str, parts: &SchemaParts, f: &Function) -> Ty {
        let table_args: Vec<&Arg> = f.args.iter().filter(|a| a.mode == ArgMode::Table).collect();
        if !table_args.is_empty() {
            return object(
                table_args.iter().map(|a| prop(&a.name, false, self.type_name_ts(schema, a.type_id))).collect(),
            );
        }
        let relation = parts
            .tables
            .iter()
            .map(|(r, _)| r.id)
            .chain(parts.views.iter().map(|(r, _)| r.id))
            .find(|id| Some(*id) == f.return_type_relation_id);
        if let Some(id) = relation {
            return object(self.columns_of(id).iter().map(|c| self.column(schema, c, false, c.is_nullable)).collect());
        }
        self.type_name_ts(schema, f.return_type_id)
    }

    /// `Returns` (with `[]` for a set) and the `SetofOptions` that go with it.
    fn returns(&self, f: &Function, return_type: Ty) -> Vec<Member> {
        let target = self.table_name_from_relation(f.return_type_relation_id, f.return_type_id);
        let set_of_table = f.is_set_returning && f.return_type_relation_id.is_some();
        let many_rows = f.prorows.is_some_and(|rows| rows > 1.0);
        let setof = |from: &str, to: &str, one: bool, set: bool| {
            prop(
                "SetofOptions",
                false,
                object(vec![
                    prop("from", false, Ty::Str(from.into())),
                    prop("to", false, Ty::Str(to.into())),
                    prop("isOneToOne", false, atom(if one { "true" } else { "false" })),
                    prop("isSetofReturn", false, atom(if set { "true" } else { "false" })),
                ]),
            )
        };
        let mut options = target.as_deref().map(|to| setof("*", to, !many_rows, f.is_set_returning));
        if f.args.len() == 1 {
            if let (Some(source), Some(to)) = (self.relation_types.get(&f.args[0].type_id), target.as_deref()) {
                options = Some(if set_of_table {
                    setof(&source.format, to, !many_rows, true)
                } else {
                    setof(&source.format, to, true, false)
                });
            }
        }
        let single_row = !many_rows && target.is_some();
        let ty = if f.is_set_returning && !single_row { append_brackets(return_type) } else { return_type };
        let mut members = vec![prop("Returns", false, ty)];
        members.extend(options);
        members
    }

    fn args_type(&self, schema: &str, in_args: &[Arg]) -> Ty {
        inline(in_args.iter().map(|a| prop(&a.name, a.has_default, self.type_name_ts(schema, a.type_id))).collect())
    }

    /// The message of an overload PostgREST cannot choose (postgres-meta's `getConflictError`).
    fn conflict(&self, schema: &str, fns: &[Callable], index: usize) -> Option<String> {
        if fns.len() <= 1 {
            return None;
        }
        let (f, in_args) = &fns[index];
        let type_name = |id: i64| self.types_by_id.get(&id).map(|t| t.name.clone()).unwrap_or("unknown".into());
        if in_args.is_empty() {
            let other = fns.iter().enumerate().find(|(i, (_, other))| {
                *i != index && other.len() == 1 && other[0].name.is_empty() && other[0].has_default
            });
            if let Some((_, (other, _))) = other {
                return Some(format!(
                    "Could not choose the best candidate function between: {schema}.{name}(), {schema}.{name}( => {ret}). Try renaming the parameters or the function itself in the database so function overloading can be resolved",
                    name = f.name,
                    ret = type_name(other.return_type_id)
                ));
            }
        }
        if in_args.len() == 1 && !in_args[0].name.is_empty() {
            let mut all: Vec<&Vec<Arg>> = vec![in_args];
            all.extend(fns.iter().enumerate().filter_map(|(i, (_, other))| {
                (i != index
                    && other.len() == 1
                    && other[0].name == in_args[0].name
                    && other[0].type_id != in_args[0].type_id)
                    .then_some(other)
            }));
            if all.len() > 1 {
                all.sort_by_key(|args| args.first().map(|a| a.type_id).unwrap_or(0));
                let list: Vec<String> = all
                    .iter()
                    .map(|args| {
                        let shown: Vec<String> =
                            args.iter().map(|a| format!("{} => {}", a.name, type_name(a.type_id))).collect();
                        format!("{schema}.{}({})", f.name, shown.join(", "))
                    })
                    .collect();
                return Some(format!(
                    "Could not choose the best candidate function between: {}. Try renaming the parameters or the function itself in the database so function overloading can be resolved",
                    list.join(", ")
                ));
            }
        }
        None
    }

    fn signatures(&self, schema: &str, parts: &SchemaParts, fns: &[Callable]) -> Ty {
        let error = |message: String| {
            Ty::Intersection(vec![inline(vec![prop("error", false, atom("true"))]), Ty::Str(message)])
        };
        let mut each: Vec<Ty> = Vec::new();
        for (i, (f, in_args)) in fns.iter().enumerate() {
            let args = if in_args.is_empty() { atom("never") } else { self.args_type(schema, in_args) };
            let mut return_type = self.return_type(schema, parts, f);
            let row_error = in_args.len() == 1
                && in_args[0].name.is_empty()
                && self.relation_types.contains_key(&in_args[0].type_id)
                && self.table_name_from_relation(f.return_type_relation_id, f.return_type_id).is_none();
            if let Some(message) = self.conflict(schema, fns, i) {
                return_type = error(message);
            } else if row_error {
                return_type = error(format!("the function {schema}.{} with parameter or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache", f.name));
            }
            let mut members = vec![prop("Args", false, args)];
            members.extend(self.returns(f, return_type));
            each.push(inline(members));
        }
        each.into_iter().reduce(union_of).unwrap_or(atom("never"))
    }

    pub(super) fn functions(&self, schema: &str, parts: &SchemaParts) -> Vec<Member> {
        let mut groups: Vec<(String, Vec<Callable>)> = Vec::new();
        for (f, in_args) in &parts.functions {
            match groups.iter_mut().find(|(name, _)| *name == f.name) {
                Some((_, fns)) => fns.push((f.clone(), in_args.clone())),
                None => groups.push((f.name.clone(), vec![(f.clone(), in_args.clone())])),
            }
        }
        groups
            .iter_mut()
            .map(|(name, fns)| {
                fns.sort_by(|a, b| {
                    locale_compare(&a.0.argument_types, &b.0.argument_types)
                        .then_with(|| locale_compare(&a.0.return_type, &b.0.return_type))
                });
                prop(name, false, self.signatures(schema, parts, fns))
            })
            .collect()
    }
}

/// Whether PostgREST can call `f` (postgres-meta keeps the others out of `Functions`).
pub(super) fn callable(in_args: &[Arg], relation_types: &HashMap<i64, &PgType>) -> bool {
    in_args.is_empty()
        || !in_args.iter().any(|a| a.name.is_empty())
        || in_args.iter().all(|a| !a.name.is_empty() || (a.has_default && VALID_UNNAMED_ARG_TYPES.contains(&a.type_id)))
        || (in_args.len() == 1
            && in_args[0].name.is_empty()
            && (VALID_UNNAMED_ARG_TYPES.contains(&in_args[0].type_id)
                || relation_types.contains_key(&in_args[0].type_id)))
}
