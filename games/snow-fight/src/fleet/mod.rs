//! The game server in an Agones fleet (the `agones` feature): the server tells the fleet
//! manager, through the local Agones SDK server, that it is ready, alive, who plays and how
//! many, and when it is done; and it drains when Kubernetes asks it to stop (SIGTERM).
//!
//! The SDK is async (gRPC over tonic) and the game loop is not, so the two meet through a
//! small interface:
//!
//! - The game tells the fleet [`FleetEvent`]s: it listens; a player connected or disconnected
//!   (by id); all its matches are over. [`SdkLink`] carries them to the SDK on a tokio runtime
//!   of its own, on its own thread, through a bounded channel the game loop never waits on.
//! - The fleet tells the game to drain: [`DrainSignal`] is raised by SIGTERM.
//! - [`Matches`] is what the fleet needs of the game: who is placed, stop placing, whether a
//!   match is in play. [`Fleet`] watches a [`Matches`] after every tick and turns what it sees
//!   into the events above; a server of many matches implements [`Matches`] for its own type.
//!
//! Today's [`GameServer`](crate::session::GameServer) is one match whose rounds follow each
//! other forever: its "last match ended" is the current round's `GameOver` (`last_match`).
//! A [`MatchHost`](crate::host::MatchHost) of many matches drains as it does on its own: no
//! new players or matches, each match ends with its round, and it is over once every match is
//! (`match_host`).
//!
//! What the SDK is told (in this order): the player capacity (`SetPlayerCapacity`, Alpha
//! player tracking) and the `players` counter's capacity, then `Ready` once the server listens;
//! `Health` every [`FleetConfig::health_every`]; for each player who joins `PlayerConnect(id)`
//! then the counter's new count, for each who leaves `PlayerDisconnect(id)` then the count;
//! `Shutdown` once drained. The live count is a Beta counter (`players`), not a label: a
//! counter has a capacity beside its count, which allocation filters and a
//! `FleetAutoscaler`'s counter policy read directly, while a label is a string that neither
//! can compare.
//!
//! A lost SDK connection is retried with a backoff ([`Backoff`]): the call that failed is
//! made again once the SDK answers, the health pings start again, and the game never waits.
//! [`standin`] is a stand-in SDK server for tests and local runs, not the real one (a Go
//! program).
//!
//! ```no_run
//! use snow_fight::fleet::{Fleet, FleetConfig};
//! use snow_fight::session::{GameServer, ServerConfig};
//!
//! let mut game = GameServer::new(ServerConfig::default());
//! let mut fleet = Fleet::start(FleetConfig::new(8)).unwrap();
//! // ... bind the game's socket, then:
//! fleet.listening();
//! loop {
//!     // ... one tick of the game, then:
//!     if fleet.watch(&mut game) {
//!         break;
//!     }
//! }
//! fleet.finish().unwrap(); // Shutdown reached the SDK: exit 0
//! ```

mod backoff;
mod drain;
mod events;
mod last_match;
mod match_host;
mod sdk_link;
mod watch;

pub mod standin;

pub use backoff::Backoff;
pub use drain::DrainSignal;
pub use events::{FleetConfig, FleetEvent};
pub use sdk_link::{FleetError, SdkLink};
pub use watch::{Fleet, Matches};
