//! Server queries (the Source engine's A2S) answered by a [`GameHost`] from the live game: on
//! the game's own port through hopnet's [`SideChannel`], on a carrier that has one (UDP's and
//! WebTransport's do), or on a port of their own, on any carrier.
//!
//! The game's port is the default because it is the one players and server lists already
//! know, and it costs hopnet one compare of four bytes per datagram: every query datagram
//! starts `FF FF FF FF`, which no hopnet datagram longer than four bytes does (PROTOCOL.md,
//! "Server queries on the game's port"). The driver reads each datagram once and hands the
//! query ones to the side channel; [`GameHost::turn`] answers them with the
//! [`Responder`] and the answers leave through the same socket, secure server or plain.
//! A separate port ([`AnswerQueries::answer_queries_on`], the server's `--query-port`) is read
//! without blocking once per turn, so its answers wait up to one tick.

use std::net::{SocketAddr, UdpSocket};
use std::time::Duration;

use hopnet::{Carrier, ServerDriver, SideChannel};
use hopnet_formats::source_query::SINGLE;
use tracing::debug;

use super::GameHost;
use crate::query::{PlayerInfo, Responder, ServerInfo};
use crate::session::{RosterEntry, ServerConfig};

/// Query datagrams read from a separate query port per turn at most, so that a flood cannot
/// hold up the game's tick; the rest wait in the kernel (which drops what overflows it).
const MAX_QUERIES_PER_TURN: usize = 64;

/// The game's name in `A2S_INFO`.
pub const GAME: &str = "Snow Fight";

/// What a server says about itself in a listing, beside what the live game tells.
#[derive(Debug, Clone)]
pub struct Listing {
    /// The server's name (`--server-name`).
    pub name: String,
    /// The map's name (`--map`): the worlds are generated, so this is a label.
    pub map: String,
}

impl Default for Listing {
    fn default() -> Self {
        Listing {
            name: "Snow Fight server".into(),
            map: "snowfield".into(),
        }
    }
}

/// A server's query side: the responder, what it says, and where it listens.
pub struct Queries {
    responder: Responder,
    info: ServerInfo,
    /// A separate query port's socket; `None`: the game's port, through the side channel.
    socket: Option<UdpSocket>,
    /// Where they are answered.
    addr: Option<SocketAddr>,
    buf: Vec<u8>,
}

/// The server queries of a host, [`GameHost`] or [`MatchHost`](super::MatchHost): where they
/// are answered, written once for both (each answers them with its own figures).
///
/// ```no_run
/// use snow_fight::host::{AnswerQueries, Listing};
/// use snow_fight::net::UdpServer;
/// use snow_fight::session::{GameServer, ServerConfig};
///
/// let game = GameServer::new(ServerConfig::default());
/// let config = hopnet::Config::default();
/// let mut server = UdpServer::bind("0.0.0.0:4000".parse()?, config, game, 30)?;
/// server.answer_queries(Listing::default())?;
/// assert_eq!(server.query_addr(), server.local_addr().ok());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait AnswerQueries: sealed::Host {
    /// Answers server queries on the game's own port from now on; fails on a carrier without
    /// a side channel (then [`answer_queries_on`](Self::answer_queries_on) a port of their
    /// own).
    fn answer_queries(&mut self, listing: Listing) -> Result<(), <Self::Driver as Carrier>::Error> {
        let (server, queries) = self.query_side();
        *queries = Some(Queries::on_game_port(server, listing)?);
        Ok(())
    }

    /// Answers server queries on `socket` (bound by the caller) from now on, not on the game's
    /// port.
    fn answer_queries_on(
        &mut self,
        socket: UdpSocket,
        listing: Listing,
    ) -> Result<(), <Self::Driver as Carrier>::Error> {
        let (server, queries) = self.query_side();
        *queries = Some(Queries::on_socket(server, socket, listing)?);
        Ok(())
    }
}

impl<H: sealed::Host> AnswerQueries for H {}

/// What the shared methods reach in a host; sealed, so that only the crate's hosts answer.
pub(super) mod sealed {
    use hopnet::ServerDriver;

    use super::Queries;

    pub trait Host {
        /// The host's carrier.
        type Driver: ServerDriver;
        /// Its driver and its query side.
        fn query_side(&mut self) -> (&mut Self::Driver, &mut Option<Queries>);
    }
}

impl<D: ServerDriver> sealed::Host for GameHost<D> {
    type Driver = D;

    fn query_side(&mut self) -> (&mut D, &mut Option<Queries>) {
        (&mut self.server, &mut self.queries)
    }
}

impl<D: ServerDriver> GameHost<D> {
    /// Where queries are answered, if they are.
    pub fn query_addr(&self) -> Option<SocketAddr> {
        self.queries.as_ref()?.addr()
    }

    /// Answers the queries that came in since the last turn.
    pub(super) fn answer_pending_queries(&mut self) -> Result<(), D::Error> {
        let Some(queries) = &mut self.queries else {
            return Ok(());
        };
        let secure = self.server.is_secure();
        let game = &self.game;
        let config = game.config();
        queries.answer_pending(
            &mut self.server,
            config.max_players,
            || players(&game.roster(), config),
            || rules(config, u64::from(game.stats().rounds), secure),
        )
    }
}

impl Queries {
    /// Queries on the game's port, through the driver's side channel.
    pub(super) fn on_game_port<D: ServerDriver>(
        server: &mut D,
        listing: Listing,
    ) -> Result<Queries, D::Error> {
        server.set_side_channel(Some(SideChannel::new(SINGLE)))?;
        Ok(Queries::new(listing, server.local_addr()?, None))
    }

    /// Queries on a port of their own.
    pub(super) fn on_socket<D: ServerDriver>(
        server: &mut D,
        socket: UdpSocket,
        listing: Listing,
    ) -> Result<Queries, D::Error> {
        socket.set_nonblocking(true).map_err(hopnet::Error::from)?;
        server.set_side_channel(None)?;
        Ok(Queries::new(listing, server.local_addr()?, Some(socket)))
    }

    /// Where they are answered.
    pub(super) fn addr(&self) -> Option<SocketAddr> {
        self.addr
    }

    /// Answers the queries that came in since the last turn: a server of `max_players`, whose
    /// players and rules are asked only when a query wants them.
    pub(super) fn answer_pending<D: ServerDriver>(
        &mut self,
        server: &mut D,
        max_players: usize,
        players: impl Fn() -> Vec<PlayerInfo>,
        rules: impl Fn() -> Vec<(String, String)>,
    ) -> Result<(), D::Error> {
        self.info.max_players = u8::try_from(max_players).unwrap_or(u8::MAX);
        let Queries {
            responder,
            info,
            socket,
            buf,
            ..
        } = self;
        let answer =
            |from, datagram: &[u8]| responder.answer(from, datagram, info, &players, &rules);
        match socket {
            None => {
                let Some(side) = server.side_channel() else {
                    return Ok(());
                };
                let mut answered = false;
                while let Some((from, datagram)) = side.recv() {
                    if let Some(answer) = answer(from, &datagram) {
                        answered |= side.send(from, answer);
                    }
                }
                if answered {
                    server.flush()?;
                }
            }
            Some(socket) => {
                for _ in 0..MAX_QUERIES_PER_TURN {
                    let (n, from) = match socket.recv_from(buf) {
                        Ok(got) => got,
                        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                        // Such as an ICMP error of an earlier answer (Windows reports them
                        // here): the query socket's trouble never stops the game.
                        Err(error) => {
                            debug!(%error, "query socket");
                            continue;
                        }
                    };
                    let datagram = &buf[..n];
                    if !Responder::is_query(datagram) {
                        continue;
                    }
                    if let Some(answer) = answer(from, datagram) {
                        // A full socket buffer drops the answer; the client asks again.
                        let _ = socket.send_to(&answer, from);
                    }
                }
            }
        }
        Ok(())
    }

    fn new(listing: Listing, game_addr: SocketAddr, socket: Option<UdpSocket>) -> Queries {
        Queries {
            responder: Responder::new(),
            info: ServerInfo {
                name: listing.name,
                map: listing.map,
                game: GAME.into(),
                version: env!("CARGO_PKG_VERSION").into(),
                max_players: 0,
                game_port: game_addr.port(),
            },
            addr: match &socket {
                Some(socket) => socket.local_addr().ok(),
                None => Some(game_addr),
            },
            socket,
            // A datagram larger than any query is cut short here and then fails to decode.
            buf: vec![0; 2048],
        }
    }
}

/// The players of a roster. Bots are clients like any other to the server (it cannot tell
/// them apart), so none is counted as a bot: `A2S_INFO`'s bots are the server's own.
pub(super) fn players(roster: &[RosterEntry], config: &ServerConfig) -> Vec<PlayerInfo> {
    let tick_rate = f64::from(config.game.tick_rate.max(1));
    roster
        .iter()
        .map(|entry| PlayerInfo {
            name: format!("player {}", entry.player),
            score: i32::try_from(entry.wins).unwrap_or(i32::MAX),
            connected: Duration::from_secs_f64(f64::from(entry.ticks_joined) / tick_rate),
            bot: false,
        })
        .collect()
}

/// The server's settings that a player choosing a server cares about.
pub(super) fn rules(config: &ServerConfig, rounds: u64, secure: bool) -> Vec<(String, String)> {
    let tick_rate = config.game.tick_rate.max(1);
    let snapshot_rate = config.snapshot_rate.map_or(tick_rate, |r| r.min(tick_rate));
    [
        ("tick_rate", tick_rate.to_string()),
        ("snapshot_rate", snapshot_rate.to_string()),
        ("min_players", config.game.min_players.to_string()),
        (
            "round_secs",
            (config.game.max_ticks / tick_rate).to_string(),
        ),
        ("secure", u8::from(secure).to_string()),
        ("rounds_played", rounds.to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}
