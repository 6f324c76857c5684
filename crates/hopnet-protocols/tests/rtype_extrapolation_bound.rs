//! R-TYPE's client carries an entity on between SPRITEs for at most its bound, holds it there,
//! and converges back without a jump when SPRITEs resume; SPRITEs written out by hand. Bad
//! SPRITEs (an absurd id, coordinates at the ends of their range, a flood of entities, bodies
//! that are not a SPRITE) never make it panic, and keep what it shows finite and bounded.

mod common;

use std::time::{Duration, Instant};

use common::rtype_player::{connected, ms, server, sprite_of};
use hopnet::Machine;
use hopnet_formats::rtype::Action;
use hopnet_protocols::rtype::{
    DEFAULT_CONVERGE, DEFAULT_MAX_EXTRAPOLATION, Extrapolation, InstanceClient, MAX_KNOWN_ENTITIES,
    Position, to_bytes,
};

/// A bullet the client has not fired.
const BULLET: u32 = 9;
/// Its SPRITEs' interval: one unit per this.
const EVERY: Duration = Duration::from_millis(30);

/// Where `id` is shown at `now`.
fn shown(c: &mut InstanceClient, now: Instant, id: u32) -> Position {
    c.shown(now)
        .into_iter()
        .find(|(i, _)| *i == id)
        .map(|(_, p)| p)
        .expect("the entity is shown")
}

/// A client that saw [`BULLET`] fly right from x 0 to x 5, a SPRITE every [`EVERY`]; when the
/// last came.
fn flown(mode: Extrapolation) -> (InstanceClient, Instant) {
    let t0 = Instant::now();
    let mut c = connected(t0, ms(20)).with_extrapolation(mode);
    let start = t0 + ms(20);
    for k in 0..=5 {
        sprite_of(&mut c, start + EVERY * k, BULLET, (k as i32, 40));
    }
    (c, start + EVERY * 5)
}

#[test]
fn an_entity_whose_sprites_stop_is_carried_on_for_the_bound_then_held() {
    let (mut c, last) = flown(Extrapolation::default());
    // One unit per 30 ms for at most 90 ms: three units past x 5.
    let reach = 5.0 + DEFAULT_MAX_EXTRAPOLATION.as_secs_f64() / EVERY.as_secs_f64();
    let mut before = 5.0;
    for step in 0..=400 {
        let p = shown(&mut c, last + ms(5) * step, BULLET);
        assert_eq!(p.y, 40.0);
        assert!(
            p.x >= before - 1e-9,
            "it goes straight on: {before} then {}",
            p.x
        );
        assert!(p.x <= reach + 1e-6, "{} past the bound's {reach}", p.x);
        before = p.x;
    }
    assert!((before - reach).abs() < 1e-6, "held at the bound: {before}");
    // Half a minute later, still there.
    assert!((shown(&mut c, last + Duration::from_secs(30), BULLET).x - reach).abs() < 1e-6);
}

#[test]
fn a_shorter_bound_stops_it_sooner_and_off_holds_the_last_sprite() {
    let bound = ms(45);
    let (mut c, last) = flown(Extrapolation::Bounded {
        max: bound,
        converge: DEFAULT_CONVERGE,
    });
    let x = shown(&mut c, last + Duration::from_secs(1), BULLET).x;
    assert!((x - 6.5).abs() < 1e-6, "{x}");
    let (mut c, last) = flown(Extrapolation::Off);
    for step in 0..50 {
        assert_eq!(shown(&mut c, last + ms(7) * step, BULLET).x, 5.0);
    }
}

#[test]
fn sprites_resuming_converge_without_a_jump() {
    let (mut c, last) = flown(Extrapolation::default());
    let held = shown(&mut c, last + ms(400), BULLET).x;
    // The bullet flew on all the while: x 20 at 450 ms, 21 at 480 ms.
    let again = last + ms(450);
    let before = shown(&mut c, again, BULLET).x;
    assert_eq!(before, held);
    sprite_of(&mut c, again, BULLET, (20, 40));
    let mut shown_then = shown(&mut c, again, BULLET).x;
    assert!(
        (shown_then - before).abs() < 1e-9,
        "no jump: {before} -> {shown_then}"
    );
    // Over the converging time it joins the SPRITEs' line, a bounded step at a time.
    let converge_steps = (DEFAULT_CONVERGE.as_millis() / 5) as f64;
    let most = (20.0 - held) / converge_steps + 1.0;
    for step in 1..=20 {
        let now = again + ms(5) * step;
        if step == 6 {
            sprite_of(&mut c, now, BULLET, (21, 40));
        }
        let x = shown(&mut c, now, BULLET).x;
        assert!(
            x - shown_then <= most && x >= shown_then - 1e-9,
            "{shown_then} -> {x}"
        );
        shown_then = x;
    }
    assert!(
        (shown_then - 21.0).abs() < 3.0,
        "back on the line: {shown_then}"
    );
}

#[test]
fn bad_sprites_never_panic_and_stay_bounded() {
    let t0 = Instant::now();
    let mut c = connected(t0, ms(20));
    let mut now = t0 + ms(20);
    // An absurd id, thrown between the ends of the coordinates' range, fast and slow.
    let ends = [
        (i32::MAX, i32::MIN),
        (i32::MIN, i32::MAX),
        (0, i32::MAX),
        (i32::MAX, i32::MAX),
    ];
    for k in 0..400u32 {
        now += Duration::from_micros(u64::from(k % 7) * 3000);
        sprite_of(&mut c, now, u32::MAX, ends[k as usize % ends.len()]);
        // Straight on, far: a line the bound keeps finite.
        sprite_of(
            &mut c,
            now,
            u32::MAX - 1,
            (i32::MIN + k as i32 * 1_000_000, 0),
        );
        for (_, p) in c.shown(now + ms(u64::from(k % 200))) {
            assert!(p.x.is_finite() && p.y.is_finite(), "{p:?}");
        }
    }
    let e = c.position_error().summary();
    assert!(
        e.count >= 798 && e.max.is_finite() && e.p99.is_finite(),
        "{e:?}"
    );
    // Bodies that are not a SPRITE: no entity.
    let known = c.entities().len();
    for body in [
        "99999999999 1 1",
        "1 2",
        "-1 0 0",
        "1 2 3 4",
        "",
        "a b c",
        "1 0 99999999999",
    ] {
        c.handle(now, server(), &to_bytes(Action::Sprite, body));
    }
    assert_eq!(c.entities().len(), known);
    // A flood of entities: the client keeps a bounded number, and shows no more.
    for id in 0..(MAX_KNOWN_ENTITIES as u32 + 1000) {
        sprite_of(&mut c, now, 1_000_000 + id, (id as i32, 1));
    }
    assert!(c.entities().len() <= MAX_KNOWN_ENTITIES);
    assert_eq!(c.shown(now + ms(1)).len(), c.entities().len());
    // A clock that goes back: still no panic, still finite.
    sprite_of(&mut c, t0, u32::MAX - 1, (5, 5));
    for (_, p) in c.shown(t0) {
        assert!(p.x.is_finite() && p.y.is_finite());
    }
    // Its DEAD removes it from the view.
    c.handle(
        now,
        server(),
        &to_bytes(Action::Dead, &u32::MAX.to_string()),
    );
    assert!(c.shown(now).iter().all(|(id, _)| *id != u32::MAX));
}
