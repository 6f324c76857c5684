//! A blocking-with-deadline driver over `std::net::UdpSocket`.
//!
//! [`Server::poll`] / [`Client::poll`] do one round of I/O: run due timers, send what is
//! queued, wait for a datagram until the next protocol deadline (or the `max_wait` the caller
//! allows, zero for a game tick that must not block), drain every datagram already queued in
//! the kernel, and send the answers. Events are then read with `poll_event`.
//!
//! An optional [`Impairment`](crate::Impairment) drops and delays outgoing datagrams, so
//! that an application can try itself over real loopback sockets through a lossy link.
//!
//! Messages queued together leave in fewer system calls:
//!
//! ```no_run
//! use hopnet::Client;
//! use hopnet::{Config, Delivery};
//! use std::time::Duration;
//!
//! let mut client = Client::connect("127.0.0.1:4000".parse().unwrap(), Config::default())?;
//! client.wait_connected()?;
//! for input in [b"jump".as_slice(), b"shoot", b"chat: gg"] {
//!     client.queue(input, Delivery::Reliable)?;
//! }
//! client.poll(Duration::ZERO)?; // sends all three, then reads what has arrived
//! # Ok::<(), hopnet::Error>(())
//! ```
//!
//! The socket calls are batched through `quinn-udp` (see [`io`](crate::io)): where the
//! platform has them (Linux), equal-sized datagrams to one peer leave in one `sendmsg` with UDP
//! GSO, and receiving uses `recvmmsg` with UDP GRO. Nothing is allocated per datagram.

mod any_machine;
mod busy_poll;
mod driver;

use std::net::{SocketAddr, ToSocketAddrs, UdpSocket};
use std::time::{Duration, Instant};

pub use any_machine::Driver;
pub use driver::BUSY_POLL;
use driver::Loop;

use super::machines::{ClientMachine, ServerMachine};
use super::side_channel::{SideChannel, Sided};
use super::{Driven, any_local};
use hopnet_proto::secure::{ConnectToken, Key, NetcodeServerConfig};
use hopnet_proto::{Config, Error, Event, ServerEvent};

/// The methods [`Server`] and [`Client`] share, each of which documents its own.
macro_rules! driver_methods {
    ($event:ty) => {
        /// The next event, after a [`poll`](Self::poll).
        pub fn poll_event(&mut self) -> Option<$event> {
            Driven::poll_event(&mut self.driver.port.machine)
        }

        /// How long [`poll`](Self::poll), when allowed to wait, keeps reading the socket
        /// without blocking (yielding the CPU before each attempt) before it sleeps until a
        /// datagram or the next deadline; zero sleeps at once. A reply on loopback or a LAN
        /// often comes within microseconds, sooner than a sleeping thread wakes up. It costs
        /// at most that much CPU per idle `poll`; `poll(Duration::ZERO)` never waits and so
        /// never busy-polls. Default: [`BUSY_POLL`].
        ///
        /// When the busy-poll's turns keep getting slow (four of more than 0.25 ms within
        /// 50 ms: another thread wants this core, and each yield hands it over for a scheduler
        /// slice), `poll` sleeps at once for a while instead (4 ms, doubled while the
        /// contention lasts, up to 128 ms): a sleeping thread is woken when its datagram
        /// arrives. [`SocketStats::busy_poll_calms`](crate::SocketStats::busy_poll_calms)
        /// counts these stand-downs.
        pub fn set_busy_poll(&mut self, duration: Duration) {
            self.driver.busy_poll = duration;
        }

        /// One round of I/O, waiting at most `max_wait` for a datagram (zero: never block).
        pub fn poll(&mut self, max_wait: Duration) -> Result<(), Error> {
            Ok(self.driver.poll(max_wait)?)
        }

        /// Sends what is queued, as far as the congestion window allows.
        pub fn flush(&mut self) -> Result<(), Error> {
            Ok(self.driver.flush()?)
        }
    };
}

/// A server: an [`Server`] on a UDP socket, on the spec's wire ([`bind`](Self::bind)) or
/// in secure mode ([`bind_secure`](Self::bind_secure)).
#[derive(Debug)]
pub struct Server {
    driver: Loop<Sided<ServerMachine>>,
}

impl Server {
    /// Binds a socket and starts accepting connections.
    pub fn bind(addr: impl ToSocketAddrs, config: Config) -> Result<Server, Error> {
        let socket = UdpSocket::bind(addr)?;
        let machine = ServerMachine::Plain(hopnet_proto::Server::new(config));
        Ok(Server {
            driver: Loop::new(socket, Sided::new(machine))?,
        })
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
        Ok(Server {
            driver: Loop::new(socket, Sided::new(machine))?,
        })
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
        Ok(Server {
            driver: Loop::new(socket, Sided::new(machine))?,
        })
    }

    driver_methods!(ServerEvent);
    server_methods!(,);

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

/// A client: a [`Client`] on its own UDP socket, on the spec's wire
/// ([`connect`](Self::connect)) or in secure mode ([`connect_secure`](Self::connect_secure)).
#[derive(Debug)]
pub struct Client {
    driver: Loop<ClientMachine>,
}

impl Client {
    /// Binds an ephemeral port of the server's address family and starts the handshake.
    pub fn connect(server: SocketAddr, config: Config) -> Result<Client, Error> {
        Self::connect_from(any_local(server), server, config)
    }

    /// Binds `local` and starts the handshake with `server`.
    pub fn connect_from(
        local: SocketAddr,
        server: SocketAddr,
        config: Config,
    ) -> Result<Client, Error> {
        let socket = UdpSocket::bind(local)?;
        let conn = hopnet_proto::Client::new(config, server, Instant::now());
        let mut driver = Loop::new(socket, ClientMachine::Plain(conn))?;
        driver.flush()?;
        Ok(Client { driver })
    }

    /// Binds an ephemeral port of the address family of the token's first server and connects
    /// in secure mode (netcode 1.02, PROTOCOL.md "Secure mode"), trying the token's servers in
    /// order. Messages sent before the connection opens behave as during a plain handshake:
    /// reliable ones wait and go out once connected, unreliable ones are dropped.
    ///
    /// ```no_run
    /// use hopnet::Client;
    /// use hopnet::secure::ConnectToken;
    /// use hopnet::Config;
    ///
    /// // The 2,048 bytes the game's backend issued, fetched over HTTPS.
    /// let bytes = std::fs::read("client.token")?;
    /// let mut client = Client::connect_secure(ConnectToken::from_bytes(&bytes)?, Config::default())?;
    /// client.wait_connected()?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn connect_secure(token: ConnectToken, config: Config) -> Result<Client, Error> {
        let first = super::first_server(&token)?;
        Self::connect_secure_from(any_local(first), token, config)
    }

    /// Binds `local` and connects in secure mode with `token` (see
    /// [`connect_secure`](Self::connect_secure)).
    pub fn connect_secure_from(
        local: SocketAddr,
        token: ConnectToken,
        config: Config,
    ) -> Result<Client, Error> {
        let socket = UdpSocket::bind(local)?;
        let machine = ClientMachine::new_secure(config, token)?;
        let mut driver = Loop::new(socket, machine)?;
        driver.flush()?;
        Ok(Client { driver })
    }

    driver_methods!(Event);
    client_methods!(,);

    /// Polls until connected, or fails with [`Error::Handshake`] (what was tried, and which
    /// step the server never answered) if the connect timeout passes first.
    pub fn wait_connected(&mut self) -> Result<(), Error> {
        while !self.machine().is_connected() {
            if self.machine().is_closed() {
                return Err(self.machine().closed_error());
            }
            self.poll(Duration::from_millis(50))?;
        }
        Ok(())
    }
}
