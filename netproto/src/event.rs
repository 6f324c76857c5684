//! What the application sees of a connection: how a message is delivered, the events it
//! polls, and why a connection ended.

/// How a message is delivered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Delivery {
    /// Retransmitted until every chunk is acknowledged; handed up exactly once.
    Reliable,
    /// Sent once; handed up at most once, if every chunk arrives in time.
    Unreliable,
}

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
        /// Whether it was sent reliably.
        reliable: bool,
    },
    /// The connection ended; nothing more will happen on it.
    Disconnected {
        /// Why.
        reason: DisconnectReason,
    },
}
