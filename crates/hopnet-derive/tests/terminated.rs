//! `cstring`, `leb128`, `leb128_signed` and `leb128_zigzag` through the derive: the bytes, the sizes, the
//! schema, and hostile input.

use hopnet_codec::schema::{Body, Describe, Encoding, Leb128Form};
use hopnet_codec::{Encode, Error, Rabbit, from_bytes, to_bytes};

#[derive(Rabbit, Debug, PartialEq, Clone)]
struct Entry {
    #[rabbit(cstring)]
    name: String,
    #[rabbit(leb128)]
    size: u64,
    #[rabbit(leb128_signed)]
    offset: i16,
    #[rabbit(leb128_zigzag)]
    delta: i32,
    #[rabbit(leb128)]
    tiny: u8,
}

fn entry() -> Entry {
    Entry {
        name: "snow".into(),
        size: 300,
        offset: -2,
        delta: -3,
        tiny: 200,
    }
}

#[test]
fn bytes_of_each_encoding() {
    let bytes = to_bytes(&entry()).unwrap();
    assert_eq!(
        bytes,
        [
            b's', b'n', b'o', b'w', 0, 0xac, 0x02, 0x7e, 0x05, 0xc8, 0x01
        ]
    );
    assert_eq!(entry().encoded_bits(), 8 * bytes.len() as u64);
    assert_eq!(from_bytes::<Entry>(&bytes).unwrap(), entry());
}

#[test]
fn sizes_known_at_compile_time() {
    // A C string is unbounded; each LEB128 field at most ceil(bits / 7) bytes.
    assert_eq!(Entry::MIN_BITS, 8 * 5);
    assert_eq!(Entry::MAX_BITS, None);
    #[derive(Rabbit)]
    struct Numbers {
        #[rabbit(leb128)]
        a: u64,
        #[rabbit(leb128_zigzag)]
        b: i8,
    }
    assert_eq!(Numbers::MAX_BITS, Some(8 * (10 + 2)));
}

#[test]
fn schema_names_the_encodings() {
    let Body::Struct(fields) = <Entry as Describe>::type_schema().body else {
        panic!("a struct")
    };
    let encodings: Vec<_> = fields.iter().map(|f| f.encoding.clone()).collect();
    assert_eq!(
        encodings,
        [
            Encoding::CString,
            Encoding::Leb128 {
                bits: 64,
                form: Leb128Form::Unsigned
            },
            Encoding::Leb128 {
                bits: 16,
                form: Leb128Form::SignExtended
            },
            Encoding::Leb128 {
                bits: 32,
                form: Leb128Form::ZigZagged
            },
            Encoding::Leb128 {
                bits: 8,
                form: Leb128Form::Unsigned
            },
        ]
    );
}

#[test]
fn every_truncation_is_an_error() {
    let bytes = to_bytes(&entry()).unwrap();
    for n in 0..bytes.len() {
        assert!(from_bytes::<Entry>(&bytes[..n]).is_err(), "{n} bytes");
    }
}

#[test]
fn hostile_input_is_refused() {
    // No terminator in a megabyte of text: an error at the end, not a hang or a panic.
    let long = vec![b'a'; 1 << 20];
    assert!(matches!(
        from_bytes::<Entry>(&long).unwrap_err().root(),
        Error::UnexpectedEnd { .. }
    ));
    // A LEB128 run longer than its type allows.
    let mut bytes = b"x\0".to_vec();
    bytes.extend([0xff; 11]);
    assert!(from_bytes::<Entry>(&bytes).is_err());
    // An inner zero byte cannot be written.
    let bad = Entry {
        name: "a\0".into(),
        ..entry()
    };
    assert!(to_bytes(&bad).is_err());
}
