//! What a blocking [`Server`] adds to every driver: binding (plain or secure), the sends with
//! a connection id, and the side channel.

use std::net::{ToSocketAddrs, UdpSocket};

use super::Blocking;
use crate::carrier::ServerDriver;
use crate::endpoint::Endpoint;
use crate::endpoint::{ServerMachine, ServerRole};
use crate::side_channel::SideChannel;
use hopnet_proto::secure::{Key, NetcodeServerConfig};
use hopnet_proto::{Config, ConnectionId, Delivery, Error};

/// A server: a [`Server`](hopnet_proto::Server) machine on a UDP socket, on the spec's wire
/// ([`bind`](Self::bind)) or in secure mode ([`bind_secure`](Self::bind_secure)).
pub type Server = Endpoint<ServerRole, Blocking>;

/// What a [`Server`] adds to every driver.
impl Endpoint<ServerRole, Blocking> {
    /// Binds a socket and starts accepting connections.
    pub fn bind(addr: impl ToSocketAddrs, config: Config) -> Result<Server, Error> {
        let socket = UdpSocket::bind(addr)?;
        Server::on(
            socket,
            ServerMachine::plain(hopnet_proto::Server::new(config)),
        )
    }

    /// Binds a socket and serves hopnet over netcode 1.02 (PROTOCOL.md, "Secure mode"): only
    /// clients with a connect token sealed under `private_key` for `protocol_id`, naming this
    /// server's bound address, connect, and every packet after that is encrypted and
    /// authenticated. `addr` must be the address the tokens name (not `0.0.0.0`: for a server
    /// behind NAT or bound to every interface, [`bind_secure_with`](Self::bind_secure_with)).
    /// One netcode slot per `config.max_connections`.
    ///
    /// ```no_run
    /// use hopnet::Server;
    /// use hopnet::secure::Key;
    /// use hopnet::Config;
    ///
    /// let key = Key::read_file("server.key")?; // shared with the backend that issues tokens
    /// let mut server = Server::bind_secure("203.0.113.7:40000", Config::default(), 0x1234, key)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn bind_secure(
        addr: impl ToSocketAddrs,
        config: Config,
        protocol_id: u64,
        private_key: Key,
    ) -> Result<Server, Error> {
        let socket = UdpSocket::bind(addr)?;
        let local = socket.local_addr()?;
        let machine = ServerMachine::new_secure(local, config, protocol_id, private_key)?;
        Server::on(socket, machine)
    }

    /// [`bind_secure`](Self::bind_secure) with every netcode setting: the public address the
    /// tokens name (when it is not the bound one), the slots, the keep-alive interval, the
    /// bounds. `netcode.max_clients` must not exceed `config.max_connections`.
    ///
    /// ```no_run
    /// use hopnet::Server;
    /// use hopnet::secure::{Key, NetcodeServerConfig};
    /// use hopnet::Config;
    ///
    /// let public = "203.0.113.7:40000".parse()?;
    /// let netcode = NetcodeServerConfig::new(0x1234, Key::read_file("server.key")?, public, 64);
    /// let mut server = Server::bind_secure_with("0.0.0.0:40000", Config::default(), netcode)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn bind_secure_with(
        addr: impl ToSocketAddrs,
        config: Config,
        netcode: NetcodeServerConfig,
    ) -> Result<Server, Error> {
        let socket = UdpSocket::bind(addr)?;
        let machine = ServerMachine::new_secure_with(config, netcode)?;
        Server::on(socket, machine)
    }

    /// Queues a message and flushes: it leaves now, with whatever else is queued, as far as
    /// the congestion window allows. The [`machine`](Self::machine)'s `send` and
    /// [`queue`](Self::queue) only queue.
    pub fn send(
        &mut self,
        id: ConnectionId,
        bytes: &[u8],
        delivery: Delivery,
    ) -> Result<(), Error> {
        self.queue(id, bytes, delivery)?;
        self.flush()
    }

    /// Closes a connection and flushes (its `END` leaves now).
    pub fn close(&mut self, id: ConnectionId) -> Result<(), Error> {
        self.machine().close(id)?;
        self.flush()
    }

    /// Hands the datagrams longer than four bytes that start with the side channel's prefix to
    /// it instead of hopnet, and sends what it queues (see [`SideChannel`]); `None` removes it
    /// (and what it held). A server without one pays nothing per datagram.
    pub fn set_side_channel(&mut self, side: Option<SideChannel>) {
        self.driver.port.machine.side = side;
    }

    /// The side channel, if one is set: read what it claimed and queue the answers here.
    pub fn side_channel(&mut self) -> Option<&mut SideChannel> {
        self.driver.port.machine.side.as_mut()
    }
}

impl ServerDriver for Server {
    fn machine(&mut self) -> &mut hopnet_proto::Server {
        Server::machine(self)
    }

    fn is_secure(&self) -> bool {
        self.driver.port.machine.is_secure()
    }

    fn side_channel(&mut self) -> Option<&mut SideChannel> {
        Server::side_channel(self)
    }

    fn set_side_channel(&mut self, side: Option<SideChannel>) -> Result<(), Error> {
        Server::set_side_channel(self, side);
        Ok(())
    }
}
