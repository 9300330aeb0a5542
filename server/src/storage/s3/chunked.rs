//! `aws-chunked` bodies (`x-amz-content-sha256: STREAMING-UNSIGNED-PAYLOAD-TRAILER`), which the
//! AWS SDKs send for streamed uploads: `<hex size>[;ext]\r\n<bytes>\r\n` chunks, a `0\r\n` chunk,
//! then trailer headers (a checksum) and `\r\n`. Decoded as the bytes arrive, never buffered
//! whole.

use bytes::{Buf, Bytes, BytesMut};
use futures_util::{Stream, StreamExt};

enum Phase {
    /// Waiting for a chunk's size line.
    Size,
    /// Inside a chunk's bytes: how many are left.
    Data(usize),
    /// The `\r\n` after a chunk's bytes.
    DataEnd,
    /// After the last chunk: trailers, ignored.
    Done,
}

const MAX_SIZE_LINE: usize = 4096;

/// Decode an `aws-chunked` body into its bytes.
pub fn decode<S, E>(body: S) -> impl Stream<Item = Result<Bytes, String>>
where
    S: Stream<Item = Result<Bytes, E>> + Unpin,
    E: std::fmt::Display,
{
    futures_util::stream::unfold(
        (body, BytesMut::new(), Phase::Size, false),
        |(mut body, mut buf, mut phase, mut ended)| async move {
            loop {
                match phase {
                    Phase::Done => return None,
                    Phase::Data(left) if !buf.is_empty() => {
                        let take = left.min(buf.len());
                        let out = buf.split_to(take).freeze();
                        phase = if left == take { Phase::DataEnd } else { Phase::Data(left - take) };
                        return Some((Ok(out), (body, buf, phase, ended)));
                    }
                    Phase::DataEnd if buf.len() >= 2 => {
                        if &buf[..2] != b"\r\n" {
                            return Some((
                                Err("malformed aws-chunked body".to_string()),
                                (body, buf, Phase::Done, true),
                            ));
                        }
                        buf.advance(2);
                        phase = Phase::Size;
                        continue;
                    }
                    Phase::Size => {
                        if let Some(at) = buf.windows(2).position(|w| w == b"\r\n") {
                            let line = String::from_utf8_lossy(&buf[..at]).to_string();
                            buf.advance(at + 2);
                            let size = line.split(';').next().and_then(|h| usize::from_str_radix(h.trim(), 16).ok());
                            match size {
                                Some(0) => {
                                    phase = Phase::Done;
                                    continue;
                                }
                                Some(n) => {
                                    phase = Phase::Data(n);
                                    continue;
                                }
                                None => {
                                    return Some((
                                        Err("malformed aws-chunked size".to_string()),
                                        (body, buf, Phase::Done, true),
                                    ))
                                }
                            }
                        }
                        if buf.len() > MAX_SIZE_LINE {
                            return Some((
                                Err("malformed aws-chunked body".to_string()),
                                (body, buf, Phase::Done, true),
                            ));
                        }
                    }
                    _ => {}
                }
                if ended {
                    return Some((Err("the aws-chunked body ended early".to_string()), (body, buf, Phase::Done, true)));
                }
                match body.next().await {
                    Some(Ok(chunk)) => buf.extend_from_slice(&chunk),
                    Some(Err(err)) => return Some((Err(err.to_string()), (body, buf, Phase::Done, true))),
                    None => ended = true,
                }
            }
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn decoded(pieces: Vec<&'static [u8]>) -> Result<Vec<u8>, String> {
        let body = futures_util::stream::iter(pieces.into_iter().map(|p| Ok::<_, String>(Bytes::from_static(p))));
        let mut out = Vec::new();
        let mut stream = Box::pin(decode(body));
        while let Some(part) = stream.next().await {
            out.extend_from_slice(&part?);
        }
        Ok(out)
    }

    #[tokio::test]
    async fn chunks_split_anywhere_decode_to_their_bytes() {
        let body: &[u8] = b"5\r\nhello\r\n3;chunk-signature=x\r\n, w\r\n0\r\nx-amz-checksum-crc32:abc=\r\n\r\n";
        assert_eq!(decoded(vec![body]).await.unwrap(), b"hello, w");
        let split: Vec<&'static [u8]> = vec![&body[..2], &body[2..9], &body[9..30], &body[30..]];
        assert_eq!(decoded(split).await.unwrap(), b"hello, w");
    }

    #[tokio::test]
    async fn malformed_or_cut_bodies_are_errors() {
        assert!(decoded(vec![b"zz\r\nhello"]).await.is_err());
        assert!(decoded(vec![b"5\r\nhel"]).await.is_err());
        assert!(decoded(vec![b"5\r\nhelloXX0\r\n\r\n"]).await.is_err());
    }
}
