//! Tests 1–4 of the issue over the simulated network: handshake under loss, exact accounting
//! of 10,000 mixed messages, the sequence wrap, and closing. All seeded and deterministic.

mod common;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::Duration;

use common::{lossy, sent_by};
use hopnet_proto::sim::{LinkConfig, SimNetwork};
use hopnet_proto::{Config, Delivery, DisconnectReason, Error, Event, MAX_PAYLOAD, ServerEvent};
use rand::{Rng, SeedableRng, rngs::SmallRng};

/// The payload of message `i` with `len` bytes: its index in the first 4 bytes (when it fits),
/// then bytes derived from index and position, so corruption or mix-ups are detected.
fn payload(i: u32, len: usize) -> Vec<u8> {
    static PATTERN: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    let pattern = PATTERN.get_or_init(|| {
        (0..MAX_PAYLOAD + 256)
            .map(|j| ((j as u32 * 13) ^ (j as u32 >> 8)) as u8)
            .collect()
    });
    let offset = (i % 251) as usize;
    let mut v = pattern[offset..offset + len].to_vec();
    if len >= 4 {
        v[..4].copy_from_slice(&i.to_le_bytes());
    }
    v
}

fn index_of(bytes: &[u8]) -> Option<u32> {
    let head: [u8; 4] = bytes.get(..4)?.try_into().ok()?;
    Some(u32::from_le_bytes(head))
}

fn server_messages(net: &mut SimNetwork, out: &mut Vec<(Vec<u8>, bool)>) {
    while let Some(ServerEvent { event, .. }) = net.server().poll_event() {
        if let Event::Message { bytes, reliable } = event {
            out.push((bytes, reliable));
        }
    }
}

/// Sends `message` reliably from client `c`; returns the first message the server then gets
/// within `secs` seconds.
fn sent_through(net: &mut SimNetwork, c: usize, message: &[u8], secs: u64) -> Option<Vec<u8>> {
    net.client(c).send(message, Delivery::Reliable).unwrap();
    let mut got = Vec::new();
    net.run_until(Duration::from_secs(secs), |n| {
        server_messages(n, &mut got);
        !got.is_empty()
    });
    got.into_iter().next().map(|(bytes, _)| bytes)
}

/// A network over `link` with one client that keeps trying to connect for `secs` seconds.
fn patient_client(seed: u64, link: LinkConfig, secs: u64) -> (SimNetwork, usize) {
    let config = Config::builder()
        .connect_timeout(Duration::from_secs(secs))
        .build()
        .unwrap();
    let mut net = SimNetwork::new(seed, config.clone(), link);
    let c = net.add_client(config);
    (net, c)
}

#[test]
fn handshake_completes_under_half_loss() {
    for seed in 0..16 {
        let link = lossy(0.5, 0.0, 0.0);
        let (mut net, c) = patient_client(seed, link, 120);
        let mut server_connected = false;
        let ok = net.run_until(Duration::from_secs(120), |n| {
            while let Some(e) = n.server().poll_event() {
                server_connected |= e.event == Event::Connected;
            }
            server_connected && n.client(c).is_connected()
        });
        assert!(ok, "seed {seed}: handshake did not complete");
        assert_eq!(net.client(c).poll_event(), Some(Event::Connected));
        // And data flows over the same lossy link.
        assert_eq!(
            sent_through(&mut net, c, b"after handshake", 60),
            Some(b"after handshake".to_vec())
        );
    }
}

fn mixed_sizes(rng: &mut SmallRng, i: u32) -> usize {
    match i {
        0 => 0,
        1 => MAX_PAYLOAD,
        2 => 504,
        3 => 505,
        _ => match rng.random_range(0..100) {
            0..=1 => rng.random_range(8_000..=MAX_PAYLOAD),
            2..=9 => rng.random_range(600..8_000),
            _ => rng.random_range(0..600),
        },
    }
}

/// Sends `count` messages client → server over `link`, half reliable, and checks exact
/// accounting: every reliable one exactly once and byte-identical, no unreliable one twice.
fn exact_accounting(
    seed: u64,
    count: u32,
    link: LinkConfig,
    size: impl Fn(&mut SmallRng, u32) -> usize,
) {
    let mut rng = SmallRng::seed_from_u64(seed ^ 0x5eed);
    let config = Config::default();
    let mut net = SimNetwork::new(seed, config.clone(), link);
    let c = net.add_client(config);
    assert!(net.run_until(Duration::from_secs(60), |n| n.client(c).is_connected()));

    let mut expected: Vec<(usize, bool)> = Vec::with_capacity(count as usize);
    let mut tiny_expected: HashMap<(Vec<u8>, bool), usize> = HashMap::new();
    let mut got = Vec::new();
    let mut seen: Vec<u8> = vec![0; count as usize];
    let mut tiny_seen: HashMap<(Vec<u8>, bool), usize> = HashMap::new();

    let mut check = |got: &mut Vec<(Vec<u8>, bool)>, expected: &Vec<(usize, bool)>| {
        for (bytes, reliable) in got.drain(..) {
            match index_of(&bytes) {
                Some(i) => {
                    let (len, rel) = expected[i as usize];
                    assert_eq!(rel, reliable, "seed {seed}: message {i} delivery flag");
                    assert_eq!(bytes, payload(i, len), "seed {seed}: message {i} bytes");
                    seen[i as usize] += 1;
                    assert_eq!(seen[i as usize], 1, "seed {seed}: message {i} twice");
                }
                None => {
                    *tiny_seen.entry((bytes, reliable)).or_default() += 1;
                }
            }
        }
    };

    for i in 0..count {
        let len = size(&mut rng, i);
        let reliable = rng.random_bool(0.5);
        expected.push((len, reliable));
        let bytes = payload(i, len);
        if len < 4 {
            *tiny_expected.entry((bytes.clone(), reliable)).or_default() += 1;
        }
        let delivery = if reliable {
            Delivery::Reliable
        } else {
            Delivery::Unreliable
        };
        loop {
            match net.client(c).send(&bytes, delivery) {
                Ok(()) => break,
                Err(Error::WouldBlock) => {
                    net.step(Duration::from_millis(5));
                    server_messages(&mut net, &mut got);
                    check(&mut got, &expected);
                }
                Err(e) => panic!("seed {seed}: send failed: {e}"),
            }
        }
        if i.is_multiple_of(16) {
            net.step(Duration::from_millis(1));
            server_messages(&mut net, &mut got);
            check(&mut got, &expected);
        }
    }
    let done = net.run_until(Duration::from_secs(600), |n| {
        server_messages(n, &mut got);
        n.client(c).stats().pending_reliable == 0
    });
    check(&mut got, &expected);
    net.step(Duration::from_secs(2));
    server_messages(&mut net, &mut got);
    check(&mut got, &expected);
    assert!(done, "seed {seed}: reliable messages still pending");
    for (i, &(len, rel)) in expected.iter().enumerate() {
        if rel && len >= 4 {
            assert_eq!(seen[i], 1, "seed {seed}: reliable message {i} missing");
        }
    }
    for ((bytes, reliable), n) in &tiny_expected {
        let got = tiny_seen
            .get(&(bytes.clone(), *reliable))
            .copied()
            .unwrap_or(0);
        if *reliable {
            assert_eq!(got, *n, "seed {seed}: tiny reliable {bytes:?}");
        } else {
            assert!(
                got <= *n,
                "seed {seed}: tiny unreliable {bytes:?} delivered too often"
            );
        }
    }
    for (k, n) in &tiny_seen {
        assert!(
            tiny_expected.contains_key(k),
            "seed {seed}: unexpected payload {k:?} x{n}"
        );
    }
    let stats = net.client(c).stats();
    eprintln!(
        "seed {seed}: {count} messages in {:?} virtual; client {stats:?}; link {:?}",
        net.elapsed(),
        net.stats()
    );
    assert!(stats.retransmissions > 0);
    assert!(stats.smoothed_rtt.is_some());
}

fn lossy_link() -> LinkConfig {
    LinkConfig {
        loss: 0.2,
        duplicate: 0.05,
        reorder: 0.05,
        reorder_delay: Duration::from_millis(30),
        delay: Duration::from_millis(10),
        jitter: Duration::from_millis(4),
        ..LinkConfig::default()
    }
}

#[test]
fn ten_thousand_mixed_messages_exactly_once() {
    exact_accounting(1, 10_000, lossy_link(), mixed_sizes);
}

#[test]
fn mixed_messages_many_seeds() {
    for seed in 2..10 {
        exact_accounting(seed, 2_000, lossy_link(), mixed_sizes);
    }
}

#[test]
fn sequence_ids_wrap_without_loss_or_duplication() {
    let link = lossy(0.05, 0.05, 0.05);
    exact_accounting(77, 70_000, link, |rng, _| rng.random_range(4..24));
}

fn connected_pair(seed: u64) -> (SimNetwork, usize, hopnet_proto::ConnectionId) {
    let mut net = SimNetwork::new(seed, Config::default(), LinkConfig::default());
    let c = net.add_client(Config::default());
    let mut id = None;
    assert!(net.run_until(Duration::from_secs(5), |n| {
        while let Some(e) = n.server().poll_event() {
            if e.event == Event::Connected {
                id = Some(e.connection);
            }
        }
        id.is_some() && n.client(c).is_connected()
    }));
    assert_eq!(net.client(c).poll_event(), Some(Event::Connected));
    (net, c, id.unwrap())
}

fn server_end(net: &mut SimNetwork) -> Option<DisconnectReason> {
    let mut reason = None;
    while let Some(e) = net.server().poll_event() {
        if let Event::Disconnected { reason: r } = e.event {
            reason = Some(r);
        }
    }
    reason
}

/// Why the client's next event says it ended, if it does.
fn client_end(net: &mut SimNetwork, c: usize) -> Option<DisconnectReason> {
    match net.client(c).poll_event() {
        Some(Event::Disconnected { reason }) => Some(reason),
        _ => None,
    }
}

#[test]
fn silence_times_out_after_15_seconds() {
    let (mut net, c, id) = connected_pair(3);
    // Idle but healthy: keepalives hold the connection open.
    net.step(Duration::from_secs(60));
    assert!(net.client(c).is_connected());
    assert!(net.server().stats(id).is_some());
    let dead = lossy(1.0, 0.0, 0.0);
    net.set_uplink(dead.clone());
    net.set_downlink(dead);
    net.step(Duration::from_millis(14_900));
    assert!(net.client(c).is_connected());
    assert_eq!(server_end(&mut net), None);
    net.step(Duration::from_millis(200));
    assert_eq!(client_end(&mut net, c), Some(DisconnectReason::TimedOut));
    assert_eq!(server_end(&mut net), Some(DisconnectReason::TimedOut));
    assert!(net.client(c).is_closed());
    assert!(net.server().connections().next().is_none());
}

#[test]
fn end_closes_both_ways() {
    let (mut net, c, _) = connected_pair(4);
    net.client(c).close();
    assert_eq!(client_end(&mut net, c), Some(DisconnectReason::LocalClose));
    assert!(matches!(
        net.client(c).send(b"x", Delivery::Reliable),
        Err(Error::Closed)
    ));
    net.step(Duration::from_millis(100));
    assert_eq!(server_end(&mut net), Some(DisconnectReason::PeerClosed));

    let (mut net, c, id) = connected_pair(5);
    net.server().close(id).unwrap();
    assert_eq!(server_end(&mut net), Some(DisconnectReason::LocalClose));
    net.step(Duration::from_millis(100));
    assert_eq!(client_end(&mut net, c), Some(DisconnectReason::PeerClosed));
}

#[test]
fn end_from_another_address_is_ignored() {
    let (mut net, c, id) = connected_pair(6);
    let end = vec![0x08, 0, 0, 0];
    let client_addr = net.client_addr(c);
    let server_addr = net.server_addr();
    let stranger: SocketAddr = "10.9.9.9:1234".parse().unwrap();
    let same_ip_other_port = SocketAddr::new(client_addr.ip(), client_addr.port() + 1);
    net.inject(stranger, server_addr, end.clone());
    net.inject(same_ip_other_port, server_addr, end.clone());
    net.inject(stranger, client_addr, end.clone());
    net.step(Duration::from_millis(100));
    assert_eq!(server_end(&mut net), None);
    assert!(net.server().stats(id).is_some());
    assert!(net.client(c).is_connected());
    assert_eq!(net.client(c).poll_event(), None);
    // Traffic still flows.
    assert!(sent_through(&mut net, c, b"still here", 5).is_some());
    // The real END from the real peer does close.
    net.inject(client_addr, server_addr, end);
    net.step(Duration::from_millis(10));
    assert_eq!(server_end(&mut net), Some(DisconnectReason::PeerClosed));
}

#[test]
fn oversized_payload_is_an_error() {
    let (mut net, c, _) = connected_pair(8);
    let big = vec![0u8; MAX_PAYLOAD + 1];
    assert!(matches!(
        net.client(c).send(&big, Delivery::Reliable),
        Err(Error::PayloadTooLarge { len }) if len == MAX_PAYLOAD + 1
    ));
    assert!(
        net.client(c)
            .send(&big[..MAX_PAYLOAD], Delivery::Reliable)
            .is_ok()
    );
}

#[test]
fn four_byte_rule_after_the_handshake() {
    // A 4-byte datagram with a reserved flag bit from the connected peer is a handshake
    // datagram, never a header: [0x18, 0, 0, 0] would be END if reserved bits were ignored.
    let (mut net, c, id) = connected_pair(9);
    let client_addr = net.client_addr(c);
    let server_addr = net.server_addr();
    net.inject(client_addr, server_addr, vec![0x18, 0, 0, 0]);
    net.inject(server_addr, client_addr, vec![0x18, 0, 0, 0]);
    net.step(Duration::from_millis(50));
    assert_eq!(server_end(&mut net), None);
    assert!(net.client(c).is_connected());
    assert!(net.server().stats(id).is_some());
    // Longer datagrams keep the spec's rule: reserved bits are ignored, so this is an END.
    net.inject(server_addr, client_addr, vec![0x18, 0, 0, 0, 0]);
    net.step(Duration::from_millis(10));
    assert_eq!(client_end(&mut net, c), Some(DisconnectReason::PeerClosed));
}

#[test]
fn a_probe_from_the_connected_client_is_acknowledged_and_kept_nowhere() {
    // A client's probe (`REL | FIN`, chunk 255, no payload) reaching a server that has
    // accepted it: acknowledged as any `REL` chunk, with `FIN` (chunk 255 is a last chunk),
    // and not taken for the last chunk of a message.
    let (mut net, c, id) = connected_pair(12);
    let (client_addr, server_addr) = (net.client_addr(c), net.server_addr());
    net.record_batches(true);
    net.inject(client_addr, server_addr, vec![0x05, 0xff, 0xfe, 0x42]);
    net.step(Duration::from_millis(50));
    let answers = sent_by(&net.take_batches(), server_addr);
    assert_eq!(answers, [vec![0x06, 0xff, 0xfe, 0x42]]);
    let stats = net.server().stats(id).unwrap();
    assert_eq!(
        (stats.reassembly_bytes, stats.malformed),
        (0, 0),
        "{stats:?}"
    );
    assert_eq!(
        sent_through(&mut net, c, b"after a probe", 5),
        Some(b"after a probe".to_vec())
    );
}

#[test]
fn sequenced_unreliable_delivery() {
    let config = Config::builder()
        .sequenced_unreliable(true)
        .build()
        .unwrap();
    let link = LinkConfig {
        reorder: 0.5,
        reorder_delay: Duration::from_millis(50),
        ..LinkConfig::default()
    };
    let mut net = SimNetwork::new(10, config.clone(), link);
    let c = net.add_client(config);
    assert!(net.run_until(Duration::from_secs(5), |n| n.client(c).is_connected()));
    let mut got = Vec::new();
    for i in 0..500u32 {
        net.client(c)
            .send(&i.to_le_bytes(), Delivery::Unreliable)
            .unwrap();
        net.step(Duration::from_millis(2));
        server_messages(&mut net, &mut got);
    }
    net.step(Duration::from_secs(1));
    server_messages(&mut net, &mut got);
    let order: Vec<u32> = got.iter().map(|(b, _)| index_of(b).unwrap()).collect();
    assert!(
        order.windows(2).all(|w| w[0] < w[1]),
        "not increasing: {order:?}"
    );
    assert!(order.len() < 500, "reordering should have made some stale");
    assert!(order.len() > 100);
}

#[test]
fn corruption_mtu_and_duplication_never_break_the_machines() {
    // The protocol has no checksum of its own (UDP's covers real links), so corrupted payloads
    // may arrive corrupted; what must hold is no panic, no message twice, bounded memory.
    let link = LinkConfig {
        corrupt: 0.05,
        mtu: 400,
        ..lossy(0.05, 0.0, 0.1)
    };
    let (mut net, c) = patient_client(11, link, 60);
    net.run_until(Duration::from_secs(60), |n| n.client(c).is_connected());
    let mut got = Vec::new();
    for i in 0..300u32 {
        // Big ones exceed the link's MTU: unreliable, they are simply lost.
        let (len, delivery) = if i % 3 == 0 {
            (1000, Delivery::Unreliable)
        } else {
            (100, Delivery::Reliable)
        };
        let _ = net.client(c).send(&payload(i, len), delivery);
        net.step(Duration::from_millis(5));
        server_messages(&mut net, &mut got);
    }
    net.step(Duration::from_secs(5));
    server_messages(&mut net, &mut got);
    assert!(net.stats().corrupted > 0 && net.stats().too_big > 0);
    // Only messages under the MTU get through; none twice (by index, if intact).
    let mut seen = std::collections::HashSet::new();
    for (bytes, _) in &got {
        assert!(bytes.len() <= 100 + 4);
        if let Some(i) = index_of(bytes)
            && bytes == &payload(i, bytes.len())
        {
            assert!(seen.insert(i), "message {i} twice");
        }
    }
    assert!(seen.len() > 150, "{}", seen.len());
}
