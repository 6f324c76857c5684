//! What the secure tests share: one protocol id, tokens, messages that say which they are, and
//! the drop reasons a packet from someone without the keys must be counted under.

use std::net::SocketAddr;
use std::time::SystemTime;

use hopnet_proto::secure::{ConnectToken, ConnectTokenBuilder, DropReason, Key, NetcodeStats};

/// The protocol id of every secure test's servers and tokens.
pub const PROTOCOL_ID: u64 = 0x6e65_7463_6f64_6531;

/// A hopnet message of each size that matters: one byte, one chunk, one byte more, a netcode
/// payload's most, a few chunks, many, the largest.
pub const EVERY_SIZE: [usize; 7] = [1, 504, 505, 1200, 5000, 40_000, 129_024];

/// What a packet forged, replayed or cut short by someone without the keys is dropped as, at
/// either end: each must be counted once an attacker has tried all three.
pub const FORGERY_DROPS: [DropReason; 3] = [
    DropReason::Replayed,
    DropReason::Unauthentic,
    DropReason::TooSmall,
];

/// Message `i`, `len` bytes long: its index in the first two bytes (when it has two), then a
/// pattern of both, so that the messages of a test differ and a damaged one shows.
pub fn message(i: usize, len: usize) -> Vec<u8> {
    let mut bytes: Vec<u8> = (0..len).map(|j| (i * 29 + j * 11) as u8).collect();
    if len >= 2 {
        bytes[..2].copy_from_slice(&(i as u16).to_le_bytes());
    }
    bytes
}

/// Messages `first`, `first + 1`, ... of `sizes`, in order.
pub fn messages(first: usize, sizes: &[usize]) -> Vec<Vec<u8>> {
    sizes
        .iter()
        .enumerate()
        .map(|(i, &len)| message(first + i, len))
        .collect()
}

/// A token for `client_id` to connect to `server` (the builder's defaults, to change before
/// issuing).
pub fn token_builder(client_id: u64, server: SocketAddr) -> ConnectTokenBuilder {
    ConnectTokenBuilder::new(PROTOCOL_ID, client_id, [server])
}

/// [`token_builder`]'s token, issued now.
pub fn token(key: &Key, client_id: u64, server: SocketAddr) -> ConnectToken {
    token_builder(client_id, server)
        .issue(key, SystemTime::now())
        .expect("a token")
}

/// Panics unless `stats` counts a drop under each of `reasons`.
pub fn assert_dropped(end: &str, stats: &NetcodeStats, reasons: &[DropReason]) {
    for &reason in reasons {
        assert!(stats.dropped(reason) > 0, "{end}: {reason:?}: {stats:?}");
    }
}
