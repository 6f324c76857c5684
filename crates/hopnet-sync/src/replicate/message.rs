//! The update a server sends one client: its tick, the entities that entered the client's
//! scope (whole), the changes of the ones it has (deltas, each against a baseline the client
//! acknowledged), and the ones that left. A Rabbit type, sent tracked.

use hopnet_codec::Rabbit;

use crate::Tick;

/// One client's update of one tick.
///
/// Ticks inside it are written as ages back from [`tick`](Update::tick) (a few bits each,
/// as a baseline is usually a round trip old), never as absolute numbers.
///
/// ```
/// use hopnet_sync::replicate::{Spawn, Update};
///
/// let update: Update<u32, (f32, f32)> = Update {
///     tick: 100,
///     spawns: vec![Spawn { entity: 7, since_age: 0, state: (1.0, 2.0) }],
///     changes: vec![],
///     despawns: vec![3],
/// };
/// let bytes = hopnet_codec::to_bytes(&update).unwrap();
/// assert_eq!(hopnet_codec::from_bytes::<Update<u32, (f32, f32)>>(&bytes).unwrap(), update);
/// ```
#[derive(Rabbit, Debug, Clone, PartialEq)]
pub struct Update<E, S> {
    /// The server's tick the states are of.
    pub tick: Tick,
    /// Entities sent whole: in scope, and no state of theirs acknowledged yet.
    pub spawns: Vec<Spawn<E, S>>,
    /// Entities the client has, as deltas against acknowledged states.
    pub changes: Vec<Change<E>>,
    /// Entities that left the client's scope (or the world) by this tick.
    pub despawns: Vec<E>,
}

/// An entity sent whole (the [`Update`]'s example carries one).
#[derive(Rabbit, Debug, Clone, PartialEq)]
pub struct Spawn<E, S> {
    /// The entity.
    pub entity: E,
    /// How many ticks before the update's the entity entered the client's scope: it names
    /// the stay in scope (resent spawns of one stay carry the same entry tick), so a late
    /// spawn of an earlier stay is told from this one.
    pub since_age: u32,
    /// Its whole state.
    pub state: S,
}

/// An entity's state as a delta against one the client acknowledged.
///
/// ```
/// use hopnet_sync::replicate::Change;
///
/// // Tick 10's state of entity 3 against its state of tick 7.
/// let (then, now) = ((1.0f32, 2.0f32), (1.5f32, 2.0f32));
/// let change = Change {
///     entity: 3u32,
///     baseline_age: 10 - 7,
///     delta: hopnet_codec::delta::to_bytes(&now, &then).unwrap(),
/// };
/// assert_eq!(hopnet_codec::delta::from_bytes(&then, &change.delta).unwrap(), now);
/// ```
#[derive(Rabbit, Debug, Clone, PartialEq)]
pub struct Change<E> {
    /// The entity.
    pub entity: E,
    /// How many ticks before the update's the baseline is: the state of the entity that
    /// the update of that tick carried.
    pub baseline_age: u32,
    /// `hopnet_codec::delta::to_bytes(state, baseline)`.
    pub delta: Vec<u8>,
}
