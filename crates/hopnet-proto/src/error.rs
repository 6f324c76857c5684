//! Errors a caller can cause. Malformed input from the network is never an error: it is
//! counted in the statistics and dropped.

use crate::chunk::MAX_PAYLOAD;
use crate::event::ConnectionId;
use crate::handshake::HandshakeFailure;

/// What went wrong in a call.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The payload does not fit in 256 chunks of 504 bytes.
    #[error("payload of {len} bytes exceeds the maximum of {MAX_PAYLOAD} bytes")]
    PayloadTooLarge {
        /// The payload's length.
        len: usize,
    },
    /// Too many reliable messages are waiting for acknowledgement (or the sequence window is
    /// full). Poll the connection and try again later: this is backpressure.
    #[error("send queue full: too many reliable messages awaiting acknowledgement")]
    WouldBlock,
    /// The connection has closed (or was never established).
    #[error("the connection is closed")]
    Closed,
    /// A client's handshake did not complete before its connect timeout: what it tried, and
    /// which step the server never answered.
    #[error("{0}")]
    Handshake(HandshakeFailure),
    /// No connection with this id exists on the endpoint.
    #[error("unknown connection {0:?}")]
    UnknownConnection(ConnectionId),
    /// A configuration value is out of range.
    #[error("invalid configuration: {0}")]
    InvalidConfig(&'static str),
    /// A socket error in one of the I/O drivers.
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
}
