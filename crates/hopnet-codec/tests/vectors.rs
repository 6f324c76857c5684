//! Conformance: every case of `vectors/bits.json` and `varint.json` (the repository's
//! `vectors/`), read at test time.

use hopnet_codec::{BitReader, BitWriter, Decode, Encode};

use test_vectors::{bit_string, hex, load as vectors, unhex};

#[test]
fn bit_stream_cases() {
    let cases = vectors("bits.json");
    assert!(!cases.is_empty());
    for case in &cases {
        let ops: Vec<(u64, u32)> = case["ops"]
            .as_array()
            .expect("ops")
            .iter()
            .map(|op| {
                (
                    op[0].as_u64().expect("value"),
                    op[1].as_u64().expect("width") as u32,
                )
            })
            .collect();
        let expected = case["hex"].as_str().expect("hex");

        let mut buf = Vec::new();
        let mut w = BitWriter::new(&mut buf);
        for &(value, width) in &ops {
            w.write_bits(value, width);
        }
        w.finish();
        assert_eq!(hex(&buf), expected, "writing {ops:?}");

        let bytes = unhex(expected);
        let mut r = BitReader::new(&bytes);
        for &(value, width) in &ops {
            assert_eq!(r.read_bits(width).expect("read"), value, "reading {ops:?}");
        }
        r.finish().expect("only zero padding left");
    }
}

fn check<T: Encode + Decode + PartialEq + std::fmt::Debug>(value: T, bits: &str) {
    let mut buf = Vec::new();
    let mut w = BitWriter::new(&mut buf);
    value.encode(&mut w).expect("encode");
    let len = w.bit_len();
    w.finish();
    assert_eq!(
        bit_string(&buf, len),
        bits,
        "{} {value:?}",
        std::any::type_name::<T>()
    );
    assert_eq!(value.encoded_bits(), len, "encoded_bits of {value:?}");
    assert!(len >= T::MIN_BITS && Some(len) <= T::MAX_BITS.or(Some(u64::MAX)));
    assert_eq!(hopnet_codec::from_bytes::<T>(&buf).expect("decode"), value);
}

#[test]
fn varint_cases() {
    let cases = vectors("varint.json");
    assert!(cases.len() > 100);
    for case in &cases {
        let bits = case["bits"].as_str().expect("bits");
        let v = &case["value"];
        match case["type"].as_str().expect("type") {
            "u8" => check(v.as_u64().expect("u8") as u8, bits),
            "u16" => check(v.as_u64().expect("u16") as u16, bits),
            "u32" => check(v.as_u64().expect("u32") as u32, bits),
            "u64" => check(v.as_u64().expect("u64"), bits),
            "i16" => check(v.as_i64().expect("i16") as i16, bits),
            "i32" => check(v.as_i64().expect("i32") as i32, bits),
            "i64" => check(v.as_i64().expect("i64"), bits),
            other => panic!("unknown type {other}"),
        }
    }
}
