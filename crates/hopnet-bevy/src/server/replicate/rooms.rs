//! The rooms the game gives (an entity's [`InRooms`](crate::shared::replicate::InRooms), a
//! client's in [`ClientViews`](super::ClientViews)) as joins and leaves on the replicator,
//! which adds every entity and client to the default room itself.

use std::collections::HashMap;
use std::hash::Hash;

use hopnet::ConnectionId;
use hopnet_codec::{DeltaDecode, DeltaEncode};
use hopnet_sync::replicate::{Replicator, RoomId};

/// The rooms last given to the replicator, per entity and per client (absent: the default
/// room alone).
#[derive(Debug, Default)]
pub(crate) struct RoomSync {
    entities: HashMap<u64, Vec<RoomId>>,
    clients: HashMap<ConnectionId, Vec<RoomId>>,
}

const DEFAULT: &[RoomId] = &[RoomId::DEFAULT];

impl RoomSync {
    /// Entity `id` is in `rooms` (`None`: the default room alone).
    pub fn entity<S: DeltaEncode + DeltaDecode + Clone>(
        &mut self,
        r: &mut Replicator<ConnectionId, u64, S>,
        id: u64,
        rooms: Option<&[RoomId]>,
    ) {
        let want = rooms.unwrap_or(DEFAULT);
        let had = self.entities.get(&id).map_or(DEFAULT, Vec::as_slice);
        let (join, leave) = diff(had, want);
        for room in leave {
            r.entity_leave(&id, room);
        }
        for room in join {
            r.entity_join(id, room);
        }
        remember(&mut self.entities, id, want);
    }

    /// Client `c` is in `rooms`.
    pub fn client<S: DeltaEncode + DeltaDecode + Clone>(
        &mut self,
        r: &mut Replicator<ConnectionId, u64, S>,
        c: ConnectionId,
        rooms: &[RoomId],
    ) {
        let had = self.clients.get(&c).map_or(DEFAULT, Vec::as_slice);
        if had == rooms {
            return;
        }
        let (join, leave) = diff(had, rooms);
        for room in leave {
            r.client_leave(&c, room);
        }
        for room in join {
            r.client_join(&c, room);
        }
        remember(&mut self.clients, c, rooms);
    }

    pub fn forget_entity(&mut self, id: u64) {
        self.entities.remove(&id);
    }

    pub fn forget_client(&mut self, c: ConnectionId) {
        self.clients.remove(&c);
    }
}

/// The rooms to join and to leave to go from `had` to `want`.
fn diff(had: &[RoomId], want: &[RoomId]) -> (Vec<RoomId>, Vec<RoomId>) {
    let join = want.iter().filter(|r| !had.contains(r)).copied().collect();
    let leave = had.iter().filter(|r| !want.contains(r)).copied().collect();
    (join, leave)
}

fn remember<K: Eq + Hash>(map: &mut HashMap<K, Vec<RoomId>>, key: K, rooms: &[RoomId]) {
    if rooms == DEFAULT {
        map.remove(&key);
    } else {
        map.insert(key, rooms.to_vec());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_difference_is_joined_and_left() {
        let (a, b, c) = (RoomId(1), RoomId(2), RoomId(3));
        assert_eq!(diff(&[a, b], &[b, c]), (vec![c], vec![a]));
        assert_eq!(diff(DEFAULT, DEFAULT), (vec![], vec![]));
    }
}
