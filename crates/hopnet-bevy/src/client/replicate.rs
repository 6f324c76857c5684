//! A client's side of component replication: hopnet-sync's [`Replica`] per replicated type
//! applies the server's updates, and the plugin mirrors them in the world: a spawn spawns an
//! entity (or adds the component to the one that stands for the same server entity), a
//! change replaces the component, a despawn removes it (and the entity, once no replicated
//! type holds it).

use std::any::type_name;
use std::collections::{HashMap, HashSet};

use bevy_ecs::prelude::*;
use hopnet_sync::replicate::{Replica, ReplicateConfig, wire_len};

use crate::shared::error::{NetworkError, Peer};
use crate::shared::inbox::Inbox;
use crate::shared::messages::Connected;
use crate::shared::protocol::{Direction, Kind, Protocol};
use crate::shared::replicate::{Replicated, ReplicatedComponent, ServerEntity, with_prefix};

/// The client's entities that stand for the server's, by the server's entity
/// ([`Entity::to_bits`] on the server), shared by every replicated type.
///
/// ```
/// use bevy::prelude::*;
/// use hopnet_bevy::client::ServerEntities;
///
/// fn find(map: Res<ServerEntities>) {
///     let _local: Option<Entity> = map.get(42);
/// }
/// # let _ = find;
/// ```
#[derive(Resource, Debug, Default)]
pub struct ServerEntities {
    /// The local entity, and how many replicated types it holds.
    map: HashMap<u64, (Entity, u32)>,
}

impl ServerEntities {
    /// The local entity standing for the server's entity `server`.
    pub fn get(&self, server: u64) -> Option<Entity> {
        self.map.get(&server).map(|(e, _)| *e)
    }

    /// How many server entities the client mirrors.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether the client mirrors none.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// The local entity for `server`, spawned if it is the first replicated type to hold it.
    fn hold(&mut self, commands: &mut Commands, server: u64) -> Entity {
        let entry = self
            .map
            .entry(server)
            .or_insert_with(|| (commands.spawn((Replicated, ServerEntity(server))).id(), 0));
        entry.1 += 1;
        entry.0
    }

    /// One replicated type no longer holds `server`'s entity: it goes with the last.
    fn release<C: Component>(&mut self, commands: &mut Commands, server: u64) {
        let Some(entry) = self.map.get_mut(&server) else {
            return;
        };
        entry.1 = entry.1.saturating_sub(1);
        let entity = entry.0;
        if entry.1 == 0 {
            self.map.remove(&server);
            if let Ok(mut e) = commands.get_entity(entity) {
                e.try_despawn();
            }
        } else if let Ok(mut e) = commands.get_entity(entity) {
            e.try_remove::<C>();
        }
    }
}

/// What a client did with one replicated type's updates, in total.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReplicaStats {
    /// Updates applied.
    pub updates: u64,
    /// Their bytes on the wire (hopnet's header included, as the server's budget counts them).
    pub wire_bytes: u64,
    /// Updates refused (reported as [`NetworkError::Refused`], or as
    /// [`NetworkError::Undecodable`] when the tag is not written as the server writes it).
    pub refused: u64,
    /// Parts of updates older than what the client showed (late datagrams).
    pub stale: u64,
}

/// Replicated type `C` on a client: hopnet-sync's [`Replica`] (the copies, by server entity),
/// and the server entities this type holds in the world.
#[derive(Resource, Debug)]
pub struct ClientReplication<C> {
    replica: Replica<u64, C>,
    config: ReplicateConfig,
    held: HashSet<u64>,
    prefix: Vec<u8>,
    stats: ReplicaStats,
}

impl<C: ReplicatedComponent> ClientReplication<C> {
    pub(crate) fn new(config: ReplicateConfig, prefix: Vec<u8>) -> Self {
        let config = with_prefix(config, &prefix);
        ClientReplication {
            replica: Replica::new(config.clone()),
            config,
            held: HashSet::new(),
            prefix,
            stats: ReplicaStats::default(),
        }
    }

    /// The copies, by the server's entity.
    pub fn replica(&self) -> &Replica<u64, C> {
        &self.replica
    }

    /// What the client did with the updates.
    pub fn stats(&self) -> &ReplicaStats {
        &self.stats
    }
}

/// Applies this frame's updates of `C` and mirrors them in the world.
pub(crate) fn receive<C: ReplicatedComponent>(
    protocol: Res<Protocol>,
    mut state: ResMut<ClientReplication<C>>,
    mut entities: ResMut<ServerEntities>,
    mut inbox: ResMut<Inbox<()>>,
    mut connected: MessageReader<Connected>,
    mut commands: Commands,
    mut errors: MessageWriter<NetworkError>,
) {
    let state = &mut *state;
    if connected.read().count() > 0 {
        // A new connection: a new server's entities.
        for id in state.held.drain() {
            entities.release::<C>(&mut commands, id);
        }
        state.replica = Replica::new(state.config.clone());
    }
    let Some((tag, _)) = protocol.tag_of::<C>(Direction::ToClients, Kind::Replication) else {
        return;
    };
    inbox.drain(tag, |_, bytes| {
        let Some(update) = bytes.strip_prefix(state.prefix.as_slice()) else {
            // The tag written another way than the server's encoder writes it.
            state.stats.refused += 1;
            errors.write(NetworkError::undecodable::<C>(
                Peer::Server,
                hopnet_codec::Error::custom("the update's tag is not written as expected"),
            ));
            return;
        };
        let applied = match state.replica.apply(update) {
            Ok(applied) => applied,
            Err(reason) => {
                state.stats.refused += 1;
                errors.write(NetworkError::Refused {
                    peer: Peer::Server,
                    message: type_name::<C>(),
                    reason,
                });
                return;
            }
        };
        state.stats.updates += 1;
        state.stats.wire_bytes += wire_len(bytes.len(), 0) as u64;
        state.stats.stale += applied.stale as u64;
        for id in applied.spawned.iter().chain(&applied.changed) {
            let Some(value) = state.replica.get(id) else {
                continue;
            };
            let entity = match (state.held.insert(*id), entities.get(*id)) {
                (false, Some(entity)) => entity,
                _ => entities.hold(&mut commands, *id),
            };
            if let Ok(mut e) = commands.get_entity(entity) {
                e.try_insert(value.clone());
            }
        }
        for id in &applied.despawned {
            if state.held.remove(id) {
                entities.release::<C>(&mut commands, *id);
            }
        }
    });
}
