//! The toolkit's worked example: a small networked game built on `hopnet-codec`, `hopnet-snow-fight` and
//! `hopnet`.
//!
//! - [`world`]: the world as plain data (trees, mushrooms, players) and its generation.
//! - [`rules`]: how the spec's actions and each tick change a world; deterministic.
//! - [`bot`]: a player that plays by itself.
//! - [`snapshot`]: conversions to and from the spec's messages (`hopnet-snow-fight`).
//! - [`session`]: a server's rounds and a client's view over `hopnet`'s state machines,
//!   without sockets.
//! - [`host`]: the server's loop, once for every carrier (hopnet's `ServerDriver`): the
//!   ticks, the events, the server queries; [`host::MatchHost`] runs many matches on one
//!   driver, each on a thread of its own.
//! - [`net`]: the game over real UDP ([`net::UdpServer`], the host on UDP; a bot's loop).
//! - [`query`]: answers the Source engine's server queries (A2S), without sockets; [`host`]'s
//!   [`AnswerQueries::answer_queries`](host::AnswerQueries::answer_queries) answers them on the game's
//!   port from the live game, so server browsers list the server (`python3 -c 'import a2s;
//!   print(a2s.info(("127.0.0.1", 7000)))'` against the `server` example).
//! - [`web`]: the game for browsers too ([`web::WebServer`], the host on WebTransport beside
//!   UDP), and the page that plays.
//! - `fleet` (the `agones` feature): the server in an Agones fleet: `Ready`, health, player
//!   tracking, and a drain on SIGTERM that ends with `Shutdown`.
//!
//! The examples `server`, `client` and `demo` are thin layers over [`session`], [`host`],
//! [`net`] and [`web`].

pub mod bot;
#[cfg(feature = "agones")]
pub mod fleet;
pub mod host;
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
