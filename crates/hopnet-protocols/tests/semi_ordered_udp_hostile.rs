//! Hostile input to Semi-ordered UDP: random datagrams, lying ids and modes, confirmations of
//! what was never sent, floods of new peer addresses. No panic, and the memory held (counted
//! by the allocator) stays below [`Config::memory_bound`].

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use alloc_counter::{Counting, peak_allocation};
use hopnet::Machine;

mod common;
use common::drain;
use hopnet_formats::semi_ordered::{Datagram, PackageId, Reliability};
use hopnet_protocols::semi_ordered_udp::{Client, Config, Server};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn small_config() -> Config {
    Config {
        max_peers: 64,
        max_unconfirmed: 128,
        max_unreliable_queued: 128,
        max_held_bytes: 32 * 1024,
        ..Config::default()
    }
}

fn addr(port: u16) -> SocketAddr {
    SocketAddr::from(([10, 0, 0, 2], port))
}

/// One hostile datagram: random bytes, or a well-formed package or confirmation whose ids and
/// modes lie.
fn hostile(rng: &mut StdRng) -> Vec<u8> {
    let reliability = [
        Reliability::Unreliable,
        Reliability::Unordered,
        Reliability::SemiOrdered,
    ][rng.random_range(0..3)];
    let len = rng.random_range(0..=504);
    match rng.random_range(0..5) {
        0 => (0..rng.random_range(0..600))
            .map(|_| rng.random())
            .collect(),
        1 => hopnet_codec::to_bytes(&Datagram::Package {
            reliability,
            server_targeted: rng.random(),
            id: rng.random_range(0..1 << 24),
            payload: vec![0xab; len],
        })
        .unwrap(),
        // Ids near the start: accepted, and the semi-ordered ones held back.
        2 => hopnet_codec::to_bytes(&Datagram::Package {
            reliability,
            server_targeted: rng.random(),
            id: rng.random_range(1..20_000),
            payload: vec![0xcd; len],
        })
        .unwrap(),
        3 => hopnet_codec::to_bytes(&Datagram::Confirmation {
            ids: (0..rng.random_range(0..200))
                .map(|_| PackageId(rng.random_range(0..1 << 24)))
                .collect(),
        })
        .unwrap(),
        // The reserved bits set, or the fourth reliability value.
        _ => {
            let mut d = vec![rng.random::<u8>() & 0x7f | 0x0f, 0, 0, 1];
            d.extend(std::iter::repeat_n(0, len));
            d
        }
    }
}

#[test]
fn a_flood_of_peers_and_lies_stays_within_the_bound() {
    let config = small_config();
    let bound = config.memory_bound();
    let ((), peak) = peak_allocation(|| {
        let mut rng = StdRng::seed_from_u64(28);
        let mut server = Server::new(config.clone());
        let mut now = Instant::now();
        let mut buf = Vec::new();
        for i in 0..40_000u32 {
            let datagram = hostile(&mut rng);
            let from = addr(rng.random_range(1..2_000));
            server.handle(now, from, &datagram);
            if i.is_multiple_of(64) {
                drain(&mut server, now, &mut buf, 508);
                now += Duration::from_millis(1);
                assert!(server.peers() <= config.max_peers);
                assert!(server.memory() <= bound, "{} > {bound}", server.memory());
            }
        }
        let stats = server.stats();
        assert!(stats.refused_peers > 0 && stats.malformed > 0, "{stats:?}");
        assert!(
            stats.delivered > 0,
            "well-formed packages were taken: {stats:?}"
        );
        // Silent for the forgetting time, every peer goes, and its memory with it.
        now += Duration::from_secs(16);
        drain(&mut server, now, &mut buf, 508);
        assert_eq!(server.peers(), 0);
    });
    eprintln!("peak {peak} bytes, bound {bound}");
    assert!(peak <= bound, "peak {peak} bytes over the bound {bound}");
}

#[test]
fn a_client_ignores_strangers_and_survives_a_lying_server() {
    let config = small_config();
    let server = addr(7000);
    let mut rng = StdRng::seed_from_u64(29);
    let ((), peak) = peak_allocation(|| {
        let now = Instant::now();
        let mut client = Client::new(server, config.clone(), now);
        let mut buf = Vec::new();
        for i in 0..10_000u32 {
            let datagram = hostile(&mut rng);
            let from = if i.is_multiple_of(3) { addr(9) } else { server };
            client.handle(now, from, &datagram);
            if i.is_multiple_of(64) {
                drain(&mut client, now, &mut buf, 508);
                while client.poll_event().is_some() {}
            }
        }
        assert!(client.memory() <= config.memory_bound());
    });
    assert!(peak <= config.memory_bound(), "peak {peak}");
}
