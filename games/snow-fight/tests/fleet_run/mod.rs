//! What the Agones tests share: the `server` example run as a process with `--agones` against
//! a stand-in SDK server, and bots that play on it and publish what they heard.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::net::{SocketAddr, UdpSocket};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use snow_fight::Config;
use snow_fight::fleet::standin::{Call, StandIn};
use snow_fight::net::play_bot;
use snow_fight::session::BotPlayer;

pub const TICK_RATE: u32 = 60;
pub const ROUND_SECS: u32 = 4;
pub const HEALTH_MS: u64 = 200;

/// The game's numbers, as the server runs them.
pub fn game() -> Config {
    Config {
        min_players: 2,
        max_ticks: ROUND_SECS * TICK_RATE,
        ..Config::for_tick_rate(TICK_RATE)
    }
}

/// The `server` example's binary: `cargo test` builds the examples with the tests (with the
/// same features), beside the test binaries' `deps/` folder.
fn server_binary() -> PathBuf {
    let exe = std::env::current_exe().expect("the test's own path");
    let dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("the test runs from target/<profile>/deps");
    let server = dir.join("examples").join("server");
    assert!(
        server.is_file(),
        "no {}: build the examples with the tests (cargo test -p snow-fight --features agones, \
         without --test, builds them)",
        server.display()
    );
    server
}

/// A free UDP port on loopback, for the server's `--bind`.
fn free_port() -> u16 {
    UdpSocket::bind("127.0.0.1:0")
        .and_then(|s| s.local_addr())
        .expect("a free port")
        .port()
}

/// The server process and its log.
pub struct ServerProcess {
    pub addr: SocketAddr,
    child: Child,
    log: Arc<Mutex<Vec<String>>>,
}

impl ServerProcess {
    /// Starts the server with `--agones`, its SDK port the stand-in's.
    pub fn start(standin: &StandIn) -> ServerProcess {
        ServerProcess::start_with(standin, &["--max-players", "8"])
    }

    /// [`start`](Self::start) with `args` of the test's (the players per match, `--matches`).
    pub fn start_with(standin: &StandIn, args: &[&str]) -> ServerProcess {
        let addr = SocketAddr::from(([127, 0, 0, 1], free_port()));
        let mut child = Command::new(server_binary())
            .args(["--bind", &addr.to_string()])
            .args(["--tick-rate", &TICK_RATE.to_string()])
            .args(["--round-secs", &ROUND_SECS.to_string()])
            .args(["--min-players", "2"])
            .args(args)
            .args(["--agones", "--agones-health-ms", &HEALTH_MS.to_string()])
            .env("AGONES_SDK_GRPC_PORT", standin.port().to_string())
            .env("RUST_LOG", "info")
            .env("NO_COLOR", "1")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the server starts");
        let log = Arc::new(Mutex::new(Vec::new()));
        let stderr = child.stderr.take().expect("piped");
        {
            let log = log.clone();
            thread::spawn(move || {
                for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                    log.lock().unwrap().push(line);
                }
            });
        }
        ServerProcess { addr, child, log }
    }

    /// Waits for its `Ready` at the stand-in; fails at once, with its log, if it exits first
    /// (a binary built without the `agones` feature refuses `--agones`).
    pub fn wait_ready(&mut self, standin: &StandIn) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while !has(&standin.calls(), "Ready", "") {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                thread::sleep(Duration::from_millis(100));
                panic!(
                    "the server exited ({status}) before Ready; was the example built with \
                     `--features agones`? Its log:\n{}",
                    self.log()
                );
            }
            assert!(Instant::now() < deadline, "timed out waiting for Ready");
            thread::sleep(Duration::from_millis(20));
        }
    }

    /// Asks it to drain, as Kubernetes does.
    pub fn sigterm(&self) {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(status.success(), "kill -TERM failed");
    }

    /// Waits for it to exit, at most `timeout`.
    pub fn wait(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return Some(status);
            }
            thread::sleep(Duration::from_millis(20));
        }
        None
    }

    /// Its log so far.
    pub fn log(&self) -> String {
        self.log.lock().unwrap().join("\n")
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        eprintln!("--- the server's log ---\n{}", self.log());
    }
}

/// What a bot heard, published as it plays.
#[derive(Debug, Default)]
pub struct Heard {
    /// When each `GameOver` arrived.
    pub game_overs: Vec<Instant>,
    /// `Error` responses (a refused `Init`).
    pub errors: u32,
    /// Its player id, once it joined.
    pub player: Option<u32>,
}

/// A bot playing on its own thread until told to leave (or the connection closes).
pub struct Bot {
    pub heard: Arc<Mutex<Heard>>,
    leave: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Bot {
    pub fn join(server: SocketAddr, seed: u64) -> Bot {
        let heard = Arc::new(Mutex::new(Heard::default()));
        let leave = Arc::new(AtomicBool::new(false));
        let thread = {
            let (heard, leave) = (heard.clone(), leave.clone());
            thread::spawn(move || {
                let mut player = BotPlayer::new(game(), seed);
                let mut seen = 0;
                let done = |p: &BotPlayer, _: &hopnet::proto::Client| {
                    let mut h = heard.lock().unwrap();
                    while seen < p.results.len() {
                        h.game_overs.push(Instant::now());
                        seen += 1;
                    }
                    h.errors = p.client.stats().errors;
                    h.player = p.client.player();
                    leave.load(Ordering::Relaxed)
                };
                let _ = play_bot(server, hopnet::Config::default(), &mut player, done);
            })
        };
        Bot {
            heard,
            leave,
            thread: Some(thread),
        }
    }

    /// Leaves the game (closes its connection) and waits for its thread.
    pub fn leave(&mut self) {
        self.leave.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            t.join().expect("the bot's thread");
        }
    }

    pub fn game_overs(&self) -> Vec<Instant> {
        self.heard.lock().unwrap().game_overs.clone()
    }
}

impl Drop for Bot {
    fn drop(&mut self) {
        self.leave.store(true, Ordering::Relaxed);
    }
}

/// Waits until `what` holds, polling, at most `timeout`; panics with `about` otherwise.
pub fn wait_for(about: &str, timeout: Duration, mut what: impl FnMut() -> bool) {
    let deadline = Instant::now() + timeout;
    while !what() {
        assert!(Instant::now() < deadline, "timed out waiting for {about}");
        thread::sleep(Duration::from_millis(20));
    }
}

/// The calls that are not health pings nor the SDK's connection checks, as (method, value).
pub fn reports(calls: &[Call]) -> Vec<(String, String)> {
    calls
        .iter()
        .filter(|c| c.method != "Health" && c.method != "GetGameServer")
        .map(|c| (c.method.clone(), c.value.clone()))
        .collect()
}

/// Whether `calls` hold `method(value)`.
pub fn has(calls: &[Call], method: &str, value: &str) -> bool {
    calls.iter().any(|c| c.method == method && c.value == value)
}

/// The first `method(value)` in `calls`.
pub fn first<'a>(calls: &'a [Call], method: &str, value: &str) -> Option<&'a Call> {
    calls
        .iter()
        .find(|c| c.method == method && c.value == value)
}
