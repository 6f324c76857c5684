//! A seeded wire trace: every datagram of a set of simulator scenarios, digested.
//!
//! A refactor that means to change no behaviour prints the same lines before and after: each
//! scenario runs in virtual time on a seeded network, so the same code sends the same bytes at
//! the same instants. Each line names a scenario and gives its datagram count and a CRC-32 of
//! every datagram with its sender, destination and virtual send time.
//!
//! ```sh
//! cargo run -p hopnet --example wire_trace
//! ```

use std::time::Duration;

use hopnet_proto::sim::{Batch, LinkConfig, SimNetwork};
use hopnet_proto::{Config, Delivery, Event, ServerEvent};

/// One scenario: the wire, the loss each way, the seed.
struct Scenario {
    extended: bool,
    loss: f64,
    seed: u64,
}

fn main() {
    for extended in [false, true] {
        for loss in [0.0, 0.2] {
            for seed in 1..=4 {
                let scenario = Scenario {
                    extended,
                    loss,
                    seed,
                };
                let (datagrams, digest) = run(&scenario);
                println!(
                    "{} wire, loss {:.1}, seed {}: {datagrams} datagrams, crc32 {digest:08x}",
                    if extended { "extended" } else { "spec" },
                    loss,
                    seed
                );
            }
        }
    }
}

/// Runs one scenario for 8 virtual seconds: three clients, each sending every delivery mode
/// both ways, small and large; returns the datagram count and the digest.
fn run(scenario: &Scenario) -> (usize, u32) {
    let config = if scenario.extended {
        Config::builder().extensions(true).build().unwrap()
    } else {
        Config::default()
    };
    let link = LinkConfig {
        loss: scenario.loss,
        delay: Duration::from_millis(20),
        jitter: Duration::from_millis(5),
        ..LinkConfig::default()
    };
    let mut net = SimNetwork::new(scenario.seed, config.clone(), link);
    net.record_batches(true);
    let clients: Vec<usize> = (0..3).map(|_| net.add_client(config.clone())).collect();
    let mut hasher = crc32fast::Hasher::new();
    let mut datagrams = 0;
    let mut connections = Vec::new();
    let modes = [
        Delivery::Unreliable,
        Delivery::Sequenced,
        Delivery::Reliable,
        Delivery::ReliableOrdered,
    ];
    for tick in 0..480u32 {
        for &c in &clients {
            if net.client(c).is_connected() {
                let mode = modes[(tick as usize + c) % modes.len()];
                let size = if tick % 40 == 0 { 3_000 } else { 60 + c * 7 };
                let body = vec![(tick % 251) as u8; size];
                let _ = net.client(c).send(&body, mode);
            }
        }
        while let Some(ServerEvent {
            connection, event, ..
        }) = net.server().poll_event()
        {
            match event {
                Event::Connected => connections.push(connection),
                Event::Message { bytes, .. } if bytes.len() > 1_000 => {
                    let _ = net
                        .server()
                        .send(connection, &bytes[..1_500], Delivery::Reliable);
                }
                _ => {}
            }
        }
        for &id in &connections {
            let _ = net
                .server()
                .send(id, &tick.to_le_bytes(), Delivery::Sequenced);
        }
        for &c in &clients {
            while net.client(c).poll_event().is_some() {}
        }
        net.step(Duration::from_micros(16_667));
        let start = net.now() - net.elapsed();
        for batch in net.take_batches() {
            datagrams += digest(&mut hasher, &batch, net.now() - start);
        }
    }
    (datagrams, hasher.finalize())
}

/// Adds a batch's datagrams to the digest; returns how many there were.
fn digest(hasher: &mut crc32fast::Hasher, batch: &Batch, at: Duration) -> usize {
    let mut count = 0;
    for datagram in batch.datagrams() {
        hasher.update(&at.as_nanos().to_le_bytes());
        hasher.update(batch.from.to_string().as_bytes());
        hasher.update(batch.transmit.destination.to_string().as_bytes());
        hasher.update(&(datagram.len() as u32).to_le_bytes());
        hasher.update(datagram);
        count += 1;
    }
    count
}
