//! An R-TYPE instance's answers, datagram by datagram: CONNECT, moves and bullets as SPRITEs
//! to every client, bullets flying on the game tick, PING/PONG, CHECK every 1,000 ms and the resync it asks for, QUIT and DEAD.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use hopnet::Machine;
use hopnet_formats::rtype::Action;
use hopnet_protocols::rtype::{
    BULLET_TICKS, CHECK_INTERVAL, GAME_TICK, Instance, MAX_BULLETS_PER_PLAYER, decode, to_bytes,
};

fn a() -> SocketAddr {
    "10.0.0.2:4000".parse().unwrap()
}
fn b() -> SocketAddr {
    "10.0.0.3:4000".parse().unwrap()
}

/// What the instance sends, as (to, action, body).
fn sent(i: &mut Instance, now: Instant) -> Vec<(SocketAddr, Action, String)> {
    let mut out = Vec::new();
    let mut buf = Vec::new();
    while let Some(t) = i.poll_transmit(now, &mut buf, 1) {
        let f = decode(&buf[..t.size]).unwrap();
        out.push((t.destination, f.action, f.message));
    }
    out
}

fn to(addr: SocketAddr, action: Action, body: &str) -> (SocketAddr, Action, String) {
    (addr, action, body.to_owned())
}

/// One datagram to each of the two clients, `a` first: what every client is shown.
fn to_both(action: Action, body: &str) -> Vec<(SocketAddr, Action, String)> {
    vec![to(a(), action, body), to(b(), action, body)]
}

#[test]
fn the_instance_answers_per_the_contract() {
    let now = Instant::now();
    let mut i = Instance::new(9);
    i.handle(now, a(), &to_bytes(Action::Connect, "9"));
    assert_eq!(
        sent(&mut i, now),
        [
            to(a(), Action::Connect, "0"),
            to(a(), Action::Sprite, "0 0 0")
        ]
    );
    i.handle(now, b(), &to_bytes(Action::Connect, "9"));
    assert_eq!(
        sent(&mut i, now),
        [
            to(b(), Action::Connect, "1"),
            to(b(), Action::Sprite, "0 0 0"),
            to(b(), Action::Sprite, "1 0 10"),
            to(a(), Action::Sprite, "1 0 10"),
        ]
    );
    // A move, numbered or not: a SPRITE to every client.
    i.handle(now, a(), &to_bytes(Action::Right, "1"));
    i.handle(now, a(), &to_bytes(Action::Down, ""));
    assert_eq!(
        sent(&mut i, now),
        [
            to_both(Action::Sprite, "0 1 0"),
            to_both(Action::Sprite, "0 1 1")
        ]
        .concat()
    );
    // A bullet where its player stands.
    i.handle(now, a(), &to_bytes(Action::Space, "2"));
    assert_eq!(sent(&mut i, now), to_both(Action::Sprite, "2 1 1"));
    i.handle(now, b(), &to_bytes(Action::Ping, "t=17"));
    assert_eq!(sent(&mut i, now), [to(b(), Action::Pong, "t=17")]);
    // The bullet goes straight: one unit right each game tick, shown to every client.
    assert_eq!(i.poll_timeout(), Some(now + GAME_TICK));
    i.handle_timeout(now + GAME_TICK);
    assert_eq!(
        sent(&mut i, now + GAME_TICK),
        to_both(Action::Sprite, "2 2 1")
    );
    assert_eq!(i.poll_timeout(), Some(now + 2 * GAME_TICK));
    // The count every second (a driver late for the game tick: one step, not a burst).
    let later = now + CHECK_INTERVAL;
    i.handle_timeout(later);
    assert_eq!(
        sent(&mut i, later),
        [
            to_both(Action::Sprite, "2 3 1"),
            to_both(Action::Check, "3")
        ]
        .concat()
    );
    assert_eq!(i.poll_timeout(), Some(later + GAME_TICK));
    // A client whose count differed asks: it gets every entity.
    i.handle(later, b(), &to_bytes(Action::Check, ""));
    assert_eq!(
        sent(&mut i, later),
        [
            to(b(), Action::Sprite, "0 1 1"),
            to(b(), Action::Sprite, "1 0 10"),
            to(b(), Action::Sprite, "2 3 1"),
        ]
    );
    // QUIT: the player and its bullet are DEAD, for everyone and for the one leaving.
    i.handle(later, a(), &to_bytes(Action::Quit, ""));
    assert_eq!(
        sent(&mut i, later),
        [
            to(b(), Action::Dead, "0"),
            to(a(), Action::Dead, "0"),
            to(b(), Action::Dead, "2"),
            to(a(), Action::Dead, "2"),
        ]
    );
    assert_eq!(i.player_count(), 1);
    // A's address is a stranger now: its moves are ignored.
    i.handle(later, a(), &to_bytes(Action::Left, ""));
    assert!(sent(&mut i, later).is_empty());
}

#[test]
fn bullets_are_bounded_per_player() {
    let now = Instant::now();
    let mut i = Instance::new(0);
    i.handle(now, a(), &to_bytes(Action::Connect, "0"));
    sent(&mut i, now);
    for n in 0..MAX_BULLETS_PER_PLAYER as u32 {
        i.handle(now, a(), &to_bytes(Action::Space, ""));
        assert_eq!(
            sent(&mut i, now),
            [to(a(), Action::Sprite, &format!("{} 0 0", n + 1))]
        );
    }
    // One more: the oldest goes first.
    i.handle(now, a(), &to_bytes(Action::Space, ""));
    let next = MAX_BULLETS_PER_PLAYER + 1;
    assert_eq!(
        sent(&mut i, now),
        [
            to(a(), Action::Dead, "1"),
            to(a(), Action::Sprite, &format!("{next} 0 0"))
        ]
    );
    assert_eq!(i.world().entities().len(), 1 + MAX_BULLETS_PER_PLAYER);
}

#[test]
fn a_bullet_flies_its_ticks_then_is_dead_and_the_tick_stops() {
    let now = Instant::now();
    let mut i = Instance::new(0);
    i.handle(now, a(), &to_bytes(Action::Connect, "0"));
    i.handle(now, a(), &to_bytes(Action::Space, ""));
    sent(&mut i, now);
    let mut t = now;
    for k in 1..BULLET_TICKS {
        t = i.poll_timeout().unwrap();
        assert_eq!(t, now + GAME_TICK * k);
        i.handle_timeout(t);
        assert_eq!(
            sent(&mut i, t),
            [to(a(), Action::Sprite, &format!("1 {k} 0"))]
        );
    }
    t += GAME_TICK;
    assert_eq!(i.poll_timeout(), Some(t));
    i.handle_timeout(t);
    assert_eq!(sent(&mut i, t), [to(a(), Action::Dead, "1")]);
    assert_eq!(i.world().entities().len(), 1);
    // Nothing flies: the next timer is the count's.
    assert_eq!(i.poll_timeout(), Some(now + CHECK_INTERVAL));
}

#[test]
fn a_silent_player_is_removed() {
    let now = Instant::now();
    let mut i = Instance::new(0);
    i.handle(now, a(), &to_bytes(Action::Connect, "0"));
    i.handle(
        now + Duration::from_secs(5),
        b(),
        &to_bytes(Action::Connect, "0"),
    );
    sent(&mut i, now);
    let t = now + Duration::from_secs(10);
    i.handle_timeout(t);
    assert_eq!(i.player_count(), 1);
    assert!(sent(&mut i, t).contains(&to(b(), Action::Dead, "0")));
}
