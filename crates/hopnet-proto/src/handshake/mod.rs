//! The `Init` / `Challenge` / `ChallengeResponse` handshake: bare 4-byte big-endian datagrams.
//!
//! The server keeps no state per `Init`. It derives the expected `Seasoning` from a keyed hash
//! (SipHash-2-4) of the client's address and a time bucket, and answers with
//! `Pepper = Salt XOR Seasoning`; a client that really sent the `Salt` from that address and
//! receives there computes `Salt XOR Pepper = Seasoning`, which the server recomputes to verify.
//! The pepper is as unpredictable to the client as a random one (the key is random and secret),
//! a flood of spoofed `Init`s costs the server no memory at all, and a real client is never
//! locked out by it: the "table of half-open handshakes" is bounded at zero entries, and it
//! expires after one to two cookie lifetimes.
//!
//! Both the seasoning and the pepper are chosen with a reserved flag bit set in their first
//! byte, so neither can be mistaken for a packet header once the connection is up
//! (see PROTOCOL.md, "the 4-byte rule").
//!
//! - `cookie`: the server's side, stateless;
//! - `client`: the client's side: what it sends, when, and which answers it accepts;
//! - [`failure`]: what a client that gave up had tried, for its error;

pub(crate) mod client;
pub(crate) mod cookie;
pub mod failure;

pub use failure::HandshakeFailure;

/// Length of every handshake datagram.
pub const HANDSHAKE_LEN: usize = 4;

fn xor(a: [u8; 4], b: [u8; 4]) -> [u8; 4] {
    [a[0] ^ b[0], a[1] ^ b[1], a[2] ^ b[2], a[3] ^ b[3]]
}
