//! The server's side: its plugin and its resource, what it does each frame (receiving,
//! sending), the systems a registered type adds, and the server's half of snapshots (each
//! client's baselines). It uses what `shared` holds and nothing of a client's side.

mod receive;
mod register;
mod replicate;
mod send;
mod snapshot;
pub(crate) mod sync;

use std::collections::BTreeMap;
use std::net::{SocketAddr, ToSocketAddrs};

use bevy_app::{App, Plugin};
use bevy_ecs::prelude::*;
use hopnet::{Config, ConnectionId, Error};

use crate::shared::inbox::Inbox;
use crate::shared::messages::{ClientConnected, ClientDisconnected};
use crate::shared::plugin;
use crate::shared::transport::{ConnectionStats, ServerTransport};
use snapshot::TrackedReports;

pub(crate) use register::{register_message, register_replication, register_snapshot};
pub use replicate::{ClientViews, ServerReplication};

/// The server's side: add it, insert a [`NetServer`], and register the message types.
///
/// Each frame, in `PreUpdate` ([`HopnetReceive`](crate::HopnetReceive)), it takes in what arrived, writes
/// [`ClientConnected`], [`ClientDisconnected`] and, per registered type `T`,
/// [`FromClient<T>`](crate::FromClient); in `PostUpdate` ([`HopnetSend`](crate::HopnetSend)) it encodes and
/// sends what was written as [`ToClients<T>`](crate::ToClients). Nothing runs until a
/// [`NetServer`] is inserted; errors come as [`NetworkError`](crate::NetworkError) messages and log lines.
#[derive(Debug, Clone, Copy, Default)]
pub struct HopnetServerPlugin;

impl Plugin for HopnetServerPlugin {
    fn build(&self, app: &mut App) {
        plugin::common(app);
        app.init_resource::<Inbox<ConnectionId>>()
            .init_resource::<TrackedReports>()
            .add_message::<ClientConnected>()
            .add_message::<ClientDisconnected>();
        plugin::add_frame::<NetServer, _, _>(app, receive::poll, send::close_on_exit);
    }
}

/// The server: its transport, and the clients connected to it.
///
/// ```no_run
/// use bevy_app::App;
/// use hopnet_bevy::prelude::*;
///
/// let mut app = App::new();
/// app.add_plugins(HopnetServerPlugin)
///     .insert_resource(NetServer::bind("0.0.0.0:7777", hopnet::Config::default())?);
/// # Ok::<(), hopnet::Error>(())
/// ```
#[derive(Resource)]
pub struct NetServer {
    pub(crate) transport: Box<dyn ServerTransport>,
    /// The connected clients and their addresses, in the order of their ids (so that what is
    /// sent to all goes out in the same order every run).
    pub(crate) clients: BTreeMap<ConnectionId, SocketAddr>,
    /// Where messages are encoded.
    pub(crate) buf: Vec<u8>,
}

impl std::fmt::Debug for NetServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NetServer")
            .field("clients", &self.clients)
            .field("local_addr", &self.local_addr())
            .finish_non_exhaustive()
    }
}

impl NetServer {
    /// A server on `transport`: hopnet's UDP driver, the simulator's server, or a transport
    /// of your own (secure mode's among them).
    pub fn new(transport: impl ServerTransport) -> NetServer {
        NetServer {
            transport: Box::new(transport),
            clients: BTreeMap::new(),
            buf: Vec::new(),
        }
    }

    /// A server on a UDP socket bound to `addr` ([`hopnet::Server`]).
    pub fn bind(addr: impl ToSocketAddrs, config: Config) -> Result<NetServer, Error> {
        Ok(NetServer::new(hopnet::Server::bind(addr, config)?))
    }

    /// A secure server (hopnet over netcode 1.02, PROTOCOL.md "Secure mode") on a UDP socket
    /// bound to `addr`: only clients with a connect token sealed under `private_key` for
    /// `protocol_id` and naming this address get in
    /// ([`hopnet::Server::bind_secure`]). The plugin and the game's systems do
    /// not change: only the transport does.
    pub fn bind_secure(
        addr: impl ToSocketAddrs,
        config: Config,
        protocol_id: u64,
        private_key: hopnet::secure::Key,
    ) -> Result<NetServer, Error> {
        Ok(NetServer::new(hopnet::Server::bind_secure(
            addr,
            config,
            protocol_id,
            private_key,
        )?))
    }

    /// A WOKE server (the seed's transport, [`hopnet_protocols::woke`]) on a UDP socket
    /// bound to `addr` ([`WokeServer`](crate::shared::transport::woke::WokeServer)). Messages go as
    /// WOKE's commands: register them as `Reliable` or `Unreliable`; a message of another
    /// mode is not sent, and a [`NetworkError`](crate::NetworkError) names the mode.
    #[cfg(feature = "protocols")]
    pub fn bind_woke(
        addr: impl ToSocketAddrs,
        config: hopnet_protocols::woke::Config,
    ) -> Result<NetServer, Error> {
        Ok(NetServer::new(
            crate::shared::transport::woke::WokeServer::bind(addr, config)?,
        ))
    }

    /// A Semi-ordered UDP server (the seed's transport, [`hopnet_protocols::semi_ordered_udp`])
    /// on a UDP socket bound to `addr`
    /// ([`SemiOrderedServer`](crate::shared::transport::semi_ordered::SemiOrderedServer)). Register
    /// messages as `Reliable`, `SemiOrdered` or `Unreliable`, each small enough for one
    /// package; a message of another mode is not sent, and a
    /// [`NetworkError`](crate::NetworkError) names the mode.
    #[cfg(feature = "protocols")]
    pub fn bind_semi_ordered(
        addr: impl ToSocketAddrs,
        config: hopnet_protocols::semi_ordered_udp::Config,
    ) -> Result<NetServer, Error> {
        Ok(NetServer::new(
            crate::shared::transport::semi_ordered::SemiOrderedServer::bind(addr, config)?,
        ))
    }

    /// The connected clients, by id.
    pub fn clients(&self) -> impl Iterator<Item = ConnectionId> + '_ {
        self.clients.keys().copied()
    }

    /// Whether `client` is connected.
    pub fn is_connected(&self, client: ConnectionId) -> bool {
        self.clients.contains_key(&client)
    }

    /// A connected client's address.
    pub fn client_address(&self, client: ConnectionId) -> Option<SocketAddr> {
        self.clients.get(&client).copied()
    }

    /// Closes a client's connection (its `END` leaves this frame); [`ClientDisconnected`]
    /// follows.
    pub fn disconnect(&mut self, client: ConnectionId) -> Result<(), Error> {
        self.transport.close(client)
    }

    /// A connection's statistics (`None`: no such connection), with the counters its
    /// transport does not keep unknown.
    pub fn stats(&mut self, client: ConnectionId) -> Option<ConnectionStats> {
        self.transport.stats(client)
    }

    /// The address the server listens on, if it has one.
    pub fn local_addr(&self) -> Option<SocketAddr> {
        self.transport.local_addr()
    }

    /// The transport, for what the plugin does not cover.
    pub fn transport_mut(&mut self) -> &mut dyn ServerTransport {
        &mut *self.transport
    }
}
