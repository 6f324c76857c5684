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
//! | Budget | `budget.rs` | bytes per second per client, the smaller of the game's cap and hopnet's [`Stats::send_rate`](hopnet_proto::Stats::send_rate); a token bucket with a bounded carry, never over the budget in any one second, counting the bytes the transport puts on the wire ([`wire_len`]) |
//! | Baselines | `baseline.rs` | the newest state a client acknowledged (tracked updates: `Acknowledged` moves it, `Lost` does not); an entity the client has as it is now costs nothing |
//! | The update | `message.rs` | a tick, spawns (whole), changes (deltas with their baseline's tick), despawns: a Rabbit type ([`Update`]) |
//! | Server | `server.rs` | [`Replicator`]: the world, each client's scope, priorities, budget, in-flight updates |
//! | Client | `client.rs` | [`Replica`]: copies, the states deltas are written against, hostile updates refused whole |
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

mod baseline;
mod budget;
mod client;
mod message;
mod priority;
mod rooms;
mod scope;
mod server;

use std::time::Duration;

pub use budget::{Budget, wire_len};
pub use client::{Applied, Replica, ReplicaError};
pub use message::{Change, Spawn, Update};
pub use priority::{ByDistance, Candidate, MIN_RATE, Priority};
pub use rooms::{RoomId, Rooms};
pub use scope::{Everywhere, Grid, Position, Radius, Spatial};
pub use server::{PeerStats, Replicator, Sent};

/// The settings both sides of replication share.
///
/// ```
/// use hopnet_sync::replicate::ReplicateConfig;
///
/// // Budgets counted as the link counts them: IPv4 and UDP headers too.
/// let config = ReplicateConfig { datagram_overhead: 28, ..ReplicateConfig::default() };
/// assert_eq!(config.history, 160);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplicateConfig {
    /// Ticks of states the client keeps for deltas to be written against (160). Both sides
    /// must agree on it.
    pub history: u32,
    /// The oldest baseline, in ticks, the server writes a delta against (64); an entity whose
    /// acknowledged state is older is sent whole. `history - max_baseline_age` must be at
    /// least hopnet's tracked timeout in ticks (a second: 96 ticks covers up to 96 Hz), so
    /// that the client still holds the baseline of any update acknowledged in time.
    pub max_baseline_age: u32,
    /// How much of a quiet tick's budget the next may spend: a token bucket's depth, as a
    /// duration of the budget (100 ms).
    pub carry: Duration,
    /// Bytes counted per datagram beyond hopnet's header (0): 28 counts IPv4 and UDP too.
    pub datagram_overhead: usize,
    /// The largest update, in bytes (one chunk, 504: a lost datagram loses one update).
    pub max_update_bytes: usize,
    /// Updates awaiting their acknowledgement per client (256); past it the oldest counts as
    /// lost.
    pub max_in_flight: usize,
    /// The most entities a client holds (65,536); an update that would pass it is refused.
    pub max_entities: usize,
    /// How long a state sent waits for its acknowledgement before it is sent again, when the
    /// client's round trip is not known (250 ms; once it is, one and a half round trips).
    pub resend_after: Duration,
}

impl Default for ReplicateConfig {
    fn default() -> Self {
        ReplicateConfig {
            history: 160,
            max_baseline_age: 64,
            carry: Duration::from_millis(100),
            datagram_overhead: 0,
            max_update_bytes: hopnet_proto::CHUNK_SIZE,
            max_in_flight: 256,
            max_entities: 65_536,
            resend_after: Duration::from_millis(250),
        }
    }
}
