//! `cargo run --release --bin secure-transport -- [--rounds N] [--quick] [--json FILE] [--no-pin]
//! [--only PEER,PEER] [--no-fanout]`
//!
//! Secure mode side by side, in one run, over loopback UDP with the suite's harness
//! (`bench::transport`: its threads, pinning, relay, payloads and timing):
//!
//! - reliable 1 KiB and 64 KiB, one way, at 0 % and 5 % loss: `hopnet-secure` (hopnet over
//!   netcode 1.02), `hopnet` (the same, plain), `renet-secure` (renet with its netcode
//!   transport, secure authentication), `renet` (unsecure authentication, as in the suite),
//!   and at 0 % `netcode-official` carrying the same payloads unreliably (the cost of netcode
//!   alone: see `netcode_peer`);
//! - `rtt`: unreliable 100-byte echo, one in flight;
//! - `fanout-1000`: a server sending 300-byte snapshots to 1,000 clients at 30 Hz, in server CPU
//!   time per second, plain and secure.
//!
//! Prints a Markdown table with every row's ratio to `hopnet-secure`'s on the same case; then
//! the cipher's floor, both crates alternating in this process (`bench::cipher`: seal and open
//! of 1,219-, 340- and 64-byte datagrams, RustCrypto's and `ring`'s); then the ratios:
//! hopnet's secure throughput over its plain throughput, over the cipher-bound rate
//! `1 / (1/plain + 1/open)` (`open` being ring's rate at 1,219-byte datagrams, counted in the
//! 1,200 payload bytes each carries), and over renet's secure throughput.
//! `SECURE_BENCH_STATS=1` also prints, per `hopnet-secure` reliable run, the client's
//! retransmissions, smoothed RTT and netcode drops (to tell a CPU-bound run from a lossy one).

mod fanout_secure;
mod hopnet_secure;
mod netcode_peer;
mod renet_secure;

use std::time::Duration;

use bench::cipher::{Crate, SIZES, measure};
use bench::report::{Row, failures, fill_ratios, json, machine, median, quantile, table};
use bench::transport::fanout::FanoutPlan;
use bench::transport::fanout_run::run_once;
use bench::transport::{Outcome, Params, RttParams, hopnet_peer, pin_as_the_suite, renet_peer};

type ReliableFn = fn(&Params) -> Result<Outcome, String>;
type RttFn = fn(&RttParams) -> Result<Vec<f64>, String>;

struct Peer {
    name: &'static str,
    reliable: ReliableFn,
    rtt: Option<RttFn>,
    cannot: fn(&Params) -> Option<&'static str>,
}

fn peers() -> Vec<Peer> {
    vec![
        Peer {
            name: "hopnet-secure",
            reliable: hopnet_secure::reliable,
            rtt: Some(hopnet_secure::rtt),
            cannot: |_| None,
        },
        Peer {
            name: "hopnet",
            reliable: hopnet_peer::reliable,
            rtt: Some(hopnet_peer::rtt),
            cannot: |_| None,
        },
        Peer {
            name: "renet-secure",
            reliable: renet_secure::reliable,
            rtt: Some(renet_secure::rtt),
            cannot: |_| None,
        },
        Peer {
            name: "renet",
            reliable: renet_peer::reliable,
            rtt: Some(renet_peer::rtt),
            cannot: |_| None,
        },
        Peer {
            name: "netcode-official",
            reliable: netcode_peer::unreliable,
            rtt: None,
            cannot: netcode_peer::cannot,
        },
    ]
}

struct Cell {
    peer: &'static str,
    case: String,
    size: usize,
    samples: Vec<f64>,
    mbs: Vec<f64>,
    incomplete: Vec<String>,
    errors: Vec<String>,
    skip: Option<&'static str>,
}

fn main() {
    let mut rounds = 3;
    let mut quick = false;
    let mut json_path = None;
    let mut pin = true;
    let mut only: Vec<String> = Vec::new();
    let mut fanout = true;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--rounds" => rounds = args.next().and_then(|v| v.parse().ok()).unwrap_or(3),
            "--quick" => quick = true,
            "--no-fanout" => fanout = false,
            "--json" => json_path = args.next(),
            "--no-pin" => pin = false,
            "--only" => {
                only = args
                    .next()
                    .map(|v| v.split(',').map(str::to_string).collect())
                    .unwrap_or_default()
            }
            other => {
                eprintln!("unknown argument {other:?}");
                std::process::exit(2);
            }
        }
    }
    println!("machine: {}", machine());
    if pin {
        pin_as_the_suite();
    }
    let scale = if quick { 10 } else { 1 };
    let deadline = Duration::from_secs(if quick { 2 } else { 5 });
    let cases: Vec<(String, Params)> = [(1024usize, 20_000u64, "1k"), (65536, 320, "64k")]
        .into_iter()
        .flat_map(|(size, count, label)| {
            [0.0, 0.05].into_iter().map(move |loss| {
                let name = if loss > 0.0 {
                    format!("reliable-{label}-loss5")
                } else {
                    format!("reliable-{label}")
                };
                let p = Params {
                    size,
                    count: count / scale,
                    loss,
                    seed: 0x5eed,
                    deadline,
                };
                (name, p)
            })
        })
        .collect();
    let rtt = RttParams {
        count: 2000 / scale,
        size: 100,
        timeout: Duration::from_millis(200),
        deadline: Duration::from_secs(10),
    };
    let peers: Vec<Peer> = peers()
        .into_iter()
        .filter(|p| only.is_empty() || only.iter().any(|o| o == p.name))
        .collect();
    let mut cells: Vec<Cell> = Vec::new();
    for (case, p) in &cases {
        for peer in &peers {
            cells.push(Cell {
                peer: peer.name,
                case: case.clone(),
                size: p.size,
                samples: Vec::new(),
                mbs: Vec::new(),
                incomplete: Vec::new(),
                errors: Vec::new(),
                skip: (peer.cannot)(p),
            });
        }
    }
    let mut rtts: Vec<(Vec<f64>, u64, Vec<String>)> =
        vec![(Vec::new(), 0, Vec::new()); peers.len()];
    let plan = FanoutPlan::thirty_hz(if quick { 2 } else { 10 });
    let mut fanout_plain: (Vec<f64>, Vec<String>, Vec<String>) = Default::default();
    let mut fanout_secure: (Vec<f64>, Vec<String>, Vec<String>) = Default::default();

    for round in 0..rounds {
        for (ci, (case, p)) in cases.iter().enumerate() {
            for k in 0..peers.len() {
                let pi = (k + round) % peers.len();
                let cell = &mut cells[ci * peers.len() + pi];
                if cell.skip.is_some() {
                    continue;
                }
                eprint!("round {} {case} {} ... ", round + 1, peers[pi].name);
                match (peers[pi].reliable)(p) {
                    Ok(o) if o.delivered > 0 => {
                        let secs = o.elapsed.as_secs_f64();
                        let mbs = o.delivered as f64 * p.size as f64 / secs / 1e6;
                        eprintln!("{mbs:.1} MB/s ({}/{})", o.delivered, o.wanted);
                        if o.delivered < o.wanted {
                            cell.incomplete
                                .push(format!("{}/{}", o.delivered, o.wanted));
                        }
                        cell.samples
                            .push(o.elapsed.as_nanos() as f64 / o.delivered as f64);
                        cell.mbs.push(mbs);
                    }
                    Ok(o) => {
                        eprintln!("nothing delivered");
                        cell.errors
                            .push(format!("nothing delivered of {}", o.wanted));
                    }
                    Err(e) => {
                        eprintln!("error: {e}");
                        cell.errors.push(e);
                    }
                }
            }
        }
        for k in 0..peers.len() {
            let pi = (k + round) % peers.len();
            let Some(f) = peers[pi].rtt else { continue };
            eprint!("round {} rtt {} ... ", round + 1, peers[pi].name);
            match f(&rtt) {
                Ok(s) => {
                    let mut c = s.clone();
                    eprintln!("p50 {:.1} µs", median(&mut c).unwrap_or(0.0) / 1e3);
                    rtts[pi].1 += rtt.count - s.len() as u64;
                    rtts[pi].0.extend(s);
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    rtts[pi].2.push(e);
                }
            }
        }
        let secure_first = round % 2 == 0;
        for secure in [secure_first, !secure_first] {
            if !fanout {
                break;
            }
            eprint!(
                "round {} fanout-1000 {} ... ",
                round + 1,
                if secure { "hopnet-secure" } else { "hopnet" }
            );
            let result: Result<(f64, String), String> = if secure {
                fanout_secure::run_once(&plan).map(|o| {
                    (
                        o.cpu_per_second(),
                        format!(
                            "{}/{} arrived, {} clients, {} late ticks, {} failures, {:.0} datagrams received a second",
                            o.arrived,
                            o.expected,
                            o.clients,
                            o.late,
                            o.failures,
                            o.received as f64 / o.wall.as_secs_f64().max(1e-9)
                        ),
                    )
                })
            } else {
                run_once(&plan).map(|o| {
                    (
                        o.cpu_per_second(),
                        format!(
                            "{}/{} arrived, {} clients, {} left queued",
                            o.arrived, o.expected, o.clients, o.server.left
                        ),
                    )
                })
            };
            let slot = if secure {
                &mut fanout_secure
            } else {
                &mut fanout_plain
            };
            match result {
                Ok((cpu, note)) => {
                    eprintln!("server CPU {:.1} % of a core; {note}", cpu / 1e7);
                    slot.0.push(cpu);
                    slot.1.push(note);
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    slot.2.push(e);
                }
            }
        }
    }

    let mut rows = Vec::new();
    for cell in cells {
        let mut notes = Vec::new();
        if let Some(why) = cell.skip {
            notes.push(why.to_string());
        }
        let mut mbs = cell.mbs.clone();
        if let Some(m) = median(&mut mbs) {
            notes.push(format!("{m:.1} MB/s"));
        }
        if !cell.incomplete.is_empty() {
            notes.push(format!("incomplete: {}", cell.incomplete.join(", ")));
        }
        notes.extend(failures(&cell.errors, rounds));
        let mut s = cell.samples.clone();
        rows.push(Row {
            suite: "transport",
            peer: cell.peer.to_string(),
            case: cell.case,
            median_ns: median(&mut s),
            bytes: Some(cell.size as u64),
            ratio: None,
            note: notes.join("; "),
            bytes_ratio: false,
        });
    }
    for (pi, (samples, lost, errors)) in rtts.into_iter().enumerate() {
        if peers[pi].rtt.is_none() {
            continue;
        }
        let mut s = samples.clone();
        let mut notes = vec![format!(
            "p99 {:.1} µs, {lost} lost",
            quantile(&mut s, 0.99).unwrap_or(0.0) / 1e3
        )];
        notes.extend(failures(&errors, rounds));
        rows.push(Row {
            suite: "transport",
            peer: peers[pi].name.to_string(),
            case: "rtt".into(),
            median_ns: median(&mut s),
            bytes: Some(rtt.size as u64),
            ratio: None,
            note: notes.join("; "),
            bytes_ratio: false,
        });
    }
    for (name, (cpu, notes, errors)) in [("hopnet-secure", fanout_secure), ("hopnet", fanout_plain)]
    {
        let mut c = cpu.clone();
        let med = median(&mut c);
        let mut note = vec![format!(
            "server CPU {} of a core; rounds: {}",
            med.map_or("—".into(), |m| format!("{:.1} %", m / 1e7)),
            notes.join(" | ")
        )];
        note.extend(failures(&errors, rounds));
        rows.push(Row {
            suite: "transport",
            peer: name.to_string(),
            case: "fanout-1000".into(),
            median_ns: med,
            bytes: Some(plan.size as u64),
            ratio: None,
            note: note.join("; "),
            bytes_ratio: false,
        });
    }
    fill_ratios(&mut rows, "hopnet-secure");
    println!("\n## secure mode, median of {rounds} interleaved rounds\n");
    print!("{}", table(&rows, "hopnet-secure"));
    eprintln!("the cipher floor, both crates ...");
    let floors = measure(&SIZES, if quick { 20_000 } else { 100_000 }, rounds.max(3));
    println!(
        "\n## ChaCha20-Poly1305 on one core, no protocol (median of {} alternating rounds)\n",
        rounds.max(3)
    );
    print!("{}", bench::cipher::table(&floors));
    // Payload bytes a second that ring opens in full datagrams: the most one direction moves.
    let open_payload_mbs = floors
        .iter()
        .find(|f| f.size == 1219)
        .map(|f| f.open_mbs(Crate::Ring) * 1200.0 / 1219.0);
    println!("\nThe issue's ratios (throughput is the inverse of the time per message):\n");
    for case in rows
        .iter()
        .filter(|r| r.case.starts_with("reliable"))
        .map(|r| r.case.clone())
        .collect::<std::collections::BTreeSet<_>>()
    {
        let time = |peer: &str| {
            rows.iter()
                .find(|r| r.case == case && r.peer == peer)
                .and_then(|r| r.median_ns)
        };
        if let (Some(secure), Some(plain)) = (time("hopnet-secure"), time("hopnet")) {
            let size = rows
                .iter()
                .find(|r| r.case == case)
                .and_then(|r| r.bytes)
                .unwrap_or(0) as f64;
            let bound = open_payload_mbs.map_or(String::new(), |open| {
                let plain_mbs = size / plain * 1e3;
                let bound = 1.0 / (1.0 / plain_mbs + 1.0 / open);
                format!(
                    "; secure / cipher-bound rate ({bound:.0} MB/s) {:.2} (goal ≥ 0.8)",
                    size / secure * 1e3 / bound
                )
            });
            let renet = time("renet-secure").map_or(String::new(), |renet| {
                format!(
                    "; hopnet secure / renet secure {:.2} (goal > 1)",
                    renet / secure
                )
            });
            println!(
                "- {case}: hopnet secure / plain throughput {:.2} (goal ≥ 0.45){bound}{renet}",
                plain / secure
            );
        }
    }
    if let Some(json_path) = json_path
        && let Err(e) = std::fs::write(&json_path, json(&rows))
    {
        eprintln!("{json_path}: {e}");
    }
}
