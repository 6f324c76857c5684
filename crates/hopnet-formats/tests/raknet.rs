//! RakNet's offline ping and pong: bytes written by hand after the protocol's documentation,
//! round trips of random messages, truncations and random bytes.

mod common;

use hopnet_codec::from_bytes;
use hopnet_codec::layout::Computed;
use hopnet_formats::raknet::*;
use proptest::collection::vec;
use proptest::prelude::*;

#[test]
fn ping_byte_for_byte() {
    let ping = Offline::UnconnectedPing(Ping {
        time: 0x0102,
        magic: OfflineMagic,
        client_guid: -2,
    });
    let mut want = vec![0x01, 0, 0, 0, 0, 0, 0, 1, 2];
    want.extend(OFFLINE_MAGIC);
    want.extend((-2i64).to_be_bytes());
    common::both_ways(&ping, &want);
    // A wrong magic byte is refused.
    want[9 + 15] ^= 1;
    assert!(from_bytes::<Offline>(&want).is_err());
}

#[test]
fn pong_byte_for_byte() {
    let motd = "MCPE;Snow Fight;390;1.14.60;2;10;13253860892328930865;yard;Survival;1;19132;19133;";
    let pong = Offline::UnconnectedPong(Pong {
        time: 7,
        server_guid: 0x1122_3344_5566_7788,
        magic: OfflineMagic,
        advertisement_len: Computed::new(),
        advertisement: motd.into(),
    });
    let mut want = vec![0x1c];
    want.extend(7i64.to_be_bytes());
    want.extend(0x1122_3344_5566_7788i64.to_be_bytes());
    want.extend(OFFLINE_MAGIC);
    want.extend((motd.len() as u16).to_be_bytes());
    want.extend(motd.as_bytes());
    common::both_ways(&pong, &want);
}

fn offline() -> impl Strategy<Value = Offline> {
    (0u8..3, any::<i64>(), any::<i64>(), "\\PC{0,60}").prop_map(|(kind, time, guid, text)| {
        let ping = Ping {
            time,
            magic: OfflineMagic,
            client_guid: guid,
        };
        match kind {
            0 => Offline::UnconnectedPing(ping),
            1 => Offline::UnconnectedPingOpenConnections(ping),
            _ => Offline::UnconnectedPong(Pong {
                time,
                server_guid: guid,
                magic: OfflineMagic,
                advertisement_len: Computed::new(),
                advertisement: text,
            }),
        }
    })
}

proptest! {
    #[test]
    fn messages_round_trip(m in offline()) {
        test_vectors::round_trip_strict(&m);
    }

    #[test]
    fn random_bytes_never_panic(bytes in vec(any::<u8>(), 0..120), id in prop::sample::select(vec![1u8, 2, 0x1c])) {
        let mut data = vec![id];
        data.extend(bytes);
        let _ = from_bytes::<Offline>(&data);
    }
}
