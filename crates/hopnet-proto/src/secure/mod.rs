//! Secure mode: hopnet's server and client over netcode 1.02, the standard implemented by the
//! [`hopnet_netcode`] crate.
//!
//! netcode authenticates who may connect and encrypts and signs every packet after that. A
//! game's backend, which has authenticated a player, issues a *connect token*
//! ([`ConnectTokenBuilder`]) sealed with a private key it shares with its servers; only a
//! token's holder connects. [`SecureServer`] and [`SecureClient`] run hopnet's [`Server`] and
//! [`Client`] over it: each hopnet datagram (at most 1,200 bytes) travels as one netcode
//! payload packet, netcode's handshake replaces the spec's `Init` / `Challenge`, and both
//! implement [`Machine`](crate::Machine), so that the simulator and a driver loop run them as
//! they run the plain ones.
//!
//! What it promises and what it does not (PROTOCOL.md, "Secure mode"): only holders of a
//! token from the backend connect; nobody without a connection's keys can read its packets,
//! forge one, replay one, or close it; a token read off the wire is useless from another
//! address. There is no forward secrecy.
//!
//! The names below are [`hopnet_netcode`]'s, re-exported for what a hopnet user meets: tokens
//! and keys, the server's netcode settings, and the netcode layer's state and counters. The
//! rest of the standard (its packet sizes, the machines' events) is in that crate.
//!
//! | File | Rule |
//! |---|---|
//! | `server.rs` | the secure server: a [`Server`] whose datagrams travel as payload packets |
//! | `client.rs` | the secure client: a [`Client`] opened once netcode has connected |
//! | `layers.rs` | netcode under a plain machine, and the one [`Machine`](crate::Machine) loop both ends share |
//! | `batch.rs` | hopnet's datagrams sealed in batches of the shape UDP GSO sends, short enough to seal in time |
//! | `plain_capture.rs` | a copy of the decrypted datagrams, kept only when a recording asks for them |
//!
//! [`Server`]: crate::Server
//! [`Client`]: crate::Client

mod batch;
mod client;
mod layers;
mod plain_capture;
mod server;

pub use client::SecureClient;
pub use hopnet_netcode::{
    ClientState, ConnectToken, ConnectTokenBuilder, DropReason, Key, KeyFileError, MAX_CLIENTS,
    MAX_PAYLOAD_BYTES, NetcodeClient, NetcodeServer, NetcodeServerConfig, NetcodeStats, TokenError,
    USER_DATA_BYTES, UserData,
};
pub use layers::Secure;
pub use plain_capture::{PLAIN_CAPTURE_LIMIT, PlainDatagram, PlainDirection};
pub use server::SecureServer;

use crate::{Config, Error};

/// Refuses a configuration whose datagrams would not fit one netcode payload packet: both
/// secure machines carry each of their plain machine's datagrams as one.
fn fits_netcode(config: &Config) -> Result<(), Error> {
    if config.max_datagram_size > MAX_PAYLOAD_BYTES {
        return Err(Error::InvalidConfig(
            "secure mode carries datagrams of at most 1,200 bytes (max_datagram_size)",
        ));
    }
    Ok(())
}
