//! The demo's report: how the round ended, what the link did, each player's numbers, the
//! server's counters and the snapshots' sizes.

use std::time::Duration;

use hopnet_snow_fight as wire;
use snow_fight::EndReason;

use crate::{Args, BotReport, ServerReport};

fn ms(d: Option<Duration>) -> String {
    d.map_or("-".into(), |d| {
        format!("{:.1} ms", d.as_secs_f64() * 1000.0)
    })
}

/// The bot's result for the round the report is about: the one whose `GameOver` has that
/// round's time.
fn round_result(server: &ServerReport, bot: &BotReport) -> Option<bool> {
    let (time, _) = server.round_end?;
    bot.result.filter(|r| r.time == time).map(|r| r.won)
}

/// Prints the report; `true` if the round finished and every bot saw its `GameOver`.
pub fn report(
    args: &Args,
    elapsed: Duration,
    server: &ServerReport,
    bots: &[BotReport],
    relay_forwarded: u64,
    relay_dropped: u64,
) -> bool {
    println!();
    println!("== Report ==");
    match server.round_end.map(|(_, o)| o) {
        Some(o) => {
            let why = match o.reason {
                EndReason::LastStanding => "last player standing",
                EndReason::TimeLimit => "time limit, healthiest player",
            };
            let winner = o
                .winner
                .map_or("nobody".to_string(), |w| format!("player {w}"));
            println!(
                "Round over at tick {} ({:.1} s of play): {winner} won ({why}). Demo took {:.1} s.",
                o.tick,
                o.tick as f64 / args.tick_rate as f64,
                elapsed.as_secs_f64()
            );
        }
        None => println!("No round finished within {} s.", args.timeout_secs),
    }
    let total = relay_forwarded + relay_dropped;
    println!(
        "Link: {:.1}% loss and {} ms delay each way; the relay dropped {relay_dropped} of {total} datagrams ({:.1}%).",
        args.loss * 100.0,
        args.delay_ms,
        if total == 0 {
            0.0
        } else {
            relay_dropped as f64 * 100.0 / total as f64
        }
    );
    println!();
    println!(
        "{:<7} {:>6} {:>7} {:>10} {:>10} {:>10} {:>10} {:>6} {:>12} {:>10} {:>10} {:>11} {:>8} {:>8} {:>8} {:>9}",
        "player",
        "result",
        "pings",
        "RTT p50",
        "RTT p99",
        "snapshots",
        "lost",
        "loss",
        "retx up/down",
        "bytes up",
        "bytes down",
        "corrections",
        "size p50",
        "size p99",
        "size max",
        "resent"
    );
    for b in bots {
        let player = b.player.map_or("-".to_string(), |p| p.to_string());
        let result = match round_result(server, b) {
            Some(true) => "won",
            Some(false) => "lost",
            // A result heard, but of another round than the one reported.
            None if b.result.is_some() => "other",
            None => "-",
        };
        let down_retx = b
            .player
            .and_then(|p| server.connections.iter().find(|(q, _)| *q == p))
            .map_or("-".to_string(), |(_, s)| s.retransmissions.to_string());
        let size = |q: f64| {
            b.view
                .size_quantile(q)
                .map_or("-".to_string(), |s| format!("{s:.3}"))
        };
        println!(
            "{:<7} {:>6} {:>7} {:>10} {:>10} {:>10} {:>10} {:>5.1}% {:>12} {:>10} {:>10} {:>11} {:>8} {:>8} {:>8} {:>9}",
            player,
            result,
            format!("{}/{}", b.stats.rtts.len(), b.stats.pings),
            ms(b.stats.rtt_quantile(0.5)),
            ms(b.stats.rtt_quantile(0.99)),
            b.stats.snapshots,
            b.stats.snapshots_lost,
            b.stats.loss() * 100.0,
            format!("{}/{}", b.conn.retransmissions, down_retx),
            b.conn.bytes_sent,
            b.conn.bytes_received,
            b.view.corrections,
            size(0.5),
            size(0.99),
            size(1.0),
            b.stats.moves_resent,
        );
    }
    if std::env::var_os("DEMO_DEBUG").is_some() {
        for b in bots {
            eprintln!("{:?}", b.conn);
        }
    }
    println!(
        "(corrections: snapshots that disagreed with where the client predicted its own player; sizes in world units, a player walks {:.3} a tick; resent: Moves sent again because the snapshots kept showing another direction for two round trips)",
        snow_fight::Config::for_tick_rate(args.tick_rate).player_speed
    );
    let s = &server.stats;
    println!();
    println!(
        "Server: {} ticks, {} snapshot events sent, {} messages in, {} out, {} refused.",
        s.ticks, s.snapshots_sent, s.messages_in, s.messages_out, s.refused
    );

    snapshot_sizes(server);
    let finished =
        server.round_end.is_some() && bots.iter().all(|b| round_result(server, b).is_some());
    if !finished {
        println!();
        println!("Not every bot saw GameOver before the time limit.");
    }
    finished
}

/// The same sampled snapshot events in three encodings: hopnet-codec's (what the server sent),
/// bincode's and JSON's.
fn snapshot_sizes(server: &ServerReport) {
    if server.samples.is_empty() {
        return;
    }
    let s = &server.stats;
    let n = server.samples.len() as f64;
    let entities: f64 = server
        .samples
        .iter()
        .map(|m| match m {
            wire::ServerMessage::Event(wire::Event {
                kind: wire::EventKind::Snapshot(s),
                ..
            }) => s.len() as f64,
            _ => 0.0,
        })
        .sum::<f64>()
        / n;
    let avg = |f: &dyn Fn(&wire::ServerMessage) -> usize| {
        server.samples.iter().map(|m| f(m) as f64).sum::<f64>() / n
    };
    let rabbit_size = avg(&|m| hopnet_codec::to_bytes(m).map_or(0, |b| b.len()));
    let bincode_size = avg(&|m| bincode::serialize(m).map_or(0, |b| b.len()));
    let json_size = avg(&|m| serde_json::to_vec(m).map_or(0, |b| b.len()));
    println!();
    println!(
        "Snapshot event size, average of {} samples ({:.1} entities each; all ticks: {:.1} bytes):",
        server.samples.len(),
        entities,
        if s.snapshots_encoded == 0 {
            0.0
        } else {
            s.snapshot_bytes as f64 / s.snapshots_encoded as f64
        }
    );
    let mut rows = vec![
        ("rabbit", rabbit_size),
        ("bincode", bincode_size),
        ("JSON", json_size),
    ];
    // Every snapshot event sent to the bots that asked for deltas, over the same play: deltas,
    // and the full snapshots they got while they had no acknowledged baseline.
    if s.delta_client_events > 0 {
        rows.push((
            "rabbit delta",
            s.delta_client_bytes as f64 / s.delta_client_events as f64,
        ));
    }
    for (name, size) in rows {
        println!(
            "  {:<13} {:>8.1} bytes  {:>6.1} bits/entity  {:>5.2}x rabbit",
            name,
            size,
            size * 8.0 / entities.max(1.0),
            size / rabbit_size.max(1.0)
        );
    }
    if s.delta_client_events > 0 {
        println!(
            "  (rabbit delta: {} events to delta clients, {} of them deltas, the others full; {} requests for deltas)",
            s.delta_client_events, s.deltas_sent, s.delta_requests
        );
    }
}
