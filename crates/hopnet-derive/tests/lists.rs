//! `count`, `until` and `leb128` on signed types through the derive: the bytes, the sizes,
//! the schema, and hostile input.

use hopnet_codec::schema::{Body, Describe, Encoding, Leb128Form, Terminator};
use hopnet_codec::{Encode, Error, Rabbit, from_bytes, to_bytes};

/// A header counting two lists, one by a field, one by an expression of two.
#[derive(Rabbit, Debug, PartialEq, Clone)]
#[rabbit(endian = "big")]
struct Counts {
    names: u16,
    extra: u8,
    more: u8,
    #[rabbit(count = "names")]
    name_list: Vec<Word>,
    #[rabbit(count = "*extra as u32 + *more as u32", max_len = 8)]
    bytes: Vec<u8>,
    #[rabbit(count = "extra")]
    text: String,
}

/// A word ended by a zero byte, then a list of numbers ended by a zero.
#[derive(Rabbit, Debug, PartialEq, Clone, Default)]
struct Word {
    #[rabbit(until = 0)]
    text: String,
    #[rabbit(until = "|n: &u8| *n == 0", max_len = 4)]
    numbers: Vec<u8>,
}

fn counts() -> Counts {
    Counts {
        names: 2,
        extra: 1,
        more: 2,
        name_list: vec![
            Word {
                text: "ab".into(),
                numbers: vec![7],
            },
            Word::default(),
        ],
        bytes: vec![9, 8, 7],
        text: "z".into(),
    }
}

#[test]
fn bytes_of_counted_and_terminated_lists() {
    let bytes = to_bytes(&counts()).unwrap();
    assert_eq!(
        bytes,
        [0, 2, 1, 2, b'a', b'b', 0, 7, 0, 0, 0, 9, 8, 7, b'z']
    );
    assert_eq!(counts().encoded_bits(), 8 * bytes.len() as u64);
    assert_eq!(from_bytes::<Counts>(&bytes).unwrap(), counts());
}

#[test]
fn a_count_that_disagrees_is_an_encode_error() {
    let mut c = counts();
    c.names = 3;
    let err = to_bytes(&c).unwrap_err();
    assert!(err.to_string().contains("Counts.name_list"), "{err}");
    assert!(err.to_string().contains("count says 3"), "{err}");
    let mut c = counts();
    c.bytes.push(1);
    assert!(to_bytes(&c).is_err());
}

#[test]
fn an_item_that_would_end_the_list_is_an_encode_error() {
    let w = Word {
        text: "a".into(),
        numbers: vec![1, 0, 2],
    };
    let err = to_bytes(&w).unwrap_err();
    assert!(err.to_string().contains("item 1"), "{err}");
    let w = Word {
        text: "a\0".into(),
        numbers: vec![],
    };
    assert!(to_bytes(&w).is_err());
    let w = Word {
        text: "a".into(),
        numbers: vec![1; 5],
    };
    assert!(matches!(
        to_bytes(&w),
        Err(Error::InField { .. } | Error::TooLong { .. })
    ));
}

#[test]
fn a_huge_count_is_refused_before_anything_is_reserved() {
    #[derive(Rabbit, Debug)]
    #[rabbit(endian = "big")]
    struct Big {
        n: u32,
        #[rabbit(count = "n")]
        items: Vec<u64>,
    }
    // A count of 4 billion with 10 bytes left.
    let mut bytes = 4_000_000_000u32.to_be_bytes().to_vec();
    bytes.extend([0; 10]);
    let err = from_bytes::<Big>(&bytes).unwrap_err();
    assert!(
        matches!(
            err.root(),
            Error::CountTooLarge {
                count: 4_000_000_000,
                remaining: 80,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn sizes_known_at_compile_time() {
    // A terminated string takes its terminator at least; the bounded list its zero at least.
    assert_eq!(Word::MIN_BITS, 16);
    assert_eq!(Word::MAX_BITS, None);
    #[derive(Rabbit)]
    struct Bounded {
        #[rabbit(until = 10, max_len = 3)]
        line: String,
        #[rabbit(until = "|n: &u8| *n == 0", max_len = 2)]
        numbers: Vec<u8>,
        n: u8,
        #[rabbit(count = "n", max_len = 4)]
        counted: Vec<u8>,
    }
    assert_eq!(Bounded::MIN_BITS, 8 + 8 + 8);
    assert_eq!(Bounded::MAX_BITS, Some(8 * 4 + 8 * 3 + 8 + 4 * 8));
}

#[test]
fn schema_shows_each_encoding() {
    let Body::Struct(fields) = <Counts as Describe>::type_schema().body else {
        panic!("a struct")
    };
    assert!(matches!(
        &fields[3].encoding,
        Encoding::Counted {
            count: "names",
            max_len: None,
            ..
        }
    ));
    assert!(matches!(
        &fields[4].encoding,
        Encoding::Counted {
            count: "*extra as u32 + *more as u32",
            max_len: Some(8),
            ..
        }
    ));
    let Body::Struct(fields) = <Word as Describe>::type_schema().body else {
        panic!("a struct")
    };
    assert!(matches!(
        &fields[0].encoding,
        Encoding::Until {
            end: Terminator::Byte(0),
            max_len: None,
            ..
        }
    ));
    assert!(matches!(
        &fields[1].encoding,
        Encoding::Until {
            end: Terminator::Item {
                predicate: "|n: &u8| *n == 0"
            },
            max_len: Some(4),
            ..
        }
    ));
}

#[test]
fn truncations_and_garbage_are_errors() {
    let bytes = to_bytes(&counts()).unwrap();
    for n in 0..bytes.len() {
        assert!(from_bytes::<Counts>(&bytes[..n]).is_err(), "{n} bytes");
    }
    // Five numbers before the zero: past `max_len = 4`.
    assert!(from_bytes::<Word>(&[b'a', 0, 1, 2, 3, 4, 5, 0]).is_err());
    // No terminator at all.
    assert!(from_bytes::<Word>(&[b'a'; 64]).is_err());
}

#[test]
fn leb128_of_signed_types_three_ways() {
    #[derive(Rabbit, Debug, PartialEq)]
    struct Signed {
        #[rabbit(leb128)]
        bits: i32,
        #[rabbit(leb128_signed)]
        extended: i32,
        #[rabbit(leb128_zigzag)]
        zigzag: i32,
    }
    let v = Signed {
        bits: -1,
        extended: -1,
        zigzag: -1,
    };
    let bytes = to_bytes(&v).unwrap();
    assert_eq!(bytes, [0xff, 0xff, 0xff, 0xff, 0x0f, 0x7f, 0x01]);
    assert_eq!(from_bytes::<Signed>(&bytes).unwrap(), v);
    assert_eq!(Signed::MAX_BITS, Some(3 * 5 * 8));
    let Body::Struct(fields) = <Signed as Describe>::type_schema().body else {
        panic!("a struct")
    };
    let forms: Vec<_> = fields
        .iter()
        .map(|f| match f.encoding {
            Encoding::Leb128 { form, .. } => form,
            _ => panic!("LEB128"),
        })
        .collect();
    assert_eq!(
        forms,
        [
            Leb128Form::TwosComplement,
            Leb128Form::SignExtended,
            Leb128Form::ZigZagged
        ]
    );
}

#[test]
fn lists_in_an_msb_container_and_an_enum() {
    #[derive(Rabbit, Debug, PartialEq)]
    #[rabbit(bit_order = "msb")]
    struct Msb {
        #[bits(4)]
        n: u8,
        #[bits(4)]
        flags: u8,
        #[rabbit(count = "n")]
        items: Vec<u8>,
        #[rabbit(until = 0)]
        name: String,
    }
    let v = Msb {
        n: 2,
        flags: 1,
        items: vec![5, 6],
        name: "x".into(),
    };
    let bytes = to_bytes(&v).unwrap();
    assert_eq!(bytes, [0x21, 5, 6, b'x', 0]);
    assert_eq!(from_bytes::<Msb>(&bytes).unwrap(), v);

    #[derive(Rabbit, Debug, PartialEq)]
    enum E {
        A(u8, #[rabbit(count = "_0")] Vec<u8>),
        B(#[rabbit(until = "|x: &u8| *x == 0")] Vec<u8>),
        C(#[rabbit(until = "|x: &u8| *x == 255")] Vec<u8>),
    }
    for v in [E::A(2, vec![1, 2]), E::B(vec![3, 4])] {
        assert_eq!(from_bytes::<E>(&to_bytes(&v).unwrap()).unwrap(), v);
    }
    // The terminator written is the item type's default, which this predicate refuses.
    let err = to_bytes(&E::C(vec![1])).unwrap_err();
    assert!(err.to_string().contains("E::C.0"), "{err}");
}
