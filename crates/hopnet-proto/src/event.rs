//! What the application sees of a connection: how a message is delivered, the events it
//! polls, and why a connection ended.

use std::net::SocketAddr;

/// How a message is delivered.
///
/// Every mode works toward any peer. Toward a peer that has not agreed to the extensions
/// (PROTOCOL.md, "Extensions"), which cannot tell one mode from another on the spec's wire, the
/// sender keeps the guarantee itself: an ordered message waits in the sender until the messages
/// it must follow are acknowledged (one round trip per ordered step), and a sequenced message
/// is sent as an unreliable one (the receiver drops older ones only if it is configured to,
/// `ConfigBuilder::sequenced_unreliable`). With the extensions, the receiver holds an ordered
/// message back instead, and the sender never waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Delivery {
    /// Sent once; handed up at most once, if every chunk arrives in time.
    Unreliable,
    /// Sent once; handed up at most once, and not at all if a newer sequenced message was
    /// handed up first (snapshots: the newest wins).
    Sequenced,
    /// Retransmitted until every chunk is acknowledged; handed up exactly once, as soon as it
    /// is complete.
    Reliable,
    /// Reliable, and handed up after every reliable ordered and semi-ordered message sent
    /// before it.
    ReliableOrdered,
    /// Reliable, and handed up after every reliable message of any ordering sent before it
    /// (the semi-ordered delivery of the seeds' protocol): an event that must follow the
    /// unordered messages it depends on.
    SemiOrdered,
    /// Sent once with `REL`, so that the peer acknowledges every chunk, and never sent again:
    /// the sender reports [`Event::Acknowledged`] once every chunk is acknowledged, or
    /// [`Event::Lost`] if that does not happen within `ConfigBuilder::tracked_timeout`.
    /// For data whose arrival the sender must know without paying for retransmission (the
    /// snapshots a delta is encoded against). Send with `send_tracked` to learn the message's
    /// id.
    Tracked,
}

impl Delivery {
    /// Every mode, in declaration order: for tests, fuzzers and tools that cover them all or
    /// name one by its index.
    pub const ALL: [Delivery; 6] = [
        Delivery::Unreliable,
        Delivery::Sequenced,
        Delivery::Reliable,
        Delivery::ReliableOrdered,
        Delivery::SemiOrdered,
        Delivery::Tracked,
    ];

    /// Whether the message is retransmitted until acknowledged.
    pub fn is_reliable(self) -> bool {
        matches!(
            self,
            Delivery::Reliable | Delivery::ReliableOrdered | Delivery::SemiOrdered
        )
    }

    /// Whether the message's chunks carry `REL` (the peer acknowledges them).
    pub fn is_acknowledged(self) -> bool {
        self.is_reliable() || self == Delivery::Tracked
    }

    /// Whether the message waits for earlier ones (reliable ordered or semi-ordered).
    pub fn is_ordered(self) -> bool {
        matches!(self, Delivery::ReliableOrdered | Delivery::SemiOrdered)
    }
}

/// A message sent with [`Delivery::Tracked`], as its events name it. Never reused within a
/// connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MessageId(pub u64);

/// Why a connection ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DisconnectReason {
    /// We called `close`.
    LocalClose,
    /// The peer sent `END`.
    PeerClosed,
    /// Nothing arrived from the peer for the idle timeout (15 s by default).
    TimedOut,
    /// The handshake did not complete before the connect timeout.
    ConnectTimeout,
    /// Both ends were given a schema ([`ConfigBuilder::schema`](crate::ConfigBuilder::schema))
    /// and they differ: the negotiation refused the connection, naming a type that differs.
    SchemaMismatch(crate::SchemaMismatch),
}

/// Something that happened on a connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// The handshake completed.
    Connected,
    /// A whole payload arrived.
    Message {
        /// The payload.
        bytes: Vec<u8>,
        /// Whether it was sent reliably: `REL` on the spec's wire (so a tracked message from a
        /// peer without the extensions counts as reliable), a retransmitted mode on the
        /// extended wire.
        reliable: bool,
    },
    /// Every chunk of a tracked message was acknowledged: the peer has it.
    Acknowledged {
        /// The message.
        id: MessageId,
    },
    /// A tracked message was not acknowledged within the tracked timeout. It may still have
    /// arrived (its acknowledgement lost or late); it is never sent again.
    Lost {
        /// The message.
        id: MessageId,
    },
    /// The connection ended; nothing more will happen on it.
    Disconnected {
        /// Why.
        reason: DisconnectReason,
    },
}

/// Identifies a connection of an [`Server`](crate::Server). Never reused within an endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ConnectionId(pub u64);

/// An event on one of an endpoint's connections.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerEvent {
    /// The connection.
    pub connection: ConnectionId,
    /// The peer's address.
    pub peer: SocketAddr,
    /// What happened.
    pub event: Event,
}
