//! A server app and two client apps, as Bevy users write them (`MinimalPlugins`, manual
//! time), over hopnet's simulated network with 20 % loss each way: every delivery mode, both
//! ways, arrives as it promises.

mod common;

use std::time::Duration;

use common::modes::{check_both_ways, reliable_all_arrived, start};
use common::{Stepper, client_app, server_app};
use hopnet::sim::LinkConfig;
use hopnet_bevy::sim::SimNet;
use hopnet_bevy::{NetClient, NetServer};

const TICK: Duration = Duration::from_millis(16);
const FRAMES: u32 = 100;

fn run(seed: u64) {
    let link = LinkConfig {
        loss: 0.2,
        delay: Duration::from_millis(20),
        jitter: Duration::from_millis(10),
        // Some datagrams overtake others by up to 40 ms (more than a frame).
        reorder: 0.1,
        reorder_delay: Duration::from_millis(40),
        ..LinkConfig::default()
    };
    // Two hopnet ends: the extensions agreed, so the receiver keeps order and sequence.
    let config = hopnet::Config::builder().extensions(true).build().unwrap();
    let net = SimNet::new(seed, config.clone(), link);
    let server = server_app(TICK, NetServer::new(net.server()), FRAMES);
    let clients = (0..2)
        .map(|_| client_app(TICK, NetClient::new(net.client(config.clone())), FRAMES))
        .collect();
    let mut stepper = Stepper::new(server, clients);
    // Connected, and the extensions agreed both ways (an offer or its accept may be lost a
    // few times): until then a sequenced message is an unreliable one, on the spec's wire.
    let agreed = |s: &mut Stepper| {
        s.all_connected()
            && net.with(|n| {
                let ids: Vec<_> = n.server().connections().collect();
                ids.iter().all(|&id| n.server().extensions(id).is_some())
                    && (0..n.client_count()).all(|i| n.client(i).extensions().is_some())
            })
    };
    assert!(
        stepper.run_until(30_000 / 16, agreed),
        "seed {seed}: not connected"
    );
    start(&mut stepper);
    // 100 frames of writing, then until every reliable message is in: a minute at most.
    assert!(
        stepper.run_until(60_000 / 16, |s| reliable_all_arrived(s)),
        "seed {seed}: reliable messages missing after a minute"
    );
    // A little longer, for late unreliable ones.
    stepper.frames(30);
    check_both_ways(&stepper, true, assert_loss_is_plausible);
    assert_stats_are_hopnets(&mut stepper);
}

/// On hopnet's simulator every counter is kept: none is unknown.
fn assert_stats_are_hopnets(stepper: &mut Stepper) {
    for client in &mut stepper.clients {
        let stats = client.world_mut().resource_mut::<NetClient>().stats();
        let hopnet = stats.hopnet.clone().expect("hopnet's counters");
        assert!(stats.smoothed_rtt.is_some(), "{stats:?}");
        assert_eq!(stats.messages_sent, Some(hopnet.messages_sent));
        assert!(
            stats.messages_sent.unwrap() >= 6 * FRAMES as u64,
            "{stats:?}"
        );
        assert!(stats.packets_received.unwrap() > 0, "{stats:?}");
    }
    let ids: Vec<_> = (0..stepper.clients.len())
        .map(|i| stepper.client_id(i))
        .collect();
    let mut server = stepper.server.world_mut().resource_mut::<NetServer>();
    for id in ids {
        let stats = server.stats(id).expect("connected");
        assert!(
            stats.hopnet.is_some() && stats.bytes_sent.unwrap() > 0,
            "{stats:?}"
        );
    }
    assert_eq!(server.stats(hopnet::ConnectionId(999)), None);
}

/// At 20 % loss, most of what is sent once still arrives, and not all of it.
fn assert_loss_is_plausible(counts: &std::collections::BTreeMap<String, (usize, usize)>) {
    for mode in ["Unreliable", "Tracked", "Sequenced"] {
        let (got, sent) = counts[mode];
        assert_eq!(sent, FRAMES as usize, "{mode}: {counts:?}");
        assert!(
            got * 2 > sent && got < sent,
            "{mode}: {got} of {sent}: {counts:?}"
        );
    }
}

#[test]
fn every_delivery_mode_keeps_its_promise_over_a_lossy_simulated_network() {
    for seed in 1..=3 {
        run(seed);
    }
}
