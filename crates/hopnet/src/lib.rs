//! Reliable UDP for games: the drivers that run hopnet's protocol over real sockets.
//!
//! Messages of up to 129,024 bytes are split into 504-byte chunks, framed with a 4-byte header
//! `[flags, chunk, sequence_hi, sequence_lo]`, and sent; reliable chunks are acknowledged one by
//! one and retransmitted on an adaptive timer (RFC 6298) under a congestion window. A connection
//! starts with the `Init` / `Challenge` / `ChallengeResponse` handshake and ends with `END` or
//! 15 s of silence. Each message has its [`Delivery`]: unreliable, sequenced, reliable,
//! reliable ordered, semi-ordered, or tracked. Two ends whose configurations enable them agree
//! on hopnet's extensions to the spec's wire (batching, acknowledgement ranges, a CRC-32, LZ4, a
//! larger datagram, receiver-side ordering), invisibly to a peer without them. PROTOCOL.md
//! records every choice the spec leaves open.
//!
//! Two layers, as `quinn` over `quinn-proto`: the protocol is a pair of state machines without
//! I/O in the crate `hopnet-proto` (re-exported as [`proto`]; its simulator as [`sim`]), and this
//! crate holds the drivers that run them over UDP:
//!
//! - [`Server`] and [`Client`]: a blocking-with-deadline driver over `std::net::UdpSocket`,
//!   polled once per game tick or in a loop; [`tokio::Server`] and [`tokio::Client`] the same
//!   over tokio (feature `tokio`). Call `poll`, then drain `poll_event`; the machine underneath
//!   ([`Server::machine`]) is where statistics, the connection list and shared payloads live.
//! - Secure mode ([`secure`]; PROTOCOL.md, "Secure mode"), hopnet over netcode 1.02: the same
//!   types, made with [`Server::bind_secure`] (the key your backend seals connect tokens with,
//!   [`secure::ConnectTokenBuilder`]) and [`Client::connect_secure`] (a token).
//! - [`Driver`]: any [`Machine`] of another wire on a UDP socket, with the same batching.
//! - A bad link between real sockets: an [`Impairment`] on a driver's own outgoing datagrams, or
//!   a [`relay::Relay`] thread between unmodified processes.
//! - [`SideChannel`]: another protocol's datagrams (server queries, say) on a server's socket.
//!
//! `send` on a driver queues the message on the machine and flushes at once; `queue` only
//! queues (the machine's `send`), for several messages that should leave together.
//!
//! ```no_run
//! use std::time::Duration;
//! use hopnet::{Client, Config, Delivery, Event, Server, ServerEvent};
//!
//! let mut server = Server::bind("127.0.0.1:7777", Config::default())?;
//! let mut client = Client::connect(server.local_addr()?, Config::default())?;
//! client.send(b"hello", Delivery::Reliable)?;
//! loop {
//!     server.poll(Duration::ZERO)?;
//!     client.poll(Duration::from_millis(5))?;
//!     if let Some(ServerEvent { event: Event::Message { bytes, .. }, .. }) = server.poll_event() {
//!         assert_eq!(bytes, b"hello");
//!         break;
//!     }
//! }
//! # Ok::<(), hopnet::Error>(())
//! ```
//!
//! Both drivers send and receive the same way (batched through `quinn-udp`: GSO sends, GRO and
//! `recvmmsg` receives, one reused buffer each way, one policy for a full or refusing socket,
//! in `send.rs`); they differ only in how they wait.
//!
//! | File | Rule |
//! |---|---|
//! | `blocking/` | the blocking driver: its loop, busy-poll, any machine's driver |
//! | `tokio.rs` | the tokio driver |
//! | `machines.rs` | what a driver runs: the plain machine or its secure form |
//! | `port.rs` | a socket and the machine it serves |
//! | `send.rs` | the drivers' one send policy (sendto, GSO, full socket, refused batch) |
//! | `singles.rs` | lone datagrams to many destinations, in one `sendmmsg` |
//! | `recv.rs`, `socket.rs` | batched receive; socket setup and the GSO probe |
//! | `side_channel.rs` | another protocol's datagrams on a server's socket |
//! | `relay.rs` | a lossy UDP relay thread between real processes |

#![forbid(unsafe_code)]
#![warn(missing_docs)]

/// Methods every driver's server and client has, however it waits.
macro_rules! socket_methods {
    () => {
        /// The bound address.
        pub fn local_addr(&self) -> Result<std::net::SocketAddr, crate::Error> {
            Ok(self.driver.port.socket.local_addr()?)
        }

        /// Drops and delays outgoing datagrams from now on.
        pub fn set_impairment(&mut self, impairment: Option<crate::Impairment>) {
            self.driver.port.outbox.set_impairment(impairment);
        }

        /// Socket-level counters.
        pub fn socket_stats(&self) -> crate::SocketStats {
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
        /// (see [`Server::recycle`](hopnet_proto::Server::recycle)).
        pub fn recycle(&mut self, bytes: Vec<u8>) {
            self.machine().recycle(bytes)
        }

        /// The state machine, for everything else: statistics, the connection list, and
        /// [`send_payload`](hopnet_proto::Server::send_payload) to send one shared payload to many
        /// connections without a copy. A secure server's is the endpoint above netcode: the
        /// same API, whatever the wire.
        pub fn machine(&mut self) -> &mut hopnet_proto::Server {
            self.driver.port.machine.machine()
        }

        /// The secure server (netcode's clients, their client ids and user data, its
        /// counters), if this server is secure.
        pub fn secure(&mut self) -> Option<&mut hopnet_proto::secure::SecureServer> {
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
        /// (see [`Client::recycle`](hopnet_proto::Client::recycle)).
        pub fn recycle(&mut self, bytes: Vec<u8>) {
            self.machine().recycle(bytes)
        }

        /// The state machine. A secure client's is the connection above netcode, there from
        /// the start (in its handshake until netcode has connected): the same API, whatever
        /// the wire.
        pub fn machine(&mut self) -> &mut hopnet_proto::Client {
            self.driver.port.machine.machine()
        }

        /// The secure client (netcode's state, its counters), if this client is secure.
        pub fn secure(&mut self) -> Option<&mut hopnet_proto::secure::SecureClient> {
            self.driver.port.machine.secure()
        }

        /// The connection's statistics.
        pub fn stats(&self) -> crate::Stats {
            self.driver.port.machine.stats()
        }
    };
}

mod blocking;
mod machines;
mod port;
mod recv;
pub mod relay;
mod send;
mod side_channel;
mod singles;
mod socket;
#[cfg(feature = "tokio")]
pub mod tokio;

pub use blocking::{BUSY_POLL, Client, Driver, Server};
pub use hopnet_proto::impairment::Impairment;
pub use side_channel::{MAX_SIDE_DATAGRAM, SIDE_QUEUE, SideChannel, SideChannelStats};

/// The protocol without I/O, the `hopnet-proto` crate: the state machines these drivers run
/// ([`proto::Server`], [`proto::Client`]), for a loop of your own or a look inside.
pub use hopnet_proto as proto;
pub use hopnet_proto::{
    CHUNK_SIZE, Config, ConfigBuilder, ConnectionId, Delivery, DisconnectReason, Error, Event,
    Extensions, HEADER_LEN, HandshakeFailure, MAX_CHUNKS, MAX_PAYLOAD, Machine, MessageId, Payload,
    SPEC_DATAGRAM, ServerEvent, ServerStats, Stats, Transmit,
};
pub use hopnet_proto::{engine, secure, sim};

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
    /// thread wanted the core; see [`Server::set_busy_poll`](crate::Server::set_busy_poll)).
    pub busy_poll_calms: u64,
}

/// A machine with events for the application: what a driver runs.
pub(crate) trait Driven: Machine {
    type Event;
    fn poll_event(&mut self) -> Option<Self::Event>;
}

/// The first server a token names: a secure client binds an address of its family.
fn first_server(
    token: &hopnet_proto::secure::ConnectToken,
) -> Result<std::net::SocketAddr, crate::Error> {
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
