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

/// Refuses a payload no payload packet can carry, before anything is sealed or counted: the
/// one size rule of both machines' `send` and `append_payload`.
pub(crate) fn check_payload_size(payload: &[u8]) -> Result<(), SendError> {
    if payload.is_empty() || payload.len() > MAX_PAYLOAD_BYTES {
        return Err(SendError::PayloadSize(payload.len()));
    }
    Ok(())
}
