//! Drivers that run the state machines over real sockets.
//!
//! - [`blocking`]: [`Server`](blocking::Server) and [`Client`](blocking::Client) over
//!   `std::net::UdpSocket`, polled once per game tick or in a loop.
//! - `async_tokio` (feature `tokio`): `TokioServer` and `TokioClient` over
//!   `tokio::net::UdpSocket`, with `async fn recv`.
//! - [`relay`]: a lossy UDP relay thread between real processes.
//! - [`Impairment`]: loss and delay on a driver's outgoing datagrams, or in the relay.
//!
//! The drivers are thin: all protocol logic is in [`Connection`] and
//! [`Endpoint`]. Both send and receive the same way (batched through
//! `quinn-udp`: GSO sends, GRO and `recvmmsg` receives, one reused buffer each way, one policy
//! for a full or refusing socket); they differ only in how they wait.

#[cfg(feature = "tokio")]
pub mod async_tokio;
pub mod blocking;
mod port;
mod recv;
pub mod relay;
mod send;
mod socket;

pub use crate::impairment::Impairment;
use crate::machine::Machine;
use crate::{Connection, Endpoint, EndpointEvent, Event};

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

impl Driven for Connection {
    type Event = Event;
    fn poll_event(&mut self) -> Option<Event> {
        Connection::poll_event(self)
    }
}

impl Driven for Endpoint {
    type Event = EndpointEvent;
    fn poll_event(&mut self) -> Option<EndpointEvent> {
        Endpoint::poll_event(self)
    }
}

/// The unspecified address of `server`'s family, any port: where a client binds.
fn any_local(server: std::net::SocketAddr) -> std::net::SocketAddr {
    if server.is_ipv4() {
        ([0, 0, 0, 0], 0).into()
    } else {
        ([0u16; 8], 0).into()
    }
}
