//! Arbitrary values, encoded then decoded, come back bit for bit (floats compare by their bits,
//! so NaN payloads and -0.0 count):
//!
//! - `ServerMessage` and `ClientMessage`, built from the fuzzer's bytes;
//! - the derive's kitchen sink `Sink` (`#[derive(Arbitrary)]`), which uses every attribute:
//!   the encoder must accept exactly the values that fit their declared widths, ranges,
//!   lengths and conditions, and refuse the others with an error;
//! - lists of zero-bit items (`Vec<()>`), which the decoder caps at 65,536.
//!
//! Every encoding also agrees with the type's size bounds (`MIN_BITS`, `MAX_BITS`) and with
//! `encoded_len`.

#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use hopnet_fuzz::{BitEq, Sink, client_message, server_message};
use hopnet_codec::{Decode, Encode};

fn roundtrip<T: Encode + Decode + BitEq + std::fmt::Debug>(value: &T) -> Vec<u8> {
    let bytes = hopnet_codec::to_bytes(value).unwrap_or_else(|e| panic!("encode failed: {e}: {value:?}"));
    check_sizes(value, &bytes);
    let back = hopnet_codec::from_bytes::<T>(&bytes)
        .unwrap_or_else(|e| panic!("decode of our own encoding failed: {e}: {value:?}"));
    assert!(
        back.bit_eq(value),
        "round trip changed the value:\n{value:?}\n{back:?}"
    );
    bytes
}

fn check_sizes<T: Encode + ?Sized>(value: &T, bytes: &[u8]) {
    let bits = value.encoded_bits();
    assert_eq!(
        bits.div_ceil(8),
        bytes.len() as u64,
        "encoded_bits disagrees with the bytes"
    );
    let (min, max) = (T::MIN_BITS, T::MAX_BITS);
    assert!(
        min <= bits && max.is_none_or(|max| bits <= max),
        "{bits} bits outside MIN_BITS {min} / MAX_BITS {max:?}"
    );
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(which) = u.int_in_range(0..=3u8) else {
        return;
    };
    match which {
        0 => {
            if let Ok(m) = server_message(&mut u) {
                roundtrip(&m);
            }
        }
        1 => {
            if let Ok(m) = client_message(&mut u) {
                roundtrip(&m);
            }
        }
        2 => {
            let Ok(mut sink) = Sink::arbitrary(&mut u) else {
                return;
            };
            sink.skipped = 0;
            match hopnet_codec::to_bytes(&sink) {
                Ok(bytes) => {
                    assert!(
                        sink.valid(),
                        "the encoder accepted an invalid value: {sink:?}"
                    );
                    check_sizes(&sink, &bytes);
                    let back = hopnet_codec::from_bytes::<Sink>(&bytes)
                        .unwrap_or_else(|e| panic!("decode failed: {e}: {sink:?}"));
                    assert!(
                        back.bit_eq(&sink),
                        "round trip changed:\n{sink:?}\n{back:?}"
                    );
                }
                Err(e) => assert!(
                    !sink.valid(),
                    "the encoder refused a valid value: {e}: {sink:?}"
                ),
            }
        }
        _ => {
            let Ok(n) = u.int_in_range(0..=70_000u32) else {
                return;
            };
            let units = vec![(); n as usize];
            let encoded = hopnet_codec::to_bytes(&units);
            let decoded = encoded.as_ref().map(|b| hopnet_codec::from_bytes::<Vec<()>>(b));
            // Whatever the encoder writes, the decoder must read back.
            if let Ok(back) = decoded {
                let back =
                    back.unwrap_or_else(|e| panic!("{n} units encode but do not decode: {e}"));
                assert_eq!(back.len(), units.len());
            }
        }
    }
});
