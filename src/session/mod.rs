//! The game over the protocol, without sockets: a server's rounds ([`GameServer`]) and a
//! client's view of them ([`GameClient`], [`BotPlayer`]).
//!
//! Both sides talk to `netproto`'s sans-I/O state machines, a server to an
//! [`Endpoint`](netproto::Endpoint) and a client to a [`Connection`](netproto::Connection), so the
//! same code runs over real UDP ([`crate::net`]) and over `netproto::sim`'s simulated network (the
//! integration test).
//!
//! The server follows the spec's diagram: it accepts connections; on an `Init` request it adds
//! the player to the round and answers `Connect` (reliable) with the player id and the current
//! snapshot; every tick it runs the rules and sends each player a `Snapshot` event (unreliable);
//! when the round is over it sends `GameOver` (reliable) to everyone and starts a new round.
//! `Ping` gets `Pong`. Whatever a client gets wrong (an action before `Init`, `Init` twice, a
//! message that does not decode) gets an `Error` response when it has a channel to answer on, is
//! otherwise dropped, is logged either way, and never touches anyone else.
//!
//! The server takes clients of both [`Dialect`](game_messages::Dialect)s, the spec's and that of
//! the spec author's own implementation (they differ in `ClientMessage`'s tag only). A
//! connection's dialect is unknown until its first message that decodes in either
//! ([`Dialect::detect`](game_messages::Dialect::detect)), and fixed from then on; its replies are
//! the same bytes in both. A client picks its dialect with [`GameClient::with_dialect`].
//!
//! - `server`: [`GameServer`], with its requests, its snapshots and its rounds in files of their
//!   own;
//! - `client`: [`GameClient`], the spec's client;
//! - `bot_player`: [`BotPlayer`], a [`GameClient`] that a [`Bot`](crate::bot::Bot) plays;
//! - `interpolation`: [`Interpolation`], a client's view drawn between snapshots.

mod bot_player;
mod client;
mod interpolation;
mod server;

pub use bot_player::BotPlayer;
pub use client::{ClientEvent, ClientStats, GameClient};
pub use interpolation::Interpolation;
pub use server::{GameServer, ServerConfig, ServerStats};
