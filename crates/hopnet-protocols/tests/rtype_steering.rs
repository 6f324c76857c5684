//! The R-TYPE player steers as the RFC's client does (section 2.3): its moves carry no number,
//! a move applied twice is stepped back, a SPACE is sent once and never waited for, and once
//! every move is played the ship's position is checked before it settles. Driven by hand, the
//! instance's answers written out.

use std::time::Instant;

mod common;
use common::rtype_player::{
    SHIP, connected, connected_with, ms, on_timer, sent, sent_frames, server, sprite, sprite_of,
};

use hopnet::Machine;
use hopnet_formats::rtype::Action;
use hopnet_protocols::rtype::{Phase, to_bytes};

#[test]
fn moves_go_out_with_an_empty_body_and_the_position_is_predicted() {
    let t0 = Instant::now();
    let mut c = connected(t0, ms(10));
    assert_eq!(c.predicted(), Some((1, 0)), "the RIGHT in flight");
    sprite(&mut c, t0 + ms(20), (1, 0));
    assert_eq!(
        sent_frames(&mut c, t0 + ms(20)),
        [(Action::Down, String::new())]
    );
    assert_eq!(c.predicted(), Some((1, 1)));
    // A SPRITE corrects the prediction, whatever it says.
    sprite(&mut c, t0 + ms(30), (7, 7));
    assert_eq!(c.predicted(), Some((7, 7)));
}

#[test]
fn a_move_applied_twice_is_stepped_back() {
    let t0 = Instant::now();
    let mut c = connected(t0, ms(10));
    // The RIGHT landed twice (a duplicate): the ship is one square too far.
    sprite(&mut c, t0 + ms(20), (2, 0));
    assert_eq!(c.moves_done(), 0);
    assert!(
        sent(&mut c, t0 + ms(20)).is_empty(),
        "nothing before the timeout"
    );
    let (t1, out) = on_timer(&mut c);
    assert_eq!(out, [Action::Check]);
    sprite(&mut c, t1 + ms(5), (2, 0));
    let (t2, out) = on_timer(&mut c);
    assert_eq!(out, [Action::Left], "one step back");
    sprite(&mut c, t2 + ms(5), (1, 0));
    assert_eq!(c.moves_done(), 1);
    assert_eq!(sent(&mut c, t2 + ms(5)), [Action::Down]);
}

#[test]
fn a_space_is_sent_once_and_not_waited_for() {
    let t0 = Instant::now();
    // Right, down, right, up, then SPACE.
    let mut c = connected_with(t0, ms(10), 5);
    let mut at = (0, 0);
    let mut now = t0 + ms(10);
    for step in [(1, 0), (0, 1), (1, 0), (0, -1)] {
        at = (at.0 + step.0, at.1 + step.1);
        now += ms(10);
        sprite(&mut c, now, at);
    }
    // The fourth move's SPRITE sent the SPACE at once, and the plan is played.
    let out = sent(&mut c, now);
    assert_eq!(out.last(), Some(&Action::Space));
    assert_eq!(out.iter().filter(|&&a| a == Action::Space).count(), 1);
    assert_eq!(c.moves_done(), 5);
    assert_eq!(*c.phase(), Phase::Settling);
    // The bullet appears elsewhere and flies off; nothing is sent for it.
    sprite_of(&mut c, now + ms(5), SHIP + 1, (at.0 + 1, at.1));
    assert!(sent(&mut c, now + ms(5)).is_empty());
}

#[test]
fn settling_checks_the_position_then_waits_for_an_agreeing_count() {
    let t0 = Instant::now();
    let mut c = connected_with(t0, ms(10), 1);
    sprite(&mut c, t0 + ms(20), (1, 0));
    assert_eq!(*c.phase(), Phase::Settling);
    // A count that agrees is not enough before the position is checked.
    c.handle(t0 + ms(25), server(), &to_bytes(Action::Check, "1"));
    assert_eq!(*c.phase(), Phase::Settling);
    // The quiet wait, then CHECK; a late duplicate of the RIGHT had moved the ship.
    let (t1, out) = on_timer(&mut c);
    assert_eq!(out, [Action::Check]);
    sprite(&mut c, t1 + ms(5), (2, 0));
    let (t2, out) = on_timer(&mut c);
    assert_eq!(out, [Action::Left]);
    sprite(&mut c, t2 + ms(5), (1, 0));
    // Back where the moves lead: another quiet wait and check, then the count decides.
    let (t3, out) = on_timer(&mut c);
    assert_eq!(out, [Action::Check]);
    sprite(&mut c, t3 + ms(5), (1, 0));
    assert_eq!(
        c.poll_timeout(),
        None,
        "verified: the next CHECK count decides"
    );
    c.handle(t3 + ms(500), server(), &to_bytes(Action::Check, "1"));
    assert_eq!(*c.phase(), Phase::Done);
    assert_eq!(sent(&mut c, t3 + ms(500)), [Action::Quit; 3]);
}
