//! Finding (hopnet-proto, open): at a round trip longer than the handshake's resend interval,
//! under loss, some clients never connect.
//!
//! After a `ChallengeResponse` the client sends a new probe (a new salt) at every resend, and the
//! interval goes back to 250 ms at every answer. Once a response is lost, the server's next
//! `Challenge` answers a probe the client has already replaced, and a `Challenge` carries no
//! salt, so the client answers it with the seasoning of a newer salt, which the server refuses;
//! and so on until the connect timeout (`HandshakeFailure { inits: 2, challenges: 40, probes:
//! 46 }` seen at 500 ms and 20 % loss). Measured with this test: 6 of 12 seeds fail at 500 ms and
//! 20 % loss, 2 of 8 at 1 s and 10 %. Keeping the backoff across answers, or sizing the interval
//! from the time since the last send, helped at 500 ms but not at 1 s (the backoff's 1 s cap
//! equals the round trip, so the next probe races its predecessor's `Challenge`): a fix needs
//! the client to know which salt a `Challenge` answers, or an interval that reliably outlives
//! the round trip. Ignored until then, so that it runs on demand
//! (`cargo test -p hopnet-proto --test long_rtt_handshake -- --ignored`).

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

/// Fails naming every seed of `seeds` whose four clients did not all connect.
fn assert_all_connect(seeds: std::ops::RangeInclusive<u64>, rtt: Duration, loss: f64) {
    let failed: Vec<u64> = seeds
        .filter(|&seed| !all_connect(seed, rtt, loss))
        .collect();
    assert!(failed.is_empty(), "seeds that did not connect: {failed:?}");
}

#[test]
#[ignore = "known defect, open: clients behind a round trip above the resend interval fail under loss"]
fn four_clients_connect_at_half_a_second_and_a_fifth_lost() {
    assert_all_connect(1..=12, Duration::from_millis(500), 0.2);
}

#[test]
#[ignore = "known defect, open: clients behind a round trip above the resend interval fail under loss"]
fn four_clients_connect_at_a_second_and_a_tenth_lost() {
    assert_all_connect(1..=8, Duration::from_secs(1), 0.1);
}
