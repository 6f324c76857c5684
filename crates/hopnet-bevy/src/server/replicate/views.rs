//! What the game says of each client for replication: where it looks from, its rooms and its
//! cap; and the defaults for a client the game says nothing of.

use std::collections::HashMap;

use bevy_ecs::resource::Resource;
use hopnet::ConnectionId;
use hopnet_sync::replicate::{Position, RoomId};

/// Each client's point of view, rooms and cap, set by the game (a client it says nothing of
/// looks from the origin, is in [`RoomId::DEFAULT`] alone, and has the default cap, [`ReplicationSettings::cap`](crate::ReplicationSettings::cap)).
///
/// ```
/// use hopnet_bevy::ConnectionId;
/// use hopnet_bevy::server::ClientViews;
/// use hopnet_sync::replicate::RoomId;
///
/// let mut views = ClientViews::default();
/// let alice = ConnectionId(1);
/// views.set_view(alice, [10.0, 0.0, 0.0]);
/// views.set_rooms(alice, vec![RoomId(7)]);
/// views.set_cap(alice, Some(4_000));
/// assert_eq!(views.view(alice), [10.0, 0.0, 0.0]);
/// assert_eq!(views.rooms(alice), [RoomId(7)]);
/// ```
#[derive(Resource, Debug, Clone, Default)]
pub struct ClientViews {
    views: HashMap<ConnectionId, Position>,
    rooms: HashMap<ConnectionId, Vec<RoomId>>,
    caps: HashMap<ConnectionId, Option<u64>>,
}

impl ClientViews {
    /// Where `client` looks from.
    pub fn set_view(&mut self, client: ConnectionId, view: Position) {
        self.views.insert(client, view);
    }

    /// The rooms `client` is in (instead of [`RoomId::DEFAULT`]).
    pub fn set_rooms(&mut self, client: ConnectionId, rooms: Vec<RoomId>) {
        self.rooms.insert(client, rooms);
    }

    /// `client`'s own cap, in bytes per second (`None`: only its link limits it), instead of
    /// [`ReplicationSettings::cap`](crate::ReplicationSettings::cap).
    pub fn set_cap(&mut self, client: ConnectionId, cap: Option<u64>) {
        self.caps.insert(client, cap);
    }

    /// Forgets what was set for `client` (the plugin does when it disconnects).
    pub fn forget(&mut self, client: ConnectionId) {
        self.views.remove(&client);
        self.rooms.remove(&client);
        self.caps.remove(&client);
    }

    /// Where `client` looks from.
    pub fn view(&self, client: ConnectionId) -> Position {
        self.views.get(&client).copied().unwrap_or_default()
    }

    /// The rooms `client` is in.
    pub fn rooms(&self, client: ConnectionId) -> &[RoomId] {
        self.rooms
            .get(&client)
            .map_or(&[RoomId::DEFAULT], Vec::as_slice)
    }

    /// `client`'s cap: its own, or `default`.
    pub fn cap(&self, client: ConnectionId, default: Option<u64>) -> Option<u64> {
        self.caps.get(&client).copied().unwrap_or(default)
    }
}
