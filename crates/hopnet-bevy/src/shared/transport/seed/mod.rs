//! The glue between a seed protocol's machines (`hopnet-protocols`: WOKE, Semi-ordered UDP)
//! and the plugins' transport traits, written once for every such protocol.
//!
//! A protocol says what is its own in a few lines: how a delivery mode maps onto its modes
//! (or is refused), how it sends, closes and names a connection, what it counts, and its
//! events in hopnet's terms ([`SeedServerMachine`], [`SeedClientMachine`]). [`SeedServer`] and
//! [`SeedClient`] do the rest the same way for all: the machine on hopnet's generic blocking
//! driver ([`Driver`](hopnet::Driver)), a [`ConnectionId`](hopnet::ConnectionId)
//! per connection that is never reused (a protocol's own name for a peer may come back), the
//! events queued for the plugins, unreliable messages handed up at most once, `Tracked`
//! refused, and the counters the protocol does not keep left unknown.

mod client;
mod once;
mod server;

use std::fmt::Debug;
use std::hash::Hash;
use std::net::SocketAddr;
use std::time::Instant;

use hopnet::{Delivery, DisconnectReason, Error, Machine};

pub use client::SeedClient;
pub use once::UNRELIABLE_WINDOW;
pub use server::SeedServer;

/// A message a protocol handed up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeedMessage {
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// Whether it came reliably.
    pub reliable: bool,
    /// The id of an unreliable message that may arrive more than once (Semi-ordered UDP's
    /// package id, 24 bits): the glue hands up each id once; `None` where the protocol
    /// never repeats one.
    pub repeatable_id: Option<u32>,
}

/// A seed protocol's server event, in hopnet's terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SeedServerEvent<K> {
    /// A connection opened.
    Connected {
        /// The protocol's name for it.
        key: K,
        /// The client's address.
        peer: SocketAddr,
    },
    /// A message arrived on a connection.
    Message {
        /// The protocol's name for the connection.
        key: K,
        /// The client's address.
        peer: SocketAddr,
        /// The message.
        message: SeedMessage,
    },
    /// A connection ended.
    Closed {
        /// The protocol's name for it.
        key: K,
        /// The client's address.
        peer: SocketAddr,
        /// Why, as hopnet says it.
        reason: DisconnectReason,
    },
}

/// A seed protocol's client event, in hopnet's terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SeedClientEvent {
    /// The connection opened.
    Connected,
    /// A message arrived.
    Message(SeedMessage),
    /// The connection ended (nothing after it is read).
    Closed(DisconnectReason),
}

/// How a close went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Closing {
    /// The protocol reports the end as an event of its own (WOKE's close packet goes out
    /// with the next flush).
    Reported,
    /// The connection is gone at once, silently on the wire: the glue reports the end
    /// (`LocalClose`).
    AtOnce,
}

/// A seed protocol's server machine, as [`SeedServer`] runs it.
pub trait SeedServerMachine: Machine + Debug + Send + Sync + 'static {
    /// The protocol's own name for a connection (WOKE's 16-bit client id, Semi-ordered
    /// UDP's address): one a later connection may get again.
    type Key: Copy + Eq + Hash + Debug + Send + Sync + 'static;

    /// The protocol's delivery mode.
    type Mode;

    /// The protocol's mode for `delivery`, or the error that refuses a mode it cannot keep,
    /// naming it.
    fn mode(delivery: Delivery) -> Result<Self::Mode, Error>;

    /// The next event, in hopnet's terms.
    fn next_event(&mut self) -> Option<SeedServerEvent<Self::Key>>;

    /// Queues `bytes` to a connection in `mode`.
    fn send(
        &mut self,
        key: Self::Key,
        bytes: &[u8],
        mode: Self::Mode,
        now: Instant,
    ) -> Result<(), Error>;

    /// Closes a connection.
    fn close(&mut self, key: Self::Key, now: Instant) -> Result<Closing, Error>;

    /// A connection's reliable messages awaiting acknowledgement, if the protocol counts them.
    fn pending_reliable(&self, key: Self::Key) -> Option<u64>;
}

/// A seed protocol's client machine, as [`SeedClient`] runs it.
pub trait SeedClientMachine: Machine + Debug + Send + Sync + 'static {
    /// The protocol's delivery mode.
    type Mode;

    /// The protocol's mode for `delivery`, or the error that refuses a mode it cannot keep,
    /// naming it.
    fn mode(delivery: Delivery) -> Result<Self::Mode, Error>;

    /// The next event, in hopnet's terms; `connected`: whether the glue has handed up
    /// `Connected` already.
    fn next_event(&mut self, connected: bool) -> Option<SeedClientEvent>;

    /// Queues `bytes` in `mode`.
    fn send(&mut self, bytes: &[u8], mode: Self::Mode, now: Instant) -> Result<(), Error>;

    /// Closes the connection.
    fn close(&mut self, now: Instant) -> Closing;

    /// Reliable messages awaiting acknowledgement, if the protocol counts them.
    fn pending_reliable(&self) -> Option<u64>;
}

/// The error that refuses `Tracked`, which no seed protocol keeps (none reports a message's
/// arrival): the protocol's own words, from its mode mapping.
fn tracked_refused<M>(mode: Result<M, Error>) -> Error {
    mode.err().unwrap_or(Error::InvalidConfig(
        "a seed protocol reports no message's arrival: Delivery::Tracked is not sent",
    ))
}
