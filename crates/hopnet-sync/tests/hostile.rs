//! A hostile client over hopnet's simulator: ticks far ahead and far behind, duplicate ticks,
//! floods of messages and of inputs, garbage bytes. The server's input buffer drops and counts
//! each, its memory stays bounded, and nothing panics.

use std::time::Duration;

use hopnet_proto::sim::{LinkConfig, SimNetwork};
use hopnet_proto::{Config, Event, ServerEvent};
use hopnet_sync::input::{
    INPUT_DELIVERY, InputBuffer, InputBufferConfig, InputMessage, MAX_INPUTS_PER_MESSAGE,
};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn hostile_run(loss: f64) {
    let link = LinkConfig {
        loss,
        ..LinkConfig::default()
    };
    let mut net = SimNetwork::new(3, Config::default(), link);
    let bad = net.add_client(Config::default());
    assert!(net.run_until(Duration::from_secs(30), |n| n.client(bad).is_connected()));
    let config = InputBufferConfig::default();
    let mut buffer = InputBuffer::<u16>::starting_at(config.clone(), 10_000);
    let mut rng = StdRng::seed_from_u64(42);
    let mut decoded_bad = 0u64;
    for tick in 10_000u32..10_600 {
        // Each tick: a flood of messages, each its own kind of wrong.
        for _ in 0..20 {
            let newest = match rng.random_range(0..5) {
                0 => u32::MAX - rng.random_range(0..4),
                1 => rng.random_range(0..100),
                2 => tick + rng.random_range(0..4), // duplicates of near ticks
                3 => tick + rng.random_range(1_000..2_000),
                _ => tick.saturating_sub(200),
            };
            let len = rng.random_range(0..=MAX_INPUTS_PER_MESSAGE);
            let message = InputMessage {
                newest,
                inputs: vec![7u16; len],
            };
            let mut bytes = hopnet_codec::to_bytes(&message).unwrap();
            if rng.random_bool(0.25) {
                // Garbage: a count beyond the bound, or random bytes.
                let n = bytes.len().min(4);
                for b in &mut bytes[..n] {
                    *b = rng.random();
                }
            }
            let _ = net.client(bad).send(&bytes, INPUT_DELIVERY);
        }
        net.step(Duration::from_millis(16));
        while let Some(ServerEvent { event, .. }) = net.server().poll_event() {
            if let Event::Message { bytes, .. } = event {
                match hopnet_codec::from_bytes::<InputMessage<u16>>(&bytes) {
                    Ok(message) => buffer.receive(net.now(), &message),
                    Err(_) => decoded_bad += 1,
                }
            }
        }
        buffer.take(tick);
        assert!(buffer.len() <= config.max_ahead as usize + 1);
        assert!(buffer.awaited() <= u64::from(config.late_window));
    }
    let s = buffer.stats();
    assert!(s.too_far_ahead > 0, "{s:?}");
    assert!(s.too_old > 0, "{s:?}");
    assert!(s.duplicates > 0, "{s:?}");
    assert!(s.flooded > 0, "{s:?}");
    assert!(decoded_bad > 0);
    // Every message taken in is accounted for: nothing more was stored than the bound lets.
    assert!(s.received <= 600 + config.max_ahead as u64 + 1, "{s:?}");
}

#[test]
fn hostile_inputs_without_loss() {
    hostile_run(0.0);
}

#[test]
fn hostile_inputs_at_ten_percent_loss() {
    hostile_run(0.10);
}

#[test]
fn hostile_inputs_at_twenty_percent_loss() {
    hostile_run(0.20);
}
