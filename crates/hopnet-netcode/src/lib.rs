//! [netcode 1.02](https://github.com/mas-bandwidth/netcode), byte for byte, without I/O.
//!
//! netcode authenticates who may connect to a game server and encrypts and signs every packet
//! after that. A game's backend, which has authenticated a player, issues a *connect token*
//! ([`ConnectTokenBuilder`]) sealed with a private key it shares with its servers. The client
//! presents the token's sealed part to a server in a connection request; the server answers
//! with a challenge that only the holder of the token's keys can answer, which also proves the
//! client receives at the address it claims; then both exchange payload packets (at most
//! 1,200 bytes) under ChaCha20-Poly1305 with per-direction keys from the token, and
//! keep-alives, until a disconnect or a timeout.
//!
//! [`NetcodeServer`] and [`NetcodeClient`] are state machines that never read a clock or touch
//! a socket: datagrams and `Instant`s go in, datagrams, payloads, events and deadlines come
//! out, so a game runs them over its own sockets (or none, in tests). They hold bounded
//! memory, never panic on input, and count every datagram they drop in [`NetcodeStats`], by
//! [`DropReason`]. Any netcode 1.02 implementation is a peer: the crate is tested against the
//! reference's known-answer vectors and against `netcode-official`, both ways.
//!
//! # Connecting a client to a server
//!
//! The datagrams travel here by hand; a game moves them over UDP instead, and calls each
//! end's `handle_timeout` when its `poll_timeout` instant has passed (keep-alives, timeouts,
//! the client's resends).
//!
//! ```
//! use std::net::SocketAddr;
//! use std::time::{Instant, SystemTime};
//! use hopnet_netcode::{
//!     ClientState, ConnectTokenBuilder, Key, NetcodeClient, NetcodeServer, NetcodeServerConfig,
//! };
//!
//! const PROTOCOL_ID: u64 = 0x1122_3344_5566_7788;
//! let server_address: SocketAddr = "127.0.0.1:40000".parse().unwrap();
//! let client_address: SocketAddr = "127.0.0.1:50000".parse().unwrap();
//! let (now, unix_now) = (Instant::now(), SystemTime::now());
//!
//! // The backend's and the server's shared secret, and a token for player 42.
//! let key = Key::generate();
//! let config = NetcodeServerConfig::new(PROTOCOL_ID, key.clone(), server_address, 16);
//! let mut server = NetcodeServer::new(config, now, unix_now).unwrap();
//! let token = ConnectTokenBuilder::new(PROTOCOL_ID, 42, [server_address])
//!     .issue(&key, unix_now)
//!     .unwrap();
//! let mut client = NetcodeClient::new(token, now);
//!
//! // Request, challenge, response, keep-alive.
//! let mut buf = Vec::new();
//! while client.state() != ClientState::Connected {
//!     while let Some(to) = client.poll_transmit(now, &mut buf) {
//!         assert_eq!(to, server_address);
//!         server.handle(now, client_address, &buf);
//!     }
//!     while let Some(to) = server.poll_transmit(now, &mut buf) {
//!         assert_eq!(to, client_address);
//!         client.handle(now, server_address, &buf);
//!     }
//! }
//!
//! client.send(now, b"hello").unwrap();
//! client.poll_transmit(now, &mut buf).unwrap();
//! let (slot, payload) = server.handle(now, client_address, &buf).unwrap();
//! assert_eq!(payload, b"hello");
//! assert_eq!(server.client_id(slot), Some(42));
//! ```
//!
//! # What it promises
//!
//! Only holders of a token from the backend connect; nobody without a connection's keys can
//! read its packets, forge one, replay one, or close it; a token read off the wire is useless
//! from another address. There is no forward secrecy: whoever later learns the private key can
//! read the tokens of recorded traffic, and so every recorded connection.
//!
//! The cipher is most of what a busy server spends. Packets are sealed with `ring`'s
//! ChaCha20-Poly1305, assembly that picks the CPU's vector code at run time: a default build
//! gets it, no `target-cpu` flag needed.
//!
//! # Where each rule lives
//!
//! One file per rule of the standard:
//!
//! | File | Rule |
//! |---|---|
//! | `wire.rs` | little-endian reading and writing, checked |
//! | `address.rs` | a server address in a token (type 1 IPv4, 2 IPv6) |
//! | `aead.rs` | the tag's size, the nonce from a sequence, the token's XChaCha20-Poly1305 |
//! | `packet_key.rs` | ChaCha20-Poly1305 for packets and challenge tokens, prepared once per key |
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
//! | `server.rs` | the server: requests, slots, denial when full, global sequence, timeouts |
//! | `slot_timers.rs` | when each slot next needs a keep-alive or times out, without a scan |
//! | `client.rs` | the client's states and transitions |
//! | `stats.rs` | every drop counted by reason |
//! | `tests.rs` | the reference's known-answer vectors (`tests/vectors/netcode/`) |

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod address;
mod aead;
mod challenge_token;
mod client;
mod clock;
mod connect_token;
mod handshakes;
mod issue;
mod key;
mod packet;
mod packet_key;
mod private_token;
mod replay;
mod send_error;
mod sequence;
mod server;
mod slot_timers;
mod stats;
mod token_history;
mod user_data;
mod version;
mod wire;

#[cfg(test)]
mod tests;

pub use address::MAX_SERVER_ADDRESSES;
pub use aead::MAC_BYTES;
pub use challenge_token::CHALLENGE_TOKEN_BYTES;
pub use client::{ClientState, NetcodeClient};
pub use connect_token::{CONNECT_TOKEN_BYTES, ConnectToken, TokenError};
pub use issue::ConnectTokenBuilder;
pub use key::{KEY_BYTES, Key, KeyFileError};
pub use packet::{MAX_PACKET_BYTES, MAX_PAYLOAD_BYTES, REQUEST_PACKET_BYTES};
pub use private_token::{PRIVATE_TOKEN_BYTES, TOKEN_NONCE_BYTES};
pub use replay::REPLAY_WINDOW;
pub use send_error::SendError;
pub use server::{
    DISCONNECT_PACKETS, MAX_CLIENTS, NetcodeServer, NetcodeServerConfig, NetcodeServerEvent,
    ServerConfigError, ServerDisconnectReason,
};
pub use stats::{DropReason, NetcodeStats};
pub use user_data::{USER_DATA_BYTES, UserData};
pub use version::VERSION_INFO;
