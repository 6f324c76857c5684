//! The game over real UDP, on `hopnet`'s blocking driver ([`hopnet`]).
//!
//! - [`UdpServer`]: the game's [`GameHost`] on a driver [`Server`], ticking at a fixed rate.
//! - [`play_bot`]: a [`BotPlayer`] on a driver [`Client`] (or, [`play_bot_on`], any
//!   [`ClientDriver`]), until told to stop.
//!
//! Either runs in secure mode (hopnet over netcode 1.02) on a driver made with
//! [`Server::bind_secure`] or [`Client::connect_secure`], handed to [`UdpServer::with_server`]
//! or [`play_bot_on`]: the game is the same above it.
//!
//! [`AnswerQueries::answer_queries`] has the server answer server browsers' queries (the Source
//! engine's A2S) on the game's own port, from the live game (the [`host`](crate::host)'s
//! queries, on any carrier).
//!
//! To run over a bad link between real sockets, put `hopnet`'s lossy relay
//! ([`hopnet::relay::Relay`]) between the clients and the server, as the demo does.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use hopnet::ClientDriver;
use hopnet::{Client, Server};
use hopnet::{Error, Event, Stats};
use tracing::warn;

use crate::host::GameHost;
use crate::session::{BotPlayer, GameServer};

pub use crate::host::{AnswerQueries, GAME, Listing};

/// A game server on a UDP socket: the [`GameHost`] on hopnet's UDP driver.
pub type UdpServer = GameHost<Server>;

impl GameHost<Server> {
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
/// [`Client::connect_secure`]), connecting or connected, on any carrier.
pub fn play_bot_on<C: ClientDriver>(
    mut client: C,
    player: &mut BotPlayer,
    mut done: impl FnMut(&BotPlayer, &hopnet::proto::Client) -> bool,
) -> Result<Stats, C::Error> {
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
