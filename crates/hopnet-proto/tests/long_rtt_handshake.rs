//! Clients behind a round trip longer than the handshake's first resend interval, under loss,
//! connect (PROTOCOL.md, "The client's handshake", step 5).
//!
//! A `Challenge` carries no salt, so the client answers it with its latest one. Before this
//! rule, the probe that goes with a `ChallengeResponse` was resent after 250 ms: at a longer
//! round trip two salts were in flight, every `Challenge` was answered with the salt after its
//! own (and every answer sent one more probe), and once a response was lost a client could
//! keep answering wrongly until the connect timeout (`HandshakeFailure { inits: 3,
//! challenges: 34, probes: 40 }`). The share of 300 seeds in which one of four clients did not
//! connect within the connect timeout (`all_connect`), before → after: 300 ms and 20 % loss,
//! 37 % → 0; 500 ms and 20 %, 41 % → 0.3 %; 1 s and 10 %, 39 % → 19 %, the ignored test below
//! (the first bound is capped at 500 ms, and a longer round trip is learnt only after a wrong
//! answer or two).

use std::time::Duration;

use hopnet_proto::Config;
use hopnet_proto::sim::{LinkConfig, SimNetwork};

/// Four clients over a link of `rtt` and `loss` each way: whether all connect within the
/// connect timeout (10 s) of virtual time.
fn all_connect(seed: u64, rtt: Duration, loss: f64) -> bool {
    let link = LinkConfig {
        loss,
        delay: rtt / 2,
        ..LinkConfig::default()
    };
    let mut net = SimNetwork::new(seed, Config::default(), link);
    let clients: Vec<usize> = (0..4).map(|_| net.add_client(Config::default())).collect();
    net.run_until(Duration::from_secs(10), |n| {
        clients.iter().all(|&c| n.client(c).is_connected())
    })
}

/// Every seed of `1..=seeds` connects all four clients; the seeds that did not are named.
fn every_seed_connects(seeds: u64, rtt_ms: u64, loss: f64) {
    let failed: Vec<u64> = (1..=seeds)
        .filter(|&seed| !all_connect(seed, Duration::from_millis(rtt_ms), loss))
        .collect();
    assert!(failed.is_empty(), "seeds that did not connect: {failed:?}");
}

#[test]
fn four_clients_connect_at_300_ms_and_a_fifth_lost() {
    every_seed_connects(40, 300, 0.2);
}

#[test]
fn four_clients_connect_at_half_a_second_and_a_fifth_lost() {
    every_seed_connects(40, 500, 0.2);
}

#[test]
#[ignore = "known limit: at a 1 s round trip one seed in five still misses the connect timeout"]
fn four_clients_connect_at_a_second_and_a_tenth_lost() {
    every_seed_connects(40, 1000, 0.1);
}

/// Short round trips keep connecting under heavy loss: the bound is capped, so an `Init` lost
/// early does not slow every later probe for a second or more.
#[test]
fn four_clients_connect_at_100_ms_and_a_fifth_lost() {
    every_seed_connects(40, 100, 0.2);
}
