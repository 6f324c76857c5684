//! What both sides of component replication name: the marker, the place and rooms the
//! server's scope reads, the client's link from a server entity to its own, and the payload's
//! framing.
//!
//! The rules themselves (relevance, the priority accumulator, the budget, the deltas against
//! what each client acknowledged) are hopnet-sync's [`replicate`](hopnet_sync::replicate);
//! the plugins only feed them the world and carry their updates.

use bevy_ecs::component::Component;
use hopnet_sync::replicate::{Position, ReplicateConfig, RoomId};

use crate::shared::protocol::{NetworkSnapshot, frame};

/// A component type the plugins can replicate entity by entity: a Bevy component that
/// derives `Rabbit` with `#[rabbit(delta)]` (so that a change travels as a delta against what
/// the client acknowledged), and that can be cloned (the server keeps what each client has).
pub trait ReplicatedComponent: Component + Clone + NetworkSnapshot {}

impl<C: Component + Clone + NetworkSnapshot> ReplicatedComponent for C {}

/// Marks an entity whose replicated components the server sends to the clients in whose
/// scope it is. On a client, every entity the plugins spawned for the server's carries it too.
#[derive(Component, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Replicated;

/// Where a replicated entity is, for the spatial rule and the priority (the game keeps it up
/// to date; an entity without it is at the origin).
///
/// On the server only: the game's own components carry what clients need to see.
#[derive(Component, Debug, Clone, Copy, Default, PartialEq)]
pub struct ScopePosition(pub Position);

/// The rooms a replicated entity is in, on the server; without it, an entity is in
/// [`RoomId::DEFAULT`] alone. A client is sent an entity only if they share a room.
#[derive(Component, Debug, Clone, Default, PartialEq, Eq)]
pub struct InRooms(pub Vec<RoomId>);

/// On a client, the server's entity a local entity stands for (the server's
/// [`Entity::to_bits`](bevy_ecs::entity::Entity::to_bits)).
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ServerEntity(pub u64);

/// A replication payload is the type's tag, padded to a byte, then hopnet-sync's update as
/// its bytes: the update is built and sized by the replicator, so it is appended as it is.
pub(crate) fn prefix(tag: u32) -> Vec<u8> {
    let mut out = Vec::new();
    // A `u32` always encodes.
    let _ = frame::encode(Some(tag), &(), &mut out);
    out
}

/// The replicator's settings with the tag's bytes counted in every datagram, so that the
/// budget counts what goes on the wire.
pub(crate) fn with_prefix(mut config: ReplicateConfig, prefix: &[u8]) -> ReplicateConfig {
    config.datagram_overhead += prefix.len();
    config.max_update_bytes = config.max_update_bytes.saturating_sub(prefix.len());
    config
}

/// Replication's settings: hopnet-sync's [`ReplicateConfig`] (read when a type is registered:
/// insert this resource first to change it; the server's and the clients' must agree), and the cap, in bytes per second,
/// of a client with no cap of its own (read every frame; `None`: only the link limits it).
///
/// ```
/// use hopnet_bevy::ReplicationSettings;
///
/// let settings = ReplicationSettings { cap: Some(8_000), ..Default::default() };
/// assert_eq!(settings.config.history, 160);
/// ```
#[derive(bevy_ecs::resource::Resource, Debug, Clone, Default)]
pub struct ReplicationSettings {
    /// The replicators' settings.
    pub config: ReplicateConfig,
    /// Every client's cap unless [`ClientViews::set_cap`](crate::server::ClientViews::set_cap) says otherwise.
    pub cap: Option<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prefix_is_the_tag_alone_and_counts_in_the_budget() {
        let p = prefix(3);
        let (tag, r) = frame::open(&p, true).unwrap();
        assert_eq!(tag, 3);
        r.finish().unwrap();
        let config = with_prefix(ReplicateConfig::default(), &p);
        assert_eq!(config.datagram_overhead, p.len());
        assert_eq!(
            config.max_update_bytes + p.len(),
            ReplicateConfig::default().max_update_bytes
        );
    }
}
