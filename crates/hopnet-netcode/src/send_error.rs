//! Why a payload the application hands to a client or a server is not sent.

use crate::packet::MAX_PAYLOAD_BYTES;

/// Why a payload was not sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SendError {
    /// A payload packet carries 1 to 1,200 bytes.
    #[error("a netcode payload is 1 to {MAX_PAYLOAD_BYTES} bytes, not {0}")]
    PayloadSize(usize),
    /// No connection (the client is not connected, or the server's slot is empty).
    #[error("not connected")]
    NotConnected,
}
