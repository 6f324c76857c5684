//! What registering a type adds to a client app: the systems that decode it from the server,
//! encode it for the server, or receive it as a snapshot.

use bevy_app::{App, PostUpdate, PreUpdate};
use bevy_ecs::prelude::*;

use super::NetClient;
use super::receive::decode_from_server;
use super::send::send_to_server;
use super::snapshot::{self, SnapshotClient};
use crate::shared::messages::{FromServer, ToServer};
use crate::shared::protocol::{NetworkMessage, NetworkSnapshot};
use crate::shared::sets::{Registered, Step};
use crate::shared::snapshot::SnapshotFromServer;

/// Registers `T` on a client app: its messages to the server (`to_server`) and from it
/// (`to_clients`).
pub(crate) fn register_message<T: NetworkMessage>(
    app: &mut App,
    order: Registered,
    to_server: bool,
    to_clients: bool,
) {
    if to_clients {
        app.add_message::<FromServer<T>>().add_systems(
            PreUpdate,
            decode_from_server::<T>
                .in_set(Step::Decode)
                .run_if(resource_exists::<NetClient>),
        );
    }
    if to_server {
        app.add_message::<ToServer<T>>().add_systems(
            PostUpdate,
            send_to_server::<T>
                .in_set(order)
                .run_if(resource_exists::<NetClient>),
        );
    }
}

/// Registers snapshot type `S` on a client app: the snapshots it keeps as baselines, the
/// newest handed up, and its requests to start again.
pub(crate) fn register_snapshot<S: NetworkSnapshot>(app: &mut App, order: Registered) {
    app.init_resource::<SnapshotClient<S>>()
        .add_message::<SnapshotFromServer<S>>()
        .add_systems(
            PreUpdate,
            snapshot::receive::<S>
                .in_set(Step::Decode)
                .run_if(resource_exists::<NetClient>),
        )
        .add_systems(
            PostUpdate,
            snapshot::request_restart::<S>
                .in_set(order)
                .run_if(resource_exists::<NetClient>),
        );
}
