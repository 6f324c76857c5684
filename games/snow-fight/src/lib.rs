//! The toolkit's worked example: a small networked game built on `hopnet-codec`, `hopnet-snow-fight` and
//! `hopnet`.
//!
//! - [`world`]: the world as plain data (trees, mushrooms, players) and its generation.
//! - [`rules`]: how the spec's actions and each tick change a world; deterministic.
//! - [`bot`]: a player that plays by itself.
//! - [`snapshot`]: conversions to and from the spec's messages (`hopnet-snow-fight`).
//! - [`session`]: a server's rounds and a client's view over `hopnet`'s state machines,
//!   without sockets.
//! - [`net`]: the same over real UDP, plus a lossy relay.
//! - [`query`]: answers the Source engine's server queries (A2S), without sockets.
//! - [`web`]: the same for browsers too (WebTransport), and the page that plays.
//!
//! The examples `server`, `client` and `demo` are thin layers over [`session`], [`net`] and
//! [`web`].

pub mod bot;
pub mod net;
pub mod query;
pub mod rng;
pub mod rules;
pub mod session;
pub mod snapshot;
pub mod web;
pub mod world;

pub use rules::{GameEvent, Input, Refused};
pub use world::{
    Config, Dir, EndReason, Entity, EntityId, EntityKind, Object, ObjectKind, ObjectState, Outcome,
    Phase, Player, PlayerId, Vec2, World,
};
