//! A server app and two client apps on Semi-ordered UDP (the seed's transport, `protocols`
//! feature) over real loopback UDP, each end dropping 10 % of what it sends: the three modes
//! the protocol keeps arrive as they promise both ways (every reliable and semi-ordered
//! message once and intact, each semi-ordered one after every reliable message its sender
//! sent before it; unreliable ones at most once and intact), and a message registered with a
//! mode the protocol cannot keep is refused with an error naming the mode, on either side.

#![cfg(feature = "protocols")]

mod common;

use std::time::Duration;

use bevy::prelude::*;
use common::seed::{self, seed_messages};
use hopnet::Delivery;
use hopnet_bevy::prelude::*;
use hopnet_bevy::transport::semi_ordered::{SemiOrderedClient, SemiOrderedServer};
use hopnet_protocols::semi_ordered_udp;

/// Bytes that tell a damaged message, small enough for one package.
fn pad(n: u32, salt: u8) -> Vec<u8> {
    vec![n as u8 ^ salt; (n as usize * 7) % 200]
}

seed_messages! {
    // A reliable (unordered) message.
    Chat => Delivery::Reliable, |n| pad(n, 1);
    // A semi-ordered message.
    Happened => Delivery::SemiOrdered, |n| pad(n, 2);
    // An unreliable message.
    Position => Delivery::Unreliable, |n| pad(n, 3);
}

/// A Semi-ordered UDP server app and two client apps, each end dropping `loss` of what it
/// sends.
fn semi_ordered_apps(with_ordered: bool, loss: f64) -> common::Stepper {
    let server =
        SemiOrderedServer::bind("127.0.0.1:0", semi_ordered_udp::Config::default()).unwrap();
    let connect =
        |addr| SemiOrderedClient::connect(addr, semi_ordered_udp::Config::default()).unwrap();
    let (server, clients) = seed::lossy_ends(server, connect, loss);
    apps(server, clients, with_ordered)
}

// At 10 % loss, unreliable messages are checked for what the protocol promises of them (at
// most once, intact, one that was sent), not for a share. Without loss, all of them must
// arrive.

/// A little longer than the reliable messages take, for a late duplicate or a last
/// unreliable message.
const LINGER: Duration = Duration::from_millis(300);

#[test]
fn three_modes_keep_their_promise_over_semi_ordered_udp() {
    let mut stepper = semi_ordered_apps(false, 0.1);
    seed::run_and_check(&mut stepper, &["Chat", "Happened"], LINGER);
    seed::assert_stats_are_the_glues(&mut stepper, 3);
}

/// Without loss every unreliable message arrives too.
#[test]
fn without_loss_every_unreliable_message_arrives_over_semi_ordered_udp() {
    let mut stepper = semi_ordered_apps(false, 0.0);
    seed::run_and_check(&mut stepper, &["Chat", "Happened"], LINGER);
    seed::assert_all_arrived(&stepper, "Position");
}

#[test]
fn a_mode_semi_ordered_udp_cannot_keep_is_refused_by_name() {
    seed::a_refused_mode_is_named(&mut semi_ordered_apps(true, 0.1), "Semi-ordered UDP");
}
