//! The game's server loop, written once for every carrier: a [`GameServer`] on any driver of
//! hopnet's [`ServerDriver`] trait, ticking at a fixed rate.
//!
//! The carriers are the drivers: [`UdpServer`](crate::net::UdpServer) is this host on
//! hopnet's UDP driver (plain or secure), [`WebServer`](crate::web::WebServer) on
//! `hopnet-webtransport`'s, which takes browsers beside UDP. Each adds only its constructors
//! (and the web one its page); the turn, the tick, and the server queries (`queries`) are
//! here.
//!
//! [`MatchHost`] is the other loop: many matches on one driver, each on a thread of its own
//! ([`mod@matches`]), placed by the [`Matchmaker`].

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use hopnet::ServerDriver;

use crate::session::GameServer;

pub mod matches;
mod matchmaker;
mod queries;

pub use matches::{MatchHost, MatchInfo, MatchesConfig, MatchesStats, TickHook};
pub use matchmaker::Matchmaker;
pub use queries::{AnswerQueries, GAME, Listing};

/// A game server on a carrier's driver `D`.
pub struct GameHost<D> {
    /// The transport: the carrier's I/O and a [`hopnet::proto::Server`].
    pub server: D,
    /// The game.
    pub game: GameServer,
    tick: Duration,
    next_tick: Instant,
    queries: Option<queries::Queries>,
}

impl<D: ServerDriver> GameHost<D> {
    /// A game on a driver server of the caller's making (a secure one, say, from
    /// [`hopnet::Server::bind_secure`]), ticking `tick_rate` times a second.
    pub fn with_server(server: D, game: GameServer, tick_rate: u32) -> GameHost<D> {
        let tick = Duration::from_secs(1) / tick_rate.max(1);
        GameHost {
            server,
            game,
            tick,
            next_tick: Instant::now() + tick,
            queries: None,
        }
    }

    /// The address UDP clients connect to.
    pub fn local_addr(&self) -> Result<SocketAddr, D::Error> {
        self.server.local_addr()
    }

    /// The transport's state machine (connections, statistics).
    pub fn machine(&mut self) -> &mut hopnet::proto::Server {
        self.server.machine()
    }

    /// One turn of the loop: I/O until a datagram arrives or the next tick is due, the events,
    /// the server queries (if it answers them), and the tick if it is due (its snapshots go out
    /// at once). Returns whether a tick ran.
    pub fn turn(&mut self) -> Result<bool, D::Error> {
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
    pub fn run(&mut self, mut stop: impl FnMut(&mut GameHost<D>) -> bool) -> Result<(), D::Error> {
        loop {
            if self.turn()? && stop(self) {
                return Ok(());
            }
        }
    }
}
