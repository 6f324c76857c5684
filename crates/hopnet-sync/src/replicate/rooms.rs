//! Rooms: an entity is sent to a client only when they share one.

use std::collections::{BTreeSet, HashMap};
use std::hash::Hash;

/// A room's number, the game's to choose. Clients and entities start in
/// [`RoomId::DEFAULT`]; a game that does not use rooms never sees another.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RoomId(pub u32);

impl RoomId {
    /// The room every client and every entity joins when added.
    pub const DEFAULT: RoomId = RoomId(0);
}

/// Which rooms each member (a client or an entity) is in.
///
/// ```
/// use hopnet_sync::replicate::{RoomId, Rooms};
///
/// let mut clients = Rooms::<&str>::default();
/// let mut entities = Rooms::<u32>::default();
/// clients.join("alice", RoomId(1));
/// entities.join(7, RoomId(1));
/// entities.join(8, RoomId(2));
/// assert!(clients.shares(&"alice", &entities, &7));
/// assert!(!clients.shares(&"alice", &entities, &8));
/// ```
#[derive(Debug, Clone)]
pub struct Rooms<K> {
    of: HashMap<K, BTreeSet<RoomId>>,
}

impl<K> Default for Rooms<K> {
    fn default() -> Self {
        Rooms { of: HashMap::new() }
    }
}

impl<K: Eq + Hash + Clone> Rooms<K> {
    /// Puts `member` in `room` (it stays in its other rooms).
    pub fn join(&mut self, member: K, room: RoomId) {
        self.of.entry(member).or_default().insert(room);
    }

    /// Takes `member` out of `room`.
    pub fn leave(&mut self, member: &K, room: RoomId) {
        if let Some(rooms) = self.of.get_mut(member) {
            rooms.remove(&room);
        }
    }

    /// Forgets `member` and all its rooms.
    pub fn remove(&mut self, member: &K) {
        self.of.remove(member);
    }

    /// The rooms `member` is in.
    pub fn rooms_of(&self, member: &K) -> impl Iterator<Item = RoomId> + '_ {
        self.of.get(member).into_iter().flatten().copied()
    }

    /// Whether `member` of these rooms and `other` of `others` are in a room together.
    pub fn shares<L: Eq + Hash + Clone>(&self, member: &K, others: &Rooms<L>, other: &L) -> bool {
        match (self.of.get(member), others.of.get(other)) {
            (Some(a), Some(b)) => intersect(a, b),
            _ => false,
        }
    }

    /// The set of `member`'s rooms, for checking many others against it.
    pub(crate) fn set_of(&self, member: &K) -> Option<&BTreeSet<RoomId>> {
        self.of.get(member)
    }
}

/// Whether two sets of rooms have one in common.
pub(crate) fn intersect(a: &BTreeSet<RoomId>, b: &BTreeSet<RoomId>) -> bool {
    // Both are small, usually of one room: the smaller one is walked.
    let (small, large) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    small.iter().any(|r| large.contains(r))
}
