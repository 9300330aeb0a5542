//! Phoenix channel frames as realtime-js speaks them: serializer `1.0.0` (JSON objects),
//! `2.0.0` (JSON arrays `[join_ref, ref, topic, event, payload]`) and 2.0.0's binary frames
//! (push, user-broadcast-push in; user-broadcast out).
//!
//! This module only turns bytes into typed messages and back; it decides nothing about what a
//! message means. Malformed input is a `FrameError`, never a panic.

use bytes::Bytes;
use bytestring::ByteString;
use serde_json::{json, Value};

/// Serializer version negotiated with `?vsn=` on the socket URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Vsn {
    V1,
    V2,
}

impl Vsn {
    /// `1.0.0` (the default when absent) or `2.0.0`.
    pub fn parse(value: Option<&str>) -> Option<Vsn> {
        match value {
            None | Some("1.0.0") | Some("") => Some(Vsn::V1),
            Some("2.0.0") => Some(Vsn::V2),
            Some(_) => None,
        }
    }
}

/// Binary frame kinds of serializer 2.0.0.
const KIND_PUSH: u8 = 0;
const KIND_USER_BROADCAST_PUSH: u8 = 3;
const KIND_USER_BROADCAST: u8 = 4;
/// Payload encodings of the user-broadcast kinds.
const ENCODING_BINARY: u8 = 0;
const ENCODING_JSON: u8 = 1;

/// Why a frame could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    #[error("malformed message: {0}")]
    Malformed(&'static str),
    #[error("invalid JSON: {0}")]
    Json(String),
    #[error("unsupported binary message kind {0}")]
    UnknownKind(u8),
}

/// The user payload of a broadcast: JSON or raw bytes (binary frames only).
#[derive(Debug, Clone, PartialEq)]
pub enum BroadcastBody {
    Json(Value),
    Binary(Bytes),
}

/// What a message carries: a JSON payload, or a broadcast read from a binary frame.
#[derive(Debug, Clone, PartialEq)]
pub enum Payload {
    Json(Value),
    /// A user broadcast push (kind 3): its event, body and metadata (e.g. `persist`).
    UserBroadcast {
        event: String,
        body: BroadcastBody,
        meta: Option<Value>,
    },
}

/// One message received from a client.
#[derive(Debug, Clone, PartialEq)]
pub struct Incoming {
    pub join_ref: Option<String>,
    pub reference: Option<String>,
    pub topic: String,
    pub event: String,
    pub payload: Payload,
}

/// A reference field: a string, a number (kept as its text) or null.
fn reference(value: Option<&Value>) -> Result<Option<String>, FrameError> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(Value::Number(n)) => Ok(Some(n.to_string())),
        Some(_) => Err(FrameError::Malformed("a ref must be a string")),
    }
}

fn text_field(value: Option<&Value>, what: &'static str) -> Result<String, FrameError> {
    match value {
        Some(Value::String(s)) => Ok(s.clone()),
        _ => Err(FrameError::Malformed(what)),
    }
}

/// Read a text frame.
pub fn decode_text(vsn: Vsn, text: &str) -> Result<Incoming, FrameError> {
    let value: Value = serde_json::from_str(text).map_err(|e| FrameError::Json(e.to_string()))?;
    match (vsn, value) {
        (Vsn::V2, Value::Array(items)) if items.len() == 5 => {
            let mut it = items.into_iter();
            let join_ref = reference(it.next().as_ref())?;
            let reference_ = reference(it.next().as_ref())?;
            let topic = text_field(it.next().as_ref(), "the topic must be a string")?;
            let event = text_field(it.next().as_ref(), "the event must be a string")?;
            let payload = it.next().unwrap_or(Value::Null);
            Ok(Incoming { join_ref, reference: reference_, topic, event, payload: Payload::Json(payload) })
        }
        (Vsn::V2, _) => Err(FrameError::Malformed("expected [join_ref, ref, topic, event, payload]")),
        (Vsn::V1, Value::Object(mut map)) => Ok(Incoming {
            join_ref: reference(map.get("join_ref"))?,
            reference: reference(map.get("ref"))?,
            topic: text_field(map.get("topic"), "the topic must be a string")?,
            event: text_field(map.get("event"), "the event must be a string")?,
            payload: Payload::Json(map.remove("payload").unwrap_or(Value::Null)),
        }),
        (Vsn::V1, _) => Err(FrameError::Malformed("expected an object with topic, event, payload and ref")),
    }
}

/// A cursor over a binary frame that refuses to read past its end.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn u8(&mut self) -> Result<u8, FrameError> {
        let b = *self.bytes.get(self.at).ok_or(FrameError::Malformed("binary frame too short"))?;
        self.at += 1;
        Ok(b)
    }

    fn take(&mut self, len: usize) -> Result<&'a [u8], FrameError> {
        let end = self.at.checked_add(len).ok_or(FrameError::Malformed("binary frame too short"))?;
        let slice = self.bytes.get(self.at..end).ok_or(FrameError::Malformed("binary frame too short"))?;
        self.at = end;
        Ok(slice)
    }

    fn text(&mut self, len: usize) -> Result<String, FrameError> {
        let raw = self.take(len)?;
        String::from_utf8(raw.to_vec()).map_err(|_| FrameError::Malformed("binary frame text is not UTF-8"))
    }

    fn rest(&self) -> &'a [u8] {
        &self.bytes[self.at.min(self.bytes.len())..]
    }
}

fn optional(text: String) -> Option<String> {
    Some(text).filter(|t| !t.is_empty())
}

/// Read a binary frame (serializer 2.0.0 only).
pub fn decode_binary(data: &Bytes) -> Result<Incoming, FrameError> {
    let mut r = Reader { bytes: data, at: 0 };
    match r.u8()? {
        KIND_PUSH => {
            let (join_len, ref_len, topic_len, event_len) = (r.u8()?, r.u8()?, r.u8()?, r.u8()?);
            let join_ref = optional(r.text(join_len.into())?);
            let reference_ = optional(r.text(ref_len.into())?);
            let topic = r.text(topic_len.into())?;
            let event = r.text(event_len.into())?;
            let body = BroadcastBody::Binary(data.slice(r.at..));
            // A plain binary push: its bytes are the payload of `event`.
            Ok(Incoming {
                join_ref,
                reference: reference_,
                topic,
                event: event.clone(),
                payload: Payload::UserBroadcast { event, body, meta: None },
            })
        }
        KIND_USER_BROADCAST_PUSH => {
            let (join_len, ref_len, topic_len, event_len, meta_len, encoding) =
                (r.u8()?, r.u8()?, r.u8()?, r.u8()?, r.u8()?, r.u8()?);
            let join_ref = optional(r.text(join_len.into())?);
            let reference_ = optional(r.text(ref_len.into())?);
            let topic = r.text(topic_len.into())?;
            let event = r.text(event_len.into())?;
            let meta_text = r.text(meta_len.into())?;
            let meta = if meta_text.is_empty() {
                None
            } else {
                Some(serde_json::from_str(&meta_text).map_err(|e| FrameError::Json(e.to_string()))?)
            };
            let body = match encoding {
                ENCODING_JSON => {
                    BroadcastBody::Json(serde_json::from_slice(r.rest()).map_err(|e| FrameError::Json(e.to_string()))?)
                }
                ENCODING_BINARY => BroadcastBody::Binary(data.slice(r.at..)),
                _ => return Err(FrameError::Malformed("unknown payload encoding")),
            };
            Ok(Incoming {
                join_ref,
                reference: reference_,
                topic,
                event: "broadcast".into(),
                payload: Payload::UserBroadcast { event, body, meta },
            })
        }
        kind => Err(FrameError::UnknownKind(kind)),
    }
}

/// A frame ready to be written to a socket (cheap to clone: shared bytes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    Text(ByteString),
    Binary(Bytes),
}

/// Encode a JSON message for `vsn` (`join_ref` only exists in 2.0.0's frames).
pub fn encode(
    vsn: Vsn,
    join_ref: Option<&str>,
    reference: Option<&str>,
    topic: &str,
    event: &str,
    payload: &Value,
) -> Frame {
    let text = match vsn {
        Vsn::V2 => json!([join_ref, reference, topic, event, payload]).to_string(),
        // Phoenix's 1.0.0 serializer writes no join_ref.
        Vsn::V1 => json!({"event": event, "payload": payload, "ref": reference, "topic": topic}).to_string(),
    };
    Frame::Text(ByteString::from(text))
}

/// Encode a user broadcast as clients receive it: a JSON `broadcast` message, or on 2.0.0 with a
/// binary body the user-broadcast frame (kind 4). Serializer 1.0.0 cannot carry bytes: a binary
/// body reaches it as an array of byte values.
pub fn encode_broadcast(vsn: Vsn, topic: &str, event: &str, body: &BroadcastBody, meta: Option<&Value>) -> Frame {
    match (vsn, body) {
        (Vsn::V2, BroadcastBody::Binary(bytes)) => {
            let meta_text = meta.map(Value::to_string).unwrap_or_default();
            let (topic_b, event_b, meta_b) = (clip(topic), clip(event), clip(&meta_text));
            let mut out = Vec::with_capacity(5 + topic_b.len() + event_b.len() + meta_b.len() + bytes.len());
            out.push(KIND_USER_BROADCAST);
            out.push(topic_b.len() as u8);
            out.push(event_b.len() as u8);
            out.push(meta_b.len() as u8);
            out.push(ENCODING_BINARY);
            out.extend_from_slice(topic_b);
            out.extend_from_slice(event_b);
            out.extend_from_slice(meta_b);
            out.extend_from_slice(bytes);
            Frame::Binary(Bytes::from(out))
        }
        (_, body) => {
            let payload = match body {
                BroadcastBody::Json(value) => value.clone(),
                BroadcastBody::Binary(bytes) => Value::Array(bytes.iter().map(|b| json!(b)).collect()),
            };
            let mut message = json!({"type": "broadcast", "event": event, "payload": payload});
            if let (Some(meta), Some(map)) = (meta, message.as_object_mut()) {
                map.insert("meta".into(), meta.clone());
            }
            encode(vsn, None, None, topic, "broadcast", &message)
        }
    }
}

/// At most 255 bytes (a length must fit the frame's one-byte field), cut on a char boundary.
fn clip(text: &str) -> &[u8] {
    let mut end = text.len().min(255);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text.as_bytes()[..end]
}

#[cfg(test)]
#[path = "protocol_tests.rs"]
mod tests;
