//! Finding (hopnet, fixed): reliable 64 KiB messages at 5 % loss sometimes stalled for
//! seconds (the bench's `reliable-64k-loss5` case: 6 to 8 rounds of 30 incomplete at its 5 s
//! deadline, the sender's RTO backed off to 3.84 s with a window of 4 chunks).
//!
//! The receiver's reassembly budget filled with partial messages, each missing a lost chunk.
//! Past the budget it takes chunks only for its oldest reliable message. The sender, after a
//! timeout, spent its few chunks of window on retransmissions of later messages (which the
//! receiver refused, unacknowledged, so the next timeout came, backed off) while the oldest
//! message's last chunk, 16 bytes and so kept for a batch of its own, was never sent. Fix: a
//! message's chunk never sent goes before a retransmission of a later message, the
//! retransmissions go oldest message first, and the receiver may start its oldest message past
//! the budget as it may grow it (`send::sender`, `receive::budget`).
//!
//! Reproduced in the simulator with the drivers' batching (GSO batches of up to 128
//! datagrams) and a budget of a few messages: before the fix 15 of 30 seeds stalled.

use std::time::Duration;

use hopnet_proto::sim::{LinkConfig, SimNetwork};
use hopnet_proto::{Config, Delivery, Error, Event};

/// Sends `count` reliable messages of `size` bytes through a 5 % lossy link with batching and
/// a server budget of `budget` bytes; returns how many arrived within `limit` of virtual time.
fn run(seed: u64, size: usize, count: usize, budget: usize, limit: Duration) -> usize {
    let link = LinkConfig {
        loss: 0.05,
        delay: Duration::from_micros(20),
        ..LinkConfig::default()
    };
    let server = Config::builder()
        .max_reassembly_bytes(budget)
        .build()
        .expect("a valid config");
    let mut net = SimNetwork::new(seed, server, link);
    net.set_max_batch(128);
    let c = net.add_client(Config::default());
    assert!(net.run_until(Duration::from_secs(5), |n| n.client(c).is_connected()));
    let payload = vec![0x5a; size];
    let (mut sent, mut got) = (0, 0);
    let start = net.now();
    while got < count && net.now() - start < limit {
        while sent < count {
            match net.client(c).send(&payload, Delivery::Reliable) {
                Ok(_) => sent += 1,
                Err(Error::WouldBlock) => break,
                Err(e) => panic!("{e}"),
            }
        }
        net.step(Duration::from_micros(10));
        while let Some(e) = net.server().poll_event() {
            if let Event::Message { bytes, .. } = e.event {
                assert_eq!(bytes.len(), size);
                got += 1;
            }
        }
        while net.client(c).poll_event().is_some() {}
    }
    got
}

#[test]
fn a_full_reassembly_budget_does_not_stall_large_messages() {
    for seed in 0..12 {
        // Without loss the 80 messages take a few milliseconds of virtual time; a stall
        // backs the timer off past a second.
        let got = run(seed, 64 * 1024, 80, 600_000, Duration::from_secs(1));
        assert_eq!(got, 80, "seed {seed}: {got} of 80 arrived within a second");
    }
}
