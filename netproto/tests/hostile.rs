//! Test 5: hostile input. Random and mutated datagrams never panic, never open a connection
//! without a handshake, and never grow memory past the configured bounds; a flood of `Init`
//! from spoofed addresses does not keep a real client out.

use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::time::{Duration, Instant};

use netproto::sim::{LinkConfig, SimNetwork};
use netproto::{Config, Connection, Delivery, Endpoint, Event, MAX_PAYLOAD};
use rand::{Rng, RngCore, SeedableRng, rngs::SmallRng};

const BUDGET: usize = 256 * 1024;
/// The documented ceiling: the budget, plus one maximum payload for the oldest reliable
/// partial, plus bookkeeping.
const CEILING: usize = BUDGET + MAX_PAYLOAD + 4096;

fn config() -> Config {
    Config::builder()
        .max_reassembly_bytes(BUDGET)
        .max_connections(64)
        .build()
        .unwrap()
}

fn random_bytes(rng: &mut SmallRng, n: usize) -> Vec<u8> {
    let mut v = vec![0; n];
    rng.fill_bytes(&mut v);
    v
}

fn random_addr(rng: &mut SmallRng) -> SocketAddr {
    SocketAddr::V4(SocketAddrV4::new(
        Ipv4Addr::from(rng.random::<u32>()),
        rng.random(),
    ))
}

/// A datagram that looks like ours: a header with plausible flags, then some bytes.
fn plausible(rng: &mut SmallRng) -> Vec<u8> {
    let flags = rng.random_range(0..16u8);
    let len = match rng.random_range(0..4) {
        0 => 0,
        1 => 504,
        2 => rng.random_range(0..504),
        _ => rng.random_range(0..1400),
    };
    let mut d = vec![flags, rng.random(), rng.random(), rng.random()];
    d.extend(random_bytes(rng, len));
    d
}

fn mutate(rng: &mut SmallRng, mut d: Vec<u8>) -> Vec<u8> {
    match rng.random_range(0..5) {
        0 if !d.is_empty() => {
            let bit = rng.random_range(0..d.len() * 8);
            d[bit / 8] ^= 1 << (bit % 8);
        }
        1 => d.truncate(rng.random_range(0..=d.len())),
        2 => {
            let n = rng.random_range(0..600);
            d.extend(random_bytes(rng, n));
        }
        3 if d.len() >= 4 => d[0] = rng.random(),
        _ => {
            if d.len() >= 4 {
                d[1] = rng.random();
                d[2] = rng.random();
            }
        }
    }
    d
}

#[test]
fn random_and_mutated_datagrams() {
    let mut rng = SmallRng::seed_from_u64(5);
    let mut net = SimNetwork::new(5, config(), LinkConfig::default());
    let c = net.add_client(config());
    assert!(net.run_until(Duration::from_secs(5), |n| n.client(c).is_connected()));
    let server_addr = net.server_addr();
    let client_addr = net.client_addr(c);

    // Real traffic to mutate.
    let mut samples: Vec<Vec<u8>> = Vec::new();
    let now = Instant::now();
    let mut probe = Connection::with_seed(config(), server_addr, now, 1);
    probe.send(&vec![7u8; 3000], Delivery::Reliable).unwrap();
    probe.send(b"x", Delivery::Unreliable).unwrap();
    let mut buf = Vec::new();
    while probe.poll_transmit(now, &mut buf, 1).is_some() {
        samples.push(buf.clone());
    }
    for _ in 0..20 {
        samples.push(plausible(&mut rng));
    }

    let mut peak_reassembly = 0u64;
    for i in 0..100_000u32 {
        let datagram = match rng.random_range(0..4) {
            0 => {
                let n = rng.random_range(0..700);
                random_bytes(&mut rng, n)
            }
            1 => plausible(&mut rng),
            2 => {
                let s = samples[rng.random_range(0..samples.len())].clone();
                mutate(&mut rng, s)
            }
            _ => rng.random::<[u8; 4]>().to_vec(),
        };
        // Strangers: most datagrams. They must never open a connection.
        let from = random_addr(&mut rng);
        net.inject(from, server_addr, datagram.clone());
        // A mutated copy at the client, from the server's address (which it trusts).
        if i.is_multiple_of(4) {
            let m = mutate(&mut rng, datagram);
            if m.len() != 4 && m.first().is_none_or(|f| f & 0x08 == 0) {
                net.inject(server_addr, client_addr, m);
            }
        }
        if i.is_multiple_of(500) {
            net.step(Duration::from_millis(1));
            assert!(net.server().queued_challenges() <= 4096);
            while net.server().poll_event().is_some() {}
            let first = net.server().connections().next();
            if let Some(id) = first {
                let s = net.server().stats(id).unwrap();
                peak_reassembly = peak_reassembly.max(s.reassembly_bytes);
            }
            let cs = net.client(c).stats();
            assert!(
                cs.reassembly_bytes as usize <= CEILING,
                "client reassembly {cs:?}"
            );
            while net.client(c).poll_event().is_some() {}
        }
    }
    net.step(Duration::from_millis(100));
    let es = net.server().endpoint_stats();
    assert_eq!(
        es.connections_accepted, 1,
        "no connection without a handshake: {es:?}"
    );
    assert!(es.malformed > 10_000, "{es:?}");
    assert!(peak_reassembly as usize <= CEILING);
    // The real client survived the noise aimed at others.
    assert!(net.client(c).is_connected());
    net.client(c)
        .send(b"still fine", Delivery::Reliable)
        .unwrap();
    let mut ok = false;
    assert!(net.run_until(Duration::from_secs(5), |n| {
        while let Some(e) = n.server().poll_event() {
            ok |= matches!(e.event, Event::Message { ref bytes, .. } if bytes == b"still fine");
        }
        ok
    }));
}

#[test]
fn garbage_from_a_connected_peer_stays_within_budget() {
    // The peer's own address is trusted after the handshake: garbage from it may close the
    // connection (END) but must never panic or exceed the reassembly bound.
    let mut rng = SmallRng::seed_from_u64(6);
    let now = Instant::now();
    let server_addr: SocketAddr = "10.0.0.1:7000".parse().unwrap();
    let mut reconnects = 0;
    let mut server = Endpoint::with_seed(config(), 9);
    let mut peak = 0u64;
    let mut t = now;
    let mut i = 0u32;
    let mut buf = Vec::new();
    while i < 20_000 {
        // Handshake by hand from a fresh address each time the connection dies.
        let addr = SocketAddr::new("10.1.0.1".parse().unwrap(), 1000 + reconnects);
        let mut client = Connection::with_seed(config(), server_addr, t, u64::from(reconnects));
        for _ in 0..4 {
            while client.poll_transmit(t, &mut buf, 1).is_some() {
                server.handle(t, addr, &buf);
            }
            while server.poll_transmit(t, &mut buf, 1).is_some() {
                client.handle(t, server_addr, &buf);
            }
        }
        assert!(client.is_connected());
        let id = server.connection_of(addr).unwrap();
        reconnects += 1;
        while i < 20_000 {
            i += 1;
            // Mostly chunks without END, many big reliable non-final ones to fill memory.
            let mut d = plausible(&mut rng);
            if rng.random_bool(0.98) {
                d[0] &= !0x08;
            }
            if rng.random_bool(0.5) {
                d[0] = 0x01;
                d.resize(4 + 504, 0xaa);
            }
            server.handle(t, addr, &d);
            let Some(s) = server.stats(id) else {
                break;
            };
            peak = peak.max(s.reassembly_bytes);
            if i.is_multiple_of(100) {
                t += Duration::from_millis(5);
                server.handle_timeout(t);
                while server.poll_transmit(t, &mut buf, 1).is_some() {}
            }
        }
        while server.poll_event().is_some() {}
    }
    assert!(peak as usize <= CEILING, "peak {peak}");
    assert!(
        peak as usize > BUDGET / 2,
        "the test should have pushed memory: {peak}"
    );
}

#[test]
fn init_flood_from_spoofed_addresses_does_not_lock_out_a_client() {
    let mut rng = SmallRng::seed_from_u64(7);
    let mut net = SimNetwork::new(7, Config::default(), LinkConfig::default());
    let server_addr = net.server_addr();
    let c = net.add_client(Config::default());
    // 100,000 spoofed Inits over the first 200 ms, 500 per millisecond, while the client
    // handshakes.
    for _ in 0..200 {
        for _ in 0..500 {
            let from = random_addr(&mut rng);
            net.inject(from, server_addr, rng.random::<[u8; 4]>().to_vec());
        }
        net.step(Duration::from_millis(1));
        assert!(net.server().queued_challenges() <= 4096);
        assert!(net.server().connections().count() <= 1);
    }
    assert!(net.run_until(Duration::from_secs(10), |n| n.client(c).is_connected()));
    let es = net.server().endpoint_stats();
    assert_eq!(es.connections_accepted, 1, "{es:?}");
    assert!(es.challenges_sent >= 100_000, "{es:?}");
    // Never more bytes out than in before verification: one 4-byte challenge per 4-byte Init.
    assert!(es.challenges_sent <= es.datagrams_received);
}
