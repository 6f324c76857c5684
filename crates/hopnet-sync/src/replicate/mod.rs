//! Replication at scale, sans-I/O: which entities each client is sent (relevance), in what
//! order (a priority accumulator), how much (a byte budget per client, from the game's cap
//! and the client's congestion controller), and how (per entity, a delta against the newest
//! state that client acknowledged).
//!
//! | Rule | File | What it does |
//! |---|---|---|
//! | Rooms | `rooms.rs` | an entity is sent to a client only if they share a room ([`Rooms`], [`RoomId`]) |
//! | Spatial scope | `scope.rs` | and only if the game's [`Spatial`] rule says it is in view: [`Radius`], [`Grid`], [`Everywhere`], or the game's own |
//! | Priority | `priority.rs` | each entity a client needs grows in priority by the game's [`Priority`] rate every tick ([`ByDistance`] by default); the update is filled from the top; what is sent drops to zero, what did not fit keeps growing |
//! | Budget | `budget.rs` | bytes per second per client, the smaller of the game's cap and hopnet's [`Stats::send_rate`](hopnet_proto::Stats::send_rate); a token bucket with a bounded carry, never over the budget in any one second, counting the bytes the transport puts on the wire ([`wire_len`]); on a tight budget an update cut short may wait for a fuller one (`ReplicateConfig::min_budgeted_update`) |
//! | Baselines | `baseline.rs` | the newest state a client acknowledged (tracked updates: `Acknowledged` moves it, `Lost` does not); an entity the client has as it is now costs nothing |
//! | The update | `message.rs` | a tick, spawns (whole), changes (deltas with their baseline's tick), despawns: a Rabbit type ([`Update`]) |
//! | Server | `server.rs` | [`Replicator`]: the world, each client's scope, priorities, budget, in-flight updates |
//! | Client | `client.rs` | [`Replica`]: copies, the states deltas are written against, hostile updates refused whole |
//! | Settings | `config.rs` | [`ReplicateConfig`]: the history both sides keep, the oldest baseline, the carry, the largest update, the bounds |
//!
//! An entity entering a client's scope arrives whole (a spawn), leaving it is despawned, and a
//! client is never sent an entity outside its scope. The names follow the ecosystem's: rooms
//! as in naia and lightyear, scope as in naia, priority as in lightyear.
//!
//! One server and one client, the bytes handed over directly (a game sends the update with
//! hopnet's `send_tracked` and reports its `Acknowledged` and `Lost` events back):
//!
//! ```
//! use std::time::Instant;
//! use hopnet_codec::Rabbit;
//! use hopnet_proto::MessageId;
//! use hopnet_sync::replicate::{Radius, Replica, ReplicateConfig, Replicator};
//!
//! #[derive(Rabbit, Debug, Clone, PartialEq)]
//! #[rabbit(delta)]
//! struct Crate { x: f32, y: f32 }
//!
//! let now = Instant::now();
//! let mut server = Replicator::<&str, u32, Crate>::new(ReplicateConfig::default())
//!     .with_spatial(Radius(50.0));
//! let mut client = Replica::<u32, Crate>::new(ReplicateConfig::default());
//! server.add_client("alice", [0.0; 3], Some(10_000)); // at most 10 kB/s
//! for i in 0..10u32 {
//!     let x = i as f32 * 10.0; // crates 0 to 5 are within 50 of alice
//!     server.set(i, Crate { x, y: 0.0 }, [x, 0.0, 0.0]);
//! }
//!
//! let mut next_id = 0;
//! for tick in 1..=3 {
//!     server.set_tick(tick);
//!     let mut sent = None;
//!     server.send(&"alice", now, |bytes| {
//!         sent = Some(bytes.to_vec());
//!         next_id += 1;
//!         Some(MessageId(next_id)) // what `send_tracked` returned
//!     });
//!     if let Some(bytes) = sent {
//!         client.apply(&bytes).unwrap();
//!         server.acknowledged(&"alice", MessageId(next_id)); // its `Acknowledged` event
//!     }
//! }
//! assert_eq!(client.len(), 6); // only what is in scope
//! assert_eq!(client.get(&5), Some(&Crate { x: 50.0, y: 0.0 }));
//!
//! // At rest and acknowledged: the next tick sends nothing at all.
//! server.set_tick(4);
//! assert!(server.send(&"alice", now, |_| unreachable!()).is_none());
//! ```

//!
//! # Driving it over hopnet
//!
//! Each tick, on the server: [`Replicator::set`] every entity that exists (its state and
//! place), [`Replicator::set_tick`], then for each client [`Replicator::set_view`],
//! [`Replicator::set_link`] with `server.stats(connection)`, and [`Replicator::send`] with a
//! closure that calls `server.send_tracked(connection, bytes).ok()`. For each
//! `Event::Acknowledged { id }` call [`Replicator::acknowledged`], for each `Event::Lost { id }`
//! [`Replicator::lost`]. On the client, [`Replica::apply`] each message's bytes. Anything else
//! the game sends a client counts against its budget through [`Replicator::charge`].
//!
//! hopnet measures a connection's round trip from the acknowledgements of reliable
//! messages, and its congestion window moves with reliable traffic only: with updates alone
//! (tracked), [`Stats::send_rate`](hopnet_proto::Stats::send_rate) stays unset and only the
//! game's cap limits the budget. A small reliable message now and then (a clock, a score)
//! lets the budget follow the link.
//!
//! # What an update costs
//!
//! An entity the client has as it is now costs nothing, and a tick with nothing to send sends
//! nothing. A changed entity costs its id, its baseline's age (a `u32`, 10 bits under 256
//! ticks), the delta's byte count (10 bits) and the delta itself, padded to a byte; an entity
//! sent whole costs its id, its stay's age and its whole state. The update adds its tick and
//! three counts; on the wire, hopnet's 4-byte header per datagram ([`wire_len`]).

mod baseline;
mod budget;
mod client;
mod config;
mod message;
mod priority;
mod rooms;
mod scope;
mod server;

pub use budget::{Budget, wire_len};
pub use client::{Applied, Replica, ReplicaError};
pub use config::ReplicateConfig;
pub use message::{Change, Spawn, Update};
pub use priority::{ByDistance, Candidate, MIN_RATE, Priority};
pub use rooms::{RoomId, Rooms};
pub use scope::{Everywhere, Grid, Position, Radius, Spatial};
pub use server::{PeerStats, Replicator, Sent};
