//! Hostile and broken peers of the extensions: corrupted datagrams under the CRC, a peer that
//! lies in the negotiation, extended frames never agreed to, order information that never
//! completes, LZ4 bombs, and random frames. Dropped and counted, never a panic, memory within
//! its ceiling.

mod common;

use std::time::Duration;

use hopnet_proto::fuzzing::ext::datagram::{begin, seal};
use hopnet_proto::fuzzing::ext::frame::{AckRange, DataHeader, PING, write_ack};
use hopnet_proto::fuzzing::ext::negotiate::{Kind, encode};
use hopnet_proto::fuzzing::ext::{Extensions, compress};
use hopnet_proto::sim::{LinkConfig, Pair, SimNetwork};
use hopnet_proto::{Config, ConfigBuilder, Delivery, Event, MAX_PAYLOAD, Stats};
use rand::rngs::SmallRng;
use rand::{Rng, RngCore, SeedableRng};

const BUDGET: usize = 256 * 1024;

fn extended() -> ConfigBuilder {
    Config::builder()
        .extensions(true)
        .max_reassembly_bytes(BUDGET)
        .connect_timeout(Duration::from_secs(60))
}

/// The documented ceiling of a connection's reassembly memory with compression agreed: the
/// budget, one maximum payload the oldest reliable partial (or the message every held one
/// waits for) may still take, one decompressed message beyond that, and bookkeeping.
fn ceiling() -> u64 {
    (BUDGET + 2 * MAX_PAYLOAD + 4096) as u64
}

/// A pair whose extensions are agreed, both ends sending extended datagrams.
fn agreed(config: Config) -> Pair {
    let mut pair = Pair::with_seed(1, config.clone(), config);
    pair.step(Duration::from_millis(100));
    assert!(pair.client().extensions().is_some());
    let id = pair.id();
    assert!(pair.server().extensions(id).is_some());
    pair
}

/// An extended datagram of `frames` (already encoded), sealed as `crc` says.
fn datagram(frames: &[u8], crc: bool) -> Vec<u8> {
    let mut buf = Vec::new();
    let start = begin(&mut buf);
    buf.extend_from_slice(frames);
    seal(&mut buf, start, crc, 0);
    buf
}

fn data(delivery: Delivery, sequence: u16, index: Option<u16>, bytes: &[u8]) -> Vec<u8> {
    let h = DataHeader {
        sequence,
        chunk: 0,
        fin: true,
        compressed: false,
        delivery,
        index,
        after: None,
    };
    let mut buf = Vec::new();
    h.write(&mut buf, bytes);
    buf
}

/// A one-chunk unreliable data frame whose body `packed` is marked LZ4-compressed.
fn compressed(sequence: u16, packed: &[u8]) -> Vec<u8> {
    let h = DataHeader {
        sequence,
        chunk: 0,
        fin: true,
        compressed: true,
        delivery: Delivery::Unreliable,
        index: None,
        after: None,
    };
    let mut buf = Vec::new();
    h.write(&mut buf, packed);
    buf
}

fn server_stats(pair: &mut Pair) -> Stats {
    let id = pair.id();
    pair.server().stats(id).unwrap()
}

/// Injects `d` from the client's address to the server, and lets it be handled.
fn to_server(pair: &mut Pair, d: Vec<u8>) {
    let (from, to) = (pair.client_addr(), pair.server_addr());
    pair.network().inject(from, to, d);
    pair.drive();
}

#[test]
fn corrupted_datagrams_are_dropped_under_the_crc() {
    for seed in 0..8 {
        let link = LinkConfig {
            corrupt: 0.1,
            ..common::lossy(0.05, 0.05, 0.0)
        };
        let config = extended().max_datagram_size(1200).build().unwrap();
        let mut net = SimNetwork::new(seed, config.clone(), link);
        let c = net.add_client(config);
        let agreed = net.run_until(Duration::from_secs(60), |n| {
            n.client(c).extensions().is_some()
        });
        assert!(agreed, "seed {seed}");
        net.step(Duration::from_millis(200));
        for i in 0..300 {
            let d = if i % 2 == 0 {
                Delivery::Reliable
            } else {
                Delivery::SemiOrdered
            };
            net.client(c)
                .send(&common::payload(i, 40 + 13 * i as usize), d)
                .unwrap();
        }
        let mut seen = vec![0; 300];
        net.run_until(Duration::from_secs(120), |n| {
            while let Some(e) = n.server().poll_event() {
                if let Event::Message { bytes, .. } = e.event {
                    let i = common::index_of(&bytes).expect("intact") as usize;
                    let intact = bytes == common::payload(i as u32, 40 + 13 * i);
                    assert!(intact, "seed {seed}: message {i} corrupted");
                    seen[i] += 1;
                }
            }
            seen.iter().all(|&n| n == 1)
        });
        assert!(seen.iter().all(|&n| n == 1), "seed {seed}: {seen:?}");
        let id = net.server().connections().next().unwrap();
        let stats = net.server().stats(id).unwrap();
        assert!(stats.crc_failed > 0, "seed {seed}: {stats:?}");
    }
}

#[test]
fn an_accept_that_claims_more_than_was_offered_is_refused() {
    let client = Config::builder()
        .extensions(true)
        .crc(false)
        .build()
        .unwrap();
    // A server without extensions: no genuine accept ever comes.
    let mut net = SimNetwork::new(3, Config::default(), LinkConfig::default());
    let c = net.add_client(client);
    assert!(net.run_until(Duration::from_secs(5), |n| n.client(c).is_connected()));
    let (server, client_addr) = (net.server_addr(), net.client_addr(c));
    let lies = [
        Extensions::ALL,
        Extensions {
            crc: false,
            max_datagram_size: 1472,
            ..Extensions::ALL
        },
    ];
    for lie in lies {
        net.inject(server, client_addr, encode(Kind::Accept, &lie, 0).to_vec());
    }
    // An offer to a client, and an extended datagram before any agreement.
    net.inject(
        server,
        client_addr,
        encode(Kind::Offer, &Extensions::NONE, 0).to_vec(),
    );
    net.inject(server, client_addr, datagram(&[PING], false));
    net.step(Duration::from_millis(50));
    let stats = net.client(c).stats();
    assert_eq!(stats.extensions_refused, 4, "{stats:?}");
    assert_eq!(net.client(c).extensions(), None);
    // The connection goes on on the spec's wire.
    net.client(c)
        .send(b"still here", Delivery::Reliable)
        .unwrap();
    let mut got = Vec::new();
    net.run_until(Duration::from_secs(5), |n| {
        while let Some(e) = n.server().poll_event() {
            if let Event::Message { bytes, .. } = e.event {
                got.push(bytes);
            }
        }
        !got.is_empty()
    });
    assert_eq!(got, [b"still here".to_vec()]);
}

#[test]
fn extended_frames_without_an_agreement_are_refused() {
    let server = extended().build().unwrap();
    let mut pair = Pair::with_seed(2, server, Config::default());
    pair.step(Duration::from_millis(100));
    let frames = data(Delivery::Reliable, 0, Some(0), b"forged");
    for crc in [false, true] {
        to_server(&mut pair, datagram(&frames, crc));
    }
    let stats = server_stats(&mut pair);
    assert_eq!(stats.extensions_refused, 2, "{stats:?}");
    assert!(pair.server_messages().is_empty());
}

#[test]
fn frames_of_extensions_not_agreed_are_refused() {
    let config = extended()
        .batching(false)
        .ack_ranges(false)
        .compression(false)
        .crc(false)
        .build()
        .unwrap();
    let mut pair = agreed(config);
    let one = data(Delivery::Unreliable, 900, None, b"one");
    let two = data(Delivery::Unreliable, 901, None, b"two");
    let mut batch = one.clone();
    batch.extend_from_slice(&two);
    let packed = compress::compress(&[b'x'; 300]).unwrap();
    let lz4 = compressed(902, &packed);
    let mut ranges = Vec::new();
    let r = |sequence, first_chunk, last_chunk| AckRange {
        sequence,
        extra: 0,
        first_chunk,
        last_chunk,
    };
    write_ack(&mut ranges, 0, &[r(0, 0, 1)]);
    let mut oversized = data(Delivery::Unreliable, 903, None, &[7; 400]);
    oversized.extend_from_slice(&[0; 200]);
    let before = server_stats(&mut pair).extensions_refused;
    for frames in [batch, lz4, ranges, oversized] {
        to_server(&mut pair, datagram(&frames, false));
    }
    let stats = server_stats(&mut pair);
    assert_eq!(stats.extensions_refused - before, 4, "{stats:?}");
    assert!(pair.server_messages().is_empty());
    // What is agreed still works: one frame per datagram.
    to_server(&mut pair, datagram(&one, false));
    assert_eq!(pair.server_messages(), [b"one".to_vec()]);
}

#[test]
fn order_information_that_never_completes_stays_within_the_budget() {
    let mut pair = agreed(extended().build().unwrap());
    let mut rng = SmallRng::seed_from_u64(5);
    let mut peak = 0;
    // Semi-ordered and reliable ordered messages that wait for index 0, which never comes.
    for k in 0..2000u16 {
        let index = 1 + k;
        let (delivery, after) = if k % 2 == 0 {
            (Delivery::SemiOrdered, None)
        } else {
            (Delivery::ReliableOrdered, Some(index - 1))
        };
        let h = DataHeader {
            sequence: 100 + k,
            chunk: 0,
            fin: true,
            compressed: false,
            delivery,
            index: Some(index),
            after,
        };
        let mut frames = Vec::new();
        let len = rng.random_range(1..480);
        h.write(&mut frames, &vec![k as u8; len]);
        to_server(&mut pair, datagram(&frames, true));
        peak = peak.max(server_stats(&mut pair).reassembly_bytes);
    }
    let stats = server_stats(&mut pair);
    assert!(stats.held_back > 0 && stats.over_budget > 0, "{stats:?}");
    assert!(peak <= ceiling(), "{peak} > {}", ceiling());
    assert!(pair.server_messages().is_empty());
}

#[test]
fn lz4_bombs_are_errors_before_allocation() {
    let mut pair = agreed(extended().max_datagram_size(1200).build().unwrap());
    // A claim beyond the largest payload, and a block that gives less than it claims.
    let mut huge = compress::compress(&[0u8; 4096]).unwrap();
    huge[..4].copy_from_slice(&(MAX_PAYLOAD as u32 + 1).to_be_bytes());
    let mut short = compress::compress(&[0u8; 4096]).unwrap();
    short[..4].copy_from_slice(&8000u32.to_be_bytes());
    let mut peak = 0;
    for (k, body) in [huge, short].into_iter().enumerate() {
        let frames = compressed(300 + k as u16, &body);
        to_server(&mut pair, datagram(&frames, true));
    }
    assert_eq!(server_stats(&mut pair).malformed, 2);
    // A legitimate maximum payload of zeros is a few hundred bytes compressed: many of them
    // fill the budget with delivered messages no one polls, and then are refused.
    let packed = compress::compress(&vec![0u8; MAX_PAYLOAD]).unwrap();
    assert!(packed.len() < 1000);
    for k in 0..64u16 {
        let frames = compressed(400 + k, &packed);
        to_server(&mut pair, datagram(&frames, true));
        peak = peak.max(server_stats(&mut pair).reassembly_bytes);
    }
    let stats = server_stats(&mut pair);
    assert!(stats.over_budget > 0, "{stats:?}");
    assert!(peak <= ceiling(), "{peak} > {}", ceiling());
}

#[test]
fn random_frames_from_an_agreed_peer() {
    let config = extended()
        .crc(false)
        .max_datagram_size(1472)
        .build()
        .unwrap();
    for seed in 0..4 {
        let mut pair = agreed(config.clone());
        let mut rng = SmallRng::seed_from_u64(seed);
        let (mut peak, mut closes) = (0, 0);
        for _ in 0..3000 {
            let frames = random_frames(&mut rng);
            let d = datagram(&frames, false);
            let d = if rng.random_bool(0.5) {
                d
            } else {
                mutate(&mut rng, d)
            };
            let (client, server) = (pair.client_addr(), pair.server_addr());
            pair.network().inject(client, server, d);
            pair.step(Duration::from_millis(rng.random_range(0..5)));
            let id = pair.id();
            match pair.server().stats(id) {
                Some(stats) => peak = peak.max(stats.reassembly_bytes),
                None => {
                    // A close frame among the random bytes ended the connection, as it
                    // should: go on with a new one.
                    closes += 1;
                    pair = agreed(config.clone());
                }
            }
            pair.server_messages();
        }
        assert!(peak <= ceiling(), "seed {seed}: {peak}");
        assert!(
            peak > 0 && closes < 300,
            "seed {seed}: peak {peak}, {closes} closes"
        );
    }
}

/// Frames of every type with random contents, up to about 1,200 bytes.
fn random_frames(rng: &mut SmallRng) -> Vec<u8> {
    let mut frames = Vec::new();
    while frames.len() < 1200 && rng.random_bool(0.8) {
        match rng.random_range(0..4) {
            0 => {
                let mut b = vec![0; rng.random_range(1..40)];
                rng.fill_bytes(&mut b);
                frames.extend_from_slice(&b);
            }
            1 => {
                let r = AckRange {
                    sequence: rng.random(),
                    extra: rng.random_range(0..300),
                    first_chunk: 0,
                    last_chunk: rng.random(),
                };
                write_ack(&mut frames, rng.random(), &[r]);
            }
            _ => {
                let modes = [
                    Delivery::Reliable,
                    Delivery::SemiOrdered,
                    Delivery::ReliableOrdered,
                    Delivery::Tracked,
                    Delivery::Sequenced,
                ];
                let delivery = modes[rng.random_range(0..modes.len())];
                let chunk: u8 = rng.random_range(0..4);
                let index = (chunk == 0 && delivery.is_reliable()).then(|| rng.random_range(0..40));
                let ordered = delivery == Delivery::ReliableOrdered;
                let h = DataHeader {
                    sequence: rng.random_range(0..200),
                    chunk,
                    fin: rng.random_bool(0.5),
                    compressed: rng.random_bool(0.1),
                    delivery,
                    index,
                    after: index.filter(|_| ordered).map(|i: u16| i.wrapping_sub(1)),
                };
                let len = if rng.random_bool(0.5) {
                    1462 - 10
                } else {
                    rng.random_range(0..500)
                };
                let mut b = vec![0; len];
                rng.fill_bytes(&mut b);
                h.write(&mut frames, &b);
            }
        }
    }
    frames
}

fn mutate(rng: &mut SmallRng, mut d: Vec<u8>) -> Vec<u8> {
    for _ in 0..rng.random_range(1..4) {
        if d.is_empty() {
            break;
        }
        let i = rng.random_range(0..d.len());
        d[i] ^= 1 << rng.random_range(0..8);
    }
    d
}
