//! The R-TYPE player's timeout: it samples the round trip of each move sent once, waits the
//! estimator's timeout, doubles it on each resync and takes no sample from a resent move
//! (Karn's rule). The player is driven by hand, the instance's answers written out.

use std::time::{Duration, Instant};

mod common;
use common::rtype_player::{connected, ms, on_timer, sent, server, sprite};

use hopnet::Machine;
use hopnet_formats::rtype::Action;
use hopnet_protocols::rto::RtoConfig;
use hopnet_protocols::rtype::{DEFAULT_RTO, InstanceClient, Phase, moves, to_bytes};

#[test]
fn a_move_answered_once_is_a_sample_and_sets_the_wait() {
    let t0 = Instant::now();
    let mut c = connected(t0, ms(4));
    // The CONNECT's round trip was the first sample.
    assert_eq!(c.rtt().smoothed(), Some(ms(4)));
    let wait = c.rtt().rto();
    assert!(wait < ms(150), "{wait:?}");
    assert_eq!(c.poll_timeout(), Some(t0 + ms(4) + wait));
    // The RIGHT's SPRITE comes 30 ms after it was sent: a sample, and the next move waits the
    // new timeout.
    let t1 = t0 + ms(34);
    sprite(&mut c, t1, (1, 0));
    assert_eq!(c.moves_done(), 1);
    let srtt = c.rtt().smoothed().unwrap();
    assert!(srtt > ms(4) && srtt < ms(30), "{srtt:?}");
    assert_eq!(sent(&mut c, t1), [Action::Down]);
    assert_eq!(c.poll_timeout(), Some(t1 + c.rtt().rto()));
}

/// A player 20 ms from its instance whose RIGHT's SPRITE does not come: at the timer, a CHECK.
/// The player, its timeout and smoothed round trip before that, and when the CHECK left.
fn right_unanswered() -> (InstanceClient, Duration, Option<Duration>, Instant) {
    let mut c = connected(Instant::now(), ms(20));
    let base = c.rtt().rto();
    let srtt = c.rtt().smoothed();
    let (t1, sent_then) = on_timer(&mut c);
    assert_eq!(sent_then, [Action::Check]);
    (c, base, srtt, t1)
}

#[test]
fn each_resync_doubles_the_wait_and_a_resent_move_gives_no_sample() {
    // The RIGHT's SPRITE does not come: CHECK, and twice the wait.
    let (mut c, base, srtt, t1) = right_unanswered();
    assert_eq!(c.rtt().rto(), base * 2);
    assert_eq!(c.poll_timeout(), Some(t1 + base * 2));
    // Nor does the resync's: CHECK again, four times the wait.
    let (t2, sent_then) = on_timer(&mut c);
    assert_eq!(sent_then, [Action::Check]);
    assert_eq!(c.poll_timeout(), Some(t2 + base * 4));
    // The resync shows the ship where it was: the RIGHT was lost, and is sent again at the
    // timer, without doubling it (nothing was lost this time).
    sprite(&mut c, t2 + ms(1), (0, 0));
    let (t3, sent_then) = on_timer(&mut c);
    assert_eq!(sent_then, [Action::Right]);
    assert_eq!(c.poll_timeout(), Some(t3 + base * 4));
    // Its SPRITE, however late, is no sample: it might have answered an earlier send.
    sprite(&mut c, t3 + base * 3, (1, 0));
    assert_eq!(c.moves_done(), 1);
    assert_eq!(c.rtt().smoothed(), srtt);
    // Not within the un-doubled timeout either, so the backoff stays until a sample.
    assert_eq!(c.rtt().rto(), base * 4);
    // The DOWN, sent once, answered: a sample, and the backoff ends.
    let t4 = t3 + base * 3 + ms(20);
    sprite(&mut c, t4, (1, 1));
    assert_eq!(c.moves_done(), 2);
    assert!(c.rtt().rto() <= base, "{:?} > {base:?}", c.rtt().rto());
}

#[test]
fn a_resent_move_confirmed_promptly_ends_the_backoff_without_a_sample() {
    let (mut c, base, srtt, t1) = right_unanswered();
    sprite(&mut c, t1 + ms(1), (0, 0));
    let (t2, sent_then) = on_timer(&mut c);
    assert_eq!(sent_then, [Action::Right]);
    assert_eq!(c.rtt().rto(), base * 2);
    sprite(&mut c, t2 + ms(1), (1, 0));
    assert_eq!(c.rtt().smoothed(), srtt);
    assert_eq!(c.rtt().rto(), base);
}

#[test]
fn a_repeated_connect_backs_off_and_its_answer_is_no_sample() {
    let t0 = Instant::now();
    let mut c = InstanceClient::new(server(), 3, moves(10), t0);
    c.handle_timeout(t0);
    assert_eq!(sent(&mut c, t0), [Action::Connect]);
    let first = c.poll_timeout().unwrap() - t0;
    // Three times the assumed round trip before any sample.
    assert_eq!(first, DEFAULT_RTO.initial_rtt * 3);
    let t1 = t0 + first;
    c.handle_timeout(t1);
    assert_eq!(sent(&mut c, t1), [Action::Connect]);
    assert_eq!(c.poll_timeout(), Some(t1 + first * 2));
    c.handle(t1 + ms(5), server(), &to_bytes(Action::Connect, "5"));
    assert_eq!(*c.phase(), Phase::Playing);
    assert_eq!(c.rtt().smoothed(), None);
}

#[test]
fn the_timeout_keeps_to_its_configured_bounds() {
    let rto = RtoConfig {
        initial_rtt: ms(10),
        min: ms(25),
        max: ms(60),
    };
    let t0 = Instant::now();
    let mut c = InstanceClient::new(server(), 3, moves(10), t0).with_rto(rto);
    c.handle_timeout(t0);
    assert_eq!(c.poll_timeout(), Some(t0 + ms(30)));
    // Connected after 1 ms: the timeout is the floor.
    sprite(&mut c, t0 + ms(1), (0, 0));
    c.handle(t0 + ms(1), server(), &to_bytes(Action::Connect, "5"));
    assert_eq!(c.rtt().rto(), ms(25));
    // Resyncs double it up to the ceiling.
    for _ in 0..4 {
        let (_, sent_then) = on_timer(&mut c);
        assert_eq!(sent_then.last(), Some(&Action::Check));
    }
    assert_eq!(c.rtt().rto(), ms(60));
}
