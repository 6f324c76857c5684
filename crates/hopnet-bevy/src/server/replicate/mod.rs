//! The server's side of component replication: one hopnet-sync
//! [`Replicator`] per replicated component type, fed the world each frame, each client's
//! view, rooms, cap and link, and the transport's acknowledgements.
//!
//! One replicator per type rather than one per app: a type's states are one Rabbit type, so
//! its deltas, baselines and update are hopnet-sync's as they are, with no enum of every
//! component in between; each type keeps its own budget, and is charged what the others sent
//! the client (`ledger.rs`), so that together they stay under it.

mod ledger;
mod rooms;
mod views;

use std::any::type_name;
use std::collections::HashSet;

use bevy_ecs::prelude::*;
use bevy_time::{Real, Time};
use hopnet::ConnectionId;
use hopnet_sync::replicate::{Priority, Replicator, Spatial};

use super::snapshot::TrackedReports;
use crate::server::NetServer;
use crate::shared::clock::frame_instant;
use crate::shared::error::{NetworkError, Peer};
use crate::shared::messages::ClientDisconnected;
use crate::shared::replicate::{
    InRooms, Replicated, ReplicatedComponent, ReplicationSettings, ScopePosition,
};
pub(crate) use ledger::Ledger;
use rooms::RoomSync;
pub use views::ClientViews;

/// The server's replication of component type `C`: its [`Replicator`] (entities named by
/// [`Entity::to_bits`]), and what the plugin keeps to feed it.
///
/// Set the spatial rule and the priority here (at start-up or later); read the replicator
/// for each client's scope and what it was sent. Each client's budget covers the updates of
/// every replicated type together; the game's other messages and snapshots to the client are
/// not counted in it.
///
/// ```
/// use bevy::prelude::*;
/// use hopnet_bevy::prelude::*;
/// use hopnet_bevy::server::ServerReplication;
/// use hopnet_codec::Rabbit;
/// use hopnet_sync::replicate::Radius;
///
/// #[derive(Component, Rabbit, Debug, Clone, PartialEq)]
/// #[rabbit(delta)]
/// struct Health(u8);
///
/// let mut app = App::new();
/// app.add_plugins((MinimalPlugins, HopnetServerPlugin)).replicate::<Health>();
/// app.world_mut()
///     .resource_mut::<ServerReplication<Health>>()
///     .set_spatial(Radius(50.0));
/// ```
#[derive(Resource, Debug)]
pub struct ServerReplication<C> {
    replicator: Replicator<ConnectionId, u64, C>,
    /// The tag's bytes every payload starts with.
    prefix: Vec<u8>,
    /// This type's place in the ledger.
    kind: usize,
    tick: u32,
    /// The entities given to the replicator last frame.
    known: HashSet<u64>,
    clients: HashSet<ConnectionId>,
    rooms: RoomSync,
    payload: Vec<u8>,
}

impl<C: ReplicatedComponent> ServerReplication<C> {
    pub(crate) fn new(settings: &ReplicationSettings, prefix: Vec<u8>, kind: usize) -> Self {
        let config = crate::shared::replicate::with_prefix(settings.config.clone(), &prefix);
        ServerReplication {
            replicator: Replicator::new(config),
            prefix,
            kind,
            tick: 0,
            known: HashSet::new(),
            clients: HashSet::new(),
            rooms: RoomSync::default(),
            payload: Vec::new(),
        }
    }

    /// The spatial rule of relevance ([`Everywhere`](hopnet_sync::replicate::Everywhere)
    /// unless set).
    pub fn set_spatial(&mut self, spatial: impl Spatial + 'static) {
        self.rebuild(|r| r.with_spatial(spatial));
    }

    /// The rate priorities grow by ([`ByDistance`](hopnet_sync::replicate::ByDistance)
    /// unless set); the entity it sees is the server's [`Entity::to_bits`].
    pub fn set_priority(&mut self, priority: impl Priority<ConnectionId, u64, C> + 'static) {
        self.rebuild(|r| r.with_priority(priority));
    }

    fn rebuild(
        &mut self,
        f: impl FnOnce(Replicator<ConnectionId, u64, C>) -> Replicator<ConnectionId, u64, C>,
    ) {
        let config = self.replicator.config().clone();
        let old = std::mem::replace(&mut self.replicator, Replicator::new(config));
        self.replicator = f(old);
    }

    /// The replicator: each client's scope ([`Replicator::in_scope`]), budget and stats.
    pub fn replicator(&self) -> &Replicator<ConnectionId, u64, C> {
        &self.replicator
    }

    /// Whether `entity` is in `client`'s scope now.
    pub fn in_scope(&self, client: ConnectionId, entity: Entity) -> bool {
        self.replicator.in_scope(&client, &entity.to_bits())
    }
}

/// Hands this frame's acknowledgements and losses of tracked messages to the replicator, and
/// forgets the clients that left.
pub(crate) fn receive<C: ReplicatedComponent>(
    tracked: Res<TrackedReports>,
    mut state: ResMut<ServerReplication<C>>,
    mut views: ResMut<ClientViews>,
    mut disconnected: MessageReader<ClientDisconnected>,
) {
    let state = &mut *state;
    for &(client, id, acknowledged) in tracked.iter() {
        if acknowledged {
            state.replicator.acknowledged(&client, id);
        } else {
            state.replicator.lost(&client, id);
        }
    }
    for gone in disconnected.read() {
        state.replicator.remove_client(&gone.client);
        state.clients.remove(&gone.client);
        state.rooms.forget_client(gone.client);
        views.forget(gone.client);
    }
}

/// The world of this frame into the replicator, then each client's update, tracked.
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
pub(crate) fn send<C: ReplicatedComponent>(
    mut server: ResMut<NetServer>,
    mut state: ResMut<ServerReplication<C>>,
    mut ledger: ResMut<Ledger>,
    views: Res<ClientViews>,
    settings: Res<ReplicationSettings>,
    time: Option<Res<Time<Real>>>,
    entities: Query<
        (Entity, Ref<C>, Option<Ref<ScopePosition>>, Option<&InRooms>),
        With<Replicated>,
    >,
    mut errors: MessageWriter<NetworkError>,
) {
    let now = frame_instant(time.as_deref());
    let state = &mut *state;
    state.tick = state.tick.wrapping_add(1);
    state.replicator.set_tick(state.tick);

    // The world.
    let mut present = HashSet::with_capacity(state.known.len());
    for (entity, component, position, rooms) in &entities {
        let id = entity.to_bits();
        present.insert(id);
        let known = state.known.contains(&id);
        let moved = position.as_ref().is_some_and(|p| p.is_changed());
        if !known || component.is_changed() || moved {
            let at = position.map_or([0.0; 3], |p| p.0);
            state.replicator.set(id, (*component).clone(), at);
        }
        let rooms = rooms.map(|r| r.0.as_slice());
        state.rooms.entity(&mut state.replicator, id, rooms);
    }
    for gone in state.known.difference(&present) {
        state.replicator.remove(gone);
        state.rooms.forget_entity(*gone);
    }
    state.known = present;

    // The clients.
    let server = &mut *server;
    for &client in server.clients.keys() {
        let cap = views.cap(client, settings.cap);
        if state.clients.insert(client) {
            state.replicator.add_client(client, views.view(client), cap);
        }
        state.replicator.set_view(&client, views.view(client));
        state.replicator.set_cap(&client, cap);
        state
            .rooms
            .client(&mut state.replicator, client, views.rooms(client));
        if let Some(stats) = server.transport.stats(client).and_then(|s| s.hopnet) {
            state.replicator.set_link(&client, &stats);
        }
    }
    for (client, bytes) in ledger.others(state.kind) {
        state.replicator.charge(&client, now, bytes);
    }
    for &client in server.clients.keys() {
        let (prefix, payload) = (&state.prefix, &mut state.payload);
        let transport = &mut server.transport;
        let mut failed = None;
        let sent = state.replicator.send(&client, now, |update| {
            payload.clear();
            payload.extend_from_slice(prefix);
            payload.extend_from_slice(update);
            transport
                .send_tracked(client, payload)
                .map_err(|e| failed = Some(e))
                .ok()
        });
        if let Some(sent) = sent {
            ledger.record(state.kind, client, sent.wire_bytes);
        }
        if let Some(error) = failed {
            errors.write(NetworkError::NotSent {
                peer: Peer::Client(client),
                message: type_name::<C>(),
                error,
            });
        }
    }
}

/// The type's replication on a server app: its replicator, and its place in the ledger.
pub(crate) fn init<C: ReplicatedComponent>(world: &mut World, prefix: Vec<u8>) {
    let settings = world.get_resource_or_init::<ReplicationSettings>().clone();
    world.init_resource::<ClientViews>();
    let kind = world.get_resource_or_init::<Ledger>().join();
    world.insert_resource(ServerReplication::<C>::new(&settings, prefix, kind));
}
