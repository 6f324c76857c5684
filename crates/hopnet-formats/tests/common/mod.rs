//! What the formats' tests share (each test file uses its part of it).

use hopnet_codec::{Decode, Encode, from_bytes, to_bytes};

/// `value` encodes to exactly `bytes`, and `bytes` decode to exactly `value`: a format's
/// example, both ways.
#[allow(dead_code)]
#[track_caller]
pub fn both_ways<T: Encode + Decode + PartialEq + std::fmt::Debug>(value: &T, bytes: &[u8]) {
    assert_eq!(to_bytes(value).unwrap(), bytes, "encoding {value:?}");
    assert_eq!(
        &from_bytes::<T>(bytes).unwrap(),
        value,
        "decoding {bytes:02x?}"
    );
}
