//! Test 6: the wire. The header vectors (the repository's `vectors/header.json`), read at
//! test time, and real loopback UDP sockets end to end (directly,
//! with an impaired socket, and through the lossy relay).

use std::time::{Duration, Instant};

use hopnet::Impairment;
use hopnet::relay::Relay;
use hopnet::{Client, Server};
use hopnet::{Config, Delivery, Event};
use hopnet_proto::fuzzing::packet::{Flags, Header};

const VECTORS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../vectors/header.json");

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

#[test]
fn header_vectors() {
    let text = std::fs::read_to_string(VECTORS).unwrap_or_else(|e| panic!("{VECTORS}: {e}"));
    let cases: serde_json::Value = serde_json::from_str(&text).unwrap();
    let cases = cases.as_array().unwrap();
    assert!(!cases.is_empty());
    for case in cases {
        let mut flags = Flags::NONE;
        for name in case["flags"].as_array().unwrap() {
            flags = flags
                | match name.as_str().unwrap() {
                    "REL" => Flags::REL,
                    "ACK" => Flags::ACK,
                    "FIN" => Flags::FIN,
                    "END" => Flags::END,
                    other => panic!("unknown flag {other}"),
                };
        }
        let chunk = u8::try_from(case["chunk"].as_u64().unwrap()).unwrap();
        let sequence = u16::try_from(case["sequence"].as_u64().unwrap()).unwrap();
        let expected = case["hex"].as_str().unwrap();
        let header = Header::new(flags, chunk, sequence);
        assert_eq!(hex(&header.encode()), expected, "{case}");
        let bytes = unhex(expected);
        let (decoded, rest) = Header::decode(&bytes).unwrap();
        assert_eq!(decoded, header, "{case}");
        assert!(rest.is_empty());
        // Reserved bits are ignored on receipt.
        let mut with_reserved = unhex(expected);
        with_reserved[0] |= 0xf0;
        assert_eq!(Header::decode(&with_reserved).unwrap().0, header);
    }
}

/// Runs a server and a client in one thread over loopback until `count` reliable and
/// `count` unreliable echoes have had their chance; returns (reliable echoed, unreliable echoed).
fn echo_over_loopback(
    client_imp: Option<Impairment>,
    server_imp: Option<Impairment>,
    via_relay: Option<Impairment>,
    count: usize,
) -> (usize, usize) {
    let config = Config::default();
    let mut server = Server::bind("127.0.0.1:0", config.clone()).unwrap();
    server.set_impairment(server_imp);
    let server_addr = server.local_addr().unwrap();
    let relay = via_relay.map(|imp| Relay::spawn("127.0.0.1:0", server_addr, imp).unwrap());
    let target = relay.as_ref().map_or(server_addr, |r| r.local_addr());
    let mut client = Client::connect(target, config).unwrap();
    client.set_impairment(client_imp);

    let start = Instant::now();
    let mut sent = 0;
    let mut reliable_back = 0;
    let mut unreliable_back = 0;
    while start.elapsed() < Duration::from_secs(20) {
        server.poll(Duration::ZERO).unwrap();
        while let Some(e) = server.poll_event() {
            if let Event::Message { bytes, reliable } = e.event {
                let d = if reliable {
                    Delivery::Reliable
                } else {
                    Delivery::Unreliable
                };
                // Queued: the next poll sends the echoes of this turn together.
                server.queue(e.connection, &bytes, d).unwrap();
            }
        }
        client.poll(Duration::from_millis(1)).unwrap();
        while let Some(e) = client.poll_event() {
            if let Event::Message { bytes, reliable } = e {
                let i = u32::from_le_bytes(bytes[..4].try_into().unwrap()) as usize;
                assert_eq!(bytes.len(), 100 + i * 37 % 3000);
                assert!(bytes[4..].iter().all(|&b| b == i as u8));
                if reliable {
                    reliable_back += 1;
                } else {
                    unreliable_back += 1;
                }
            }
        }
        if client.machine().is_connected() && sent < count {
            for d in [Delivery::Reliable, Delivery::Unreliable] {
                let mut msg = vec![sent as u8; 100 + sent * 37 % 3000];
                msg[..4].copy_from_slice(&(sent as u32).to_le_bytes());
                client.send(&msg, d).unwrap();
            }
            sent += 1;
        }
        if sent == count && reliable_back == count {
            break;
        }
    }
    assert!(client.machine().is_connected());
    client.close().unwrap();
    (reliable_back, unreliable_back)
}

#[test]
fn loopback_udp_end_to_end() {
    let (rel, unrel) = echo_over_loopback(None, None, None, 200);
    assert_eq!(rel, 200);
    assert!(unrel <= 200);
}

#[test]
fn loopback_udp_through_impaired_sockets() {
    let imp = |seed| Impairment {
        loss: 0.1,
        delay: Duration::from_millis(2),
        jitter: Duration::from_millis(2),
        seed,
    };
    let (rel, unrel) = echo_over_loopback(Some(imp(1)), Some(imp(2)), None, 100);
    assert_eq!(rel, 100);
    assert!(unrel < 100);
}

#[test]
fn loopback_udp_through_lossy_relay() {
    let imp = Impairment {
        loss: 0.1,
        delay: Duration::from_millis(2),
        jitter: Duration::ZERO,
        seed: 3,
    };
    let (rel, _) = echo_over_loopback(None, None, Some(imp), 100);
    assert_eq!(rel, 100);
}

#[cfg(feature = "tokio")]
#[test]
fn tokio_driver_echo() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let mut server = hopnet::tokio::Server::bind("127.0.0.1:0", Config::default())
            .await
            .unwrap();
        let addr = server.local_addr().unwrap();
        let echo = tokio::spawn(async move {
            loop {
                let e = server.recv().await.unwrap();
                if let Event::Message { bytes, reliable } = e.event {
                    let d = if reliable {
                        Delivery::Reliable
                    } else {
                        Delivery::Unreliable
                    };
                    server.send(e.connection, &bytes, d).await.unwrap();
                }
            }
        });
        let mut client = hopnet::tokio::Client::connect(addr, Config::default())
            .await
            .unwrap();
        assert_eq!(client.recv().await.unwrap(), Event::Connected);
        for i in 0..50u32 {
            client
                .send(&vec![i as u8; 2000], Delivery::Reliable)
                .await
                .unwrap();
        }
        // Queued ones leave with the next wait in `recv`.
        for i in 0..20u32 {
            client
                .queue(&vec![i as u8; 1024], Delivery::Reliable)
                .unwrap();
        }
        let (mut long, mut short) = (0, 0);
        while long + short < 70 {
            match client.recv().await.unwrap() {
                Event::Message { bytes, reliable } => {
                    assert!(reliable);
                    match bytes.len() {
                        2000 => long += 1,
                        1024 => short += 1,
                        n => panic!("unexpected length {n}"),
                    }
                }
                other => panic!("unexpected {other:?}"),
            }
        }
        assert_eq!((long, short), (50, 20));
        client.close().await.unwrap();
        assert!(matches!(
            client.recv().await,
            Ok(Event::Disconnected { .. })
        ));
        assert!(matches!(client.recv().await, Err(hopnet::Error::Closed)));
        echo.abort();
    });
}
