//! R-TYPE's instance and players in hopnet's simulator: 20 % loss, duplication and
//! reordering both ways, several players at once, many seeds. Every player's moves are played
//! (its moves carry no number, so a duplicated one moves the ship twice and the player steers
//! back), and the instance's world agrees with what each player saw.

use std::time::Duration;

mod common;
use common::walked;

use hopnet::Machine;
use hopnet::sim::{LinkConfig, SimNetwork};
use hopnet_protocols::rtype::{
    Instance, InstanceClient, MAX_ENTITIES, PLAYER_TIMEOUT, Phase, moves,
};

const INSTANCE_ID: u32 = 7;

fn bad_link() -> LinkConfig {
    LinkConfig {
        loss: 0.2,
        duplicate: 0.1,
        reorder: 0.2,
        reorder_delay: Duration::from_millis(30),
        jitter: Duration::from_millis(5),
        ..LinkConfig::default()
    }
}

struct Outcome {
    resyncs: u64,
    repeats: u64,
    checks: u64,
}

/// Runs `players` players of `n` moves each on one instance; panics if any fails.
fn run(seed: u64, players: usize, n: usize) -> Outcome {
    let mut net: SimNetwork<Instance, InstanceClient> =
        SimNetwork::with_machines(seed, Instance::new(INSTANCE_ID), bad_link());
    for _ in 0..players {
        let client = InstanceClient::new(net.server_addr(), INSTANCE_ID, moves(n), net.now());
        net.add_client_machine(client);
    }
    let mut agreed = vec![false; players];
    let all_done = net.run_until(Duration::from_secs(60), |net| {
        for (i, agreed) in agreed.iter_mut().enumerate() {
            if *net.client(i).phase() == Phase::Done && !*agreed {
                // Every move played and the ship's position checked by a resync after a quiet
                // wait (its QUITs not yet sent): the instance has the ship where the player saw
                // it, even if a duplicated move landed on the way.
                let c = net.client(i);
                let (player, (spawn, at)) = (c.player().unwrap(), c.position().unwrap());
                let e = net.server().world().entities()[&player];
                assert_eq!((e.x, e.y), at, "seed {seed}: player {i}");
                assert_eq!((at.0 - spawn.0, at.1 - spawn.1), walked(n), "seed {seed}");
                *agreed = true;
            }
            assert!(net.server().world().entities().len() <= MAX_ENTITIES);
            assert!(net.server().player_count() <= 4);
        }
        (0..players).all(|i| *net.client(i).phase() == Phase::Done)
    });
    for i in 0..players {
        let c = net.client(i);
        assert_eq!(
            c.moves_done(),
            n,
            "seed {seed}: player {i}: {:?}",
            c.phase()
        );
    }
    assert!(all_done, "seed {seed}");
    assert!(agreed.iter().all(|&a| a), "seed {seed}");
    // Every player has quit (or, if all three of its QUITs were lost, timed out).
    net.step(PLAYER_TIMEOUT + Duration::from_secs(1));
    assert_eq!(net.server().player_count(), 0, "seed {seed}");
    assert!(net.server().world().entities().is_empty(), "seed {seed}");
    let mut out = Outcome {
        resyncs: 0,
        repeats: 0,
        checks: 0,
    };
    for i in 0..players {
        let s = net.client(i).stats().clone();
        out.resyncs += s.resyncs;
        out.repeats += s.moves_sent.saturating_sub(n as u64);
        out.checks += s.checks;
    }
    // Nothing left to do: the instance has no timer running.
    assert_eq!(net.server().poll_timeout(), None, "seed {seed}");
    out
}

#[test]
fn players_survive_loss_duplication_and_reordering() {
    let (mut resyncs, mut repeats, mut checks) = (0, 0, 0);
    for seed in 0..100 {
        let out = run(seed, 3, 30);
        resyncs += out.resyncs;
        repeats += out.repeats;
        checks += out.checks;
    }
    // The loss was felt and survived through the RFC's own means: resyncs that CHECK asked
    // for, moves sent again after a resync showed them lost, and CHECK counts received.
    assert!(resyncs > 1000, "{resyncs}");
    assert!(repeats > 100, "{repeats}");
    // A player quits only once a CHECK count agreed with it: at least one each.
    assert!(checks >= 300, "{checks}");
}

#[test]
fn a_full_instance_refuses_the_fifth_player() {
    let mut net: SimNetwork<Instance, InstanceClient> =
        SimNetwork::with_machines(3, Instance::new(INSTANCE_ID), bad_link());
    for _ in 0..5 {
        let client = InstanceClient::new(net.server_addr(), INSTANCE_ID, moves(200), net.now());
        net.add_client_machine(client);
    }
    let settled = net.run_until(Duration::from_secs(30), |net| {
        (0..5).all(|i| *net.client(i).phase() != Phase::Connecting)
    });
    assert!(settled);
    let refused: Vec<usize> = (0..5)
        .filter(|&i| *net.client(i).phase() == Phase::Failed("full".into()))
        .collect();
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert_eq!(net.server().player_count(), 4);
}

#[test]
fn a_wrong_instance_id_is_refused() {
    let mut net: SimNetwork<Instance, InstanceClient> =
        SimNetwork::with_machines(4, Instance::new(INSTANCE_ID), bad_link());
    let client = InstanceClient::new(net.server_addr(), INSTANCE_ID + 1, moves(5), net.now());
    let i = net.add_client_machine(client);
    assert!(net.run_until(Duration::from_secs(30), |net| {
        *net.client(i).phase() != Phase::Connecting
    }));
    assert_eq!(*net.client(i).phase(), Phase::Failed("unknown".into()));
    assert_eq!(net.server().player_count(), 0);
}
