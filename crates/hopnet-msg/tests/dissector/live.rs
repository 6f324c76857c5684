//! The game server and two bots over loopback UDP, captured by the real tcpdump: every message
//! the server sent is shown by tshark with its fields, as `rabbit-msg pcap` prints it.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use hopnet_snow_fight::Snapshot;
use snow_fight::Config;
use snow_fight::net::{UdpServer, play_bot};
use snow_fight::session::{BotPlayer, GameServer, ServerConfig};

const TICK_RATE: u32 = 30;

/// tcpdump on the loopback interface, writing the game's port's datagrams to `file` as they
/// come; returns once it listens.
type Tcpdump = (Child, thread::JoinHandle<Vec<String>>);

fn start_tcpdump(file: &Path, port: u16) -> Option<Tcpdump> {
    let mut child = Command::new("tcpdump")
        .args([
            "-i",
            "lo",
            "--immediate-mode",
            "-B",
            "32768",
            "-U",
            "-n",
            "-w",
        ])
        .arg(file)
        .args(["udp", "port", &port.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run tcpdump");
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    if !line.contains("listening on") {
        let help = format!("tcpdump cannot capture here (it needs root): {line}");
        let _ = child.kill();
        let _ = child.wait();
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("{help}");
        }
        eprintln!("skipped: {help}");
        return None;
    }
    // What else it says (its summary at the end), kept, so that it never blocks on the pipe.
    let said = thread::spawn(move || stderr.lines().map_while(Result::ok).collect::<Vec<_>>());
    Some((child, said))
}

/// Stops tcpdump as a user would (SIGINT), so that it writes everything out; returns its
/// summary ("N packets captured ... dropped by kernel").
fn stop((mut child, said): Tcpdump) -> String {
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let _ = child.wait();
    said.join().unwrap_or_default().join("; ")
}

/// What the bots of a round saw: how many messages they received, and the snapshots the bot
/// that asked for deltas (if one did) decoded itself, by tick (those it held when its loop
/// looked: every one it applied, unless two came in one poll).
pub struct Round {
    pub received: u64,
    pub decoded_by_the_delta_bot: BTreeMap<u32, Snapshot>,
    /// Deltas the delta bot decoded, and those whose baseline it lacked.
    pub deltas: (u64, u64),
}

/// A short round between two bots, the second asking for snapshot deltas if `deltas`.
///
/// The bots read until the server has stopped: once both saw the round end, the server's
/// thread is stopped and joined, and only then do the bots stop reading (and drain what is
/// already in their sockets), so that every message the server sent, and the capture holds,
/// is one a bot counted, however slowly a loaded machine runs the threads.
fn play(address: SocketAddr, transport: hopnet::Server, deltas: bool) -> Round {
    let game = Config {
        min_players: 2,
        max_ticks: 2 * TICK_RATE,
        ..Config::for_tick_rate(TICK_RATE)
    };
    let server_config = ServerConfig {
        seed: 5,
        max_players: 2,
        game: game.clone(),
        sample_every: 0,
        ..ServerConfig::default()
    };
    let mut server = UdpServer::with_server(transport, GameServer::new(server_config), TICK_RATE);
    let stop = Arc::new(AtomicBool::new(false));
    // Bots that saw their round end; the server stopped, so the bots may stop reading.
    let ended = Arc::new(AtomicUsize::new(0));
    let server_gone = Arc::new(AtomicBool::new(false));
    let server_thread = {
        let stop = stop.clone();
        thread::spawn(move || server.run(|_| stop.load(Ordering::Relaxed)).unwrap())
    };
    let bots: Vec<_> = (0..2u64)
        .map(|i| {
            let game = game.clone();
            let with_deltas = deltas && i == 1;
            let (ended, server_gone) = (ended.clone(), server_gone.clone());
            thread::spawn(move || {
                let mut player = BotPlayer::new(game, 20 + i);
                if with_deltas {
                    player = player.with_deltas();
                }
                player.ping_every = Duration::from_millis(200);
                let mut turns = 0u32;
                let mut decoded = BTreeMap::new();
                let mut saw_the_end = false;
                let stats = play_bot(address, hopnet::Config::default(), &mut player, |p, _| {
                    if !saw_the_end {
                        if let Some((time, snapshot)) = p.client.snapshot() {
                            decoded.entry(time).or_insert_with(|| snapshot.clone());
                        }
                        if !p.results.is_empty() {
                            saw_the_end = true;
                            ended.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                    turns += 1;
                    server_gone.load(Ordering::Relaxed) || turns > 6_000
                })
                .unwrap();
                assert_eq!(player.results.len(), 1, "the bot saw its round end");
                let s = player.client.stats();
                let delta_counts = (s.deltas, s.baselines_missing);
                (
                    stats.messages_delivered,
                    with_deltas.then_some(decoded),
                    delta_counts,
                )
            })
        })
        .collect();
    // The round's end, then the server stopped before the bots stop reading.
    let give_up = Instant::now() + Duration::from_secs(60);
    while ended.load(Ordering::Relaxed) < 2 && Instant::now() < give_up {
        thread::sleep(Duration::from_millis(2));
    }
    stop.store(true, Ordering::Relaxed);
    server_thread.join().unwrap();
    server_gone.store(true, Ordering::Relaxed);
    let mut round = Round {
        received: 0,
        decoded_by_the_delta_bot: BTreeMap::new(),
        deltas: (0, 0),
    };
    for bot in bots {
        let (received, decoded, (d, missing)) = bot.join().unwrap();
        round.received += received;
        round.deltas.0 += d;
        round.deltas.1 += missing;
        if let Some(decoded) = decoded {
            round.decoded_by_the_delta_bot = decoded;
        }
    }
    round
}

/// A round recorded by the server's own driver (hopnet's `Recorder`, pcapng of raw IP, both
/// directions), and what the bots saw (`deltas`: one of them asks for snapshot deltas): no
/// tool needed to capture it.
pub fn record_a_round(dir: &Path, deltas: bool) -> (std::path::PathBuf, u16, Round) {
    let mut transport = hopnet::Server::bind("127.0.0.1:0", hopnet::Config::default()).unwrap();
    let address = transport.local_addr().unwrap();
    let file = dir.join("round.pcapng");
    transport
        .record(hopnet::record::RecordConfig::new(&file))
        .unwrap();
    // The server's driver, and its recorder with it, is dropped (and flushed) when the round
    // ends.
    let round = play(address, transport, deltas);
    (file, address.port(), round)
}

/// The capture of a round (`deltas`: one bot asks for snapshot deltas), what the bots saw and
/// tcpdump's summary; `None`
/// when tcpdump cannot run here. A capture from which the kernel dropped packets (tcpdump says
/// so; it happens on a loaded machine) is made again, up to three times.
pub fn capture_a_round(
    dir: &Path,
    deltas: bool,
) -> Option<(std::path::PathBuf, u16, Round, String)> {
    if !crate::tshark::tool_available("tcpdump") {
        return None;
    }
    let mut last = None;
    for attempt in 0..3 {
        let transport = hopnet::Server::bind("127.0.0.1:0", hopnet::Config::default()).unwrap();
        let address = transport.local_addr().unwrap();
        let file = dir.join(format!("round{attempt}.pcap"));
        let tcpdump = start_tcpdump(&file, address.port())?;
        let round = play(address, transport, deltas);
        // The last datagrams reach the capture before it stops.
        thread::sleep(Duration::from_millis(200));
        let summary = stop(tcpdump);
        let complete = summary.contains(" 0 packets dropped by kernel");
        last = Some((file, address.port(), round, summary));
        if complete {
            break;
        }
    }
    last
}
