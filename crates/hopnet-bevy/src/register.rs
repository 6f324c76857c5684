//! Registering what travels: the [`NetworkApp`] extension of Bevy's `App`.
//!
//! The one file that knows both sides: a type is entered in the shared `Protocol` (its
//! tags, its registration's place in the sending order), then handed to the side or sides
//! this app runs, each of which adds its own systems for it (`server/register.rs`,
//! `client/register.rs`). Neither side knows the other, nor this file.

use bevy_app::App;
use hopnet::Delivery;

use crate::client::{self, HopnetClientPlugin};
use crate::server::{self, HopnetServerPlugin};
use crate::shared::protocol::{
    Direction, Framing, Kind, NetworkMessage, NetworkSnapshot, Protocol,
};
use crate::shared::replicate::{ReplicatedComponent, prefix};
use crate::shared::sets::Registered;

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
    /// server writes [`SnapshotToClients<S>`](crate::SnapshotToClients), a client reads [`SnapshotFromServer<S>`](crate::SnapshotFromServer) (see
    /// [`snapshot`](crate::snapshot)).
    fn add_snapshot<S: NetworkSnapshot>(&mut self) -> &mut Self;

    /// Registers component type `C` for replication: on the server, every entity with
    /// [`Replicated`](crate::Replicated) and a `C` is sent to the clients in whose scope it is
    /// (rooms, the spatial rule), in priority order under each client's budget, as deltas
    /// against what each acknowledged (hopnet-sync's
    /// [`Replicator`](hopnet_sync::replicate::Replicator), set up through
    /// [`ServerReplication<C>`](crate::server::ServerReplication)); on a client, each such
    /// entity is spawned, changed and despawned as it enters scope, changes and leaves it
    /// (the map from the server's entities to the client's:
    /// [`ServerEntities`](crate::client::ServerEntities)).
    fn replicate<C: ReplicatedComponent>(&mut self) -> &mut Self;

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
        server::register_message::<T>(app, Registered(order), to_server, to_clients);
    }
    if is_client {
        client::register_message::<T>(app, Registered(order), to_server, to_clients);
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
            server::register_snapshot::<S>(self, Registered(order));
        }
        if is_client {
            client::register_snapshot::<S>(self, Registered(order));
        }
        self
    }

    fn replicate<C: ReplicatedComponent>(&mut self) -> &mut Self {
        let (is_server, is_client) = sides(self);
        let (tag, order) = {
            let mut protocol = self.world_mut().resource_mut::<Protocol>();
            assert!(
                protocol.framing() == Framing::Tagged,
                "hopnet-bevy: replication needs Framing::Tagged"
            );
            let tag = protocol.register::<C>(Direction::ToClients, Kind::Replication);
            (tag, protocol.next_registration())
        };
        Registered::configure(self, order);
        if is_server {
            server::register_replication::<C>(self, Registered(order), prefix(tag));
        }
        if is_client {
            client::register_replication::<C>(self, prefix(tag));
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
