//! The game over real UDP, on `hopnet`'s blocking driver ([`hopnet`]).
//!
//! - [`UdpServer`]: a driver [`Server`] and a [`GameServer`], ticking at a fixed rate.
//! - [`play_bot`]: a [`BotPlayer`] on a driver [`Client`], until told to stop.
//!
//! Either runs in secure mode (hopnet over netcode 1.02) on a driver made with
//! [`Server::bind_secure`] or [`Client::connect_secure`], handed to [`UdpServer::with_server`]
//! or [`play_bot_on`]: the game is the same above it.
//!
//! [`UdpServer::answer_queries`] has the server answer server browsers' queries (the Source
//! engine's A2S) on the game's own port, from the live game (`queries`).
//!
//! To run over a bad link between real sockets, put `hopnet`'s lossy relay
//! ([`hopnet::relay::Relay`]) between the clients and the server, as the demo does.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use hopnet::{Client, Server};
use hopnet::{Error, Event, Stats};
use tracing::warn;

use crate::session::{BotPlayer, GameServer};

mod queries;

pub use queries::{GAME, Listing};

/// A game server on a UDP socket.
pub struct UdpServer {
    /// The transport: a socket and a [`hopnet::proto::Server`].
    pub server: Server,
    /// The game.
    pub game: GameServer,
    tick: Duration,
    next_tick: Instant,
    queries: Option<queries::Queries>,
}

impl UdpServer {
    /// Binds `addr` and prepares to tick `tick_rate` times a second.
    pub fn bind(
        addr: SocketAddr,
        config: hopnet::Config,
        game: GameServer,
        tick_rate: u32,
    ) -> Result<UdpServer, Error> {
        Ok(UdpServer::with_server(
            Server::bind(addr, config)?,
            game,
            tick_rate,
        ))
    }

    /// A game on a driver server of the caller's making (a secure one, say, from
    /// [`Server::bind_secure`]), ticking `tick_rate` times a second.
    pub fn with_server(server: Server, game: GameServer, tick_rate: u32) -> UdpServer {
        let tick = Duration::from_secs(1) / tick_rate.max(1);
        UdpServer {
            server,
            game,
            tick,
            next_tick: Instant::now() + tick,
            queries: None,
        }
    }

    /// The bound address.
    pub fn local_addr(&self) -> Result<SocketAddr, Error> {
        self.server.local_addr()
    }

    /// The transport's state machine (connections, statistics).
    pub fn machine(&mut self) -> &mut hopnet::proto::Server {
        self.server.machine()
    }

    /// One turn of the loop: I/O until a datagram arrives or the next tick is due, the events,
    /// the server queries (if it answers them), and the tick if it is due (its snapshots go out
    /// at once). Returns whether a tick ran.
    pub fn turn(&mut self) -> Result<bool, Error> {
        let wait = self.next_tick.saturating_duration_since(Instant::now());
        self.server.poll(wait)?;
        self.game.poll(self.server.machine());
        self.answer_pending_queries()?;
        let now = Instant::now();
        if now < self.next_tick {
            return Ok(false);
        }
        self.game.tick(self.server.machine());
        self.next_tick += self.tick;
        // Far behind (a debugger, a suspended laptop): skip rather than burst.
        if now > self.next_tick + self.tick * 10 {
            self.next_tick = now + self.tick;
        }
        self.server.poll(Duration::ZERO)?;
        Ok(true)
    }

    /// Runs until `stop` returns true; it is asked after every tick.
    pub fn run(&mut self, mut stop: impl FnMut(&mut UdpServer) -> bool) -> Result<(), Error> {
        loop {
            if self.turn()? && stop(self) {
                return Ok(());
            }
        }
    }
}

/// Plays as a bot over UDP: connects to `server`, sends `Init`, answers every snapshot with the
/// bot's actions, pings every `player.ping_every` and sends the client's requests
/// ([`BotPlayer::maintain`]), until `done(&player, &connection)` says so
/// (checked every few milliseconds) or the connection closes. Then it lingers 100 ms (so the
/// last acknowledgements get out), closes the connection and returns its statistics.
pub fn play_bot(
    server: SocketAddr,
    config: hopnet::Config,
    player: &mut BotPlayer,
    done: impl FnMut(&BotPlayer, &hopnet::proto::Client) -> bool,
) -> Result<Stats, Error> {
    play_bot_on(Client::connect(server, config)?, player, done)
}

/// [`play_bot`] on a driver client of the caller's making (a secure one, say, from
/// [`Client::connect_secure`]), connecting or connected.
pub fn play_bot_on(
    mut client: Client,
    player: &mut BotPlayer,
    mut done: impl FnMut(&BotPlayer, &hopnet::proto::Client) -> bool,
) -> Result<Stats, Error> {
    let mut closed = None;
    while closed.is_none() && !done(player, client.machine()) {
        client.poll(Duration::from_millis(5))?;
        while let Some(event) = client.poll_event() {
            match event {
                Event::Connected => player.start(client.machine()),
                Event::Message { bytes, .. } => {
                    player.handle(client.machine(), &bytes, Instant::now());
                }
                Event::Disconnected { reason } => closed = Some(reason),
                // A client sends no tracked messages (the server sends its delta clients theirs).
                Event::Acknowledged { .. } | Event::Lost { .. } => {}
            }
        }
        player.maintain(client.machine(), Instant::now());
        client.poll(Duration::ZERO)?;
    }
    if let Some(reason) = closed {
        warn!(?reason, "disconnected");
    } else {
        let linger = Instant::now() + Duration::from_millis(100);
        while Instant::now() < linger {
            client.poll(linger.saturating_duration_since(Instant::now()))?;
            while client.poll_event().is_some() {}
        }
    }
    let stats = client.stats();
    client.close()?;
    Ok(stats)
}
