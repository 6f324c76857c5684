//! Drivers that run the state machines over real sockets.
//!
//! - [`blocking`]: [`Server`](blocking::Server) and [`Client`](blocking::Client) over
//!   `std::net::UdpSocket`, polled once per game tick or in a loop.
//! - `async_tokio` (feature `tokio`): `TokioServer` and `TokioClient` over
//!   `tokio::net::UdpSocket`, with `async fn recv`.
//! - [`relay`]: a lossy UDP relay thread between real processes.
//! - [`Impairment`]: loss and delay on a driver's outgoing datagrams, or in the relay.
//! - [`SideChannel`]: another protocol's datagrams (server queries, say) on a blocking driver
//!   server's own socket.
//!
//! The drivers are thin: all protocol logic is in [`Client`](crate::Client) and
//! [`Server`](crate::Server). Both send and receive the same way (batched through
//! `quinn-udp`: GSO sends, GRO and `recvmmsg` receives, one reused buffer each way, one policy
//! for a full or refusing socket, in `send.rs`); they differ only in how they wait.
//!
//! # Secure mode
//!
//! Every driver's server and client also runs hopnet over netcode 1.02 ([`secure`](crate::secure),
//! PROTOCOL.md "Secure mode"), chosen when it is made, as renet's netcode transport is chosen by
//! its `ServerAuthentication` / `ClientAuthentication`: a server binds with the private key it
//! shares with the backend that issues connect tokens (`bind_secure`), a client connects with
//! a token (`connect_secure`). Everything after that is the same calls on the same
//! [`Server`](crate::Server) and [`Client`](crate::Client); `secure()` gives the
//! netcode side (a client's id and user data from its token, the counters of dropped packets).
//!
//! ```no_run
//! use std::time::{Duration, SystemTime};
//! use hopnet::io::blocking::{Client, Server};
//! use hopnet::secure::{ConnectTokenBuilder, Key};
//! use hopnet::{Config, Delivery};
//!
//! const PROTOCOL_ID: u64 = 0x6d79_6761_6d65; // the game's, shared with the backend
//! let key = Key::read_file("server.key")?;   // 64 hex characters, shared with the backend
//! let mut server = Server::bind_secure("127.0.0.1:40000", Config::default(), PROTOCOL_ID, key.clone())?;
//!
//! // The backend, once it has authenticated player 42, issues a token (sent over HTTPS):
//! let token = ConnectTokenBuilder::new(PROTOCOL_ID, 42, [server.local_addr()?])
//!     .issue(&key, SystemTime::now())?;
//! // The player's client connects with it.
//! let mut client = Client::connect_secure(token, Config::default())?;
//! client.send(b"queued until connected", Delivery::Reliable)?;
//! while !client.machine().is_connected() {
//!     server.poll(Duration::ZERO)?;
//!     client.poll(Duration::from_millis(5))?;
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

/// Methods every driver's server and client has, however it waits.
macro_rules! socket_methods {
    () => {
        /// The bound address.
        pub fn local_addr(&self) -> Result<std::net::SocketAddr, crate::Error> {
            Ok(self.driver.port.socket.local_addr()?)
        }

        /// Drops and delays outgoing datagrams from now on.
        pub fn set_impairment(&mut self, impairment: Option<crate::io::Impairment>) {
            self.driver.port.outbox.set_impairment(impairment);
        }

        /// Socket-level counters.
        pub fn socket_stats(&self) -> crate::io::SocketStats {
            self.driver.port.stats.clone()
        }
    };
}

/// The methods of a driver's server but `poll` / `recv` and `flush`. An async driver passes
/// `async, .await`, a blocking one `,`.
macro_rules! server_methods {
    ($($async:ident)?, $($await:tt)*) => {
        socket_methods!();

        /// Queues a message and sends what the congestion window allows.
        pub $($async)? fn send(
            &mut self,
            id: crate::ConnectionId,
            bytes: &[u8],
            delivery: crate::Delivery,
        ) -> Result<(), crate::Error> {
            self.queue(id, bytes, delivery)?;
            self.flush()$($await)*
        }

        /// Closes a connection (sends `END`).
        pub $($async)? fn close(&mut self, id: crate::ConnectionId) -> Result<(), crate::Error> {
            self.machine().close(id)?;
            self.flush()$($await)*
        }

        /// Queues a message without sending anything yet: the next `flush`, `send` or round of
        /// I/O sends it, together with whatever else is queued. Messages queued together
        /// leave in fewer system calls (the full chunks of several messages share one GSO
        /// batch), which pays when a tick produces several messages for one peer.
        pub fn queue(
            &mut self,
            id: crate::ConnectionId,
            bytes: &[u8],
            delivery: crate::Delivery,
        ) -> Result<(), crate::Error> {
            self.machine().send(id, bytes, delivery)
        }

        /// Hands back a message's buffer once read, for a later message to be copied into
        /// (see [`Server::recycle`](crate::Server::recycle)).
        pub fn recycle(&mut self, bytes: Vec<u8>) {
            self.machine().recycle(bytes)
        }

        /// The state machine, for everything else: statistics, the connection list, and
        /// [`send_payload`](crate::Server::send_payload) to send one shared payload to many
        /// connections without a copy. A secure server's is the endpoint above netcode: the
        /// same API, whatever the wire.
        pub fn machine(&mut self) -> &mut crate::Server {
            self.driver.port.machine.machine()
        }

        /// The secure server (netcode's clients, their client ids and user data, its
        /// counters), if this server is secure.
        pub fn secure(&mut self) -> Option<&mut crate::secure::SecureServer> {
            self.driver.port.machine.secure()
        }
    };
}

/// The methods of a driver's client but `poll` / `recv` and `flush`, as [`server_methods`].
macro_rules! client_methods {
    ($($async:ident)?, $($await:tt)*) => {
        socket_methods!();

        /// Queues a message and sends what the congestion window allows.
        pub $($async)? fn send(
            &mut self,
            bytes: &[u8],
            delivery: crate::Delivery,
        ) -> Result<(), crate::Error> {
            self.queue(bytes, delivery)?;
            self.flush()$($await)*
        }

        /// Closes the connection (sends `END`).
        pub $($async)? fn close(&mut self) -> Result<(), crate::Error> {
            self.machine().close();
            self.flush()$($await)*
        }

        /// Queues a message without sending anything yet: the next `flush`, `send` or round of
        /// I/O sends it, together with whatever else is queued. Messages queued together
        /// leave in fewer system calls (the full chunks of several messages share one GSO
        /// batch), which pays when a tick produces several messages.
        pub fn queue(
            &mut self,
            bytes: &[u8],
            delivery: crate::Delivery,
        ) -> Result<(), crate::Error> {
            self.machine().send(bytes, delivery)
        }

        /// Hands back a message's buffer once read, for a later message to be copied into
        /// (see [`Client::recycle`](crate::Client::recycle)).
        pub fn recycle(&mut self, bytes: Vec<u8>) {
            self.machine().recycle(bytes)
        }

        /// The state machine. A secure client's is the connection above netcode, there from
        /// the start (in its handshake until netcode has connected): the same API, whatever
        /// the wire.
        pub fn machine(&mut self) -> &mut crate::Client {
            self.driver.port.machine.machine()
        }

        /// The secure client (netcode's state, its counters), if this client is secure.
        pub fn secure(&mut self) -> Option<&mut crate::secure::SecureClient> {
            self.driver.port.machine.secure()
        }

        /// The connection's statistics.
        pub fn stats(&self) -> crate::Stats {
            self.driver.port.machine.stats()
        }
    };
}

#[cfg(feature = "tokio")]
pub mod async_tokio;
pub mod blocking;
mod machines;
mod port;
mod recv;
pub mod relay;
mod send;
mod side_channel;
mod singles;
mod socket;

pub use crate::impairment::Impairment;
use crate::machine::Machine;
pub use side_channel::{MAX_SIDE_DATAGRAM, SIDE_QUEUE, SideChannel, SideChannelStats};

/// Counters of the socket layer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SocketStats {
    /// Datagrams handed to the kernel.
    pub sent: u64,
    /// Datagrams read from the kernel.
    pub received: u64,
    /// Datagrams the kernel refused (e.g. an unreachable spoofed address); dropped.
    pub send_errors: u64,
    /// Datagrams dropped by the [`Impairment`].
    pub impaired_drops: u64,
    /// Times the blocking driver's busy-poll stood down because its turns got slow (another
    /// thread wanted the core; see [`Server::set_busy_poll`](blocking::Server::set_busy_poll)).
    pub busy_poll_calms: u64,
}

/// A machine with events for the application: what a driver runs.
pub(crate) trait Driven: Machine {
    type Event;
    fn poll_event(&mut self) -> Option<Self::Event>;
}

/// The first server a token names: a secure client binds an address of its family.
fn first_server(token: &crate::secure::ConnectToken) -> Result<std::net::SocketAddr, crate::Error> {
    token
        .server_addresses()
        .first()
        .copied()
        .ok_or(crate::Error::InvalidConfig(
            "a connect token names at least one server",
        ))
}

/// The unspecified address of `server`'s family, any port: where a client binds.
fn any_local(server: std::net::SocketAddr) -> std::net::SocketAddr {
    if server.is_ipv4() {
        ([0, 0, 0, 0], 0).into()
    } else {
        ([0u16; 8], 0).into()
    }
}
