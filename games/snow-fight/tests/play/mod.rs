//! Playing the game over `hopnet`'s simulated network, for the integration tests: a server,
//! one tick of everything, the events a client's connection brings, and the server's snapshots
//! as it sent them, to check what a client applied against.

// Each test file compiles its own copy of this module and uses part of it.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use hopnet::sim::SimNetwork;
use hopnet::{Event, proto::Client};
use hopnet_snow_fight as wire;
use snow_fight::Config;
use snow_fight::session::{BotPlayer, ClientEvent, GameClient, GameServer, ServerConfig};

/// The server's tick rate, and the game's.
pub const TICK_RATE: u32 = 60;

/// A short game: its rounds start with `min_players` and last `secs` seconds at most.
pub fn short_game(min_players: usize, secs: u32) -> Config {
    Config {
        min_players,
        max_ticks: secs * TICK_RATE,
        ..Config::for_tick_rate(TICK_RATE)
    }
}

/// A server's settings for at most `max_players` playing `game`, keeping no samples.
pub fn server_config(seed: u64, max_players: usize, game: Config) -> ServerConfig {
    ServerConfig {
        seed,
        max_players,
        game,
        sample_every: 0,
        ..ServerConfig::default()
    }
}

/// A server for at most `max_players`, keeping no samples.
pub fn server(seed: u64, max_players: usize) -> GameServer {
    GameServer::new(server_config(
        seed,
        max_players,
        Config::for_tick_rate(TICK_RATE),
    ))
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

/// A game on the simulated network with a bot on each of its clients (bot `i` on client `i`),
/// and the server's recent snapshots as it sent them, to check what the bots applied.
pub struct BotGame {
    pub net: SimNetwork,
    pub server: GameServer,
    pub bots: Vec<BotPlayer>,
    pub sent: Sent,
}

impl BotGame {
    /// `server` on `net`, and each of `bots` on a new client of `net` with `transport`'s
    /// settings.
    pub fn new(
        mut net: SimNetwork,
        server: GameServer,
        transport: &hopnet::Config,
        bots: impl IntoIterator<Item = BotPlayer>,
    ) -> BotGame {
        let bots: Vec<BotPlayer> = bots.into_iter().collect();
        for _ in &bots {
            net.add_client(transport.clone());
        }
        BotGame {
            net,
            server,
            bots,
            sent: Sent::default(),
        }
    }

    /// One tick of everything: the tick, the server's snapshot kept, then each bot's events,
    /// what it learned handed to `learned` at once (with its index, and the snapshots sent to
    /// check one against), and its upkeep; last, the old snapshots forgotten.
    pub fn tick(&mut self, mut learned: impl FnMut(usize, &mut BotPlayer, ClientEvent, &Sent)) {
        let BotGame {
            net,
            server,
            bots,
            sent,
        } = self;
        tick(net, server);
        sent.record(server);
        let now = net.now();
        for (i, bot) in bots.iter_mut().enumerate() {
            each_event(net, i, bot, |bot, event| learned(i, bot, event, sent));
            bot.maintain(net.client(i), now);
        }
        sent.forget_old(server);
    }
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
    let mut seen = Vec::new();
    each_event(net, i, player, |_, event| seen.push(event));
    seen
}

/// [`events`], handing each thing `player` learned to `learned` at once, while the player is
/// as that message left it (its client's snapshot is the one just applied).
pub fn each_event<P: Player>(
    net: &mut SimNetwork,
    i: usize,
    player: &mut P,
    mut learned: impl FnMut(&mut P, ClientEvent),
) {
    let now = net.now();
    while let Some(event) = net.client(i).poll_event() {
        match event {
            Event::Connected => player.connected(net.client(i)),
            Event::Message { bytes, .. } => {
                if let Some(event) = player.message(net.client(i), &bytes, now) {
                    learned(player, event);
                }
            }
            Event::Disconnected { reason } => panic!("client {i} disconnected: {reason:?}"),
            Event::Acknowledged { .. } | Event::Lost { .. } => {}
        }
    }
}

/// The server's snapshot of each of its last 300 ticks, as it sent it: what a client's
/// snapshot of that tick must equal.
#[derive(Default)]
pub struct Sent(BTreeMap<u32, wire::Snapshot>);

impl Sent {
    /// After a tick: keeps the snapshot the server sent in it, if it sent one.
    pub fn record(&mut self, server: &GameServer) {
        if let Some((t, s)) = server.last_snapshot() {
            self.0.entry(t).or_insert_with(|| s.clone());
        }
    }

    /// Forgets the snapshots more than 300 ticks older than the server's time.
    pub fn forget_old(&mut self, server: &GameServer) {
        let oldest = server.time().saturating_sub(300);
        self.0.retain(|t, _| *t >= oldest);
    }

    /// The server's snapshot of tick `t`.
    pub fn get(&self, t: u32) -> Option<&wire::Snapshot> {
        self.0.get(&t)
    }
}
