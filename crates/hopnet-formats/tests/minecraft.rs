//! Minecraft's server list ping: bytes written by hand after the protocol wiki's tables, round
//! trips of random packets, truncations and random bytes. The round trips against mcstatus are
//! in `minecraft_mcstatus.rs`.

mod common;

use hopnet_codec::layout::Computed;
use hopnet_codec::{from_bytes, to_bytes};
use hopnet_formats::minecraft::*;
use proptest::collection::vec;
use proptest::prelude::*;

fn handshake(protocol_version: i32, address: &str, port: u16) -> HandshakeFrame {
    Frame::new(Handshaking::Handshake(Handshake {
        protocol_version,
        address_len: Computed::new(),
        server_address: address.into(),
        server_port: port,
        next_state: 1,
    }))
}

#[test]
fn a_handshake_byte_for_byte() {
    // Length 16, id 0, protocol 767 (`ff 05`), "localhost", port 25565, next state 1.
    let want = b"\x10\x00\xff\x05\x09localhost\x63\xdd\x01";
    common::both_ways(&handshake(767, "localhost", 25565), want);
    // A pinger that does not know the protocol sends -1: five bytes.
    let bytes = to_bytes(&handshake(-1, "a", 1)).unwrap();
    assert_eq!(&bytes[..7], b"\x0b\x00\xff\xff\xff\xff\x0f");
}

#[test]
fn status_ping_and_pong_bytes() {
    let request = Frame::new(Serverbound::StatusRequest);
    assert_eq!(to_bytes(&request).unwrap(), [1, 0]);
    let ping = Frame::new(Serverbound::Ping { payload: 0x0102 });
    common::both_ways(&ping, &[9, 1, 0, 0, 0, 0, 0, 0, 1, 2]);
    let pong = Frame::new(Clientbound::Pong { payload: -1 });
    assert_eq!(
        to_bytes(&pong).unwrap(),
        [9, 1, 255, 255, 255, 255, 255, 255, 255, 255]
    );

    let head = r#"{"version":{"name":"1.21","protocol":767},"players":{"max":20,"online":3},"description":{"text":""#;
    // The JSON 126 bytes long, so that the frame is 128: a two-byte VarInt (`80 01`), the JSON's
    // length one byte.
    let json = format!("{head}{}\"}}}}", "s".repeat(126 - head.len() - 3));
    assert_eq!(json.len(), 126);
    let response = Frame::new(Clientbound::StatusResponse {
        json_len: Computed::new(),
        json: json.clone(),
    });
    let bytes = to_bytes(&response).unwrap();
    assert_eq!(&bytes[..5], [0x80, 0x01, 0, 126, b'{']);
    assert_eq!(&bytes[4..], json.as_bytes());
    assert_eq!(from_bytes::<ClientboundFrame>(&bytes).unwrap(), response);
}

#[test]
fn a_frame_whose_length_disagrees_is_an_error() {
    // The length says 3 bytes, the ping needs 9.
    assert!(from_bytes::<ServerboundFrame>(&[3, 1, 0, 0]).is_err());
    // The length says 2 bytes, the status request takes 1.
    assert!(from_bytes::<ServerboundFrame>(&[2, 0, 0]).is_err());
    // An id of another state.
    assert!(from_bytes::<ServerboundFrame>(&[1, 5]).is_err());
}

fn text() -> impl Strategy<Value = String> {
    "\\PC{0,40}"
}

fn frames() -> impl Strategy<Value = (HandshakeFrame, ServerboundFrame, ClientboundFrame)> {
    (
        any::<i32>(),
        text(),
        any::<u16>(),
        any::<i32>(),
        any::<i64>(),
        text(),
        any::<bool>(),
    )
        .prop_map(
            |(protocol_version, server_address, server_port, next_state, payload, json, ping)| {
                let hs = Frame::new(Handshaking::Handshake(Handshake {
                    protocol_version,
                    address_len: Computed::new(),
                    server_address,
                    server_port,
                    next_state,
                }));
                let (sb, cb) = if ping {
                    (Serverbound::Ping { payload }, Clientbound::Pong { payload })
                } else {
                    (
                        Serverbound::StatusRequest,
                        Clientbound::StatusResponse {
                            json_len: Computed::new(),
                            json,
                        },
                    )
                };
                (hs, Frame::new(sb), Frame::new(cb))
            },
        )
}

proptest! {
    #[test]
    fn frames_round_trip((hs, sb, cb) in frames()) {
        test_vectors::round_trip_strict(&hs);
        test_vectors::round_trip_strict(&sb);
        test_vectors::round_trip_strict(&cb);
    }

    #[test]
    fn random_bytes_never_panic(bytes in vec(any::<u8>(), 0..200)) {
        let _ = from_bytes::<HandshakeFrame>(&bytes);
        let _ = from_bytes::<ServerboundFrame>(&bytes);
        let _ = from_bytes::<ClientboundFrame>(&bytes);
    }
}
