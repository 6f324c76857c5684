//! The checks every Rabbit value must pass in any crate's tests: one definition of a round
//! trip, so that the codec's, the derive's, the formats' and the game's tests all hold their
//! values to the same claims.

use std::fmt::Debug;

use hopnet_codec::{BitWriter, Decode, Encode, encoded_len, from_bytes, to_bytes};

/// Encodes `value` and holds every claim about it to what was written: `encoded_bits` is the
/// bits the writer pushed, within `MIN_BITS..=MAX_BITS`; `encoded_len` and `to_bytes` agree
/// with the writer; the bytes decode to `value`, and that value writes the same bytes again
/// (so a float comes back bit for bit, `-0.0` included). Every strict prefix of the bytes is
/// decoded too, which must return (an error, or for a type whose last list runs to the end, a
/// shorter value) and never panic. Returns the bytes.
#[track_caller]
pub fn round_trip<T: Encode + Decode + PartialEq + Debug>(value: &T) -> Vec<u8> {
    let mut bytes = Vec::new();
    let mut w = BitWriter::new(&mut bytes);
    value.encode(&mut w).expect("encodes");
    let bits = w.bit_len();
    w.finish();
    assert_eq!(value.encoded_bits(), bits, "encoded_bits of {value:?}");
    assert!(
        bits >= T::MIN_BITS,
        "{value:?}: {bits} < MIN_BITS {}",
        T::MIN_BITS
    );
    if let Some(max) = T::MAX_BITS {
        assert!(bits <= max, "{value:?}: {bits} > MAX_BITS {max}");
    }
    assert_eq!(encoded_len(value), bytes.len(), "encoded_len of {value:?}");
    assert_eq!(
        to_bytes(value).expect("encodes"),
        bytes,
        "to_bytes of {value:?}"
    );
    let back: T = from_bytes(&bytes).expect("decodes");
    assert_eq!(&back, value);
    assert_eq!(
        to_bytes(&back).expect("encodes"),
        bytes,
        "{value:?} decoded writes other bytes"
    );
    for cut in 0..bytes.len() {
        let _ = from_bytes::<T>(&bytes[..cut]);
    }
    bytes
}

/// [`round_trip`], and every strict prefix of the bytes is an error: for a type whose
/// encoding says where it ends (a count, a length, a terminator, a fixed size).
#[track_caller]
pub fn round_trip_strict<T: Encode + Decode + PartialEq + Debug>(value: &T) -> Vec<u8> {
    let bytes = round_trip(value);
    for cut in 0..bytes.len() {
        assert!(
            from_bytes::<T>(&bytes[..cut]).is_err(),
            "{value:?} cut to {cut} of {} bytes decoded",
            bytes.len()
        );
    }
    bytes
}
