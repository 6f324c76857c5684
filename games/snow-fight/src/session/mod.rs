//! The game over the protocol, without sockets: a server's rounds ([`GameServer`]) and a
//! client's view of them ([`GameClient`], [`BotPlayer`]).
//!
//! Both sides talk to `hopnet`'s sans-I/O state machines, a server to an
//! [`Server`](hopnet::proto::Server) and a client to a [`Client`](hopnet::proto::Client), so the
//! same code runs over real UDP ([`crate::net`]) and over `hopnet::sim`'s simulated network (the
//! integration test).
//!
//! The server follows the spec's diagram: it accepts connections; on an `Init` request it adds
//! the player to the round and answers `Connect` (reliable) with the player id and the current
//! snapshot; every tick it runs the rules and sends each player a `Snapshot` event (unreliable);
//! when the round is over it sends `GameOver` (reliable and ordered) to everyone and, after an
//! intermission, starts a new round.
//! `Ping` gets `Pong`. Whatever a client gets wrong (an action before `Init`, `Init` twice, a
//! message that does not decode) gets an `Error` response when it has a channel to answer on, is
//! otherwise dropped, is logged either way, and never touches anyone else.
//!
//! The server takes clients of both [`Dialect`](hopnet_snow_fight::Dialect)s, the spec's and that of
//! the spec author's own implementation (they differ in `ClientMessage`'s tag only). A
//! connection's dialect is unknown until its first message that decodes in either
//! ([`Dialect::detect`](hopnet_snow_fight::Dialect::detect)), and fixed from then on; its replies are
//! the same bytes in both. A client picks its dialect with [`GameClient::with_dialect`].
//!
//! - `server`: [`GameServer`], with its requests, its snapshots and its rounds in files of their
//!   own;
//! - `client`: [`GameClient`], the spec's client;
//! - `bot_player`: [`BotPlayer`], a [`GameClient`] that a [`Bot`](crate::bot::Bot) plays;
//! - `view`: [`ClientView`], what a client shows: its own player predicted, the others drawn
//!   between snapshots (through `hopnet_sync`).

mod bot_player;
mod client;
mod server;
mod view;

pub use bot_player::BotPlayer;
pub use client::{ClientEvent, ClientStats, GameClient, RoundResult};
pub(crate) use server::Seat;
pub use server::{GameServer, Outgoing, RosterEntry, ScopeConfig, ServerConfig, ServerStats};
pub use view::{ClientView, ViewStats};

/// Whether tick `a` is newer than tick `b`, as the server's time wraps: serial-number
/// arithmetic, `a` less than half the range ahead of `b`. Exactly half-way, neither is newer.
/// One rule, so that the server's baselines and the client's snapshots agree on the order.
pub(crate) fn tick_newer(a: u32, b: u32) -> bool {
    a != b && a.wrapping_sub(b) < 1 << 31
}

#[cfg(test)]
mod tests {
    use super::tick_newer;

    #[test]
    fn a_tick_is_newer_than_those_less_than_half_the_range_behind_it() {
        assert!(tick_newer(2, 1));
        assert!(!tick_newer(1, 2));
        assert!(!tick_newer(7, 7), "a tick is not newer than itself");
        // Across the wrap.
        assert!(tick_newer(0, u32::MAX));
        assert!(tick_newer(5, u32::MAX - 5));
        assert!(!tick_newer(u32::MAX, 0));
        // Just short of half-way ahead is newer; half-way is newer in neither direction.
        let half = 1u32 << 31;
        assert!(tick_newer(half - 1, 0));
        assert!(!tick_newer(0, half - 1));
        assert!(!tick_newer(half, 0));
        assert!(!tick_newer(0, half));
        assert!(tick_newer(half + 10, 11));
        assert!(!tick_newer(half + 10, 10));
    }
}
