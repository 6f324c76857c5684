//! Conformance: every case of `vectors/messages.json` encodes to its exact bytes and decodes to
//! its value; every case of `invalid.json` is an error. The files (the repository's `vectors/`)
//! are read at test time.

use hopnet_codec::{Decode, Encode};
use hopnet_snow_fight::{ClientMessage, ServerMessage};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::fmt::Debug;

use test_vectors::{hex, load, unhex};

const MESSAGES: &str = "messages.json";
const INVALID: &str = "invalid.json";

fn check_valid<T>(index: usize, json: &Value, hex_text: &str)
where
    T: Encode + Decode + Serialize + DeserializeOwned + PartialEq + Debug,
{
    let expected: T = serde_json::from_value(json.clone())
        .unwrap_or_else(|e| panic!("case {index}: JSON does not parse: {e}\n{json}"));

    // Encoding: the exact bytes, and the size computed without encoding agrees.
    let bytes = hopnet_codec::to_bytes(&expected)
        .unwrap_or_else(|e| panic!("case {index}: encode failed: {e}"));
    assert_eq!(hex(&bytes), hex_text, "case {index}: encoding of {json}");
    assert_eq!(
        hopnet_codec::encoded_len(&expected),
        bytes.len(),
        "case {index}: encoded_len"
    );
    let mut buffer = vec![0xaa];
    hopnet_codec::encode_into(&expected, &mut buffer).unwrap();
    assert_eq!(
        &buffer[1..],
        &bytes[..],
        "case {index}: encode_into appends"
    );

    // Decoding: the value, with every float's sign and bits (compared through the JSON text and
    // the re-encoding, since `-0.0 == 0.0`).
    let decoded: T = hopnet_codec::from_bytes(&unhex(hex_text))
        .unwrap_or_else(|e| panic!("case {index}: decode of {hex_text} failed: {e}"));
    assert_eq!(decoded, expected, "case {index}: decoded value");
    assert_eq!(
        serde_json::to_string(&decoded).unwrap(),
        serde_json::to_string(&expected).unwrap(),
        "case {index}: JSON of the decoded value"
    );
    assert_eq!(
        hex(&hopnet_codec::to_bytes(&decoded).unwrap()),
        hex_text,
        "case {index}: re-encoding"
    );

    // The JSON form is exactly the canonical one, floats compared as the f32 they round to.
    let ours = serde_json::to_value(&decoded).unwrap();
    assert!(
        same_json(&ours, json),
        "case {index}: canonical JSON\nours: {ours}\nfile: {json}"
    );
}

/// Equal JSON, where two numbers with a fraction or exponent are equal if they round to the same
/// `f32` (sign of zero included), as the vectors' README says.
fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            if x.is_f64() || y.is_f64() {
                let (x, y) = (x.as_f64().unwrap() as f32, y.as_f64().unwrap() as f32);
                x.to_bits() == y.to_bits()
            } else {
                x == y
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_json(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((kx, vx), (ky, vy))| kx == ky && same_json(vx, vy))
        }
        _ => a == b,
    }
}

/// The cases of the vector file `name`, checked to be the whole file (at least `min`).
fn load_whole(name: &str, min: usize) -> Vec<Value> {
    let cases = load(name);
    assert!(
        cases.len() >= min,
        "expected the whole file, got {}",
        cases.len()
    );
    cases
}

#[test]
fn messages_encode_and_decode_exactly() {
    let cases = load_whole(MESSAGES, 40);
    for (i, case) in cases.iter().enumerate() {
        let json = &case["json"];
        let hex_text = case["hex"].as_str().expect("hex");
        match case["type"].as_str() {
            Some("ServerMessage") => check_valid::<ServerMessage>(i, json, hex_text),
            Some("ClientMessage") => check_valid::<ClientMessage>(i, json, hex_text),
            other => panic!("case {i}: unknown type {other:?}"),
        }
    }
}

fn decode_any(ty: &str, bytes: &[u8]) -> Result<(), hopnet_codec::Error> {
    match ty {
        "ServerMessage" => hopnet_codec::from_bytes::<ServerMessage>(bytes).map(drop),
        "ClientMessage" => hopnet_codec::from_bytes::<ClientMessage>(bytes).map(drop),
        other => panic!("unknown type {other}"),
    }
}

#[test]
fn invalid_inputs_are_errors() {
    let cases = load_whole(INVALID, 25);
    for (i, case) in cases.iter().enumerate() {
        let ty = case["type"].as_str().expect("type");
        let hex_text = case["hex"].as_str().expect("hex");
        let why = case["why"].as_str().unwrap_or("");
        let result = decode_any(ty, &unhex(hex_text));
        assert!(
            result.is_err(),
            "case {i} ({ty} {hex_text}) should fail: {why}"
        );
    }
}

/// Every proper prefix of a valid encoding is an error, and never a panic.
#[test]
fn truncated_messages_are_errors() {
    for (i, case) in load(MESSAGES).iter().enumerate() {
        let ty = case["type"].as_str().unwrap();
        let bytes = unhex(case["hex"].as_str().unwrap());
        for len in 0..bytes.len() {
            // A prefix may only decode if all it lost were zero bytes that the message does not
            // need (impossible here: the last byte of an encoding is never all padding).
            assert!(
                decode_any(ty, &bytes[..len]).is_err(),
                "case {i}: prefix of {len} bytes decoded"
            );
        }
    }
}

/// Flipping any single bit of a valid encoding never panics (it may or may not decode).
#[test]
fn bit_flips_never_panic() {
    for case in load(MESSAGES) {
        let ty = case["type"].as_str().unwrap();
        let bytes = unhex(case["hex"].as_str().unwrap());
        for bit in 0..bytes.len() * 8 {
            let mut mutated = bytes.clone();
            mutated[bit / 8] ^= 1 << (bit % 8);
            let _ = decode_any(ty, &mutated);
        }
    }
}

#[test]
fn unknown_fields_are_refused() {
    let json = r#"{"Event": {"time": 0, "kind": {"GameOver": "Won"}, "extra": 1}}"#;
    assert!(serde_json::from_str::<ServerMessage>(json).is_err());
    let json = r#"{"Action": {"Move": {"direction": 1, "speed": 2}}}"#;
    assert!(serde_json::from_str::<ClientMessage>(json).is_err());
}
