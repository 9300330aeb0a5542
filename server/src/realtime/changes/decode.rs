//! From `pgoutput` messages to `Change`s: rows with typed values, the relation's columns and
//! primary key, whether it has row-level security, and the commit time.
//!
//! Relations and types are looked up in the catalog once and cached (a relation is re-read when
//! its columns change or after `RELATION_TTL`, so `enable row level security` is noticed). Only
//! whole transactions are turned into changes, at their commit.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};

use super::binding::Event;
use super::pgoutput::{self, Cell, Message};
use super::values::{self, TypeInfo};

const RELATION_TTL: Duration = Duration::from_secs(10);

/// What delivery needs to know of a table.
#[derive(Debug)]
pub struct RelInfo {
    pub oid: u32,
    pub schema: String,
    pub table: String,
    pub columns: Vec<(String, TypeInfo)>,
    /// `[{"name", "type"}]` as the payload carries it.
    pub columns_json: Value,
    pub primary_key: Vec<String>,
    pub rls: bool,
    /// Columns of the replica identity key (what an old row holds without `FULL`).
    identity_key: Vec<bool>,
    full_identity: bool,
    type_oids: Vec<u32>,
    loaded: Instant,
}

/// One committed row change.
#[derive(Debug)]
pub struct Change {
    pub relation: Arc<RelInfo>,
    pub kind: Event,
    pub commit_timestamp: String,
    /// Where the transaction ends in the WAL.
    pub end_lsn: u64,
    /// The new row (empty for a delete).
    pub record: Map<String, Value>,
    /// The old row as the replica identity gives it (key columns, or all with `FULL`); for an
    /// update that did not send one, the primary key of the new row.
    pub old_record: Map<String, Value>,
}

impl Change {
    /// The row filters are matched against: the new one, or the old one for a delete.
    pub fn row(&self) -> &Map<String, Value> {
        if self.kind == Event::Delete {
            &self.old_record
        } else {
            &self.record
        }
    }

    /// The primary key of the row, for the row-level-security check.
    pub fn key(&self) -> Value {
        let row = self.row();
        Value::Object(self.relation.primary_key.iter().filter_map(|k| Some((k.clone(), row.get(k)?.clone()))).collect())
    }
}

/// Commit time (microseconds since 2000-01-01 UTC) as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub fn commit_timestamp(micros: i64) -> String {
    const PG_EPOCH: i64 = 946_684_800;
    let at = chrono::DateTime::from_timestamp(PG_EPOCH + micros.div_euclid(1_000_000), 0)
        .map(|t| t + chrono::Duration::microseconds(micros.rem_euclid(1_000_000)))
        .unwrap_or_default();
    at.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

/// Decoding state carried across the replication stream.
#[derive(Default)]
pub struct Decoder {
    relations: HashMap<u32, Arc<RelInfo>>,
    types: HashMap<u32, TypeInfo>,
    pending: Vec<Change>,
    /// Between a transaction's begin and its commit.
    open: bool,
}

impl Decoder {
    /// A transaction begins: what an interrupted one left is dropped.
    pub fn begin(&mut self) {
        self.pending.clear();
        self.open = true;
    }

    /// Whether a transaction has begun and not yet committed.
    pub fn in_transaction(&self) -> bool {
        self.open
    }

    /// One `pgoutput` message inside a transaction (relation, insert, update, delete; others
    /// are skipped). `client` reads the catalog for unknown relations and types.
    pub async fn message(&mut self, client: &tokio_postgres::Client, raw: &[u8]) -> Result<(), tokio_postgres::Error> {
        let message = match pgoutput::decode(raw) {
            Ok(m) => m,
            Err(err) => {
                tracing::warn!(error = %err, "realtime: skipping a change the decoder could not read");
                return Ok(());
            }
        };
        match message {
            Message::Begin => self.begin(),
            Message::Relation(rel) => self.relation(client, rel).await?,
            Message::Insert { relation, new } => self.push(relation, Event::Insert, Some(new), None),
            Message::Update { relation, old, new } => self.push(relation, Event::Update, Some(new), old),
            Message::Delete { relation, old } => self.push(relation, Event::Delete, None, Some(old)),
            Message::Commit { .. } | Message::Other => {}
        }
        Ok(())
    }

    /// The transaction commits at `end_lsn`, at `timestamp` (microseconds since 2000): its
    /// changes, whole.
    pub fn commit(&mut self, end_lsn: u64, timestamp: i64) -> Vec<Arc<Change>> {
        self.open = false;
        let at = commit_timestamp(timestamp);
        self.pending
            .drain(..)
            .map(|mut change| {
                change.commit_timestamp.clone_from(&at);
                change.end_lsn = end_lsn;
                Arc::new(change)
            })
            .collect()
    }

    fn push(&mut self, relation: u32, kind: Event, new: Option<Vec<Cell>>, old: Option<Vec<Cell>>) {
        let Some(rel) = self.relations.get(&relation).cloned() else {
            tracing::warn!(relation, "realtime: a change of an unannounced relation was skipped");
            return;
        };
        let old_record = old.as_ref().map(|cells| row(&rel, cells, None)).unwrap_or_default();
        // Without REPLICA IDENTITY FULL the old tuple only carries its key (the rest is null).
        let old_record: Map<String, Value> = if rel.full_identity {
            old_record
        } else {
            old_record
                .into_iter()
                .filter(|(name, _)| rel.columns.iter().zip(&rel.identity_key).any(|((n, _), key)| *key && n == name))
                .collect()
        };
        let record = new.as_ref().map(|cells| row(&rel, cells, Some(&old_record))).unwrap_or_default();
        let old_record = if old.is_none() && kind == Event::Update {
            rel.primary_key.iter().filter_map(|k| Some((k.clone(), record.get(k)?.clone()))).collect()
        } else {
            old_record
        };
        self.pending.push(Change {
            relation: rel,
            kind,
            commit_timestamp: String::new(),
            end_lsn: 0,
            record,
            old_record,
        });
    }

    async fn relation(
        &mut self,
        client: &tokio_postgres::Client,
        rel: pgoutput::Relation,
    ) -> Result<(), tokio_postgres::Error> {
        let oids: Vec<u32> = rel.columns.iter().map(|c| c.type_oid).collect();
        if let Some(known) = self.relations.get(&rel.id) {
            let same = known.type_oids == oids
                && known.full_identity == rel.full_identity
                && known.identity_key.iter().eq(rel.columns.iter().map(|c| &c.key))
                && known.columns.iter().map(|(n, _)| n).eq(rel.columns.iter().map(|c| &c.name))
                && known.loaded.elapsed() < RELATION_TTL;
            if same {
                return Ok(());
            }
        }
        let unknown: Vec<u32> = oids.iter().copied().filter(|o| !self.types.contains_key(o)).collect();
        if !unknown.is_empty() {
            let rows = client
                .query(
                    "select t.oid, t.typname::text, e.typname::text from pg_type t \
                     left join pg_type e on e.oid = t.typelem and t.typcategory = 'A' where t.oid = any($1)",
                    &[&unknown],
                )
                .await?;
            for r in rows {
                self.types.insert(r.get(0), TypeInfo { name: r.get(1), element: r.get(2) });
            }
        }
        let meta = client
            .query_one(
                "select c.relrowsecurity, coalesce((select array_agg(a.attname::text order by a.attnum) \
                 from pg_index i join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey) \
                 where i.indrelid = c.oid and i.indisprimary), '{}') from pg_class c where c.oid = $1",
                &[&rel.id],
            )
            .await?;
        let columns: Vec<(String, TypeInfo)> = rel
            .columns
            .iter()
            .map(|c| {
                let ty = self.types.get(&c.type_oid).cloned();
                (c.name.clone(), ty.unwrap_or(TypeInfo { name: "text".into(), element: None }))
            })
            .collect();
        let columns_json = Value::Array(columns.iter().map(|(n, t)| json!({"name": n, "type": t.name})).collect());
        let info = RelInfo {
            oid: rel.id,
            schema: rel.schema,
            table: rel.name,
            columns,
            columns_json,
            primary_key: meta.get(1),
            rls: meta.get(0),
            identity_key: rel.columns.iter().map(|c| c.key).collect(),
            full_identity: rel.full_identity,
            type_oids: oids,
            loaded: Instant::now(),
        };
        self.relations.insert(rel.id, Arc::new(info));
        Ok(())
    }
}

/// A tuple as a JSON object; an unchanged TOASTed value is taken from `old` when it has it.
fn row(rel: &RelInfo, cells: &[Cell], old: Option<&Map<String, Value>>) -> Map<String, Value> {
    let mut out = Map::new();
    for ((name, ty), cell) in rel.columns.iter().zip(cells) {
        let value = match cell {
            Cell::Null => Value::Null,
            Cell::Text(text) => values::to_json(text, ty),
            Cell::Unchanged => match old.and_then(|o| o.get(name)) {
                Some(v) => v.clone(),
                None => continue,
            },
        };
        out.insert(name.clone(), value);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commit_timestamps_are_utc_with_milliseconds() {
        assert_eq!(commit_timestamp(0), "2000-01-01T00:00:00.000Z");
        assert_eq!(commit_timestamp(1_500_000), "2000-01-01T00:00:01.500Z");
        assert_eq!(commit_timestamp(-1), "1999-12-31T23:59:59.999Z");
    }
}
