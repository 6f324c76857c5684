//! The game's server with short rounds on UDP, WebTransport and WebSocket, in a thread of its
//! own: for the tests that play a round to its end over the web carriers.

// Each test file compiles its own copy of this module and uses part of it.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;

use hopnet_webtransport::{Certificate, WebTransportConfig};
use snow_fight::Config;
use snow_fight::session::{GameServer, ServerConfig};
use snow_fight::web::WebServer;

pub const TICK_RATE: u32 = 60;

pub fn any() -> SocketAddr {
    "127.0.0.1:0".parse().unwrap()
}

/// Rounds of `secs` seconds that start with two players.
pub fn game(secs: u32) -> Config {
    Config {
        min_players: 2,
        max_ticks: secs * TICK_RATE,
        ..Config::for_tick_rate(TICK_RATE)
    }
}

/// A server running in a thread until stopped, and where it listens.
pub struct Running {
    pub udp: SocketAddr,
    /// The page's port: HTTP, and WebSockets on `/hopnet`.
    pub site: SocketAddr,
    stop: Arc<AtomicBool>,
    thread: JoinHandle<WebServer>,
}

impl Running {
    /// Starts world `seed` with rounds of `secs` seconds, its WebTransport configuration
    /// changed by `tweak`, and serves the page.
    pub fn start(seed: u64, secs: u32, tweak: impl FnOnce(&mut WebTransportConfig)) -> Running {
        let certificate = Certificate::self_signed(["localhost", "127.0.0.1"]).unwrap();
        let mut web = WebTransportConfig::new(any(), certificate);
        tweak(&mut web);
        let game = GameServer::new(ServerConfig {
            seed,
            sample_every: 0,
            game: game(secs),
            ..ServerConfig::default()
        });
        let mut server =
            WebServer::bind(any(), web, hopnet::Config::default(), game, TICK_RATE).unwrap();
        let site = server.serve_page(any()).unwrap();
        Running::serve(server, site)
    }

    /// Runs `server`, whose page is served on `site`, in a thread until stopped.
    pub fn serve(mut server: WebServer, site: SocketAddr) -> Running {
        let udp = server.server.local_addr().unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let thread = std::thread::spawn({
            let stop = stop.clone();
            move || {
                server.run(|_| stop.load(Ordering::Relaxed)).unwrap();
                server
            }
        });
        Running {
            udp,
            site,
            stop,
            thread,
        }
    }

    /// The flag that stops it, for the players that play until it does.
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    /// Stops it and hands the server back, for its counters.
    pub fn stop(self) -> WebServer {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.join().unwrap()
    }
}
