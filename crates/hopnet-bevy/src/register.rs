//! Registering what travels: the [`NetworkApp`] extension of Bevy's `App`.

use bevy_app::{App, PostUpdate, PreUpdate};
use bevy_ecs::prelude::*;
use hopnet::Delivery;

use crate::client::{HopnetClientPlugin, NetClient};
use crate::protocol::{Direction, Framing, Kind, Protocol};
use crate::server::{HopnetServerPlugin, NetServer};
use crate::sets::{Registered, Step};
use crate::snapshot::{SnapshotFromServer, SnapshotToClients, client, server};

/// A message type the plugins can carry: anything that derives `Rabbit` (or implements
/// [`Encode`](hopnet_codec::Encode) and [`Decode`](hopnet_codec::Decode)) and can live in a
/// Bevy message.
pub trait NetworkMessage:
    hopnet_codec::Encode + hopnet_codec::Decode + Send + Sync + 'static
{
}

impl<T: hopnet_codec::Encode + hopnet_codec::Decode + Send + Sync + 'static> NetworkMessage for T {}

/// A snapshot type the plugins can replicate as deltas: one that derives `Rabbit` with
/// `#[rabbit(delta)]` (or implements [`DeltaEncode`](hopnet_codec::DeltaEncode) and
/// [`DeltaDecode`](hopnet_codec::DeltaDecode)).
pub trait NetworkSnapshot:
    hopnet_codec::DeltaEncode + hopnet_codec::DeltaDecode + Send + Sync + 'static
{
}

impl<S: hopnet_codec::DeltaEncode + hopnet_codec::DeltaDecode + Send + Sync + 'static>
    NetworkSnapshot for S
{
}

/// Registering the types that travel, on the server's app and on the clients' alike.
///
/// Add [`HopnetServerPlugin`] or [`HopnetClientPlugin`] first. Both sides must register the
/// same types in the same order: each direction's types are numbered in that order (see
/// [`Framing`]). Registering a type twice, or before either plugin, panics when the app is
/// built.
pub trait NetworkApp {
    /// Registers `T` to travel both ways, sent with `delivery` unless a message says
    /// otherwise.
    fn add_network_message<T: NetworkMessage>(&mut self, delivery: Delivery) -> &mut Self;

    /// Registers `T` to travel from clients to the server only: a client writes
    /// [`ToServer<T>`](crate::ToServer), the server reads [`FromClient<T>`](crate::FromClient).
    /// The server never decodes one of its own types from a client.
    fn add_client_message<T: NetworkMessage>(&mut self, delivery: Delivery) -> &mut Self;

    /// Registers `T` to travel from the server to clients only: the server writes
    /// [`ToClients<T>`](crate::ToClients), a client reads [`FromServer<T>`](crate::FromServer).
    fn add_server_message<T: NetworkMessage>(&mut self, delivery: Delivery) -> &mut Self;

    /// Registers snapshot type `S`, replicated from the server to clients as deltas: the
    /// server writes [`SnapshotToClients<S>`], a client reads [`SnapshotFromServer<S>`] (see
    /// [`snapshot`](crate::snapshot)).
    fn add_snapshot<S: NetworkSnapshot>(&mut self) -> &mut Self;

    /// Sets how payloads are framed ([`Framing::Tagged`] unless set).
    fn set_framing(&mut self, framing: Framing) -> &mut Self;
}

/// Which sides this app runs.
fn sides(app: &App) -> (bool, bool) {
    let sides = (
        app.is_plugin_added::<HopnetServerPlugin>(),
        app.is_plugin_added::<HopnetClientPlugin>(),
    );
    assert!(
        sides.0 || sides.1,
        "hopnet-bevy: add HopnetServerPlugin or HopnetClientPlugin before registering types"
    );
    sides
}

fn register_message<T: NetworkMessage>(
    app: &mut App,
    delivery: Delivery,
    to_server: bool,
    to_clients: bool,
) {
    let (is_server, is_client) = sides(app);
    let order = {
        let mut protocol = app.world_mut().resource_mut::<Protocol>();
        if to_server {
            protocol.register::<T>(Direction::ToServer, Kind::Message(delivery));
        }
        if to_clients {
            protocol.register::<T>(Direction::ToClients, Kind::Message(delivery));
        }
        protocol.next_registration()
    };
    Registered::configure(app, order);
    if is_server {
        crate::server::register_message::<T>(app, Registered(order), to_server, to_clients);
    }
    if is_client {
        crate::client::register_message::<T>(app, Registered(order), to_server, to_clients);
    }
}

impl NetworkApp for App {
    fn add_network_message<T: NetworkMessage>(&mut self, delivery: Delivery) -> &mut Self {
        register_message::<T>(self, delivery, true, true);
        self
    }

    fn add_client_message<T: NetworkMessage>(&mut self, delivery: Delivery) -> &mut Self {
        register_message::<T>(self, delivery, true, false);
        self
    }

    fn add_server_message<T: NetworkMessage>(&mut self, delivery: Delivery) -> &mut Self {
        register_message::<T>(self, delivery, false, true);
        self
    }

    fn add_snapshot<S: NetworkSnapshot>(&mut self) -> &mut Self {
        let (is_server, is_client) = sides(self);
        let order = {
            let mut protocol = self.world_mut().resource_mut::<Protocol>();
            assert!(
                protocol.framing() == Framing::Tagged,
                "hopnet-bevy: snapshots need Framing::Tagged"
            );
            protocol.register::<S>(Direction::ToClients, Kind::Snapshot);
            protocol.register::<S>(Direction::ToServer, Kind::SnapshotReset);
            protocol.next_registration()
        };
        Registered::configure(self, order);
        if is_server {
            self.init_resource::<server::SnapshotServer<S>>()
                .add_message::<SnapshotToClients<S>>()
                .add_systems(
                    PreUpdate,
                    server::receive::<S>
                        .in_set(Step::Decode)
                        .run_if(resource_exists::<NetServer>),
                )
                .add_systems(
                    PostUpdate,
                    server::send::<S>
                        .in_set(Registered(order))
                        .run_if(resource_exists::<NetServer>),
                );
        }
        if is_client {
            self.init_resource::<client::SnapshotClient<S>>()
                .add_message::<SnapshotFromServer<S>>()
                .add_systems(
                    PreUpdate,
                    client::receive::<S>
                        .in_set(Step::Decode)
                        .run_if(resource_exists::<NetClient>),
                )
                .add_systems(
                    PostUpdate,
                    client::request_restart::<S>
                        .in_set(Registered(order))
                        .run_if(resource_exists::<NetClient>),
                );
        }
        self
    }

    fn set_framing(&mut self, framing: Framing) -> &mut Self {
        sides(self);
        self.world_mut()
            .resource_mut::<Protocol>()
            .set_framing(framing);
        self
    }
}
