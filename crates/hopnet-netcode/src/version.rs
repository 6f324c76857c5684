//! The version every token and packet names, checked before anything else is read, and the
//! associated data that binds what is sealed to it.

use super::wire::Writer;

/// The version string every token and packet carries: "NETCODE 1.02" and a zero byte.
pub const VERSION_INFO: &[u8; 13] = b"NETCODE 1.02\0";

/// The associated data the standard seals under, its packets and its private token alike: the
/// version, the protocol id, then `tail`, what binds it to the one thing sealed. `N` is their
/// length together.
pub(crate) fn versioned_ad<const N: usize>(protocol_id: u64, tail: &[u8]) -> [u8; N] {
    debug_assert_eq!(N, VERSION_INFO.len() + 8 + tail.len());
    let mut ad = [0u8; N];
    let mut w = Writer::new(&mut ad);
    w.bytes(VERSION_INFO);
    w.u64(protocol_id);
    w.bytes(tail);
    ad
}
