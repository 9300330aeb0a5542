//! A decoder of PostgreSQL's built-in `pgoutput` logical decoding messages (protocol
//! version 1), as `pg_logical_slot_peek_binary_changes` returns them one row per message.
//!
//! Only what change delivery needs is kept: transaction boundaries with their commit time and
//! end position, relations, and row changes with their text-format cells. Truncates, origins,
//! types and logical messages are read and skipped. Malformed input is an error, never a panic.

/// One column of a relation as announced by a `Relation` message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    pub name: String,
    pub type_oid: u32,
    /// Part of the replica identity (the primary key by default, every column with `FULL`).
    pub key: bool,
}

/// A relation (table) whose changes follow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Relation {
    pub id: u32,
    pub schema: String,
    pub name: String,
    /// `REPLICA IDENTITY FULL`: old rows come whole, not just their key.
    pub full_identity: bool,
    pub columns: Vec<Column>,
}

/// One value of a row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cell {
    Null,
    /// A TOASTed value that did not change (not sent by the server).
    Unchanged,
    Text(String),
}

/// A decoded message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Message {
    Begin,
    /// End of a transaction: where the slot may advance to, and when it committed
    /// (microseconds since 2000-01-01 UTC).
    Commit {
        end_lsn: u64,
        timestamp: i64,
    },
    Relation(Relation),
    Insert {
        relation: u32,
        new: Vec<Cell>,
    },
    Update {
        relation: u32,
        old: Option<Vec<Cell>>,
        new: Vec<Cell>,
    },
    Delete {
        relation: u32,
        old: Vec<Cell>,
    },
    /// Anything else (truncate, origin, type, logical message).
    Other,
}

/// Why a message could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("malformed pgoutput message: {0}")]
pub struct DecodeError(&'static str);

struct Cursor<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn bytes(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        let end = self.at.checked_add(n).ok_or(DecodeError("length overflow"))?;
        let out = self.data.get(self.at..end).ok_or(DecodeError("message too short"))?;
        self.at = end;
        Ok(out)
    }

    fn u8(&mut self) -> Result<u8, DecodeError> {
        Ok(self.bytes(1)?[0])
    }

    fn u16(&mut self) -> Result<u16, DecodeError> {
        let b = self.bytes(2)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }

    fn u32(&mut self) -> Result<u32, DecodeError> {
        let b = self.bytes(4)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u64(&mut self) -> Result<u64, DecodeError> {
        let b = self.bytes(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_be_bytes(a))
    }

    fn cstring(&mut self) -> Result<String, DecodeError> {
        let rest = self.data.get(self.at..).ok_or(DecodeError("message too short"))?;
        let len = rest.iter().position(|b| *b == 0).ok_or(DecodeError("unterminated string"))?;
        let text = String::from_utf8(rest[..len].to_vec()).map_err(|_| DecodeError("string is not UTF-8"))?;
        self.at += len + 1;
        Ok(text)
    }

    fn tuple(&mut self) -> Result<Vec<Cell>, DecodeError> {
        let n = self.u16()?;
        let mut cells = Vec::with_capacity(n.into());
        for _ in 0..n {
            cells.push(match self.u8()? {
                b'n' => Cell::Null,
                b'u' => Cell::Unchanged,
                b't' => {
                    let len = self.u32()? as usize;
                    let raw = self.bytes(len)?;
                    Cell::Text(String::from_utf8(raw.to_vec()).map_err(|_| DecodeError("value is not UTF-8"))?)
                }
                _ => return Err(DecodeError("unknown tuple cell kind")),
            });
        }
        Ok(cells)
    }
}

/// Decode one message.
pub fn decode(data: &[u8]) -> Result<Message, DecodeError> {
    let mut c = Cursor { data, at: 0 };
    Ok(match c.u8()? {
        b'B' => Message::Begin,
        b'C' => {
            let _flags = c.u8()?;
            let _commit_lsn = c.u64()?;
            let end_lsn = c.u64()?;
            let timestamp = c.u64()? as i64;
            Message::Commit { end_lsn, timestamp }
        }
        b'R' => {
            let id = c.u32()?;
            let schema = c.cstring()?;
            let name = c.cstring()?;
            let full_identity = c.u8()? == b'f';
            let n = c.u16()?;
            let mut columns = Vec::with_capacity(n.into());
            for _ in 0..n {
                let flags = c.u8()?;
                let name = c.cstring()?;
                let type_oid = c.u32()?;
                let _typmod = c.u32()?;
                columns.push(Column { name, type_oid, key: flags & 1 == 1 });
            }
            Message::Relation(Relation { id, schema, name, full_identity, columns })
        }
        b'I' => {
            let relation = c.u32()?;
            if c.u8()? != b'N' {
                return Err(DecodeError("insert without a new tuple"));
            }
            Message::Insert { relation, new: c.tuple()? }
        }
        b'U' => {
            let relation = c.u32()?;
            let mut old = None;
            let mut marker = c.u8()?;
            if marker == b'K' || marker == b'O' {
                old = Some(c.tuple()?);
                marker = c.u8()?;
            }
            if marker != b'N' {
                return Err(DecodeError("update without a new tuple"));
            }
            Message::Update { relation, old, new: c.tuple()? }
        }
        b'D' => {
            let relation = c.u32()?;
            match c.u8()? {
                b'K' | b'O' => Message::Delete { relation, old: c.tuple()? },
                _ => return Err(DecodeError("delete without an old tuple")),
            }
        }
        _ => Message::Other,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn relation_bytes() -> Vec<u8> {
        let mut b = vec![b'R', 0, 0, 0x40, 0];
        b.extend_from_slice(b"public\0t\0f");
        b.extend_from_slice(&[0, 2]);
        b.push(1);
        b.extend_from_slice(b"id\0");
        b.extend_from_slice(&23u32.to_be_bytes());
        b.extend_from_slice(&u32::MAX.to_be_bytes());
        b.push(0);
        b.extend_from_slice(b"name\0");
        b.extend_from_slice(&25u32.to_be_bytes());
        b.extend_from_slice(&u32::MAX.to_be_bytes());
        b
    }

    #[test]
    fn a_relation_message_names_its_columns_and_key() {
        let Message::Relation(r) = decode(&relation_bytes()).unwrap() else { panic!() };
        assert_eq!((r.id, r.schema.as_str(), r.name.as_str()), (0x4000, "public", "t"));
        assert!(r.full_identity);
        assert_eq!(r.columns[0], Column { name: "id".into(), type_oid: 23, key: true });
        assert_eq!(r.columns[1], Column { name: "name".into(), type_oid: 25, key: false });
    }

    #[test]
    fn an_insert_carries_text_null_and_unchanged_cells() {
        let mut b = vec![b'I', 0, 0, 0x40, 0, b'N', 0, 3, b't', 0, 0, 0, 1, b'7', b'n', b'u'];
        assert_eq!(
            decode(&b).unwrap(),
            Message::Insert { relation: 0x4000, new: vec![Cell::Text("7".into()), Cell::Null, Cell::Unchanged] }
        );
        b.truncate(12);
        assert!(decode(&b).is_err());
    }

    #[test]
    fn updates_and_deletes_carry_old_tuples_when_sent() {
        let upd = [b'U', 0, 0, 0, 9, b'O', 0, 1, b'n', b'N', 0, 1, b'n'];
        assert_eq!(
            decode(&upd).unwrap(),
            Message::Update { relation: 9, old: Some(vec![Cell::Null]), new: vec![Cell::Null] }
        );
        let upd = [b'U', 0, 0, 0, 9, b'N', 0, 0];
        assert_eq!(decode(&upd).unwrap(), Message::Update { relation: 9, old: None, new: vec![] });
        let del = [b'D', 0, 0, 0, 9, b'K', 0, 1, b't', 0, 0, 0, 0];
        assert_eq!(decode(&del).unwrap(), Message::Delete { relation: 9, old: vec![Cell::Text(String::new())] });
    }

    #[test]
    fn a_commit_gives_its_end_position_and_time() {
        let mut b = vec![b'C', 0];
        b.extend_from_slice(&1u64.to_be_bytes());
        b.extend_from_slice(&0x1234u64.to_be_bytes());
        b.extend_from_slice(&777u64.to_be_bytes());
        assert_eq!(decode(&b).unwrap(), Message::Commit { end_lsn: 0x1234, timestamp: 777 });
    }

    #[test]
    fn garbage_never_panics() {
        for len in 0..40 {
            let data: Vec<u8> = (0..len).map(|i| (i * 37 + 11) as u8).collect();
            for first in [b'R', b'I', b'U', b'D', b'C', b'B'] {
                let mut d = data.clone();
                d.insert(0, first);
                let _ = decode(&d);
            }
        }
    }
}
