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
    let Some(out) = python("mcstatus", "mcstatus", SCRIPT, &input) else {
        return;
    };
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[1], "3 20 Snow 1.21 767", "{out}");
    assert_eq!(lines[2], "Snow Fight \u{2744}", "{out}");

    // What the client wrote: three frames, one after the other.
    let sent = unhex(lines[0]);
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
    let Some(out) = python("mcstatus", "mcstatus", SCRIPT, &input) else {
        return;
    };
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[1], "2 10 1.21.20 712 MCPE yard Survival", "{out}");
    assert_eq!(lines[2], "Snow Fight", "{out}");
    let ping = unhex(lines[0]);
    assert_eq!(
        from_bytes::<Offline>(&ping).unwrap(),
        Offline::UnconnectedPing(raknet::Ping {
            time: 0,
            magic: OfflineMagic,
            client_guid: 0,
        })
    );
}
