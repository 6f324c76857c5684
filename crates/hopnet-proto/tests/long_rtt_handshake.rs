//! Finding (hopnet-proto, fixed): at a round trip longer than the handshake's first resend
//! interval (250 ms), under loss, clients failed to connect.
//!
//! After a `ChallengeResponse` the client sent a new probe every 250 ms (the interval went back
//! to its first value at every answer), each with a new salt. Once a response was lost, the
//! server's next `Challenge` answered a probe the client had already replaced, so the client
//! answered it with the seasoning of a newer salt, which the server refused, and so on until the
//! connect timeout: `HandshakeFailure { inits: 2, challenges: 40, probes: 46 }` at 500 ms and
//! 20 % loss, two clients of four (`sync_lab --rtt-ms 500 --loss 0.2`). The interval now keeps
//! backing off after an answer, so a probe eventually waits a round trip for its own `Challenge`.

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

#[test]
fn four_clients_connect_at_half_a_second_and_a_fifth_lost() {
    let failed: Vec<u64> = (1..=12)
        .filter(|&seed| !all_connect(seed, Duration::from_millis(500), 0.2))
        .collect();
    assert!(failed.is_empty(), "seeds that did not connect: {failed:?}");
}

#[test]
fn four_clients_connect_at_a_second_and_a_tenth_lost() {
    let failed: Vec<u64> = (1..=8)
        .filter(|&seed| !all_connect(seed, Duration::from_secs(1), 0.1))
        .collect();
    assert!(failed.is_empty(), "seeds that did not connect: {failed:?}");
}
