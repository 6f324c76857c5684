//! Secure mode's foundation: the netcode 1.02 standard, byte for byte, without I/O.
//!
//! [netcode](https://github.com/mas-bandwidth/netcode) authenticates who may connect and
//! encrypts and signs every packet after that. A game's backend, which has authenticated a
//! player, issues a *connect token* ([`ConnectTokenBuilder`]) sealed with a private key it
//! shares with its servers. The client presents the token's sealed part to a server in a
//! connection request; the server answers with a challenge that only the holder of the
//! token's keys can answer, which also proves the client receives at the address it claims;
//! then both exchange payload packets (at most 1,200 bytes) under ChaCha20-Poly1305 with
//! per-direction keys from the token, and keep-alives, until a disconnect or a timeout.
//!
//! [`NetcodeServer`] and [`NetcodeClient`] are sans-I/O state machines in the shape of
//! hopnet's own: datagrams and `Instant`s in, datagrams, payloads and deadlines out. They
//! hold bounded memory, never panic on input, and count every datagram they drop in
//! [`SecureStats`], by [`DropReason`].
//!
//! Above them, [`SecureServer`] and [`SecureClient`] run hopnet's server and client
//! over netcode: each hopnet datagram (at most 1,200 bytes) travels as one payload packet,
//! netcode's handshake replaces the spec's `Init` / `Challenge`, and both implement
//! [`Machine`](crate::Machine), so that the simulator and a driver loop run them as they run
//! the plain ones.
//!
//! What it promises and what it does not (PROTOCOL.md, "Secure mode"): only holders of a
//! token from the backend connect; nobody without a connection's keys can read its packets,
//! forge one, replay one, or close it; a token read off the wire is useless from another
//! address. There is no forward secrecy: whoever later learns the private key can read the
//! tokens of recorded traffic, and so every recorded connection.
//!
//! The cipher is most of what secure mode costs. Build a secure server with AVX2 enabled
//! (`-C target-cpu=native`, or `-C target-feature=+avx2`): RustCrypto's AVX2 code is chosen at
//! run time either way, but only such a build inlines its intrinsics, which makes each seal 1.6
//! to 3 times faster (PROTOCOL.md, "Secure mode").
//!
//! One file per rule:
//!
//! | File | Rule |
//! |---|---|
//! | `wire.rs` | little-endian reading and writing, checked |
//! | `address.rs` | a server address in a token (type 1 IPv4, 2 IPv6) |
//! | `aead.rs` | the two AEADs, the nonce from a sequence |
//! | `key.rs` | keys and the key file (64 hex characters) |
//! | `private_token.rs` | the private part: layout, XChaCha20-Poly1305 with its associated data |
//! | `connect_token.rs` | the 2,048-byte token and the client's checks |
//! | `issue.rs` | issuing tokens (the backend's API) |
//! | `challenge_token.rs` | the challenge token, sealed by the server to itself |
//! | `sequence.rs` | the prefix byte and the variable-length sequence |
//! | `packet.rs` | the seven packets, and the order of the checks on receipt |
//! | `replay.rs` | the replay window, recorded after decryption |
//! | `token_history.rs` | a token bound to the first address that used it |
//! | `handshakes.rs` | the keys of handshakes under way, until the token's timeout |
//! | `clock.rs` | Unix time counted from one known instant |
//! | `netcode_server.rs` | the netcode server: requests, slots, denial when full, global sequence, timeouts |
//! | `slot_timers.rs` | when each slot next needs a keep-alive or times out, without a scan |
//! | `netcode_client.rs` | the netcode client's states and transitions |
//! | `stats.rs` | every drop counted by reason |
//! | `server.rs` | the secure server: an `Server` whose datagrams travel as payload packets |
//! | `client.rs` | the secure client: a `Client` opened once netcode has connected |
//! | `batch.rs` | hopnet's datagrams sealed in batches of the shape UDP GSO sends, short enough to seal in time |

mod address;
mod aead;
mod batch;
mod challenge_token;
mod client;
mod clock;
mod connect_token;
mod handshakes;
mod issue;
mod key;
mod netcode_client;
mod netcode_server;
mod packet;
mod private_token;
mod replay;
mod sequence;
mod server;
mod slot_timers;
mod stats;
mod token_history;
mod wire;

#[cfg(test)]
mod tests;

pub use address::MAX_SERVER_ADDRESSES;
pub use aead::MAC_BYTES;
pub use challenge_token::CHALLENGE_TOKEN_BYTES;
pub use client::SecureClient;
pub use connect_token::{CONNECT_TOKEN_BYTES, ConnectToken, TokenError};
pub use issue::ConnectTokenBuilder;
pub use key::{KEY_BYTES, Key, KeyFileError};
pub use netcode_client::{ClientState, NetcodeClient};
pub use netcode_server::{
    DISCONNECT_PACKETS, MAX_CLIENTS, NetcodeServer, NetcodeServerConfig, NetcodeServerEvent,
    ServerConfigError, ServerDisconnectReason,
};
pub use packet::{MAX_PACKET_BYTES, MAX_PAYLOAD_BYTES, REQUEST_PACKET_BYTES};
pub use private_token::{PRIVATE_TOKEN_BYTES, TOKEN_NONCE_BYTES};
pub use replay::REPLAY_WINDOW;
pub use server::SecureServer;
pub use stats::{DropReason, SecureStats};

/// The version string every token and packet carries: "NETCODE 1.02" and a zero byte.
pub const VERSION_INFO: &[u8; 13] = b"NETCODE 1.02\0";

/// The size of a token's user data.
pub const USER_DATA_BYTES: usize = 256;

/// 256 bytes from the backend to the server, carried in the token, opaque to netcode.
pub type UserData = [u8; USER_DATA_BYTES];

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
