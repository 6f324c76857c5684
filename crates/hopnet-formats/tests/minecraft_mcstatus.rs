//! Minecraft's server list ping against mcstatus (PyPI `mcstatus`), an independent
//! implementation, run on bytes in memory: what its Java client writes decodes to the
//! handshake, status request and ping it means, and the status and pong this crate writes are
//! what it reads; what its Bedrock client sends decodes as RakNet's unconnected ping, and the
//! pong this crate writes is what it reads. mcstatus has no public API for bytes without a
//! socket, so the script drives its clients' internal classes (`mcstatus._protocol`) through an
//! in-memory connection.

mod oracles;

use hopnet_codec::layout::Computed;
use hopnet_codec::{BitReader, Decode, from_bytes, to_bytes};
use hopnet_formats::minecraft::*;
use hopnet_formats::raknet::{self, Offline, OfflineMagic, Pong};
use oracles::{hex, python, unhex};

const SCRIPT: &str = include_str!("oracles/minecraft.py");

/// Runs the script on `input`: it prints the bytes its client sent (hex), then two lines of
/// what it read from this crate's answer, which must be `read`. The bytes sent, or `None` when
/// mcstatus is not installed.
fn mcstatus_reads(input: &str, read: [&str; 2]) -> Option<Vec<u8>> {
    let out = python("mcstatus", "mcstatus", SCRIPT, input)?;
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.get(1..3), Some(&read[..]), "{out}");
    Some(unhex(lines[0]))
}

#[test]
fn java_client_handshake_status_and_ping() {
    let token: i64 = 0x0123_4567_89ab_cdef;
    let json = r#"{"version":{"name":"Snow 1.21","protocol":767},"players":{"max":20,"online":3,"sample":[]},"description":{"text":"Snow Fight \u2744"}}"#;
    let mut server = to_bytes(&Frame::new(Clientbound::StatusResponse {
        json_len: Computed::new(),
        json: json.into(),
    }))
    .unwrap();
    server.extend(to_bytes(&Frame::new(Clientbound::Pong { payload: token })).unwrap());
    let input = format!("java snow.example 25565 767 {token}\n{}\n", hex(&server));
    let Some(sent) = mcstatus_reads(&input, ["3 20 Snow 1.21 767", "Snow Fight \u{2744}"]) else {
        return;
    };

    // What the client wrote: three frames, one after the other.
    let mut r = BitReader::new(&sent);
    let handshake = HandshakeFrame::decode(&mut r).unwrap();
    assert_eq!(
        handshake.packet,
        Handshaking::Handshake(Handshake {
            protocol_version: 767,
            address_len: Computed::new(),
            server_address: "snow.example".into(),
            server_port: 25565,
            next_state: 1,
        })
    );
    assert_eq!(
        ServerboundFrame::decode(&mut r).unwrap().packet,
        Serverbound::StatusRequest
    );
    assert_eq!(
        ServerboundFrame::decode(&mut r).unwrap().packet,
        Serverbound::Ping { payload: token }
    );
    r.finish().unwrap();
    // And this crate writes the same bytes for them.
    let mut again = to_bytes(&handshake).unwrap();
    again.extend(to_bytes(&Frame::new(Serverbound::StatusRequest)).unwrap());
    again.extend(to_bytes(&Frame::new(Serverbound::Ping { payload: token })).unwrap());
    assert_eq!(again, sent);
}

#[test]
fn bedrock_client_unconnected_ping_and_pong() {
    let advertisement =
        "MCPE;Snow Fight;712;1.21.20;2;10;13253860892328930865;yard;Survival;1;19132;19133;";
    let pong = Offline::UnconnectedPong(Pong {
        time: 0,
        server_guid: 0x1122_3344_5566_7788,
        magic: OfflineMagic,
        advertisement_len: Computed::new(),
        advertisement: advertisement.into(),
    });
    let input = format!("bedrock\n{}\n", hex(&to_bytes(&pong).unwrap()));
    let Some(ping) = mcstatus_reads(
        &input,
        ["2 10 1.21.20 712 MCPE yard Survival", "Snow Fight"],
    ) else {
        return;
    };
    assert_eq!(
        from_bytes::<Offline>(&ping).unwrap(),
        Offline::UnconnectedPing(raknet::Ping {
            time: 0,
            magic: OfflineMagic,
            client_guid: 0,
        })
    );
}
