//! The R-TYPE client's session (what `rtype client --connect ADDR --create arena --moves 20`
//! runs, with the example's 30 s deadline) over real loopback sockets, each side losing a
//! share of what it sends (hopnet's impairment on the instance's socket and on the
//! player's): against the instance written from the RFC alone (`common/seed_instance.rs`:
//! it applies every move it receives, numbers nothing, answers on its game loop's tick and
//! its bullets fly) at 0, 10 and 20 % loss, and against our own host; at 10 % loss, every one
//! of 10 seeds against each finishes.

mod common;

use std::net::SocketAddr;
use std::thread;
use std::time::{Duration, Instant};

use common::seed_instance::SeedHost;
use hopnet::Impairment;
use hopnet_protocols::rtype::{Entry, Host, HostConfig, SessionConfig, play};

const MOVES: usize = 20;
const DEADLINE: Duration = Duration::from_secs(30);

fn lossy(loss: f64, seed: u64) -> Option<Impairment> {
    (loss > 0.0).then(|| Impairment {
        loss,
        seed,
        ..Impairment::default()
    })
}

/// The example client's session against the lobby at `lobby`; an error says why it failed.
fn session(lobby: SocketAddr, loss: f64, seed: u64) -> Result<Duration, String> {
    let start = Instant::now();
    let config = SessionConfig {
        lobby,
        entry: Entry::Create("arena".into()),
        moves: MOVES,
        deadline: start + DEADLINE,
        impairment: lossy(loss, seed),
        extrapolation: Default::default(),
    };
    let summary = play(&config).map_err(|e| e.to_string())?;
    if summary.moves != MOVES {
        return Err(format!("{} of {MOVES} moves", summary.moves));
    }
    Ok(start.elapsed())
}

/// Sessions of `seeds` against a seed-style host each (or our host, if `ours`), at `loss`
/// both ways, all at once; the failures, by seed.
fn sessions(ours: bool, loss: f64, seeds: std::ops::Range<u64>) -> Vec<String> {
    let runs: Vec<_> = seeds
        .map(|seed| {
            thread::spawn(move || {
                let instance_loss = lossy(loss, 1000 + seed);
                let result = if ours {
                    let config = HostConfig {
                        impairment: instance_loss,
                    };
                    let host = Host::bind("127.0.0.1:0".parse().unwrap(), config).unwrap();
                    session(host.local_addr(), loss, seed)
                } else {
                    let host = SeedHost::start(instance_loss);
                    session(host.lobby, loss, seed)
                };
                (seed, result)
            })
        })
        .collect();
    runs.into_iter()
        .map(|t| t.join().unwrap())
        .filter_map(|(seed, r)| match r {
            Ok(took) => {
                eprintln!("ours {ours} loss {loss} seed {seed}: {took:?}");
                None
            }
            Err(e) => Some(format!("loss {loss} seed {seed}: {e}")),
        })
        .collect()
}

#[test]
fn against_the_seed_instance_at_10_percent_loss_in_every_seed() {
    let failed = sessions(false, 0.1, 0..10);
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn against_our_host_at_10_percent_loss_in_every_seed() {
    let failed = sessions(true, 0.1, 0..10);
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn against_the_seed_instance_without_loss_and_at_20_percent() {
    let mut failed = sessions(false, 0.0, 0..2);
    failed.extend(sessions(false, 0.2, 10..14));
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}
