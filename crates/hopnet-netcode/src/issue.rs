//! Issuing connect tokens: what a game's web backend calls once it has authenticated a player.

use std::net::SocketAddr;
use std::time::{SystemTime, UNIX_EPOCH};

use rand::{CryptoRng, RngCore};

use super::address::MAX_SERVER_ADDRESSES;
use super::connect_token::{ConnectToken, TokenError};
use super::key::Key;
use super::private_token::{PrivateSeal, PrivateToken, TOKEN_NONCE_BYTES};
use super::user_data::USER_DATA_BYTES;
use super::user_data::UserData;

/// What a token says: for which game, for which client, to which servers, for how long.
///
/// ```
/// use hopnet_netcode::{ConnectTokenBuilder, Key};
/// use std::time::SystemTime;
///
/// let private_key = Key::generate(); // shared by the backend and its servers
/// let token = ConnectTokenBuilder::new(0x1122_3344_5566_7788, 42, ["127.0.0.1:40000".parse().unwrap()])
///     .expire_seconds(30)
///     .timeout_seconds(5)
///     .issue(&private_key, SystemTime::now())
///     .unwrap();
/// let bytes = token.to_bytes().unwrap(); // 2,048 bytes for the client, over HTTPS
/// assert_eq!(bytes.len(), 2048);
/// ```
#[derive(Debug, Clone)]
pub struct ConnectTokenBuilder {
    protocol_id: u64,
    client_id: u64,
    servers: Vec<SocketAddr>,
    internal: Option<Vec<SocketAddr>>,
    expire_seconds: u64,
    timeout_seconds: i32,
    user_data: UserData,
}

impl ConnectTokenBuilder {
    /// A token for `client_id` (unique among the game's authenticated players) to connect to
    /// one of `servers`, tried in order. Expires 30 s after issue; a connection times out after
    /// 5 s of silence; the user data is zeros.
    pub fn new(
        protocol_id: u64,
        client_id: u64,
        servers: impl IntoIterator<Item = SocketAddr>,
    ) -> ConnectTokenBuilder {
        ConnectTokenBuilder {
            protocol_id,
            client_id,
            servers: servers.into_iter().collect(),
            internal: None,
            expire_seconds: 30,
            timeout_seconds: 5,
            user_data: [0; USER_DATA_BYTES],
        }
    }

    /// Seconds from issue until servers refuse the token (`u64::MAX`: never, for development).
    pub fn expire_seconds(mut self, seconds: u64) -> Self {
        self.expire_seconds = seconds;
        self
    }

    /// Seconds without a packet before either end drops the connection; negative disables the
    /// timeout (for development only: a vanished peer then holds its slot until closed).
    pub fn timeout_seconds(mut self, seconds: i32) -> Self {
        self.timeout_seconds = seconds;
        self
    }

    /// 256 bytes the server receives with the connection, unread by netcode (a session id, a
    /// player's name...). The client cannot read or change them.
    pub fn user_data(mut self, user_data: UserData) -> Self {
        self.user_data = user_data;
        self
    }

    /// The addresses the servers know themselves by, when they differ from the public ones the
    /// client sends to (behind NAT or a load balancer); one for each public address, in order.
    /// They go in the private part, where each server looks for its own address.
    pub fn internal_addresses(mut self, internal: impl IntoIterator<Item = SocketAddr>) -> Self {
        self.internal = Some(internal.into_iter().collect());
        self
    }

    /// Issues the token at `now`, with fresh per-connection keys and nonce from `rand`'s thread
    /// generator (a CSPRNG seeded by the operating system).
    pub fn issue(&self, private_key: &Key, now: SystemTime) -> Result<ConnectToken, TokenError> {
        self.issue_with(private_key, now, &mut rand::rng())
    }

    /// [`issue`](Self::issue) with keys and nonce drawn from `rng`.
    pub fn issue_with<R: RngCore + CryptoRng>(
        &self,
        private_key: &Key,
        now: SystemTime,
        rng: &mut R,
    ) -> Result<ConnectToken, TokenError> {
        let count = self.servers.len();
        if !(1..=MAX_SERVER_ADDRESSES).contains(&count) {
            return Err(TokenError::ServerCount(count));
        }
        let internal = self.internal.as_ref().unwrap_or(&self.servers);
        if internal.len() != count {
            return Err(TokenError::ServerCount(internal.len()));
        }
        let create_timestamp = now.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
        let expire_timestamp = create_timestamp.saturating_add(self.expire_seconds);
        let mut nonce = [0u8; TOKEN_NONCE_BYTES];
        rng.fill_bytes(&mut nonce);
        let private = PrivateToken {
            client_id: self.client_id,
            timeout_seconds: self.timeout_seconds,
            server_addresses: internal.clone(),
            client_to_server_key: Key::generate_with(rng),
            server_to_client_key: Key::generate_with(rng),
            user_data: self.user_data,
        };
        let mut private_data = Box::new(private.write().ok_or(TokenError::ServerCount(count))?);
        PrivateSeal {
            protocol_id: self.protocol_id,
            expire_timestamp,
            nonce: &nonce,
            private_key,
        }
        .seal(&mut private_data)
        .ok_or(TokenError::Invalid)?;
        Ok(ConnectToken {
            protocol_id: self.protocol_id,
            create_timestamp,
            expire_timestamp,
            nonce,
            private_data,
            timeout_seconds: self.timeout_seconds,
            server_addresses: self.servers.clone(),
            client_to_server_key: private.client_to_server_key,
            server_to_client_key: private.server_to_client_key,
        })
    }
}
