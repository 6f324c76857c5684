//! What the server-query tests share: a game server on loopback answering queries, bots
//! playing on it, and a stop that ends both.

#![allow(dead_code)]

use std::net::{SocketAddr, UdpSocket};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant, SystemTime};

use hopnet::secure::{ConnectTokenBuilder, Key};
use hopnet::{Client, Server};
use snow_fight::Config;
use snow_fight::net::{AnswerQueries, Listing, UdpServer, play_bot, play_bot_on};
use snow_fight::session::{BotPlayer, GameServer, ServerConfig};

pub const TICK_RATE: u32 = 60;
pub const PROTOCOL_ID: u64 = 0x736e_6f77;

/// Where the server takes players and where it answers queries.
#[derive(Clone, Copy, Debug)]
pub enum Mode {
    /// Plain hopnet, queries on the game's port.
    Plain,
    /// Secure mode (netcode), queries on the game's port.
    Secure,
    /// Plain hopnet, queries on a port of their own.
    QueryPort,
}

/// A running game: its server thread, its bots' threads, and what they publish.
pub struct Running {
    pub game_addr: SocketAddr,
    pub query_addr: SocketAddr,
    /// Players in the game, as the server last counted them.
    pub players: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
    server: Option<JoinHandle<UdpServer>>,
    bots: Vec<JoinHandle<()>>,
}

pub fn game() -> Config {
    Config {
        min_players: 2,
        max_ticks: 600 * TICK_RATE,
        ..Config::for_tick_rate(TICK_RATE)
    }
}

pub fn listing() -> Listing {
    Listing {
        name: "Query Test Yard".into(),
        map: "yard".into(),
    }
}

impl Running {
    /// A server in `mode` with `bots` bots playing on it, once they have all joined.
    pub fn start(mode: Mode, bots: u64) -> Running {
        let key = Key::generate();
        let transport = match mode {
            Mode::Secure => Server::bind_secure(
                "127.0.0.1:0",
                hopnet::Config::default(),
                PROTOCOL_ID,
                key.clone(),
            )
            .unwrap(),
            Mode::Plain | Mode::QueryPort => {
                Server::bind("127.0.0.1:0", hopnet::Config::default()).unwrap()
            }
        };
        let config = ServerConfig {
            seed: 5,
            max_players: 8,
            game: game(),
            sample_every: 0,
            ..ServerConfig::default()
        };
        let mut server = UdpServer::with_server(transport, GameServer::new(config), TICK_RATE);
        match mode {
            Mode::QueryPort => server
                .answer_queries_on(UdpSocket::bind("127.0.0.1:0").unwrap(), listing())
                .unwrap(),
            Mode::Plain | Mode::Secure => server.answer_queries(listing()).unwrap(),
        }
        let game_addr = server.local_addr().unwrap();
        let query_addr = server.query_addr().unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let players = Arc::new(AtomicUsize::new(0));
        let server = {
            let (stop, players) = (stop.clone(), players.clone());
            thread::spawn(move || {
                server
                    .run(|s| {
                        players.store(s.game.players(), Ordering::Relaxed);
                        stop.load(Ordering::Relaxed)
                    })
                    .unwrap();
                server
            })
        };
        let bots = (0..bots)
            .map(|i| {
                let stop = stop.clone();
                let secure = matches!(mode, Mode::Secure);
                let key = key.clone();
                thread::spawn(move || {
                    let mut player = BotPlayer::new(game(), 20 + i);
                    let done =
                        |_: &BotPlayer, _: &hopnet::proto::Client| stop.load(Ordering::Relaxed);
                    if secure {
                        let token = ConnectTokenBuilder::new(PROTOCOL_ID, 100 + i, [game_addr])
                            .issue(&key, SystemTime::now())
                            .unwrap();
                        let client =
                            Client::connect_secure(token, hopnet::Config::default()).unwrap();
                        play_bot_on(client, &mut player, done).unwrap();
                    } else {
                        play_bot(game_addr, hopnet::Config::default(), &mut player, done).unwrap();
                    }
                })
            })
            .collect();
        let running = Running {
            game_addr,
            query_addr,
            players,
            stop,
            server: Some(server),
            bots,
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        while running.players.load(Ordering::Relaxed) < running.bots.len() {
            assert!(Instant::now() < deadline, "the bots never all joined");
            thread::sleep(Duration::from_millis(10));
        }
        running
    }

    /// Stops the bots, then the server; returns the server.
    pub fn stop(mut self) -> UdpServer {
        self.stop.store(true, Ordering::Relaxed);
        for bot in self.bots.drain(..) {
            bot.join().unwrap();
        }
        self.server.take().unwrap().join().unwrap()
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        // A failed assertion still ends the threads.
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Sends `request` from `socket` to `to` and returns the answer, or `None` after `wait`. A late
/// answer to an earlier request, already waiting, is dropped first.
pub fn ask(socket: &UdpSocket, to: SocketAddr, request: &[u8], wait: Duration) -> Option<Vec<u8>> {
    let mut buf = [0u8; 2048];
    socket.set_nonblocking(true).unwrap();
    while socket.recv_from(&mut buf).is_ok() {}
    socket.set_nonblocking(false).unwrap();
    socket.set_read_timeout(Some(wait)).unwrap();
    socket.send_to(request, to).unwrap();
    match socket.recv_from(&mut buf) {
        Ok((n, _)) => Some(buf[..n].to_vec()),
        Err(_) => None,
    }
}
