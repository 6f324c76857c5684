//! The conformance vectors for the workspace's tests: the files of the repository's `vectors/`
//! (a byte-identical copy of the project's vectors, see its README), read at test time, never
//! copied into code; and the two forms they write bytes in. Also the round trip every
//! crate's tests hold a Rabbit value to ([`round_trip`]).
//!
//! One place for the directory's path and for the forms, so that every crate's conformance test
//! reads the same files the same way.

mod round_trip;

pub use round_trip::{round_trip, round_trip_strict};

use std::path::PathBuf;

use serde_json::Value;

/// The repository's `vectors/` directory.
pub fn dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../vectors"))
}

/// The cases of one vector file (`"bits.json"`, `"messages.json"`...): a JSON list.
///
/// Panics with the path when the file is missing or is not a JSON list: a test without its
/// vectors must fail, not pass on nothing.
pub fn load(name: &str) -> Vec<Value> {
    let path = dir().join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    match serde_json::from_str(&text) {
        Ok(Value::Array(cases)) => cases,
        Ok(_) => panic!("{}: not a JSON list", path.display()),
        Err(e) => panic!("parsing {}: {e}", path.display()),
    }
}

/// Bytes as the vectors write them: lowercase hex, two digits a byte.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The bytes of a vector's hex string. Panics on a malformed one (vectors are never edited).
pub fn unhex(text: &str) -> Vec<u8> {
    assert!(text.len().is_multiple_of(2), "odd hex length: {text:?}");
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).expect("vector hex"))
        .collect()
}

/// The first `bits` bits of a Rabbit stream as the vectors write them: first pushed bit first,
/// which is each byte's least significant bit first.
pub fn bit_string(bytes: &[u8], bits: u64) -> String {
    (0..bits)
        .map(|i| {
            if bytes[(i / 8) as usize] >> (i % 8) & 1 == 1 {
                '1'
            } else {
                '0'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms() {
        assert_eq!(hex(&[0x2f, 0x1a]), "2f1a");
        assert_eq!(unhex("2f1a"), [0x2f, 0x1a]);
        // The spec's example: 15 in 5 bits, 81 in 7, 1 in 2.
        assert_eq!(bit_string(&[0x2f, 0x1a], 14), "11110100010110");
    }

    #[test]
    fn every_vector_file_is_a_list() {
        for name in [
            "bits.json",
            "varint.json",
            "messages.json",
            "header.json",
            "invalid.json",
        ] {
            assert!(!load(name).is_empty(), "{name}");
        }
    }
}
