//! Snapshot deltas over `hopnet` itself: the game server and bots asking for deltas, on the
//! simulated network at 20 % loss with duplication, reordering and jitter both ways, with the
//! spec's wire and with the negotiated extensions. Every snapshot a client applies, delta or
//! full, must equal the server's snapshot of that tick; the transport's acknowledgements of
//! tracked messages are what the server picks its baselines from.
//!
//! (`src/session/server/delta_link.rs` holds the harsher companion: a scripted link that also
//! forges acknowledgements of messages that never arrived, which a real transport cannot.)

mod play;

use std::time::Duration;

use hopnet::sim::{LinkConfig, SimNetwork};
use snow_fight::session::{BotPlayer, ClientEvent};

use crate::play::{BotGame, TICK_RATE, server};

fn hostile() -> LinkConfig {
    LinkConfig {
        loss: 0.2,
        duplicate: 0.1,
        reorder: 0.2,
        reorder_delay: Duration::from_millis(30),
        delay: Duration::from_millis(15),
        jitter: Duration::from_millis(5),
        ..LinkConfig::default()
    }
}

/// What a run saw, over every client.
#[derive(Debug, Default)]
struct Seen {
    applied: u64,
    deltas: u64,
    missing: u64,
    full_for_spec_client: u64,
}

/// Plays `ticks` ticks: two bots asking for deltas and one that does not.
fn run(seed: u64, transport: hopnet::Config, ticks: u32) -> Seen {
    let config = snow_fight::Config::for_tick_rate(TICK_RATE);
    let bots = (0..3).map(|i| {
        let bot = BotPlayer::new(config.clone(), seed * 10 + i);
        if i < 2 { bot.with_deltas() } else { bot }
    });
    let net = SimNetwork::new(seed, transport.clone(), hostile());
    let mut sim = BotGame::new(net, server(seed, 3), &transport, bots);
    let mut seen = Seen::default();
    for _ in 0..ticks {
        sim.tick(|i, bot, event, sent| match event {
            ClientEvent::Snapshot => {
                let (t, applied) = bot.client.snapshot().expect("applied");
                assert_eq!(
                    Some(applied),
                    sent.get(t),
                    "seed {seed}: client {i} applied tick {t}"
                );
                seen.applied += 1;
            }
            ClientEvent::BaselineMissing(_) => seen.missing += 1,
            _ => {}
        });
    }
    let bots = &sim.bots;
    seen.deltas = bots[..2].iter().map(|b| b.client.stats().deltas).sum();
    assert_eq!(bots[2].client.stats().deltas, 0, "no deltas unasked");
    seen.full_for_spec_client = bots[2].client.stats().snapshots;
    seen
}

fn check(transport: impl Fn() -> hopnet::Config) {
    let mut total = Seen::default();
    for seed in 1..=6 {
        let s = run(seed, transport(), 20 * TICK_RATE);
        assert!(s.deltas > 0, "seed {seed}: no delta applied: {s:?}");
        assert!(s.full_for_spec_client > 0, "seed {seed}: {s:?}");
        total.applied += s.applied;
        total.deltas += s.deltas;
        total.missing += s.missing;
    }
    // The comparisons ran, most of the delta clients' snapshots were deltas.
    assert!(total.applied > 6 * 1000, "{total:?}");
    assert!(total.deltas > total.applied / 3, "{total:?}");
    // The server takes a snapshot as a baseline only once the transport acknowledged the
    // message that carried it, that is once it arrived, and the client keeps the snapshots
    // it got of the server's whole delta window: over the real transport no delta names a
    // baseline the client lacks.
    assert_eq!(total.missing, 0, "{total:?}");
}

#[test]
fn every_applied_snapshot_is_the_servers_on_the_spec_wire() {
    check(hopnet::Config::default);
}

#[test]
fn every_applied_snapshot_is_the_servers_with_the_extensions() {
    check(|| {
        hopnet::Config::builder()
            .extensions(true)
            .build()
            .expect("a valid config")
    });
}
