//! cubes: Glenn Fiedler's 901-cube scene ("Snapshot Compression", "State Synchronization")
//! simulated in rapier3d and synced to clients over hopnet in its simulator; prints, as its
//! last line, the measures issue 40 defines, as one JSON object.
//!
//! ```text
//! cubes --clients C --seconds S --seed N [--hz H] [--loss P] [--rtt-ms R] [--budget-kbps K]
//! ```
//!
//! Defaults: 4 clients, 30 s, seed 1, 60 Hz, no loss, 50 ms round trip, no budget. Before the
//! last line, on standard error, the comparison rows: the same scene sent whole every tick.
//!
//! The cubes go over hopnet-sync's replication; with `CUBES_SYNC=local` in the environment,
//! over a scheme the game writes on hopnet's tracked messages alone (see `local.rs`).

mod compare;
mod counted;
mod local;
mod replicated;
mod run;
mod scene;
mod wire;

use std::process::ExitCode;

use run::{SchemeKind, Settings};

const USAGE: &str = "usage: cubes --clients C --seconds S --seed N [--hz H] [--loss P] \
                     [--rtt-ms R] [--budget-kbps K]";

/// The settings the arguments give, or what is wrong with them.
fn parse(args: impl Iterator<Item = String>) -> Result<Settings, String> {
    let mut s = Settings::default();
    // The game-side scheme instead of hopnet-sync's replication, for comparison; an
    // environment variable, so that the command line stays the issue's.
    if std::env::var("CUBES_SYNC").is_ok_and(|v| v == "local") {
        s.scheme = SchemeKind::Local;
    }
    let mut args = args;
    while let Some(flag) = args.next() {
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let bad = |e: &dyn std::fmt::Display| format!("{flag} {value}: {e}");
        match flag.as_str() {
            "--clients" => s.clients = value.parse().map_err(|e| bad(&e))?,
            "--seconds" => s.seconds = value.parse().map_err(|e| bad(&e))?,
            "--seed" => s.seed = value.parse().map_err(|e| bad(&e))?,
            "--hz" => s.hz = value.parse().map_err(|e| bad(&e))?,
            "--loss" => s.loss = value.parse().map_err(|e| bad(&e))?,
            "--rtt-ms" => s.rtt_ms = value.parse().map_err(|e| bad(&e))?,
            "--budget-kbps" => s.budget_kbps = Some(value.parse().map_err(|e| bad(&e))?),
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    Ok(s)
}

fn main() -> ExitCode {
    let settings = match parse(std::env::args().skip(1)) {
        Ok(s) => s,
        Err(why) => {
            eprintln!("cubes: {why}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run::run(&settings) {
        Ok((report, sizes)) => {
            for (row, kbps) in sizes.rows(settings.hz) {
                eprintln!("{row}: {kbps:.0} kbit/s of messages");
            }
            match serde_json::to_string(&report) {
                Ok(line) => {
                    println!("{line}");
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("cubes: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        Err(why) => {
            eprintln!("cubes: {why}");
            ExitCode::FAILURE
        }
    }
}
