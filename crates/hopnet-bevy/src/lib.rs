//! Bevy plugins for hopnet: a game's client and server as Bevy apps, talking in typed
//! messages over hopnet's transport.
//!
//! - [`HopnetServerPlugin`] and [`HopnetClientPlugin`] read the network in `PreUpdate`
//!   ([`HopnetReceive`]) and write it in `PostUpdate` ([`HopnetSend`]), public system sets to
//!   order your systems against. They run once a [`NetServer`] or a [`NetClient`] resource
//!   is inserted, on the transport it was made with: real UDP ([`NetServer::bind`],
//!   [`NetClient::connect`]), hopnet's seeded simulator ([`sim::SimNet`], for tests), or any
//!   other [`transport`] (secure mode's), chosen by configuration, the same plugins either
//!   way.
//! - Typed messages: a type that derives `Rabbit` is registered with its delivery
//!   ([`NetworkApp::add_network_message`]); systems write [`ToServer<T>`] or [`ToClients<T>`]
//!   and read [`FromClient<T>`] (which names the client) or [`FromServer<T>`], as Bevy
//!   messages. A message that does not decode is dropped and reported as a
//!   [`NetworkError`] (and a log line) naming the peer and the reason; it never panics.
//! - Connections: [`ClientConnected`] and [`ClientDisconnected`] on the server, [`Connected`]
//!   and [`Disconnected`] on a client, and the run conditions [`client_connected`],
//!   [`client_just_connected`] and [`client_just_disconnected`].
//! - Snapshots: a type with `#[rabbit(delta)]` registered with
//!   [`NetworkApp::add_snapshot`] goes from the server to each client as a delta against the
//!   newest snapshot that client acknowledged ([`snapshot`]).
//! - Component replication: a component type with `#[rabbit(delta)]` registered with
//!   [`NetworkApp::replicate`] goes, entity by entity, to the clients in whose scope the
//!   entity is (rooms, a spatial rule), in priority order under each client's byte budget (the
//!   smaller of the game's cap and what its link carries), as deltas against what each client
//!   acknowledged: hopnet-sync's [`replicate`](hopnet_sync::replicate) in Bevy's world
//!   ([`server::ServerReplication`], [`server::ClientViews`], [`client::ServerEntities`]).
//! - Tick sync, inputs with redundancy, prediction and reconciliation: hopnet-sync's parts as
//!   [`sync::SyncServerPlugin`] and [`sync::SyncClientPlugin`], over the game's own rules
//!   ([`sync`]).
//!
//! A server and a client app, over hopnet's simulated network with 20 % loss, stepped
//! together with manual time as a test steps them:
//!
//! ```
//! use std::time::Duration;
//! use bevy::prelude::*;
//! use bevy::time::TimeUpdateStrategy;
//! use hopnet::Delivery;
//! use hopnet::sim::LinkConfig;
//! use hopnet_bevy::prelude::*;
//! use hopnet_bevy::sim::SimNet;
//! use hopnet_codec::Rabbit;
//!
//! #[derive(Rabbit, Debug, Clone, PartialEq)]
//! struct Chat {
//!     text: String,
//! }
//!
//! /// Both sides register the same types, in the same order.
//! fn protocol(app: &mut App) {
//!     app.add_network_message::<Chat>(Delivery::ReliableOrdered);
//! }
//!
//! fn say_hello(mut chat: MessageWriter<ToServer<Chat>>) {
//!     chat.write(ToServer::new(Chat { text: "hello".into() }));
//! }
//!
//! /// The server passes every line on to everybody, naming who said it.
//! fn relay(mut heard: MessageReader<FromClient<Chat>>, mut say: MessageWriter<ToClients<Chat>>) {
//!     for FromClient { client, message } in heard.read() {
//!         let text = format!("{}: {}", client.0, message.text);
//!         say.write(ToClients::all(Chat { text }));
//!     }
//! }
//!
//! #[derive(Resource, Default)]
//! struct Heard(Vec<String>);
//!
//! fn listen(mut chat: MessageReader<FromServer<Chat>>, mut heard: ResMut<Heard>) {
//!     heard.0.extend(chat.read().map(|m| m.message.text.clone()));
//! }
//!
//! let net = SimNet::new(1, hopnet::Config::default(), LinkConfig { loss: 0.2, ..default() });
//! let tick = || TimeUpdateStrategy::ManualDuration(Duration::from_millis(16));
//!
//! let mut server = App::new();
//! server
//!     .add_plugins((MinimalPlugins, HopnetServerPlugin))
//!     .insert_resource(tick())
//!     .insert_resource(NetServer::new(net.server()))
//!     .add_systems(Update, relay);
//! protocol(&mut server);
//!
//! let mut client = App::new();
//! client
//!     .add_plugins((MinimalPlugins, HopnetClientPlugin))
//!     .insert_resource(tick())
//!     .insert_resource(NetClient::new(net.client(hopnet::Config::default())))
//!     .init_resource::<Heard>()
//!     .add_systems(Update, (say_hello.run_if(client_just_connected), listen));
//! protocol(&mut client);
//!
//! for _ in 0..500 {
//!     server.update();
//!     client.update();
//! }
//! assert_eq!(client.world().resource::<Heard>().0, ["0: hello"]);
//! ```
//!
//! Replicating a component: the server marks entities [`Replicated`] and gives each a
//! [`ScopePosition`]; each client sees what is within 50 of its view, under its cap:
//!
//! ```
//! use std::time::Duration;
//! use bevy::prelude::*;
//! use bevy::time::TimeUpdateStrategy;
//! use hopnet::sim::LinkConfig;
//! use hopnet_bevy::prelude::*;
//! use hopnet_bevy::server::{ClientViews, ServerReplication};
//! use hopnet_bevy::sim::SimNet;
//! use hopnet_codec::Rabbit;
//! use hopnet_sync::replicate::Radius;
//!
//! #[derive(Component, Rabbit, Debug, Clone, PartialEq)]
//! #[rabbit(delta)]
//! struct Tree {
//!     height: u16,
//! }
//!
//! let net = SimNet::new(1, hopnet::Config::default(), LinkConfig::default());
//! let tick = || TimeUpdateStrategy::ManualDuration(Duration::from_millis(16));
//!
//! let mut server = App::new();
//! server
//!     .add_plugins((MinimalPlugins, HopnetServerPlugin))
//!     .insert_resource(tick())
//!     .insert_resource(NetServer::new(net.server()))
//!     .replicate::<Tree>();
//! server.world_mut().resource_mut::<ServerReplication<Tree>>().set_spatial(Radius(50.0));
//! for i in 0..10u16 {
//!     let x = f32::from(i) * 10.0; // trees 0 to 5 are within 50 of the origin
//!     server.world_mut().spawn((Replicated, Tree { height: i }, ScopePosition([x, 0.0, 0.0])));
//! }
//!
//! let mut client = App::new();
//! client
//!     .add_plugins((MinimalPlugins, HopnetClientPlugin))
//!     .insert_resource(tick())
//!     .insert_resource(NetClient::new(net.client(hopnet::Config::default())))
//!     .replicate::<Tree>();
//!
//! for _ in 0..100 {
//!     server.update();
//!     client.update();
//!     // The game says where each client looks from, and how much it may be sent.
//!     let ids: Vec<_> = server.world().resource::<NetServer>().clients().collect();
//!     let mut views = server.world_mut().resource_mut::<ClientViews>();
//!     for id in ids {
//!         views.set_view(id, [0.0; 3]);
//!         views.set_cap(id, Some(2_000)); // bytes per second
//!     }
//! }
//! let world = client.world_mut();
//! let mut heights: Vec<u16> = world.query::<&Tree>().iter(world).map(|t| t.height).collect();
//! heights.sort();
//! assert_eq!(heights, [0, 1, 2, 3, 4, 5]);
//! ```
//!
//! The same apps over real UDP take `NetServer::bind(addr, config)` and
//! `NetClient::connect(addr, config)` instead, and run with `app.run()`.
//!
//! # Where each rule lives
//!
//! Laid out as bevy_replicon is: `shared/` holds what both sides use, `server/` and `client/`
//! each side, and neither side imports the other; [`NetworkApp`] (`register.rs`) stands above
//! both and hands a registered type to the side or sides an app runs.
//!
//! | File | Rule |
//! |---|---|
//! | `register.rs` | [`NetworkApp`]: a type entered in the protocol, then each side adds its systems for it |
//! | `register.rs` (`replicate`) | a replicated component type: `server/replicate/` its hopnet-sync `Replicator` ([`server::ServerReplication`]) fed the world, each client's view, rooms and cap ([`server::ClientViews`]: `views.rs`; rooms as joins and leaves: `rooms.rs`) and link, and the acknowledgements; `ledger.rs` each type charged what the others sent; `client/replicate.rs` its `Replica`, mirrored as entities ([`client::ServerEntities`]); `shared/replicate.rs` the marker, the place, the rooms, the payload's prefix |
//! | `sync.rs` | the sync plugins' names ([`sync`]): `server/sync.rs` each client's inputs by tick and the ticks simulated, `client/sync.rs` the clock, the inputs with redundancy, the prediction; `shared/sync.rs` what both register and agree on |
//! | `server/` | [`HopnetServerPlugin`], [`NetServer`]; receiving (`receive.rs`), sending (`send.rs`), a registered type's systems (`register.rs`), snapshots: each client's baselines (`snapshot/`, `baselines.rs`) and this frame's acknowledgements (`tracked.rs`) |
//! | `client/` | [`HopnetClientPlugin`], [`NetClient`], the run conditions; `receive.rs`, `send.rs`, `register.rs` as the server's; the snapshots kept as baselines and the request to start again (`snapshot.rs`) |
//! | `shared/transport/` | the transport traits; hopnet's UDP drivers (`udp.rs`) and simulator (`sim.rs`) under them; [`ConnectionStats`] (`stats.rs`); the seed protocols' glue written once (`seed/`) and what is WOKE's (`woke.rs`) and Semi-ordered UDP's (`semi_ordered.rs`) own |
//! | `shared/protocol/` | the registered types per direction, their tags, [`NetworkMessage`] and [`NetworkSnapshot`], the framing (`frame.rs`) |
//! | `shared/snapshot/` | the snapshot messages, the window, the payload (`frame.rs`) |
//! | `shared/sets.rs` | the public system sets, and the steps inside them |
//! | `shared/plugin.rs` | the setup both plugins share, and where a side's systems go |
//! | `shared/inbox.rs` | this frame's payloads filed by tag, each type's decoded, their buffers recycled |
//! | `shared/encode.rs` | a type's messages of the frame encoded once each, with their tag and delivery |
//! | `shared/messages.rs` | the Bevy messages the app reads and writes |
//! | `shared/error.rs` | [`NetworkError`], and its log kept from flooding |
//! | `shared/clock.rs` | the app's clock, as the transports take it |

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod client;
mod register;
pub mod server;
mod shared;
pub mod sync;

pub use shared::replicate::{
    InRooms, Replicated, ReplicatedComponent, ReplicationSettings, ScopePosition, ServerEntity,
};
pub use shared::transport::sim;
pub use shared::{snapshot, transport};

pub use client::{
    ConnectionState, HopnetClientPlugin, NetClient, client_connected, client_just_connected,
    client_just_disconnected,
};
pub use register::NetworkApp;
pub use server::{HopnetServerPlugin, NetServer};
pub use shared::error::{NetworkError, Peer};
pub use shared::messages::{
    ClientConnected, ClientDisconnected, Connected, Disconnected, FromClient, FromServer, SendTo,
    ToClients, ToServer,
};
pub use shared::protocol::{Direction, Framing, NetworkMessage, NetworkSnapshot};
pub use shared::sets::{HopnetReceive, HopnetSend};
pub use shared::snapshot::{SnapshotFromServer, SnapshotToClients};
pub use shared::transport::ConnectionStats;

/// hopnet's names a plugin user needs, re-exported.
pub use hopnet::{ConnectionId, Delivery, DisconnectReason};

/// Everything a system that uses the plugins needs: `use hopnet_bevy::prelude::*;`.
pub mod prelude {
    pub use crate::{
        ClientConnected, ClientDisconnected, Connected, ConnectionId, Delivery, DisconnectReason,
        Disconnected, FromClient, FromServer, HopnetClientPlugin, HopnetReceive, HopnetSend,
        HopnetServerPlugin, NetClient, NetServer, NetworkApp, NetworkError, Replicated,
        ScopePosition, SendTo, SnapshotFromServer, SnapshotToClients, ToClients, ToServer,
        client_connected, client_just_connected, client_just_disconnected,
    };
}
