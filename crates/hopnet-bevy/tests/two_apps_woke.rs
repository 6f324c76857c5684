//! A server app and two client apps on WOKE (the seed's transport, `protocols` feature) over
//! real loopback UDP, each end dropping 10 % of what it sends: the two modes WOKE keeps
//! arrive as they promise both ways (every reliable message once and intact, split when larger
//! than a packet; unreliable ones at most once and intact), and a message registered with a
//! mode WOKE cannot keep is refused with an error naming the mode, on either side.

#![cfg(feature = "protocols")]

mod common;

use std::time::Duration;

use bevy::prelude::*;
use common::seed::{self, seed_messages};
use hopnet::Delivery;
use hopnet_bevy::prelude::*;
use hopnet_bevy::transport::woke::{WokeClient, WokeServer};
use hopnet_protocols::woke;

/// Bytes that tell a damaged message: now and then more than a packet for a reliable one.
fn pad(n: u32, reliable: bool) -> Vec<u8> {
    let len = if reliable && n.is_multiple_of(5) {
        3000
    } else {
        n as usize % 50
    };
    vec![n as u8; len]
}

seed_messages! {
    // A reliable message.
    Chat => Delivery::Reliable, |n| pad(n, true);
    // An unreliable message.
    Position => Delivery::Unreliable, |n| pad(n, false);
}

/// A WOKE server app and two client apps, each end dropping `loss` of what it sends.
fn woke_apps(with_ordered: bool, loss: f64) -> common::Stepper {
    let server = WokeServer::bind("127.0.0.1:0", woke::Config::default()).unwrap();
    let connect = |addr| WokeClient::connect(addr, woke::Config::default()).unwrap();
    let (server, clients) = seed::lossy_ends(server, connect, loss);
    apps(server, clients, with_ordered)
}

// At 10 % loss, unreliable messages are checked for what WOKE promises of them (at most
// once, intact, one that was sent), not for a share: they wait behind reliable ones for room
// in WOKE's one packet a tick, so they leave in batches (about eight to a packet here), and a
// lost packet takes a whole batch; more than the 10 % can go missing. Without loss, all of
// them must arrive.

/// Unreliable commands wait behind reliable ones for room in WOKE's one packet a tick: a
/// second for the last of them to leave.
const LINGER: Duration = Duration::from_secs(1);

#[test]
fn reliable_and_unreliable_keep_their_promise_over_woke() {
    let mut stepper = woke_apps(false, 0.1);
    seed::run_and_check(&mut stepper, &["Chat"], LINGER);
    seed::assert_stats_are_the_glues(&mut stepper, 2);
}

/// Without loss every unreliable message arrives too: what goes missing at 10 % is whole
/// lost packets, not the transport.
#[test]
fn without_loss_every_unreliable_message_arrives_over_woke() {
    let mut stepper = woke_apps(false, 0.0);
    seed::run_and_check(&mut stepper, &["Chat"], LINGER);
    seed::assert_all_arrived(&stepper, "Position");
}

#[test]
fn a_mode_woke_cannot_keep_is_refused_by_name() {
    seed::a_refused_mode_is_named(&mut woke_apps(true, 0.1), "WOKE");
}
