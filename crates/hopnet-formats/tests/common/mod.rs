//! What the formats' tests share (each test file uses its part of it).

use hopnet_codec::{Decode, Encode, from_bytes, to_bytes};
use proptest::prelude::*;

#[allow(dead_code)]
/// Round trip, and every strict prefix of the bytes is an error (each format here fixes its
/// length: a count, a length field or a terminator says where it ends).
pub fn round_trip_and_truncations<T: Encode + Decode + PartialEq + std::fmt::Debug>(
    value: &T,
) -> Result<(), TestCaseError> {
    let bytes = to_bytes(value).unwrap();
    prop_assert_eq!(&from_bytes::<T>(&bytes).unwrap(), value);
    for n in 0..bytes.len() {
        prop_assert!(
            from_bytes::<T>(&bytes[..n]).is_err(),
            "{} of {} bytes",
            n,
            bytes.len()
        );
    }
    Ok(())
}

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
