//! What registering a type adds to a client app: the systems that decode it from the server,
//! encode it for the server, or receive it as a snapshot.

use bevy_app::App;

use super::NetClient;
use super::receive::decode_from_server;
use super::replicate::{self, ClientReplication, ServerEntities};
use super::send::send_to_server;
use super::snapshot::{self, SnapshotClient};
use crate::shared::messages::{FromServer, ToServer};
use crate::shared::plugin::{add_decode, add_encode};
use crate::shared::protocol::{NetworkMessage, NetworkSnapshot};
use crate::shared::replicate::{ReplicatedComponent, ReplicationSettings};
use crate::shared::sets::Registered;
use crate::shared::snapshot::SnapshotFromServer;

/// Registers `T` on a client app: its messages from the server (`to_clients`) and to it
/// (`to_server`).
pub(crate) fn register_message<T: NetworkMessage>(
    app: &mut App,
    order: Registered,
    to_server: bool,
    to_clients: bool,
) {
    if to_clients {
        app.add_message::<FromServer<T>>();
        add_decode::<NetClient, _>(app, decode_from_server::<T>);
    }
    if to_server {
        app.add_message::<ToServer<T>>();
        add_encode::<NetClient, _>(app, order, send_to_server::<T>);
    }
}

/// Registers snapshot type `S` on a client app: the snapshots it keeps as baselines, the
/// newest handed up, and its requests to start again.
pub(crate) fn register_snapshot<S: NetworkSnapshot>(app: &mut App, order: Registered) {
    app.init_resource::<SnapshotClient<S>>()
        .add_message::<SnapshotFromServer<S>>();
    add_decode::<NetClient, _>(app, snapshot::receive::<S>);
    add_encode::<NetClient, _>(app, order, snapshot::request_restart::<S>);
}

/// Registers component type `C` for replication on a client app: its replica, applied to the
/// world as the server's updates arrive.
pub(crate) fn register_replication<C: ReplicatedComponent>(app: &mut App, prefix: Vec<u8>) {
    let config = app
        .world_mut()
        .get_resource_or_init::<ReplicationSettings>()
        .config
        .clone();
    app.init_resource::<ServerEntities>()
        .insert_resource(ClientReplication::<C>::new(config, prefix));
    add_decode::<NetClient, _>(app, replicate::receive::<C>);
}
