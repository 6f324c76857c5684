//! What registering a type adds to a server app: the systems that decode it from clients,
//! encode it for them, or replicate it to them as a snapshot.

use bevy_app::App;

use super::NetServer;
use super::receive::decode_from_clients;
use super::replicate;
use super::send::send_to_clients;
use super::snapshot::{self, SnapshotServer};
use crate::shared::messages::{FromClient, ToClients};
use crate::shared::plugin::{add_decode, add_encode};
use crate::shared::protocol::{NetworkMessage, NetworkSnapshot};
use crate::shared::replicate::ReplicatedComponent;
use crate::shared::sets::Registered;
use crate::shared::snapshot::SnapshotToClients;

/// Registers `T` on a server app: its messages from clients (`to_server`) and to them
/// (`to_clients`).
pub(crate) fn register_message<T: NetworkMessage>(
    app: &mut App,
    order: Registered,
    to_server: bool,
    to_clients: bool,
) {
    if to_server {
        app.add_message::<FromClient<T>>();
        add_decode::<NetServer, _>(app, decode_from_clients::<T>);
    }
    if to_clients {
        app.add_message::<ToClients<T>>();
        add_encode::<NetServer, _>(app, order, send_to_clients::<T>);
    }
}

/// Registers snapshot type `S` on a server app: its baselines per client, the acknowledgements
/// and requests to start again that move them, and the snapshots sent against them.
pub(crate) fn register_snapshot<S: NetworkSnapshot>(app: &mut App, order: Registered) {
    app.init_resource::<SnapshotServer<S>>()
        .add_message::<SnapshotToClients<S>>();
    add_decode::<NetServer, _>(app, snapshot::receive::<S>);
    add_encode::<NetServer, _>(app, order, snapshot::send::<S>);
}

/// Registers component type `C` for replication on a server app: its replicator, fed the
/// world and the clients each frame, and the acknowledgements that move its baselines.
pub(crate) fn register_replication<C: ReplicatedComponent>(
    app: &mut App,
    order: Registered,
    prefix: Vec<u8>,
) {
    replicate::init::<C>(app.world_mut(), prefix);
    add_decode::<NetServer, _>(app, replicate::receive::<C>);
    add_encode::<NetServer, _>(app, order, replicate::send::<C>);
}
