//! The crate's errors.

/// What can go wrong starting or running a server with a WebTransport carrier.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A socket or the async runtime failed.
    #[error("I/O: {0}")]
    Io(#[from] std::io::Error),
    /// The transport refused (a message too large, an unknown connection, ...).
    #[error(transparent)]
    Hopnet(#[from] hopnet::Error),
    /// A certificate could not be made or loaded.
    #[error("certificate: {0}")]
    Certificate(String),
    /// A WebSocket could not be opened, or an address is not one this client can open.
    #[error("WebSocket: {0}")]
    WebSocket(String),
    /// A configuration value is out of range.
    #[error("configuration: {0}")]
    Config(String),
}
