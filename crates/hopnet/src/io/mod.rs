//! Drivers that run the state machines over real sockets.
//!
//! - [`blocking`]: [`Server`](blocking::Server) and [`Client`](blocking::Client) over
//!   `std::net::UdpSocket`, polled once per game tick or in a loop; [`Driver`](blocking::Driver)
//!   for a machine of any protocol.
//! - `async_tokio` (feature `tokio`): `TokioServer`, `TokioClient` and `Driver` over
//!   `tokio::net::UdpSocket`, with `async fn recv`.
//! - [`ServerDriver`] and [`ClientDriver`]: what a game's tick loop needs of any carrier's
//!   driver (these UDP ones, `hopnet-webtransport`'s, one to come), so that the loop is
//!   written once, generic over the carrier.
//! - [`relay`]: a lossy UDP relay thread between real processes.
//! - [`Impairment`]: loss and delay on a driver's outgoing datagrams, or in the relay.
//! - [`SideChannel`]: another protocol's datagrams (server queries, say) on a blocking driver
//!   server's own socket.
//!
//! The drivers are thin: all protocol logic is in [`Client`](crate::Client) and
//! [`Server`](crate::Server). Both send and receive the same way (batched through
//! `quinn-udp`: GSO sends, GRO and `recvmmsg` receives, one reused buffer each way, one policy
//! for a full or refusing socket, in `send.rs`); they differ only in how they wait. Every one of
//! them is one generic type, [`Endpoint`], over what it runs ([`Role`]: the server, the client,
//! any machine) and how it waits ([`Wait`]): what all of them do is written once, and the names
//! above are its aliases.
//!
//! # Two verbs
//!
//! A machine's `send` only queues: nothing leaves until a driver flushes. A driver's `send`
//! queues and flushes, so the message leaves now; its `queue` is the machine's `send`. A tick
//! that produces several messages queues them all (on the driver or its
//! [`machine`](Endpoint::machine)) and flushes once, or lets the next `poll` send them: they
//! leave in fewer system calls.
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

#[cfg(feature = "tokio")]
pub mod async_tokio;
pub mod blocking;
mod carrier;
mod endpoint;
mod machines;
mod port;
mod recv;
pub mod relay;
mod role;
mod send;
mod side_channel;
mod singles;
mod socket;

pub use crate::impairment::Impairment;
pub use carrier::{ClientDriver, ServerDriver};
pub use endpoint::{Endpoint, Wait};
pub use role::{AnyMachine, ClientRole, Role, ServerRole};
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
