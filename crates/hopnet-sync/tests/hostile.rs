//! A hostile client over hopnet's simulator: ticks far ahead and far behind, duplicate ticks,
//! floods of messages and of inputs, garbage bytes. The server's input buffer drops and counts
//! each, its memory stays bounded, and nothing panics.

use std::time::Duration;

use hopnet_proto::sim::{LinkConfig, SimNetwork};
use hopnet_proto::{Config, Event, ServerEvent};
use hopnet_sync::input::{
    INPUT_DELIVERY, InputBuffer, InputBufferConfig, InputMessage, MAX_INPUTS_PER_MESSAGE,
};

/// SplitMix64: the test's own deterministic draws.
fn draw(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

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
    let mut rng = 42u64;
    let mut decoded_bad = 0u64;
    for tick in 10_000u32..10_600 {
        // Each tick: a flood of messages, each its own kind of wrong.
        for _ in 0..20 {
            let newest = match draw(&mut rng) % 5 {
                0 => u32::MAX - (draw(&mut rng) % 4) as u32,
                1 => (draw(&mut rng) % 100) as u32,
                2 => tick + (draw(&mut rng) % 4) as u32, // duplicates of near ticks
                3 => tick + 1_000 + (draw(&mut rng) % 1_000) as u32,
                _ => tick.saturating_sub(200),
            };
            let len = (draw(&mut rng) as usize) % (MAX_INPUTS_PER_MESSAGE + 1);
            let message = InputMessage {
                newest,
                inputs: vec![7u16; len],
            };
            let mut bytes = hopnet_codec::to_bytes(&message).unwrap();
            if draw(&mut rng).is_multiple_of(4) {
                // Garbage: a count beyond the bound, or random bytes.
                let n = bytes.len().min(4);
                for b in &mut bytes[..n] {
                    *b = draw(&mut rng) as u8;
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
