//! A server app and two client apps, as Bevy users write them (`MinimalPlugins`, manual
//! time), over hopnet's simulated network with 20 % loss each way: every delivery mode, both
//! ways, arrives as it promises.

mod common;

use std::time::Duration;

use common::{Stepper, check, client_app, server_app};
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
    let mut stepper = Stepper { server, clients };
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
    stepper.start();
    // 150 frames of writing, then until every reliable message is in: a minute at most.
    assert!(
        stepper.run_until(60_000 / 16, |s| s.reliable_all_arrived()),
        "seed {seed}: reliable messages missing after a minute"
    );
    // A little longer, for late unreliable ones.
    for _ in 0..30 {
        stepper.frame();
    }

    let server_sent = &Stepper::script(&stepper.server).sent;
    for client in &stepper.clients {
        assert!(Stepper::script(client).done());
        let got = Stepper::arrivals(client);
        let got: Vec<_> = got.arrived.iter().collect();
        let counts = check(server_sent, &got, true);
        assert_loss_is_plausible(&counts);
    }
    let server_got = &Stepper::arrivals(&stepper.server).arrived;
    for (i, client) in stepper.clients.iter().enumerate() {
        let id = stepper.client_id(i);
        let got: Vec<_> = server_got.iter().filter(|a| a.from == id).collect();
        let counts = check(&Stepper::script(client).sent, &got, true);
        assert_loss_is_plausible(&counts);
    }
    for app in std::iter::once(&stepper.server).chain(&stepper.clients) {
        let errors = &app.world().resource::<common::Errors>().0;
        assert!(errors.is_empty(), "seed {seed}: {errors:?}");
    }
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
