//! Hostile input to WOKE: random datagrams, forged headers and acks, lying split counts and
//! indexes, floods of connection requests from new addresses. No panic; the connections stay
//! within their limit and the allocation within a stated bound.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use alloc_counter::{Counting, peak_allocation};
use hopnet::Machine;

mod common;
use common::drain;
use hopnet_codec::layout::Computed;
use hopnet_formats::woke::{Command, Delivery, Header, Packet};
use hopnet_protocols::woke::{Client, Config, Server};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn addr(port: u16) -> SocketAddr {
    SocketAddr::from(([10, 0, 0, 3], port))
}

fn header(rng: &mut StdRng) -> Header {
    Header {
        client_id: rng.random_range(0..80),
        sequence: rng.random(),
        ack: rng.random(),
        ack_bitfield: rng.random(),
    }
}

fn command(rng: &mut StdRng) -> Command {
    let delivery = match rng.random_range(0..3) {
        0 => Delivery::Unreliable,
        1 => Delivery::Reliable {
            reliable_id: rng.random(),
        },
        _ => Delivery::Split {
            reliable_id: rng.random(),
            split_id: rng.random_range(0..64),
            split_index: rng.random_range(0..1100),
            split_count: rng.random_range(0..1100),
        },
    };
    Command {
        kind: rng.random_range(0..1024),
        delivery,
        data_size: Computed::new(),
        data: vec![7; rng.random_range(0..300)],
    }
}

fn hostile(rng: &mut StdRng) -> Vec<u8> {
    let packet = match rng.random_range(0..5) {
        0 => {
            return (0..rng.random_range(0..1500))
                .map(|_| rng.random())
                .collect();
        }
        1 => Packet::ConnectionRequest {
            header: header(rng),
            payload: vec![1; rng.random_range(0..64)],
        },
        2 => Packet::KeepAlive {
            header: header(rng),
        },
        3 => Packet::ConnectionClosed {
            header: header(rng),
        },
        _ => Packet::Commands {
            header: header(rng),
            commands: (0..rng.random_range(0..5)).map(|_| command(rng)).collect(),
        },
    };
    hopnet_codec::to_bytes(&packet).unwrap()
}

/// Per connection: 64 KiB fixed (the two 8 KiB bitmaps and the rest), the reassembly budget
/// and its part vectors, and the echoes of 1,025 pending reliable commands of up to 1,472
/// bytes before the connection ends.
fn bound(config: &Config) -> usize {
    config.max_connections * (64 * 1024 + 2 * config.max_reassembly_bytes + 1025 * 1600)
}

#[test]
fn a_flood_of_requests_and_lies_stays_within_the_bound() {
    let config = Config {
        max_connections: 32,
        max_reassembly_bytes: 64 * 1024,
        ..Config::default()
    };
    let bound = bound(&config);
    let ((), peak) = peak_allocation(|| {
        let mut rng = StdRng::seed_from_u64(28);
        let mut server = Server::new(config.clone());
        let mut now = Instant::now();
        let mut buf = Vec::new();
        for i in 0..30_000u32 {
            let datagram = hostile(&mut rng);
            server.handle(now, addr(rng.random_range(1..500)), &datagram);
            if i.is_multiple_of(32) {
                now += Duration::from_millis(10);
                drain(&mut server, now, &mut buf, 1472);
                assert!(server.connections() <= config.max_connections);
            }
        }
        let stats = server.stats();
        assert!(stats.refused > 0 && stats.malformed > 0, "{stats:?}");
        // Nobody acknowledges the server's packets: every connection ends by the 32 rule.
        for _ in 0..60 {
            now += Duration::from_millis(34);
            server.handle_timeout(now);
            while server.poll_transmit(now, &mut buf, 1).is_some() {}
        }
        assert_eq!(server.connections(), 0);
    });
    eprintln!("peak {peak} bytes, bound {bound}");
    assert!(peak <= bound, "peak {peak} over {bound}");
}

#[test]
fn a_client_survives_a_lying_server() {
    let server = addr(7000);
    let mut rng = StdRng::seed_from_u64(29);
    let mut now = Instant::now();
    let mut client = Client::new(server, Config::default(), now);
    let mut buf = Vec::new();
    for i in 0..20_000u32 {
        let datagram = hostile(&mut rng);
        let from = if i.is_multiple_of(4) { addr(1) } else { server };
        client.handle(now, from, &datagram);
        if i.is_multiple_of(16) {
            now += Duration::from_millis(10);
            drain(&mut client, now, &mut buf, 1472);
            while client.poll_event().is_some() {}
        }
    }
    assert!(client.memory() < 16 << 20, "{}", client.memory());
}
