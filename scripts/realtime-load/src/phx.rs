//! The WebSocket and Phoenix 2.0.0 pieces the load generator needs, on a plain `TcpStream`:
//! the upgrade, masked client frames, server frames cut out of a read buffer, the join as
//! realtime-js joins a broadcast channel, the tick and heartbeat texts, and the fast read of a
//! tick's sequence number and send time. Setup is blocking (one socket at a time per thread);
//! reading after setup is the caller's (`receiver.rs`). Knows nothing of timing or tallies.

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::{json, Value};

/// The join reference every socket uses for its one channel.
pub const JOIN_REF: &str = "1";

const SETUP_TIMEOUT: Duration = Duration::from_secs(15);

/// A frame from the server: its opcode and payload (server frames are not masked).
pub struct Frame<'a> {
    pub fin: bool,
    pub opcode: u8,
    pub payload: &'a [u8],
}

/// The first whole frame at the start of `buf` and its length in bytes, if it has arrived.
pub fn parse_frame(buf: &[u8]) -> Option<(Frame<'_>, usize)> {
    let (&b0, &b1) = (buf.first()?, buf.get(1)?);
    let (len, at): (usize, usize) = match b1 & 0x7f {
        126 => (u16::from_be_bytes(buf.get(2..4)?.try_into().ok()?) as usize, 4),
        127 => (u64::from_be_bytes(buf.get(2..10)?.try_into().ok()?) as usize, 10),
        n => (n as usize, 2),
    };
    let mask = if b1 & 0x80 != 0 { 4 } else { 0 };
    let end = at.checked_add(mask)?.checked_add(len)?;
    let payload = buf.get(at + mask..end)?;
    Some((Frame { fin: b0 & 0x80 != 0, opcode: b0 & 0x0f, payload }, end))
}

/// A client frame (FIN set, masked as RFC 6455 requires of clients).
pub fn client_frame(opcode: u8, payload: &[u8], mask: [u8; 4]) -> Vec<u8> {
    let mut out = Vec::with_capacity(payload.len() + 14);
    out.push(0x80 | opcode);
    match payload.len() {
        n if n < 126 => out.push(0x80 | n as u8),
        n if n < 65536 => {
            out.push(0x80 | 126);
            out.extend_from_slice(&(n as u16).to_be_bytes());
        }
        n => {
            out.push(0x80 | 127);
            out.extend_from_slice(&(n as u64).to_be_bytes());
        }
    }
    out.extend_from_slice(&mask);
    out.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i & 3]));
    out
}

pub fn text_frame(text: &str, mask: [u8; 4]) -> Vec<u8> {
    client_frame(1, text.as_bytes(), mask)
}

/// A socket upgraded and joined to `topic` as a public broadcast channel that does not hear
/// itself, still blocking, with whatever arrived after the join's reply in `rest`.
pub struct Joined {
    pub stream: TcpStream,
    pub rest: Vec<u8>,
}

/// Connect to `url` (`ws://host:port/path?query`), upgrade, join; the error names the step.
pub fn open_and_join(url: &str, topic: &str, token: &str, mask: [u8; 4]) -> Result<Joined, String> {
    let rest = url.strip_prefix("ws://").ok_or("only ws:// URLs")?;
    let (host, path) = rest.split_once('/').map_or((rest, "/".to_string()), |(h, p)| (h, format!("/{p}")));
    let mut stream = TcpStream::connect(host).map_err(|e| format!("connect: {e}"))?;
    stream.set_nodelay(true).map_err(|e| e.to_string())?;
    stream.set_read_timeout(Some(SETUP_TIMEOUT)).map_err(|e| e.to_string())?;
    let upgrade = format!(
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    );
    stream.write_all(upgrade.as_bytes()).map_err(|e| format!("upgrade: {e}"))?;
    let mut buf = Vec::with_capacity(4096);
    let head_end = loop {
        if let Some(at) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        read_more(&mut stream, &mut buf).map_err(|e| format!("upgrade: {e}"))?;
    };
    if !buf.starts_with(b"HTTP/1.1 101") {
        let line = String::from_utf8_lossy(&buf[..head_end]).lines().next().unwrap_or("").to_string();
        return Err(format!("upgrade refused: {line}"));
    }
    buf.drain(..head_end);
    let config = json!({
        "broadcast": { "self": false, "ack": false },
        "presence": { "enabled": false },
        "private": false,
    });
    let join = json!([JOIN_REF, JOIN_REF, topic, "phx_join", { "config": config, "access_token": token }]);
    stream.write_all(&text_frame(&join.to_string(), mask)).map_err(|e| format!("join: {e}"))?;
    loop {
        while let Some((frame, used)) = parse_frame(&buf) {
            let reply = (frame.opcode == 1).then(|| serde_json::from_slice::<Value>(frame.payload).ok()).flatten();
            if frame.opcode == 8 {
                return Err("closed while joining".into());
            }
            buf.drain(..used);
            let Some(Value::Array(parts)) = reply else { continue };
            if parts.get(1).and_then(Value::as_str) == Some(JOIN_REF)
                && parts.get(3).and_then(Value::as_str) == Some("phx_reply")
            {
                let reply = parts.get(4).cloned().unwrap_or(Value::Null);
                if reply.get("status").and_then(Value::as_str) == Some("ok") {
                    stream.set_read_timeout(None).map_err(|e| e.to_string())?;
                    return Ok(Joined { stream, rest: buf });
                }
                return Err(format!("join {topic}: {reply}"));
            }
        }
        read_more(&mut stream, &mut buf).map_err(|e| format!("join reply: {e}"))?;
    }
}

fn read_more(stream: &mut TcpStream, buf: &mut Vec<u8>) -> io::Result<()> {
    let mut chunk = [0u8; 4096];
    match stream.read(&mut chunk)? {
        0 => Err(io::Error::new(io::ErrorKind::UnexpectedEof, "closed")),
        n => {
            buf.extend_from_slice(&chunk[..n]);
            Ok(())
        }
    }
}

/// A broadcast push on the joined channel carrying its sequence number and send time (ms).
pub fn tick(topic: &str, reference: u64, seq: usize, sent_ms: f64) -> String {
    let payload = json!({ "type": "broadcast", "event": "tick", "payload": { "seq": seq, "t": sent_ms } });
    json!([JOIN_REF, reference.to_string(), topic, "broadcast", payload]).to_string()
}

/// realtime-js's heartbeat (the server closes sockets silent for 90 s).
pub fn heartbeat(reference: u64) -> String {
    json!([null, reference.to_string(), "phoenix", "heartbeat", {}]).to_string()
}

/// The sequence number and send time of a broadcast tick, read without building a JSON tree
/// (the fan-out delivers thousands of these per message); `None` for any other frame.
pub fn read_tick(text: &[u8]) -> Option<(usize, f64)> {
    let text = std::str::from_utf8(text).ok()?;
    if !text.contains("\"broadcast\"") {
        return None;
    }
    let seq = number_after(text, "\"seq\":")?;
    let sent = number_after(text, "\"t\":")?;
    (seq >= 0.0 && seq.fract() == 0.0).then_some((seq as usize, sent))
}

fn number_after(text: &str, key: &str) -> Option<f64> {
    let rest = text[text.find(key)? + key.len()..].trim_start();
    let end =
        rest.find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E'))).unwrap_or(rest.len());
    rest[..end].parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tick_is_read_whatever_the_key_order_and_spacing() {
        let server = br#"[null,null,"realtime:fanout","broadcast",{"event":"tick","payload":{"seq":12,"t":1765098000123.456},"type":"broadcast"}]"#;
        assert_eq!(read_tick(server), Some((12, 1765098000123.456)));
        let spaced =
            br#"[null, null, "realtime:fanout", "broadcast", {"type": "broadcast", "payload": {"t": 5.5, "seq": 0}}]"#;
        assert_eq!(read_tick(spaced), Some((0, 5.5)));
    }

    #[test]
    fn other_frames_are_not_ticks() {
        assert_eq!(read_tick(br#"["1","2","realtime:fanout","phx_reply",{"status":"ok","response":{}}]"#), None);
        assert_eq!(read_tick(br#"[null,null,"realtime:fanout","broadcast",{"payload":{"seq":-1,"t":1}}]"#), None);
    }

    #[test]
    fn frames_are_cut_at_their_length_and_wait_for_the_rest() {
        let mut wire = vec![0x81, 3, b'a', b'b', b'c', 0x81, 126, 0, 200];
        let (frame, used) = parse_frame(&wire).expect("a whole frame");
        assert_eq!((frame.fin, frame.opcode, frame.payload, used), (true, 1, &b"abc"[..], 5));
        assert!(parse_frame(&wire[used..]).is_none(), "200 bytes announced, none arrived");
        wire.extend(std::iter::repeat_n(b'x', 200));
        assert_eq!(parse_frame(&wire[used..]).map(|(f, n)| (f.payload.len(), n)), Some((200, 204)));
    }

    #[test]
    fn client_frames_are_masked() {
        let frame = text_frame("hi", [1, 2, 3, 4]);
        assert_eq!(frame, vec![0x81, 0x82, 1, 2, 3, 4, b'h' ^ 1, b'i' ^ 2]);
    }
}
