//! The whole stack in one command: a game server and bots in one process, talking over real
//! loopback UDP through a lossy relay, playing one round to `GameOver`, then a report.
//!
//! It runs in secure mode (hopnet over netcode 1.02, PROTOCOL.md "Secure mode"), as a game on
//! the open internet would: the demo plays the backend too, making a private key and issuing
//! each bot a connect token that names the relay (the address the bots send to) and, inside,
//! the server. `--plain` runs on the spec's plain wire instead.
//!
//! ```text
//! cargo run --release --example demo
//! cargo run --release --example demo -- --loss 0.2 --delay-ms 50 --bots 6
//! cargo run --release --example demo -- --plain
//! cargo run --release --example demo -- --report demo-report.html
//! ```
//!
//! It is bounded: whatever happens, it stops after `--timeout-secs` (60 by default) and reports
//! what it saw. Logs go to stderr (`RUST_LOG=info` for more).
#[path = "../common/mod.rs"]
mod common;
mod html_report;
mod report;

use std::collections::HashMap;
use std::io::{IsTerminal, Write};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant, SystemTime};

use clap::Parser;
use hopnet::Impairment;
use hopnet::relay::Relay;
use hopnet::secure::{ConnectToken, ConnectTokenBuilder, DropReason, Key, NetcodeStats};
use hopnet::{Client, Server};
use hopnet::{Stats, StatsSample, StatsSeries};
use hopnet_snow_fight as wire;
use snow_fight::net::{UdpServer, play_bot_on};
use snow_fight::session::{
    BotPlayer, ClientStats, GameServer, RoundResult, ServerConfig, ServerStats, ViewStats,
};
use snow_fight::{Config, Outcome, PlayerId};

use crate::report::report;

#[derive(Parser, Debug)]
#[command(
    about = "A server and bots over loopback UDP through a lossy link: one round, then a report"
)]
struct Args {
    /// Probability that the link drops a datagram (each direction).
    #[arg(long, default_value_t = 0.05)]
    loss: f64,
    /// One-way delay the link adds, in milliseconds.
    #[arg(long, default_value_t = 20)]
    delay_ms: u64,
    /// Number of bots.
    #[arg(long, default_value_t = 4)]
    bots: usize,
    /// Server ticks per second.
    #[arg(long, default_value_t = 60)]
    tick_rate: u32,
    /// World seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Longest a round may last, in seconds (then the healthiest player wins).
    #[arg(long, default_value_t = 40)]
    round_secs: u32,
    /// Hard bound on the whole demo, in seconds.
    #[arg(long, default_value_t = 60)]
    timeout_secs: u64,
    /// Bots that ask for snapshots as deltas (default: half of them, the odd ones full).
    #[arg(long)]
    delta_bots: Option<usize>,
    /// Snapshots a second (default: one every tick).
    #[arg(long)]
    snapshot_rate: Option<u32>,
    /// Run on the spec's plain wire instead of secure mode (netcode 1.02).
    #[arg(long)]
    plain: bool,
    /// Also write an HTML page (self-contained, inline SVG) that plots each bot's RTT, bytes
    /// per second, losses and retransmissions over time. Off by default.
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
}

/// The demo's netcode protocol id ("snowfite").
const PROTOCOL_ID: u64 = 0x736e_6f77_6669_7465;

/// How a bot connects: to the relay on the plain wire, or with its connect token.
enum Connect {
    Plain(SocketAddr),
    Secure(ConnectToken),
}

/// What the server thread shows the progress line.
#[derive(Default, Clone)]
struct Progress {
    round_tick: u32,
    alive: usize,
    players: usize,
    messages: u64,
    retransmissions: u64,
    outcome: Option<Outcome>,
}

/// What the server thread hands back.
struct ServerReport {
    stats: ServerStats,
    samples: Vec<wire::ServerMessage>,
    /// Per player: the server's side of its connection.
    connections: Vec<(PlayerId, Stats)>,
    /// The first round's end: the `time` of its `GameOver`, and how it ended.
    round_end: Option<(u32, Outcome)>,
    /// The netcode layer's counters, in secure mode.
    netcode: Option<NetcodeStats>,
}

/// What a bot thread hands back.
struct BotReport {
    player: Option<PlayerId>,
    stats: ClientStats,
    /// Its view's prediction: corrections and their sizes.
    view: ViewStats,
    conn: Stats,
    /// The first round result the bot heard.
    result: Option<RoundResult>,
    /// Its connection's statistics, sampled every 100 ms.
    series: Vec<StatsSample>,
}

fn main() {
    let args = Args::parse();
    common::init_logging("warn");
    let ok = run(&args);
    std::process::exit(if ok { 0 } else { 1 });
}

fn run(args: &Args) -> bool {
    let start = Instant::now();
    let deadline = start + Duration::from_secs(args.timeout_secs);
    let bots = args.bots.max(1);
    let game = Config {
        min_players: bots.max(2),
        max_ticks: args.round_secs.max(1) * args.tick_rate.max(1),
        ..Config::for_tick_rate(args.tick_rate)
    };
    let stop = Arc::new(AtomicBool::new(false));
    let progress = Arc::new(Mutex::new(Progress::default()));

    let server_config = ServerConfig {
        seed: args.seed,
        max_players: bots.max(2),
        game: game.clone(),
        sample_every: 15,
        snapshot_rate: args.snapshot_rate,
        ..ServerConfig::default()
    };
    let local: SocketAddr = "127.0.0.1:0".parse().expect("valid address");
    // The backend's private key, shared with the server; it issues the bots' tokens below.
    let key = Key::generate();
    let transport = if args.plain {
        Server::bind(local, hopnet::Config::default())
    } else {
        Server::bind_secure(local, hopnet::Config::default(), PROTOCOL_ID, key.clone())
    };
    let mut server = match transport {
        Ok(s) => UdpServer::with_server(s, GameServer::new(server_config), args.tick_rate),
        Err(e) => {
            eprintln!("cannot bind the server socket: {e}");
            return false;
        }
    };
    let server_addr = server.local_addr().expect("bound");
    let impairment = Impairment {
        loss: args.loss,
        delay: Duration::from_millis(args.delay_ms),
        seed: args.seed,
        ..Impairment::default()
    };
    let relay = match Relay::spawn(local, server_addr, impairment) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("cannot start the relay: {e}");
            return false;
        }
    };
    println!(
        "demo: {} server on {server_addr}, {bots} bots ({} asking for deltas) through a lossy relay on {} ({:.1}% loss, {} ms delay each way), {} Hz, {} snapshots a second",
        if args.plain {
            "plain"
        } else {
            "secure (netcode 1.02)"
        },
        args.delta_bots.unwrap_or(bots.div_ceil(2)).min(bots),
        relay.local_addr(),
        args.loss * 100.0,
        args.delay_ms,
        args.tick_rate,
        args.snapshot_rate
            .unwrap_or(args.tick_rate)
            .min(args.tick_rate),
    );

    let server_thread = {
        let (stop, progress) = (stop.clone(), progress.clone());
        thread::spawn(move || {
            // The server's side of each player's connection, kept after it closes.
            let mut conn_stats: HashMap<PlayerId, Stats> = HashMap::new();
            let result = server.run(|s| {
                for (c, player) in s.game.connections() {
                    if let (Some(player), Some(st)) = (player, s.machine().stats(c)) {
                        conn_stats.insert(player, st);
                    }
                }
                let mut p = progress.lock().expect("progress lock");
                if p.outcome.is_none() {
                    p.round_tick = s.game.world().tick();
                    p.alive = s.game.alive();
                    p.players = s.game.players();
                    p.outcome = s.game.outcomes().first().copied();
                    if let Some(o) = p.outcome {
                        p.round_tick = o.tick;
                        p.alive = usize::from(o.winner.is_some());
                    }
                }
                p.messages = s.game.stats().messages_in + s.game.stats().messages_out;
                p.retransmissions = conn_stats.values().map(|st| st.retransmissions).sum();
                stop.load(Ordering::Relaxed)
            });
            if let Err(e) = result {
                eprintln!("server stopped: {e}");
            }
            let connections = conn_stats.into_iter().collect();
            let netcode = server.server.secure().map(|s| s.netcode_stats().clone());
            ServerReport {
                netcode,
                stats: server.game.stats().clone(),
                samples: server.game.samples().to_vec(),
                connections,
                round_end: server.game.round_ends().next(),
            }
        })
    };

    let relay_addr = relay.local_addr();
    // The backend's part: a token per bot, naming the relay (where the bots send) and, in its
    // sealed part, the server (which checks that it is named).
    let connects: Vec<Connect> = (0..bots)
        .map(|i| {
            if args.plain {
                return Connect::Plain(relay_addr);
            }
            let token = ConnectTokenBuilder::new(PROTOCOL_ID, i as u64 + 1, [relay_addr])
                .internal_addresses([server_addr])
                .expire_seconds(args.timeout_secs)
                .issue(&key, SystemTime::now())
                .expect("a token for one server");
            Connect::Secure(token)
        })
        .collect();
    let bot_retx: Arc<Vec<AtomicU64>> = Arc::new((0..bots).map(|_| AtomicU64::new(0)).collect());
    let delta_bots = args.delta_bots.unwrap_or(bots.div_ceil(2)).min(bots);
    let bot_threads: Vec<_> = connects
        .into_iter()
        .enumerate()
        .map(|(i, connect)| {
            let (stop, game, retx) = (stop.clone(), game.clone(), bot_retx.clone());
            let seed = args.seed * 1000 + i as u64;
            // Every other bot first (0, 2, 4, ..., then 1, 3, ...), so that both kinds play
            // alike.
            let order = if i % 2 == 0 {
                i / 2
            } else {
                bots.div_ceil(2) + i / 2
            };
            let deltas = order < delta_bots;
            thread::spawn(move || bot_loop(connect, game, seed, deltas, &stop, &retx[i]))
        })
        .collect();

    // Progress until every bot has its GameOver, or the time is up.
    let tty = std::io::stdout().is_terminal();
    let mut last_line = Instant::now() - Duration::from_secs(1);
    let hard_stop = deadline - Duration::from_secs(2);
    loop {
        thread::sleep(Duration::from_millis(100));
        let done = bot_threads.iter().all(|t| t.is_finished());
        let p = progress.lock().expect("progress lock").clone();
        let line = format!(
            "t={:>5.1}s  tick {:>5}  players alive {}/{}  messages {:>6}  retransmissions {:>4}{}",
            start.elapsed().as_secs_f32(),
            p.round_tick,
            p.alive,
            p.players,
            p.messages,
            p.retransmissions
                + bot_retx
                    .iter()
                    .map(|r| r.load(Ordering::Relaxed))
                    .sum::<u64>(),
            if p.outcome.is_some() {
                "  round over"
            } else {
                ""
            },
        );
        if tty {
            print!("\r{line}\x1b[K");
            let _ = std::io::stdout().flush();
        } else if last_line.elapsed() >= Duration::from_secs(1) || done {
            println!("{line}");
            last_line = Instant::now();
        }
        if done || Instant::now() >= hard_stop {
            break;
        }
    }
    if tty {
        println!();
    }
    stop.store(true, Ordering::Relaxed);
    let bot_reports: Vec<BotReport> = bot_threads
        .into_iter()
        .filter_map(|t| t.join().ok())
        .collect();
    let server_report = match server_thread.join() {
        Ok(r) => r,
        Err(_) => {
            eprintln!("the server thread panicked");
            return false;
        }
    };
    if let Some(netcode) = &server_report.netcode {
        let reasons: Vec<String> = DropReason::ALL
            .iter()
            .filter(|&&r| netcode.dropped(r) > 0)
            .map(|&r| format!("{r:?} {}", netcode.dropped(r)))
            .collect();
        println!(
            "secure: the server's netcode layer accepted {} of {} datagrams; dropped: {}",
            netcode.datagrams_accepted,
            netcode.datagrams_received,
            if reasons.is_empty() {
                "none".to_string()
            } else {
                reasons.join(", ")
            }
        );
    }
    let relay_forwarded = relay.stats().forwarded.load(Ordering::Relaxed);
    let relay_dropped = relay.stats().dropped.load(Ordering::Relaxed);
    drop(relay);
    let ok = report(
        args,
        start.elapsed(),
        &server_report,
        &bot_reports,
        relay_forwarded,
        relay_dropped,
    );
    ok & args
        .report
        .as_ref()
        .is_none_or(|path| write_plots(args, path, &bot_reports))
}

/// Writes the HTML report; says where, or why not.
fn write_plots(args: &Args, path: &std::path::Path, bots: &[BotReport]) -> bool {
    let tracks: Vec<html_report::Track<'_>> = bots
        .iter()
        .enumerate()
        .map(|(i, b)| html_report::Track {
            name: b
                .player
                .map_or(format!("bot {i}"), |p| format!("player {p}")),
            samples: &b.series,
        })
        .collect();
    let heading = format!(
        "{} bots, {:.1}% loss and {} ms delay each way, {} Hz, {}.",
        bots.len(),
        args.loss * 100.0,
        args.delay_ms,
        args.tick_rate,
        if args.plain {
            "plain wire"
        } else {
            "secure mode"
        }
    );
    match html_report::write_html(path, &heading, &tracks) {
        Ok(()) => {
            println!("HTML report: {}", path.display());
            true
        }
        Err(e) => {
            eprintln!("cannot write the HTML report: {e}");
            false
        }
    }
}

/// One bot: connect, `Init` (and ask for deltas if `deltas`), play until `GameOver` (or told
/// to stop), close.
fn bot_loop(
    connect: Connect,
    game: Config,
    seed: u64,
    deltas: bool,
    stop: &AtomicBool,
    retx: &AtomicU64,
) -> BotReport {
    let mut player = BotPlayer::new(game, seed);
    if deltas {
        player = player.with_deltas();
    }
    player.ping_every = Duration::from_millis(250);
    let config = hopnet::Config::default();
    let client = match connect {
        Connect::Plain(server) => Client::connect(server, config),
        Connect::Secure(token) => Client::connect_secure(token, config),
    };
    let mut series = StatsSeries::new(Duration::from_millis(100), 6_000);
    let played = client.and_then(|client| {
        play_bot_on(client, &mut player, |p, conn| {
            retx.store(conn.stats().retransmissions, Ordering::Relaxed);
            series.sample(Instant::now(), [((), conn.stats())]);
            !p.results.is_empty() || stop.load(Ordering::Relaxed)
        })
    });
    let conn = match played {
        Ok(stats) => stats,
        Err(e) => {
            eprintln!("bot socket error: {e}");
            Stats::default()
        }
    };
    BotReport {
        player: player.client.player(),
        stats: player.client.stats().clone(),
        view: player.view.stats().clone(),
        conn,
        result: player.results.first().copied(),
        series: series.remove(&()).map(Vec::from).unwrap_or_default(),
    }
}
