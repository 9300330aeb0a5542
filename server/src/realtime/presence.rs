//! Presence of one topic: who tracked what, under which key, from which socket of which instance.
//!
//! Every change returns the `presence_diff` payload (`{"joins": {...}, "leaves": {...}}`) that
//! realtime-js's Phoenix presence merges; `state()` is the `presence_state` payload sent on
//! join. Metas of other instances arrive through the relay and are kept here too, tagged with
//! their instance, so they can be dropped when that instance goes away. No I/O here.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

/// Who tracked a meta.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Owner {
    pub instance: String,
    pub socket: u64,
}

#[derive(Debug, Clone)]
struct Meta {
    phx_ref: String,
    owner: Owner,
    data: Map<String, Value>,
    /// What the meta adds to the topic's `presence_state`, in bytes (about).
    size: usize,
}

/// Bytes a meta adds to a `presence_state` (its key, its JSON, the wrapping).
fn meta_size(key: &str, phx_ref: &str, data: &Map<String, Value>) -> usize {
    key.len() + phx_ref.len() + serde_json::to_string(data).map_or(0, |s| s.len()) + 32
}

/// A track refused: the topic's presence state would pass its bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StateTooLarge;

impl Meta {
    fn to_json(&self) -> Value {
        let mut map = self.data.clone();
        map.insert("phx_ref".into(), Value::String(self.phx_ref.clone()));
        Value::Object(map)
    }
}

/// Presences of one topic, by key.
#[derive(Debug, Default)]
pub struct Presence {
    keys: BTreeMap<String, Vec<Meta>>,
    /// The sizes of every meta, added up.
    bytes: usize,
}

/// Metas grouped by key, as diffs and states carry them.
fn group(entries: &[(String, Value)]) -> Value {
    let mut out = Map::new();
    for (key, meta) in entries {
        let slot = out.entry(key.clone()).or_insert_with(|| json!({"metas": []}));
        if let Some(metas) = slot.get_mut("metas").and_then(Value::as_array_mut) {
            metas.push(meta.clone());
        }
    }
    Value::Object(out)
}

fn diff(joins: &[(String, Value)], leaves: &[(String, Value)]) -> Option<Value> {
    if joins.is_empty() && leaves.is_empty() {
        return None;
    }
    Some(json!({"joins": group(joins), "leaves": group(leaves)}))
}

impl Presence {
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The `presence_state` payload.
    pub fn state(&self) -> Value {
        let entries: Vec<(String, Value)> =
            self.keys.iter().flat_map(|(k, metas)| metas.iter().map(move |m| (k.clone(), m.to_json()))).collect();
        group(&entries)
    }

    /// How many presences (metas, over every key) are tracked.
    pub fn count(&self) -> usize {
        self.keys.values().map(|metas| metas.len()).sum()
    }

    /// About how many bytes `state()` is.
    pub fn size(&self) -> usize {
        self.bytes
    }

    /// Track `data` under `key` for `owner`, replacing what that owner tracked under the key.
    /// Tracking the same data again changes nothing. Refused, with nothing changed, when the
    /// state would pass `limit` bytes.
    pub fn track(
        &mut self,
        key: &str,
        owner: Owner,
        phx_ref: String,
        data: Map<String, Value>,
        limit: usize,
    ) -> Result<Option<Value>, StateTooLarge> {
        let size = meta_size(key, &phx_ref, &data);
        let metas = self.keys.entry(key.to_string()).or_default();
        if metas.iter().any(|m| m.owner == owner && m.data == data) {
            return Ok(None);
        }
        let replaced: usize = metas.iter().filter(|m| m.owner == owner).map(|m| m.size).sum();
        if self.bytes - replaced + size > limit {
            if metas.is_empty() {
                self.keys.remove(key);
            }
            return Err(StateTooLarge);
        }
        let mut leaves = Vec::new();
        metas.retain(|m| {
            let same = m.owner == owner;
            if same {
                leaves.push((key.to_string(), m.to_json()));
            }
            !same
        });
        let meta = Meta { phx_ref, owner, data, size };
        let joins = vec![(key.to_string(), meta.to_json())];
        metas.push(meta);
        self.bytes = self.bytes - replaced + size;
        Ok(diff(&joins, &leaves))
    }

    /// Remove every meta of `owner` (untrack, leave, disconnect).
    pub fn untrack(&mut self, owner: &Owner) -> Option<Value> {
        self.remove_where(|m| &m.owner == owner)
    }

    /// Remove every meta of an instance that went away.
    pub fn drop_instance(&mut self, instance: &str) -> Option<Value> {
        self.remove_where(|m| m.owner.instance == instance)
    }

    fn remove_where(&mut self, gone: impl Fn(&Meta) -> bool) -> Option<Value> {
        let mut leaves = Vec::new();
        let mut freed = 0;
        for (key, metas) in self.keys.iter_mut() {
            metas.retain(|m| {
                if gone(m) {
                    leaves.push((key.clone(), m.to_json()));
                    freed += m.size;
                    false
                } else {
                    true
                }
            });
        }
        self.keys.retain(|_, metas| !metas.is_empty());
        self.bytes -= freed;
        diff(&[], &leaves)
    }

    /// Apply a diff made on another instance (`instance`): its joins and leaves by `phx_ref`.
    pub fn apply_remote(&mut self, instance: &str, joins: &[(String, u64, Value)], leaves: &[String]) -> Option<Value> {
        let mut left = Vec::new();
        let mut freed = 0;
        for (key, metas) in self.keys.iter_mut() {
            metas.retain(|m| {
                let gone = m.owner.instance == instance && leaves.contains(&m.phx_ref);
                if gone {
                    left.push((key.clone(), m.to_json()));
                    freed += m.size;
                }
                !gone
            });
        }
        self.bytes -= freed;
        self.keys.retain(|_, metas| !metas.is_empty());
        let mut joined = Vec::new();
        for (key, socket, meta) in joins {
            let Value::Object(mut data) = meta.clone() else { continue };
            let Some(Value::String(phx_ref)) = data.remove("phx_ref") else { continue };
            let metas = self.keys.entry(key.clone()).or_default();
            if metas.iter().any(|m| m.phx_ref == phx_ref) {
                continue;
            }
            let size = meta_size(key, &phx_ref, &data);
            let meta = Meta { phx_ref, owner: Owner { instance: instance.to_string(), socket: *socket }, data, size };
            joined.push((key.clone(), meta.to_json()));
            self.bytes += size;
            metas.push(meta);
        }
        diff(&joined, &left)
    }

    /// The metas this instance owns, as `[[key, socket, meta], ...]` for a peer's sync.
    pub fn owned_by(&self, instance: &str) -> Option<Value> {
        let owned: Vec<Value> = self
            .keys
            .iter()
            .flat_map(|(k, metas)| {
                metas
                    .iter()
                    .filter(|m| m.owner.instance == instance)
                    .map(move |m| json!([k, m.owner.socket, m.to_json()]))
            })
            .collect();
        (!owned.is_empty()).then_some(Value::Array(owned))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owner(socket: u64) -> Owner {
        Owner { instance: "a".into(), socket }
    }

    fn data(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    const NO_LIMIT: usize = usize::MAX;

    #[test]
    fn a_track_that_would_pass_the_bound_is_refused_and_changes_nothing() {
        let mut p = Presence::default();
        let big = data(json!({"blob": "x".repeat(600)}));
        p.track("k1", owner(1), "r1".into(), big.clone(), 1000).unwrap();
        let before = (p.state(), p.size());
        assert_eq!(p.track("k2", owner(2), "r2".into(), big.clone(), 1000), Err(StateTooLarge));
        assert_eq!((p.state(), p.size()), before, "nothing changed");
        // replacing one's own meta counts what it replaces
        assert!(p.track("k1", owner(1), "r3".into(), data(json!({"blob": "y".repeat(600)})), 1000).is_ok());
        // leaving frees room
        p.untrack(&owner(1));
        assert_eq!(p.size(), 0);
        assert!(p.track("k2", owner(2), "r4".into(), big, 1000).is_ok());
        let state = serde_json::to_string(&p.state()).unwrap().len();
        assert!(p.size() >= state, "the size counted ({}) is at least the state's ({state})", p.size());
    }

    #[test]
    fn tracking_joins_and_tracking_again_replaces_the_meta() {
        let mut p = Presence::default();
        let d = p.track("k", owner(1), "r1".into(), data(json!({"name": "a"})), NO_LIMIT).unwrap().unwrap();
        assert_eq!(d, json!({"joins": {"k": {"metas": [{"name": "a", "phx_ref": "r1"}]}}, "leaves": {}}));
        assert_eq!(p.track("k", owner(1), "r2".into(), data(json!({"name": "a"})), NO_LIMIT), Ok(None));
        let d = p.track("k", owner(1), "r3".into(), data(json!({"name": "b"})), NO_LIMIT).unwrap().unwrap();
        assert_eq!(d["joins"]["k"]["metas"][0]["phx_ref"], "r3");
        assert_eq!(d["leaves"]["k"]["metas"][0]["phx_ref"], "r1");
        assert_eq!(p.state(), json!({"k": {"metas": [{"name": "b", "phx_ref": "r3"}]}}));
    }

    #[test]
    fn several_sockets_keep_several_metas_under_one_key_and_leave_alone() {
        let mut p = Presence::default();
        p.track("k", owner(1), "r1".into(), Map::new(), NO_LIMIT).unwrap();
        p.track("k", owner(2), "r2".into(), Map::new(), NO_LIMIT).unwrap();
        assert_eq!(p.state()["k"]["metas"].as_array().unwrap().len(), 2);
        let d = p.untrack(&owner(1)).unwrap();
        assert_eq!(d, json!({"joins": {}, "leaves": {"k": {"metas": [{"phx_ref": "r1"}]}}}));
        assert_eq!(p.state(), json!({"k": {"metas": [{"phx_ref": "r2"}]}}));
        assert_eq!(p.untrack(&owner(1)), None);
    }

    #[test]
    fn remote_metas_apply_once_and_go_with_their_instance() {
        let mut p = Presence::default();
        let joins = vec![("k".to_string(), 9, json!({"phx_ref": "x", "n": 1}))];
        assert!(p.apply_remote("b", &joins, &[]).is_some());
        assert_eq!(p.apply_remote("b", &joins, &[]), None);
        assert_eq!(p.owned_by("a"), None);
        assert_eq!(p.owned_by("b"), Some(json!([["k", 9, {"n": 1, "phx_ref": "x"}]])));
        let d = p.drop_instance("b").unwrap();
        assert_eq!(d["leaves"]["k"]["metas"][0]["phx_ref"], "x");
        assert!(p.is_empty());
    }
}
