//! The game server and two bots over loopback UDP, captured by the real tcpdump: every message
//! the server sent is shown by tshark with its fields, as `rabbit-msg pcap` prints it.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::Duration;

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

/// A short round between two bots; returns how many messages the bots received.
fn play(address: SocketAddr, transport: hopnet::Server) -> u64 {
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
    let server_thread = {
        let stop = stop.clone();
        thread::spawn(move || server.run(|_| stop.load(Ordering::Relaxed)).unwrap())
    };
    let bots: Vec<_> = (0..2u64)
        .map(|i| {
            let game = game.clone();
            thread::spawn(move || {
                let mut player = BotPlayer::new(game, 20 + i);
                player.ping_every = Duration::from_millis(200);
                let mut turns = 0u32;
                let stats = play_bot(address, hopnet::Config::default(), &mut player, |p, _| {
                    turns += 1;
                    !p.results.is_empty() || turns > 3_000
                })
                .unwrap();
                assert_eq!(player.results.len(), 1, "the bot saw its round end");
                stats.messages_delivered
            })
        })
        .collect();
    let received = bots.into_iter().map(|b| b.join().unwrap()).sum();
    stop.store(true, Ordering::Relaxed);
    server_thread.join().unwrap();
    received
}

/// A round recorded by the server's own driver (hopnet's `Recorder`, pcapng of raw IP, both
/// directions), and how many messages the bots received: no tool needed to capture it.
pub fn record_a_round(dir: &Path) -> (std::path::PathBuf, u16, u64) {
    let mut transport = hopnet::Server::bind("127.0.0.1:0", hopnet::Config::default()).unwrap();
    let address = transport.local_addr().unwrap();
    let file = dir.join("round.pcapng");
    transport
        .record(hopnet::record::RecordConfig::new(&file))
        .unwrap();
    // The server's driver, and its recorder with it, is dropped (and flushed) when the round
    // ends.
    let received = play(address, transport);
    (file, address.port(), received)
}

/// The capture of a round, how many messages the bots received and tcpdump's summary; `None`
/// when tcpdump cannot run here. A capture from which the kernel dropped packets (tcpdump says
/// so; it happens on a loaded machine) is made again, up to three times.
pub fn capture_a_round(dir: &Path) -> Option<(std::path::PathBuf, u16, u64, String)> {
    if !crate::tshark::tool_available("tcpdump") {
        return None;
    }
    let mut last = None;
    for attempt in 0..3 {
        let transport = hopnet::Server::bind("127.0.0.1:0", hopnet::Config::default()).unwrap();
        let address = transport.local_addr().unwrap();
        let file = dir.join(format!("round{attempt}.pcap"));
        let tcpdump = start_tcpdump(&file, address.port())?;
        let received = play(address, transport);
        // The last datagrams reach the capture before it stops.
        thread::sleep(Duration::from_millis(200));
        let summary = stop(tcpdump);
        let complete = summary.contains(" 0 packets dropped by kernel");
        last = Some((file, address.port(), received, summary));
        if complete {
            break;
        }
    }
    last
}
