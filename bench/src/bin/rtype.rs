//! R-TYPE on hopnet's engine (issue 28): moves per second and CPU per move over loopback UDP,
//! an instance and a player each under hopnet's blocking `Driver` on a thread of its own, at
//! 0 % and 5 % loss (hopnet's `Impairment` on both sockets).
//!
//! `cargo run --release --bin rtype [-- MOVES_AT_0 MOVES_AT_5]`
//!
//! A "message" is one move confirmed: the move out, the instance's SPRITE back, and whatever
//! the player needed to repair a loss (CHECK, the resync's SPRITEs, the move again). R-TYPE's
//! UDP has no window: a player sends its next move once the last one's SPRITE came, so the
//! rate is bound by the round trip, and under loss by the player's timeout (the round-trip
//! estimator's, bounded by `rtype::DEFAULT_RTO`) before it asks. CPU is the process's (both
//! threads) over the moves.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use hopnet::Driver;
use hopnet::Impairment;
use hopnet_protocols::rtype::{Instance, InstanceClient, Phase, moves};
use rustix::time::{ClockId, clock_gettime};

fn cpu() -> Duration {
    let t = clock_gettime(ClockId::ProcessCPUTime);
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

fn impairment(loss: f64, seed: u64) -> Option<Impairment> {
    (loss > 0.0).then(|| Impairment {
        loss,
        seed,
        ..Impairment::default()
    })
}

/// Plays `n` moves against a fresh instance; the wall time and the CPU time they took.
fn run(n: usize, loss: f64) -> (Duration, Duration) {
    let mut instance = Driver::bind("127.0.0.1:0", Instance::new(1)).expect("bind");
    instance.set_impairment(impairment(loss, 11));
    let server = instance.local_addr().expect("addr");
    let stop = Arc::new(AtomicBool::new(false));
    let serving = {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                instance
                    .poll(Duration::from_millis(5))
                    .expect("instance poll");
            }
        })
    };
    let client = InstanceClient::new(server, 1, moves(n), Instant::now());
    let mut player = Driver::bind("127.0.0.1:0", client).expect("bind");
    player.set_impairment(impairment(loss, 12));
    let (wall, cpu0) = (Instant::now(), cpu());
    while *player.machine().phase() == Phase::Connecting
        || *player.machine().phase() == Phase::Playing
    {
        player.poll(Duration::from_millis(5)).expect("player poll");
    }
    let took = (wall.elapsed(), cpu() - cpu0);
    assert_eq!(
        player.machine().moves_done(),
        n,
        "{:?}",
        player.machine().phase()
    );
    stop.store(true, Ordering::Relaxed);
    serving.join().expect("instance thread");
    took
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let counts = [
        args.first().copied().unwrap_or(20_000),
        args.get(1).copied().unwrap_or(2_000),
    ];
    println!("| loss | moves | moves per second | CPU per move |");
    println!("|---|---|---|---|");
    for (loss, n) in [(0.0, counts[0]), (0.05, counts[1])] {
        let (wall, cpu) = run(n, loss);
        println!(
            "| {:.0} % | {n} | {:.0} | {:.1} µs |",
            loss * 100.0,
            n as f64 / wall.as_secs_f64(),
            cpu.as_secs_f64() * 1e6 / n as f64
        );
    }
}
