//! `cargo run --release -p bench -- codec|transport [--json FILE] [options]`
//!
//! Prints a Markdown table per suite (with the machine it ran on) and, with `--json FILE`,
//! writes the rows as a JSON list.

use std::time::Duration;

use bench::report::{Row, fill_ratios, json, machine, shares, table};
use bench::{codec, transport};

const USAGE: &str = "usage: bench (codec | transport | all) [--json FILE] [--rounds N] \
[--batch-us N] [--only PEER,PEER] [--quick] [--no-pin]

  codec      the 1000-entity snapshot: rabbit, the hand-written limit, bitcode, bincode,
             postcard, deku (size, encode, decode)
  transport  loopback UDP: hopnet, laminar, renet, quinn, TCP, and udp-floor, bare UDP
             with hopnet's copies and CRC-32, what the machine allows (reliable 1 KiB /
             64 KiB at 0 % and 5 % loss, unreliable 100-byte echo RTT); tick-10x100 (60 Hz game
             traffic in wire bytes: hopnet, hopnet-spec, renet, laminar, quinn);
             fanout-1000 (hopnet server CPU for 30 Hz snapshots to 1,000 clients)
  --json     also write the rows as JSON (with each row's note)
  --rounds   interleaved rounds (codec default 300, transport default 3)
  --batch-us codec: target duration of one timed batch (default 1000)
  --only     only these peers (rabbit, limit, hopnet and udp-floor always run: the
             references)
  --quick    a short smoke run
  --no-pin   transport: leave the threads where the scheduler puts them (by default every
             peer's client runs on core 0 and its server on core 1)";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut suite = None;
    let mut json_path = None;
    let mut rounds = None;
    let mut batch_us = 1000u64;
    let mut only = Vec::new();
    let mut quick = false;
    let mut pin = true;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "codec" | "transport" | "all" => suite = Some(a.clone()),
            "--json" => json_path = it.next().cloned(),
            "--rounds" => rounds = it.next().and_then(|v| v.parse().ok()),
            "--batch-us" => batch_us = it.next().and_then(|v| v.parse().ok()).unwrap_or(1000),
            "--only" => {
                only = it
                    .next()
                    .map(|v| v.split(',').map(str::to_string).collect())
                    .unwrap_or_default()
            }
            "--quick" => quick = true,
            "--no-pin" => pin = false,
            "-h" | "--help" => {
                println!("{USAGE}");
                return;
            }
            other => {
                eprintln!("unknown argument {other:?}\n{USAGE}");
                std::process::exit(2);
            }
        }
    }
    let Some(suite) = suite else {
        eprintln!("{USAGE}");
        std::process::exit(2);
    };
    println!("machine: {}", machine());
    let mut all: Vec<Row> = Vec::new();
    if suite == "codec" || suite == "all" {
        let opts = codec::Options {
            rounds: rounds.unwrap_or(if quick { 20 } else { 300 }),
            batch: Duration::from_micros(if quick { 200 } else { batch_us }),
            only: only.clone(),
        };
        println!(
            "\n## codec: {}-entity snapshot, median of {} interleaved rounds\n",
            codec::ENTITIES,
            opts.rounds
        );
        let mut rows = codec::run(&opts);
        fill_ratios(&mut rows, "rabbit");
        print!("{}", table(&rows, "rabbit"));
        all.extend(rows);
    }
    if suite == "transport" || suite == "all" {
        let opts = transport::Options {
            rounds: rounds.unwrap_or(if quick { 1 } else { 3 }),
            quick,
            only: only.clone(),
            pin,
        };
        println!(
            "\n## transport: loopback UDP, median of {} interleaved rounds, {}\n",
            opts.rounds,
            if pin {
                "each peer's client on core 0 and server on core 1"
            } else {
                "threads unpinned"
            }
        );
        let mut rows = transport::run(&opts);
        fill_ratios(&mut rows, "hopnet");
        print!("{}", table(&rows, "hopnet"));
        if let Some(shares) = shares(&rows, transport::FLOOR) {
            println!(
                "\nEach peer's speed as a share of {floor}'s, what the machine allows \
                 ({floor}'s time over the peer's; for throughput, the peer's rate over the \
                 floor's):\n",
                floor = transport::FLOOR
            );
            print!("{shares}");
        }
        all.extend(rows);
    }
    println!("\nmachine after the run: {}", machine());
    if let Some(path) = json_path {
        if let Err(e) = std::fs::write(&path, json(&all)) {
            eprintln!("cannot write {path}: {e}");
            std::process::exit(1);
        }
        println!("wrote {path}");
    }
}
