//! The private part of a connect token: what only the backend and the servers can read.
//!
//! 1,024 bytes: client id, timeout, the server addresses, both per-connection keys and the user
//! data, zero padded; the first 1,008 are encrypted with XChaCha20-Poly1305 under the private
//! key, with the version, protocol id and expiry as associated data, and the last 16 hold the
//! tag. The tag doubles as the token's identity in the server's history of used tokens.

use std::net::SocketAddr;

use super::address::{read_addresses, write_addresses};
use super::aead::{MAC_BYTES, Unauthentic, open_x, seal_x};
use super::key::Key;
use super::user_data::USER_DATA_BYTES;
use super::user_data::UserData;
use super::version::versioned_ad;
use super::wire::{Reader, Writer};

/// The size of the private part, encrypted or not.
pub const PRIVATE_TOKEN_BYTES: usize = 1024;
/// The size of a connect token's XChaCha20 nonce.
pub const TOKEN_NONCE_BYTES: usize = 24;

/// The private part, in the clear.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PrivateToken {
    pub client_id: u64,
    pub timeout_seconds: i32,
    pub server_addresses: Vec<SocketAddr>,
    pub client_to_server_key: Key,
    pub server_to_client_key: Key,
    pub user_data: UserData,
}

impl PrivateToken {
    /// The plaintext layout, zero padded to 1,024 bytes. `None` if it cannot be written (more
    /// than 32 addresses).
    pub(crate) fn write(&self) -> Option<[u8; PRIVATE_TOKEN_BYTES]> {
        if self.server_addresses.len() > super::MAX_SERVER_ADDRESSES {
            return None;
        }
        let mut buf = [0u8; PRIVATE_TOKEN_BYTES];
        let mut w = Writer::new(&mut buf[..PRIVATE_TOKEN_BYTES - MAC_BYTES]);
        w.u64(self.client_id);
        w.u32(self.timeout_seconds as u32);
        write_addresses(&mut w, &self.server_addresses);
        w.bytes(self.client_to_server_key.as_bytes());
        w.bytes(self.server_to_client_key.as_bytes());
        w.bytes(&self.user_data);
        w.pad_to_end()?;
        Some(buf)
    }

    /// Reads the plaintext layout; `None` for an address count outside 1 to 32 or an address
    /// type other than IPv4 or IPv6.
    pub(crate) fn read(plain: &[u8; PRIVATE_TOKEN_BYTES]) -> Option<PrivateToken> {
        let mut r = Reader::new(&plain[..PRIVATE_TOKEN_BYTES - MAC_BYTES]);
        Some(PrivateToken {
            client_id: r.u64()?,
            timeout_seconds: r.u32()? as i32,
            server_addresses: read_addresses(&mut r)?,
            client_to_server_key: Key::from_bytes(r.array()?),
            server_to_client_key: Key::from_bytes(r.array()?),
            user_data: r.array::<USER_DATA_BYTES>()?,
        })
    }
}

/// What a private part is sealed and opened with: the private key, the token's nonce, and the
/// protocol id and expiry bound to it as associated data. The backend seals with the same
/// four that a server opens with.
pub(crate) struct PrivateSeal<'a> {
    pub protocol_id: u64,
    pub expire_timestamp: u64,
    pub nonce: &'a [u8; TOKEN_NONCE_BYTES],
    pub private_key: &'a Key,
}

impl PrivateSeal<'_> {
    /// Encrypts a written private part in place.
    pub fn seal(&self, buf: &mut [u8; PRIVATE_TOKEN_BYTES]) -> Option<()> {
        seal_x(self.private_key, self.nonce, &self.associated_data(), buf)
    }

    /// Decrypts an encrypted private part in place (the tag stays in the last 16 bytes).
    pub fn open(&self, buf: &mut [u8; PRIVATE_TOKEN_BYTES]) -> Result<(), Unauthentic> {
        open_x(self.private_key, self.nonce, &self.associated_data(), buf)
    }

    /// The associated data: version, protocol id, expiry. A token moved to another game or
    /// given a later expiry no longer opens.
    fn associated_data(&self) -> [u8; 13 + 8 + 8] {
        versioned_ad(self.protocol_id, &self.expire_timestamp.to_le_bytes())
    }
}
