//! The backend's opaque bytes for the server, carried sealed in the connect token.

/// The size of a token's user data.
pub const USER_DATA_BYTES: usize = 256;

/// 256 bytes from the backend to the server, carried in the token, opaque to netcode.
pub type UserData = [u8; USER_DATA_BYTES];
