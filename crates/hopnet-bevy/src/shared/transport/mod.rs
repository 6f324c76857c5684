//! What the plugins run on: a server's or a client's transport, behind one small trait each.
//!
//! The plugins never touch a socket or a state machine directly: each frame they ask the
//! transport to take in what arrived ([`update`](ServerTransport::update)), read its events,
//! queue the frame's messages, and [`flush`](ServerTransport::flush) them. So one plugin runs
//! on whatever carries hopnet's datagrams, chosen by configuration:
//!
//! - real UDP: hopnet's blocking drivers, [`hopnet::Server`] and
//!   [`hopnet::Client`] (`NetServer::bind`, `NetClient::connect`), on the
//!   spec's wire or in secure mode (`NetServer::bind_secure`, `NetClient::connect_secure`:
//!   the same drivers, made secure when they are made);
//! - the simulator: [`SimNet`](crate::sim::SimNet)'s server and clients, many apps on one
//!   seeded lossy network in virtual time, for tests;
//! - the seeds' protocols, with the `protocols` feature, on one glue (`seed`: hopnet's
//!   generic blocking driver, connection ids, events, at-most-once delivery): WOKE
//!   (`woke::WokeServer`, `woke::WokeClient`; `NetServer::bind_woke`,
//!   `NetClient::connect_woke`), carrying `Reliable` and `Unreliable` messages and refusing
//!   every other mode with an error; and Semi-ordered UDP
//!   (`semi_ordered::SemiOrderedServer`, `semi_ordered::SemiOrderedClient`;
//!   `NetServer::bind_semi_ordered`, `NetClient::connect_semi_ordered`), carrying
//!   `Reliable`, `SemiOrdered` and `Unreliable` messages and refusing every other mode;
//! - anything else: implement these traits for it (a few
//!   lines over its machine's `send`, `poll_event` and `close`) and hand it to
//!   [`NetServer::new`](crate::NetServer::new) or [`NetClient::new`](crate::NetClient::new).
//!
//! Each reports a connection's [`stats`](stats) with the counters it does not keep as `None`.
//!
//! `now` is the app's clock (`Time<Real>`'s last update): a transport over real sockets reads
//! the real clock itself and may ignore it; the simulator runs its virtual time up to it.

#[cfg(feature = "protocols")]
pub mod seed;
#[cfg(feature = "protocols")]
pub mod semi_ordered;
pub mod sim;
pub mod stats;
mod udp;
#[cfg(feature = "protocols")]
pub mod woke;

use std::net::SocketAddr;
use std::time::Instant;

use hopnet::{ConnectionId, Delivery, Error, Event, MessageId, ServerEvent};

pub use stats::ConnectionStats;

/// A server's transport: a server state machine and the way its datagrams travel.
pub trait ServerTransport: Send + Sync + 'static {
    /// Takes in every datagram that has arrived by `now` and runs the timers due, without
    /// blocking; the events are then read with [`poll_event`](Self::poll_event).
    fn update(&mut self, now: Instant) -> Result<(), Error>;

    /// The next event on any connection.
    fn poll_event(&mut self) -> Option<ServerEvent>;

    /// Queues a message to `client`; [`flush`](Self::flush) sends it.
    fn send(&mut self, client: ConnectionId, bytes: &[u8], delivery: Delivery)
    -> Result<(), Error>;

    /// Queues a [`Delivery::Tracked`] message to `client`, whose `Acknowledged` or `Lost`
    /// event will name the id returned.
    fn send_tracked(&mut self, client: ConnectionId, bytes: &[u8]) -> Result<MessageId, Error>;

    /// Closes a connection; its `Disconnected` event follows.
    fn close(&mut self, client: ConnectionId) -> Result<(), Error>;

    /// Hands back a received message's buffer, for a later message to be copied into.
    fn recycle(&mut self, bytes: Vec<u8>) {
        drop(bytes);
    }

    /// Sends what is queued, as far as the congestion window allows, without blocking.
    fn flush(&mut self, now: Instant) -> Result<(), Error>;

    /// A connection's statistics (`None`: no such connection), with the counters this
    /// transport does not keep unknown ([`ConnectionStats`]).
    fn stats(&mut self, client: ConnectionId) -> Option<ConnectionStats>;

    /// The address the server listens on, if it has one.
    fn local_addr(&self) -> Option<SocketAddr> {
        None
    }
}

/// A client's transport: a client state machine and the way its datagrams travel.
pub trait ClientTransport: Send + Sync + 'static {
    /// Takes in every datagram that has arrived by `now` and runs the timers due, without
    /// blocking; the events are then read with [`poll_event`](Self::poll_event).
    fn update(&mut self, now: Instant) -> Result<(), Error>;

    /// The next event on the connection.
    fn poll_event(&mut self) -> Option<Event>;

    /// Queues a message; [`flush`](Self::flush) sends it.
    fn send(&mut self, bytes: &[u8], delivery: Delivery) -> Result<(), Error>;

    /// Queues a [`Delivery::Tracked`] message, whose `Acknowledged` or `Lost` event will name
    /// the id returned.
    fn send_tracked(&mut self, bytes: &[u8]) -> Result<MessageId, Error>;

    /// Closes the connection (its `END` goes out with the next [`flush`](Self::flush)).
    fn close(&mut self, now: Instant);

    /// Hands back a received message's buffer, for a later message to be copied into.
    fn recycle(&mut self, bytes: Vec<u8>) {
        drop(bytes);
    }

    /// Sends what is queued, as far as the congestion window allows, without blocking.
    fn flush(&mut self, now: Instant) -> Result<(), Error>;

    /// The connection's statistics, with the counters this transport does not keep unknown
    /// ([`ConnectionStats`]).
    fn stats(&mut self) -> ConnectionStats;

    /// The local address, if there is a socket.
    fn local_addr(&self) -> Option<SocketAddr> {
        None
    }
}
