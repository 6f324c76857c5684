//! R-TYPE's client against an instance written from the RFC alone (`common/seed_instance.rs`):
//! it applies every move it receives and numbers nothing, answers on its game loop's tick,
//! and its bullets fly. The client plays the RFC's way (section 2.3: moves sent as they are,
//! its ship's position predicted and corrected by the SPRITEs, CHECK to resync) and finishes
//! at 0, 10 and 20 % loss both ways in the simulator over many seeds, with the ship where its
//! moves lead.

mod common;

use std::time::Duration;

use common::lossy_link;
use common::seed_instance::SeedInstance;
use common::walked;
use hopnet::sim::{LinkConfig, SimNetwork};
use hopnet_protocols::rtype::{InstanceClient, Phase, moves};

const INSTANCE_ID: u32 = 3;
const MOVES: usize = 20;

/// One player of [`MOVES`] moves against the seed instance over `link`; the error says what
/// went wrong.
fn play(seed: u64, link: LinkConfig) -> Result<(), String> {
    let mut net: SimNetwork<SeedInstance, InstanceClient> =
        SimNetwork::with_machines(seed, SeedInstance::new(INSTANCE_ID), link);
    let client = InstanceClient::new(net.server_addr(), INSTANCE_ID, moves(MOVES), net.now());
    let c = net.add_client_machine(client);
    // Where the instance has the ship when the client is done (its QUITs not yet sent).
    let mut at_end = None;
    let done = net.run_until(Duration::from_secs(30), |net| {
        let done = *net.client(c).phase() == Phase::Done;
        if done {
            let addr = net.client_addr(c);
            at_end = net.server().ship(addr).map(|(_, at)| at);
        }
        done
    });
    let client = net.client(c);
    if !done {
        return Err(format!(
            "not done in 30 s: {:?}, {} of {MOVES} moves, {:?}",
            client.phase(),
            client.moves_done(),
            client.stats()
        ));
    }
    let (spawn, seen) = client.position().ok_or("no position")?;
    let wanted = (spawn.0 + walked(MOVES).0, spawn.1 + walked(MOVES).1);
    if seen != wanted || at_end != Some(wanted) {
        return Err(format!(
            "the ship: the client saw it at {seen:?}, the instance had it at {at_end:?}, the moves lead to {wanted:?}"
        ));
    }
    Ok(())
}

fn every_seed(link: LinkConfig, seeds: std::ops::Range<u64>) {
    let failed: Vec<String> = seeds
        .filter_map(|seed| {
            play(seed, link.clone())
                .err()
                .map(|e| format!("seed {seed}: {e}"))
        })
        .collect();
    assert!(failed.is_empty(), "{link:?}:\n{}", failed.join("\n"));
}

#[test]
fn without_loss() {
    every_seed(lossy_link(0.0), 0..20);
}

#[test]
fn at_10_percent_loss() {
    every_seed(lossy_link(0.1), 0..50);
}

#[test]
fn at_20_percent_loss() {
    every_seed(lossy_link(0.2), 0..50);
}

#[test]
fn at_20_percent_loss_with_duplication_and_reordering() {
    // A duplicated move moves the ship twice here: the client sees it and steers back.
    every_seed(common::bad_link(), 0..50);
}
