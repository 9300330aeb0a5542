use super::*;

#[test]
fn a_v2_array_frame_reads_as_a_message() {
    let m = decode_text(Vsn::V2, r#"["1","2","realtime:room","phx_join",{"config":{}}]"#).unwrap();
    assert_eq!(m.join_ref.as_deref(), Some("1"));
    assert_eq!(m.reference.as_deref(), Some("2"));
    assert_eq!(m.topic, "realtime:room");
    assert_eq!(m.event, "phx_join");
    assert_eq!(m.payload, Payload::Json(json!({"config": {}})));
}

#[test]
fn a_v1_object_frame_reads_as_a_message_and_numeric_refs_become_text() {
    let m = decode_text(Vsn::V1, r#"{"topic":"phoenix","event":"heartbeat","payload":{},"ref":7}"#).unwrap();
    assert_eq!(m.reference.as_deref(), Some("7"));
    assert_eq!(m.join_ref, None);
    assert_eq!(m.topic, "phoenix");
}

#[test]
fn malformed_text_frames_are_errors() {
    assert!(matches!(decode_text(Vsn::V2, "not json"), Err(FrameError::Json(_))));
    assert!(matches!(decode_text(Vsn::V2, r#"["1","2","t"]"#), Err(FrameError::Malformed(_))));
    assert!(matches!(decode_text(Vsn::V2, r#"[null,null,1,"e",{}]"#), Err(FrameError::Malformed(_))));
    assert!(matches!(decode_text(Vsn::V1, r#"["1","2","t","e",{}]"#), Err(FrameError::Malformed(_))));
    assert!(matches!(decode_text(Vsn::V1, r#"{"topic":"t","event":"e","ref":{}}"#), Err(FrameError::Malformed(_))));
}

fn user_broadcast_push(encoding: u8, meta: &str, payload: &[u8]) -> Bytes {
    let (join_ref, reference, topic, event) = ("1", "3", "realtime:room", "cursor");
    let mut out = vec![
        KIND_USER_BROADCAST_PUSH,
        join_ref.len() as u8,
        reference.len() as u8,
        topic.len() as u8,
        event.len() as u8,
        meta.len() as u8,
        encoding,
    ];
    for part in [join_ref, reference, topic, event, meta] {
        out.extend_from_slice(part.as_bytes());
    }
    out.extend_from_slice(payload);
    Bytes::from(out)
}

#[test]
fn a_binary_user_broadcast_push_keeps_its_bytes() {
    let m = decode_binary(&user_broadcast_push(ENCODING_BINARY, "", &[0, 1, 255])).unwrap();
    assert_eq!(m.topic, "realtime:room");
    assert_eq!(m.event, "broadcast");
    assert_eq!(m.reference.as_deref(), Some("3"));
    match m.payload {
        Payload::UserBroadcast { event, body, meta } => {
            assert_eq!(event, "cursor");
            assert_eq!(body, BroadcastBody::Binary(Bytes::from_static(&[0, 1, 255])));
            assert_eq!(meta, None);
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn a_json_user_broadcast_push_is_parsed_with_its_metadata() {
    let m = decode_binary(&user_broadcast_push(ENCODING_JSON, r#"{"persist":true}"#, br#"{"x":1}"#)).unwrap();
    match m.payload {
        Payload::UserBroadcast { body, meta, .. } => {
            assert_eq!(body, BroadcastBody::Json(json!({"x": 1})));
            assert_eq!(meta, Some(json!({"persist": true})));
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn truncated_or_unknown_binary_frames_are_errors() {
    let full = user_broadcast_push(ENCODING_JSON, "", b"{}");
    for len in 0..12 {
        assert!(decode_binary(&full.slice(..len)).is_err(), "prefix of {len} bytes");
    }
    assert_eq!(decode_binary(&Bytes::from_static(&[9, 0, 0])), Err(FrameError::UnknownKind(9)));
    assert!(decode_binary(&user_broadcast_push(7, "", b"")).is_err());
    assert!(decode_binary(&user_broadcast_push(ENCODING_JSON, "", b"{oops")).is_err());
}

#[test]
fn v2_replies_are_arrays_and_v1_replies_are_objects() {
    let payload = json!({"status": "ok", "response": {}});
    let v2 = encode(Vsn::V2, Some("1"), Some("1"), "realtime:room", "phx_reply", &payload);
    assert_eq!(v2, Frame::Text(r#"["1","1","realtime:room","phx_reply",{"status":"ok","response":{}}]"#.into()));
    let Frame::Text(v1) = encode(Vsn::V1, Some("9"), Some("5"), "phoenix", "phx_reply", &payload) else { panic!() };
    let v1: Value = serde_json::from_str(&v1).unwrap();
    assert_eq!(v1, json!({"event": "phx_reply", "payload": payload, "ref": "5", "topic": "phoenix"}));
}

#[test]
fn a_binary_broadcast_to_v2_is_a_user_broadcast_frame() {
    let body = BroadcastBody::Binary(Bytes::from_static(&[9, 8, 7]));
    let Frame::Binary(bytes) = encode_broadcast(Vsn::V2, "realtime:r", "ev", &body, None) else { panic!() };
    let mut expected = vec![KIND_USER_BROADCAST, 10, 2, 0, ENCODING_BINARY];
    expected.extend_from_slice(b"realtime:rev");
    expected.extend_from_slice(&[9, 8, 7]);
    assert_eq!(bytes.as_ref(), expected.as_slice());
}

#[test]
fn a_json_broadcast_is_a_broadcast_message_for_both_serializers() {
    let body = BroadcastBody::Json(json!({"a": 1}));
    let frame = encode_broadcast(Vsn::V2, "realtime:r", "ev", &body, None);
    assert_eq!(
        frame,
        Frame::Text(
            r#"[null,null,"realtime:r","broadcast",{"type":"broadcast","event":"ev","payload":{"a":1}}]"#.into()
        )
    );
    let Frame::Text(v1) = encode_broadcast(Vsn::V1, "realtime:r", "ev", &body, None) else { panic!() };
    let v1: Value = serde_json::from_str(&v1).unwrap();
    assert_eq!(v1["payload"], json!({"type": "broadcast", "event": "ev", "payload": {"a": 1}}));
}

#[test]
fn unknown_serializer_versions_are_refused() {
    assert_eq!(Vsn::parse(Some("3.0.0")), None);
    assert_eq!(Vsn::parse(None), Some(Vsn::V1));
    assert_eq!(Vsn::parse(Some("2.0.0")), Some(Vsn::V2));
}
