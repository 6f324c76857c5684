//! An R-TYPE player driven by hand, the instance's answers written out: the helpers of the
//! tests that check its timer and its steering step by step.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use hopnet::Machine;
use hopnet_formats::rtype::Action;
use hopnet_protocols::rtype::{InstanceClient, Phase, decode, moves, to_bytes};

/// The player's ship, as the written-out instance names it.
pub const SHIP: u32 = 5;

pub fn server() -> SocketAddr {
    "10.0.0.1:7000".parse().unwrap()
}

pub fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// The actions the player has queued, in order.
pub fn sent(client: &mut InstanceClient, now: Instant) -> Vec<Action> {
    sent_frames(client, now)
        .into_iter()
        .map(|(a, _)| a)
        .collect()
}

/// The actions the player has queued, in order, with their bodies.
pub fn sent_frames(client: &mut InstanceClient, now: Instant) -> Vec<(Action, String)> {
    let mut out = Vec::new();
    let mut buf = Vec::new();
    while let Some(t) = client.poll_transmit(now, &mut buf, 1) {
        let frame = decode(&buf[..t.size]).unwrap();
        out.push((frame.action, frame.message));
    }
    out
}

/// Runs the player's timer when it is due: when that was, and what the player sent then.
pub fn on_timer(client: &mut InstanceClient) -> (Instant, Vec<Action>) {
    let t = client.poll_timeout().expect("a timer");
    client.handle_timeout(t);
    (t, sent(client, t))
}

/// A SPRITE of the player's ship at `at`.
pub fn sprite(client: &mut InstanceClient, now: Instant, at: (i32, i32)) {
    sprite_of(client, now, SHIP, at);
}

/// A SPRITE of entity `id` at `at`.
pub fn sprite_of(client: &mut InstanceClient, now: Instant, id: u32, at: (i32, i32)) {
    let body = format!("{id} {} {}", at.0, at.1);
    client.handle(now, server(), &to_bytes(Action::Sprite, &body));
}

/// A player of `n` moves connected at `t0 + rtt`, its ship seen at (0, 0), its first move
/// (RIGHT) out.
pub fn connected_with(t0: Instant, rtt: Duration, n: usize) -> InstanceClient {
    let mut c = InstanceClient::new(server(), 3, moves(n), t0);
    c.handle_timeout(t0);
    assert_eq!(sent(&mut c, t0), [Action::Connect]);
    sprite(&mut c, t0 + rtt, (0, 0));
    c.handle(
        t0 + rtt,
        server(),
        &to_bytes(Action::Connect, &SHIP.to_string()),
    );
    assert_eq!(*c.phase(), Phase::Playing);
    assert_eq!(sent(&mut c, t0 + rtt), [Action::Right]);
    c
}

/// [`connected_with`] 10 moves.
pub fn connected(t0: Instant, rtt: Duration) -> InstanceClient {
    connected_with(t0, rtt, 10)
}
