//! A client's side: its plugin, its resource and run conditions, what it does each frame
//! (receiving, sending), the systems a registered type adds, and the client's half of
//! snapshots ([`SnapshotClient`]: the snapshots kept as baselines, the request to start
//! again). It uses what `shared` holds and nothing of the server's side.

mod receive;
mod register;
mod replicate;
mod send;
mod snapshot;
pub(crate) mod sync;

use std::net::SocketAddr;

use bevy_app::{App, Plugin};
use bevy_ecs::prelude::*;
use hopnet::{Config, DisconnectReason, Error};

use crate::shared::inbox::Inbox;
use crate::shared::messages::{Connected, Disconnected};
use crate::shared::plugin;
use crate::shared::transport::{ClientTransport, ConnectionStats};

pub(crate) use register::{register_message, register_replication, register_snapshot};
pub use replicate::{ClientReplication, ReplicaStats, ServerEntities};
pub use snapshot::{SnapshotClient, SnapshotStats};

/// The client's side: add it, insert a [`NetClient`], and register the message types.
///
/// Each frame, in `PreUpdate` ([`HopnetReceive`](crate::HopnetReceive)), it takes in what
/// arrived and writes [`Connected`], [`Disconnected`] and, per registered type `T`,
/// [`FromServer<T>`](crate::FromServer); in `PostUpdate` ([`HopnetSend`](crate::HopnetSend))
/// it encodes and sends what was written as [`ToServer<T>`](crate::ToServer). Nothing runs
/// until a [`NetClient`] is inserted; to connect again after a disconnection, insert a new
/// one. Errors come as [`NetworkError`](crate::NetworkError) messages and log lines.
#[derive(Debug, Clone, Copy, Default)]
pub struct HopnetClientPlugin;

impl Plugin for HopnetClientPlugin {
    fn build(&self, app: &mut App) {
        plugin::common(app);
        app.init_resource::<Inbox<()>>()
            .add_message::<Connected>()
            .add_message::<Disconnected>();
        plugin::add_frame::<NetClient, _, _>(app, receive::poll, send::close_on_exit);
    }
}

/// Where a client's connection is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConnectionState {
    /// The handshake is under way.
    Connecting,
    /// The connection is open.
    Connected,
    /// The connection ended, or never opened.
    Disconnected(DisconnectReason),
}

/// The client: its transport and where its connection is.
///
/// ```no_run
/// use bevy_app::App;
/// use hopnet_bevy::prelude::*;
///
/// let mut app = App::new();
/// app.add_plugins(HopnetClientPlugin).insert_resource(NetClient::connect(
///     "127.0.0.1:7777".parse().unwrap(),
///     hopnet::Config::default(),
/// )?);
/// # Ok::<(), hopnet::Error>(())
/// ```
#[derive(Resource)]
pub struct NetClient {
    pub(crate) transport: Box<dyn ClientTransport>,
    state: ConnectionState,
    /// Whether the state changed in this frame's `PreUpdate`.
    changed: bool,
    /// This frame's instant, once a frame has run.
    pub(crate) now: Option<std::time::Instant>,
    /// Where messages are encoded.
    pub(crate) buf: Vec<u8>,
}

impl std::fmt::Debug for NetClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NetClient")
            .field("state", &self.state)
            .field("local_addr", &self.local_addr())
            .finish_non_exhaustive()
    }
}

impl NetClient {
    /// A client on `transport`, which has started connecting: hopnet's UDP driver, a
    /// simulator's client, or a transport of your own (secure mode's among them).
    pub fn new(transport: impl ClientTransport) -> NetClient {
        NetClient {
            transport: Box::new(transport),
            state: ConnectionState::Connecting,
            changed: false,
            now: None,
            buf: Vec::new(),
        }
    }

    /// A client that connects to `server` over UDP from an ephemeral port
    /// ([`hopnet::Client`]).
    pub fn connect(server: SocketAddr, config: Config) -> Result<NetClient, Error> {
        Ok(NetClient::new(hopnet::Client::connect(server, config)?))
    }

    /// A secure client that connects with `token`, a netcode 1.02 connect token issued by
    /// the game's backend, to the first server it names that answers
    /// ([`hopnet::Client::connect_secure`]).
    pub fn connect_secure(
        token: hopnet::secure::ConnectToken,
        config: Config,
    ) -> Result<NetClient, Error> {
        Ok(NetClient::new(hopnet::Client::connect_secure(
            token, config,
        )?))
    }

    /// A WOKE client (the seed's transport, [`hopnet_protocols::woke`]) of `server`, from an
    /// ephemeral port ([`WokeClient`](crate::shared::transport::woke::WokeClient)). Messages go as
    /// WOKE's commands: register them as `Reliable` or `Unreliable`; a message of another
    /// mode is not sent, and a [`NetworkError`](crate::NetworkError) names the mode.
    #[cfg(feature = "protocols")]
    pub fn connect_woke(
        server: SocketAddr,
        config: hopnet_protocols::woke::Config,
    ) -> Result<NetClient, Error> {
        Ok(NetClient::new(
            crate::shared::transport::woke::WokeClient::connect(server, config)?,
        ))
    }

    /// A Semi-ordered UDP client (the seed's transport,
    /// [`hopnet_protocols::semi_ordered_udp`]) of `server`, from an ephemeral port
    /// ([`SemiOrderedClient`](crate::shared::transport::semi_ordered::SemiOrderedClient)); connected
    /// once the server answers its first keepalive. Register messages as `Reliable`,
    /// `SemiOrdered` or `Unreliable`, each small enough for one package; a message of another
    /// mode is not sent, and a [`NetworkError`](crate::NetworkError) names the mode.
    #[cfg(feature = "protocols")]
    pub fn connect_semi_ordered(
        server: SocketAddr,
        config: hopnet_protocols::semi_ordered_udp::Config,
    ) -> Result<NetClient, Error> {
        Ok(NetClient::new(
            crate::shared::transport::semi_ordered::SemiOrderedClient::connect(server, config)?,
        ))
    }

    /// Where the connection is.
    pub fn state(&self) -> ConnectionState {
        self.state
    }

    /// Whether the connection is open.
    pub fn is_connected(&self) -> bool {
        self.state == ConnectionState::Connected
    }

    /// Whether the connection ended (or never opened).
    pub fn is_disconnected(&self) -> bool {
        matches!(self.state, ConnectionState::Disconnected(_))
    }

    /// Closes the connection: its `END` leaves this frame, and [`Disconnected`] follows.
    pub fn disconnect(&mut self) {
        let now = self.now.unwrap_or_else(std::time::Instant::now);
        self.transport.close(now);
    }

    /// The connection's statistics, with the counters its transport does not keep unknown.
    pub fn stats(&mut self) -> ConnectionStats {
        self.transport.stats()
    }

    /// The local address, if there is a socket.
    pub fn local_addr(&self) -> Option<SocketAddr> {
        self.transport.local_addr()
    }

    /// The transport, for what the plugin does not cover.
    pub fn transport_mut(&mut self) -> &mut dyn ClientTransport {
        &mut *self.transport
    }
}

/// A run condition: the client is connected.
pub fn client_connected(client: Option<Res<NetClient>>) -> bool {
    client.is_some_and(|c| c.is_connected())
}

/// A run condition: the client connected in this frame.
pub fn client_just_connected(client: Option<Res<NetClient>>) -> bool {
    client.is_some_and(|c| c.changed && c.is_connected())
}

/// A run condition: the client's connection ended (or failed to open) in this frame.
pub fn client_just_disconnected(client: Option<Res<NetClient>>) -> bool {
    client.is_some_and(|c| c.changed && c.is_disconnected())
}
