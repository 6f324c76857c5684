//! The connect token a client receives from the backend: 2,048 bytes, the public part in the
//! clear (what the client needs: the servers, the keys, the timeout) around the encrypted
//! private part (what the server needs, which the client cannot read or alter).

use std::net::SocketAddr;

use super::address::MAX_SERVER_ADDRESSES;
use super::address::{read_addresses, write_addresses};
use super::key::Key;
use super::private_token::{PRIVATE_TOKEN_BYTES, TOKEN_NONCE_BYTES};
use super::version::VERSION_INFO;
use super::wire::{Reader, Writer};

/// The size of a connect token.
pub const CONNECT_TOKEN_BYTES: usize = 2048;

/// A connect token, public part read, private part sealed.
#[derive(Clone, PartialEq, Eq)]
pub struct ConnectToken {
    pub(crate) protocol_id: u64,
    pub(crate) create_timestamp: u64,
    pub(crate) expire_timestamp: u64,
    pub(crate) nonce: [u8; TOKEN_NONCE_BYTES],
    pub(crate) private_data: Box<[u8; PRIVATE_TOKEN_BYTES]>,
    pub(crate) timeout_seconds: i32,
    pub(crate) server_addresses: Vec<SocketAddr>,
    pub(crate) client_to_server_key: Key,
    pub(crate) server_to_client_key: Key,
}

impl ConnectToken {
    /// The token's 2,048 bytes, as a client receives them (and as a token file holds them).
    pub fn to_bytes(&self) -> Result<[u8; CONNECT_TOKEN_BYTES], TokenError> {
        let count = self.server_addresses.len();
        if !(1..=MAX_SERVER_ADDRESSES).contains(&count) {
            return Err(TokenError::ServerCount(count));
        }
        let mut buf = [0u8; CONNECT_TOKEN_BYTES];
        let mut w = Writer::new(&mut buf);
        w.bytes(VERSION_INFO);
        w.u64(self.protocol_id);
        w.u64(self.create_timestamp);
        w.u64(self.expire_timestamp);
        w.bytes(&self.nonce);
        w.bytes(&self.private_data[..]);
        w.u32(self.timeout_seconds as u32);
        write_addresses(&mut w, &self.server_addresses);
        w.bytes(self.client_to_server_key.as_bytes());
        w.bytes(self.server_to_client_key.as_bytes());
        w.pad_to_end().ok_or(TokenError::ServerCount(count))?;
        Ok(buf)
    }

    /// Reads a token as a client does before it connects: exactly 2,048 bytes, the version
    /// "NETCODE 1.02", 1 to 32 server addresses each IPv4 or IPv6, and an expiry no earlier
    /// than the creation. The private part is not (and cannot be) checked here.
    pub fn from_bytes(bytes: &[u8]) -> Result<ConnectToken, TokenError> {
        if bytes.len() != CONNECT_TOKEN_BYTES {
            return Err(TokenError::Length(bytes.len()));
        }
        let mut r = Reader::new(bytes);
        let invalid = TokenError::Invalid;
        if r.array::<13>().as_ref() != Some(VERSION_INFO) {
            return Err(TokenError::Version);
        }
        let protocol_id = r.u64().ok_or(invalid)?;
        let create_timestamp = r.u64().ok_or(invalid)?;
        let expire_timestamp = r.u64().ok_or(invalid)?;
        let nonce = r.array().ok_or(invalid)?;
        let private_data = Box::new(r.array().ok_or(invalid)?);
        let timeout_seconds = r.u32().ok_or(invalid)? as i32;
        let server_addresses = read_addresses(&mut r).ok_or(TokenError::Addresses)?;
        let client_to_server_key = Key::from_bytes(r.array().ok_or(invalid)?);
        let server_to_client_key = Key::from_bytes(r.array().ok_or(invalid)?);
        if create_timestamp > expire_timestamp {
            return Err(TokenError::Timestamps);
        }
        Ok(ConnectToken {
            protocol_id,
            create_timestamp,
            expire_timestamp,
            nonce,
            private_data,
            timeout_seconds,
            server_addresses,
            client_to_server_key,
            server_to_client_key,
        })
    }

    /// The game's protocol id.
    pub fn protocol_id(&self) -> u64 {
        self.protocol_id
    }

    /// When the backend issued the token, in seconds since the Unix epoch.
    pub fn create_timestamp(&self) -> u64 {
        self.create_timestamp
    }

    /// When servers stop accepting the token, in seconds since the Unix epoch.
    pub fn expire_timestamp(&self) -> u64 {
        self.expire_timestamp
    }

    /// Seconds without a packet before either end gives the connection up; negative disables
    /// the timeout (for development only).
    pub fn timeout_seconds(&self) -> i32 {
        self.timeout_seconds
    }

    /// The servers the client tries, in order.
    pub fn server_addresses(&self) -> &[SocketAddr] {
        &self.server_addresses
    }
}

impl std::fmt::Debug for ConnectToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConnectToken")
            .field("protocol_id", &self.protocol_id)
            .field("create_timestamp", &self.create_timestamp)
            .field("expire_timestamp", &self.expire_timestamp)
            .field("timeout_seconds", &self.timeout_seconds)
            .field("server_addresses", &self.server_addresses)
            .finish_non_exhaustive()
    }
}

/// Why a connect token could not be read or issued.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    /// Not 2,048 bytes.
    #[error("a connect token is {CONNECT_TOKEN_BYTES} bytes, this one {0}")]
    Length(usize),
    /// The version is not "NETCODE 1.02".
    #[error("not a netcode 1.02 connect token")]
    Version,
    /// The address count is outside 1 to 32, or an address type is neither IPv4 nor IPv6.
    #[error("the token's server addresses are invalid")]
    Addresses,
    /// The token expires before it was created.
    #[error("the token expires before it was created")]
    Timestamps,
    /// The token ends before its layout does.
    #[error("the connect token is malformed")]
    Invalid,
    /// A token names 1 to 32 servers (and as many internal addresses as public ones).
    #[error("a connect token names 1 to {MAX_SERVER_ADDRESSES} servers, not {0}")]
    ServerCount(usize),
}
