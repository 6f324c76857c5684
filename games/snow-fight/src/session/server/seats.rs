//! A player's seat, carried from one match to the next when a server hosts several
//! ([`mod@crate::host::matches`]): the match that ends hands its players' seats back, and the
//! match they are placed in next seats them at once, without a second `Init` (the client
//! does not know it moved; it sees a new round). The player keeps its id, its dialect, its
//! wins and its request for deltas; the baselines start over, as the new match has sent it
//! nothing yet.
//!
//! Its clock: every match of a process counts the same ticks (the host starts each at the
//! process's tick, [`GameServer::start_at`]), so that a player who moves on sees times that
//! only go up, which is what a client keeps its newest snapshot by.

use hopnet::ConnectionId;
use hopnet_snow_fight as wire;
use hopnet_snow_fight::Dialect;
use tracing::info;

use super::{Client, DeltaClient, GameServer};
use crate::session::tick_newer;
use crate::world::PlayerId;

/// A connection as it moves between matches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Seat {
    pub connection: ConnectionId,
    /// The id it plays as (or will, at its `Init`: the host chooses ids, unique in the process).
    pub player: PlayerId,
    /// Whether it sent `Init` (then it plays at once where it is seated).
    pub joined: bool,
    pub dialect: Option<Dialect>,
    /// The channel its deltas answer on, if it asked for deltas.
    pub deltas: Option<wire::ChannelId>,
    pub wins: u32,
    /// The process tick it joined at.
    pub joined_at: u32,
}

impl Seat {
    /// A connection that just arrived, to play as `player` when it sends `Init`.
    pub fn arriving(connection: ConnectionId, player: PlayerId) -> Seat {
        Seat {
            connection,
            player,
            joined: false,
            dialect: None,
            deltas: None,
            wins: 0,
            joined_at: 0,
        }
    }
}

impl GameServer {
    /// Starts the server's clock at `time` (the process's tick) instead of 0.
    pub(crate) fn start_at(&mut self, time: u32) {
        self.time = time;
    }

    /// Moves the clock on to `time` when the server fell behind it (a slow tick), so that its
    /// times stay those of the process; never back.
    pub(crate) fn catch_up(&mut self, time: u32) {
        if tick_newer(time, self.time) {
            self.time = time;
        }
    }

    /// Takes a connection in: one that arrived, or one that played in another match (it
    /// plays in this round at once).
    pub(crate) fn admit(&mut self, seat: Seat) {
        let client = Client {
            player: seat.joined.then_some(seat.player),
            reserved: Some(seat.player),
            dialect: seat.dialect,
            deltas: seat.deltas.map(|channel| DeltaClient {
                channel,
                ..DeltaClient::default()
            }),
            joined_at: seat.joined_at,
            wins: seat.wins,
        };
        if seat.joined {
            let (entity, events) = self.world.add_player(seat.player);
            self.log_events(&events);
            info!(
                player = seat.player,
                entity, "player seated from another match"
            );
        }
        self.clients.insert(seat.connection, client);
    }

    /// Every connection's seat, for the next match: the server keeps none.
    ///
    /// A request for scoped updates is not carried: the next match sends full snapshots until
    /// the client, seeing them, asks it again (what the client holds is this match's world).
    pub(crate) fn take_seats(&mut self) -> Vec<Seat> {
        let clients = std::mem::take(&mut self.clients);
        for connection in clients.keys() {
            self.scoped.remove(*connection);
        }
        clients
            .into_iter()
            .map(|(connection, c)| Seat {
                connection,
                player: c.player.or(c.reserved).unwrap_or(0),
                joined: c.player.is_some(),
                dialect: c.dialect,
                deltas: c.deltas.map(|d| d.channel),
                wins: c.wins,
                joined_at: c.joined_at,
            })
            .collect()
    }

    /// Whether `rounds` rounds ended and the last one's intermission is over: a match of that
    /// many rounds is done, and the tick about to run would start the next.
    pub(crate) fn played(&self, rounds: u32) -> bool {
        self.stats.rounds >= rounds
            && self
                .next_round_at
                .is_none_or(|at| !tick_newer(at, self.time.wrapping_add(1)))
    }
}
