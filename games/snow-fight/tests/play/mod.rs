//! Playing the game over `hopnet`'s simulated network, for the integration tests: a server,
//! one tick of everything, and the events a client's connection brings.

// Each test file compiles its own copy of this module and uses part of it.
#![allow(dead_code)]

use std::time::{Duration, Instant};

use hopnet::sim::SimNetwork;
use hopnet::{Event, proto::Client};
use snow_fight::Config;
use snow_fight::session::{BotPlayer, ClientEvent, GameClient, GameServer, ServerConfig};

/// The server's tick rate, and the game's.
pub const TICK_RATE: u32 = 60;

/// A server for at most `max_players`, keeping no samples.
pub fn server(seed: u64, max_players: usize) -> GameServer {
    GameServer::new(ServerConfig {
        seed,
        max_players,
        game: Config::for_tick_rate(TICK_RATE),
        sample_every: 0,
        ..ServerConfig::default()
    })
}

/// `n` bots on new clients of `net`, bot `i` seeded `seed(i)`: bot `i` plays client `first + i`,
/// `first` being how many clients `net` had.
pub fn bots(net: &mut SimNetwork, n: usize, seed: impl Fn(usize) -> u64) -> Vec<BotPlayer> {
    (0..n)
        .map(|i| {
            net.add_client(hopnet::Config::default());
            BotPlayer::new(Config::for_tick_rate(TICK_RATE), seed(i))
        })
        .collect()
}

/// One tick of virtual time: the network, then the server's events and its tick.
pub fn tick(net: &mut SimNetwork, server: &mut GameServer) {
    net.step(Duration::from_secs(1) / TICK_RATE);
    server.poll(net.server());
    server.tick(net.server());
}

/// Either kind of client the tests play with.
pub trait Player {
    /// The connection is up.
    fn connected(&mut self, conn: &mut Client);
    /// A message from the server.
    fn message(&mut self, conn: &mut Client, bytes: &[u8], now: Instant) -> Option<ClientEvent>;
}

impl Player for BotPlayer {
    fn connected(&mut self, conn: &mut Client) {
        self.start(conn);
    }

    fn message(&mut self, conn: &mut Client, bytes: &[u8], now: Instant) -> Option<ClientEvent> {
        self.handle(conn, bytes, now)
    }
}

impl Player for GameClient {
    fn connected(&mut self, conn: &mut Client) {
        self.send_init(conn);
    }

    fn message(&mut self, _conn: &mut Client, bytes: &[u8], now: Instant) -> Option<ClientEvent> {
        self.handle(bytes, now)
    }
}

/// Hands `player` every event of client `i`'s connection and returns what it learned. A
/// disconnection fails the test: no test here means to lose a client.
pub fn events(net: &mut SimNetwork, i: usize, player: &mut impl Player) -> Vec<ClientEvent> {
    let now = net.now();
    let mut seen = Vec::new();
    while let Some(event) = net.client(i).poll_event() {
        match event {
            Event::Connected => player.connected(net.client(i)),
            Event::Message { bytes, .. } => seen.extend(player.message(net.client(i), &bytes, now)),
            Event::Disconnected { reason } => panic!("client {i} disconnected: {reason:?}"),
            Event::Acknowledged { .. } | Event::Lost { .. } => {}
        }
    }
    seen
}
