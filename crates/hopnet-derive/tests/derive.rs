//! Behaviour of `#[derive(Rabbit)]`: every attribute, exact bits where the layout matters, error
//! cases, generics, and sizes agreeing with what is actually written.

use std::marker::PhantomData;

use hopnet_codec::schema::{Body, Describe, Encoding, Tag};
use hopnet_codec::{BitReader, BitWriter, Decode, Encode, Error, Rabbit};
use test_vectors::round_trip;

/// The bits of `value`'s encoding in wire order, as `0`/`1` characters.
fn wire<T: Encode + ?Sized>(value: &T) -> String {
    let mut buf = Vec::new();
    let mut w = BitWriter::new(&mut buf);
    value.encode(&mut w).expect("encodes");
    let len = w.bit_len();
    w.finish();
    test_vectors::bit_string(&buf, len)
}

fn field_of(err: &Error) -> &'static str {
    match err {
        Error::InField { field, .. } => field,
        other => panic!("expected an InField error, got {other:?}"),
    }
}

// ---------------------------------------------------------------------------------------------
// Structs and default encodings

#[derive(Rabbit, Debug, PartialEq)]
struct Plain {
    flag: bool,
    byte: u8,
    word: u32,
    signed: i16,
    real: f32,
    maybe: Option<u8>,
    list: Vec<bool>,
    text: String,
}

#[test]
fn default_encodings_follow_the_field_types() {
    let v = Plain {
        flag: true,
        byte: 0xAB,
        word: 5,
        signed: -1,
        real: 1.0,
        maybe: None,
        list: vec![true, false],
        text: "hi".into(),
    };
    // Fields in order, each as its type's own encoding.
    let mut expected = String::new();
    expected += &wire(&true);
    expected += &wire(&0xABu8);
    expected += &wire(&5u32);
    expected += &wire(&-1i16);
    expected += &wire(&1.0f32);
    expected += &wire(&None::<u8>);
    expected += &wire(&vec![true, false]);
    expected += &wire("hi");
    assert_eq!(wire(&v), expected);
    round_trip(&v);
}

#[derive(Rabbit, Debug, PartialEq)]
struct Tuple(u8, bool);

#[derive(Rabbit, Debug, PartialEq)]
struct Unit;

#[derive(Rabbit, Debug, PartialEq)]
struct Empty {}

#[test]
fn tuple_and_unit_structs() {
    assert_eq!(round_trip(&Tuple(7, true)), [7, 1]);
    assert_eq!(round_trip(&Unit), Vec::<u8>::new());
    assert_eq!(round_trip(&Empty {}), Vec::<u8>::new());
    assert_eq!((Unit::MIN_BITS, Unit::MAX_BITS), (0, Some(0)));
    assert_eq!((Tuple::MIN_BITS, Tuple::MAX_BITS), (9, Some(9)));
}

// ---------------------------------------------------------------------------------------------
// #[bits(N)]

#[derive(Rabbit, Debug, PartialEq)]
struct Packed {
    #[bits(3)]
    a: u8,
    #[bits(5)]
    b: i8,
    #[bits(1)]
    c: bool,
    #[bits(12)]
    d: i16,
    #[bits(64)]
    e: u64,
}

#[test]
fn bits_fields_are_fixed_width_twos_complement() {
    let v = Packed {
        a: 5,
        b: -3,
        c: true,
        d: -2048,
        e: u64::MAX,
    };
    // a = 101 (LSB first), b = -3 = 11101 → 10111, c = 1, d = 1000 0000 0000 → LSB first.
    assert_eq!(
        &wire(&v)[..21],
        ["101", "10111", "1", "000000000001"].concat()
    );
    let bytes = round_trip(&v);
    assert_eq!(bytes[0], 0b1110_1101);
    assert_eq!(Packed::MIN_BITS, 3 + 5 + 1 + 12 + 64);
    assert_eq!(Packed::MAX_BITS, Some(Packed::MIN_BITS));
    assert_eq!(v.encoded_bits(), 85);
}

#[test]
fn bits_fields_reject_values_that_do_not_fit() {
    let too_big = Packed {
        a: 8,
        b: 0,
        c: false,
        d: 0,
        e: 0,
    };
    let err = hopnet_codec::to_bytes(&too_big).unwrap_err();
    assert_eq!(field_of(&err), "Packed.a");
    assert!(matches!(err.root(), Error::OutOfRange { value: 8, .. }));

    let too_small = Packed {
        a: 0,
        b: -17,
        c: false,
        d: 2048,
        e: 0,
    };
    let err = hopnet_codec::to_bytes(&too_small).unwrap_err();
    assert_eq!(field_of(&err), "Packed.b");
    assert!(matches!(err.root(), Error::OutOfRange { value: -17, .. }));
    // Largest and smallest values that do fit.
    round_trip(&Packed {
        a: 7,
        b: -16,
        c: false,
        d: 2047,
        e: 0,
    });
    round_trip(&Packed {
        a: 0,
        b: 15,
        c: false,
        d: -2048,
        e: 1,
    });
}

// ---------------------------------------------------------------------------------------------
// range, varint, zigzag

#[derive(Rabbit, Debug, PartialEq)]
struct Ranged {
    #[rabbit(range = "10..=20")]
    level: u8,
    #[rabbit(range = "-8..=7")]
    delta: i32,
    #[rabbit(range = "5..=5")]
    constant: u16,
}

#[test]
fn range_fields_store_the_offset_in_the_fewest_bits() {
    let v = Ranged {
        level: 15,
        delta: -8,
        constant: 5,
    };
    // 15 - 10 = 5 in 4 bits, -8 - -8 = 0 in 4 bits, nothing for the one-value range.
    assert_eq!(wire(&v), "1010".to_owned() + "0000");
    assert_eq!(round_trip(&v), [0x05]);
    assert_eq!((Ranged::MIN_BITS, Ranged::MAX_BITS), (8, Some(8)));
    round_trip(&Ranged {
        level: 20,
        delta: 7,
        constant: 5,
    });

    let err = hopnet_codec::to_bytes(&Ranged {
        level: 9,
        delta: 0,
        constant: 5,
    })
    .unwrap_err();
    assert_eq!(field_of(&err), "Ranged.level");
    assert!(matches!(err.root(), Error::OutOfRange { value: 9, .. }));
    // 4 bits can say 21..=25: decode rejects them.
    let err = hopnet_codec::from_bytes::<Ranged>(&[0x0F]).unwrap_err();
    assert_eq!(field_of(&err), "Ranged.level");
    assert!(matches!(err.root(), Error::OutOfRange { value: 25, .. }));
}

#[derive(Rabbit, Debug, PartialEq)]
struct Ints {
    #[rabbit(varint)]
    small: u32,
    #[rabbit(varint)]
    twos: i32,
    #[rabbit(zigzag)]
    zz: i32,
    #[rabbit(zigzag)]
    tiny: i8,
    #[rabbit(varint)]
    wide: u64,
}

#[test]
fn varint_and_zigzag_fields() {
    let v = Ints {
        small: 3,
        twos: -1,
        zz: -1,
        tiny: -2,
        wide: 256,
    };
    // u32 varint of 3: k = 00, one byte 00000011 (LSB first).
    // i32 varint of -1: its 32 bits 0xFFFF_FFFF: k = 11 (four bytes), then 32 ones.
    // zig-zag -1 = 1: 00 10000000. i8 zig-zag -2 = 3: eight plain bits (k = 0).
    // u64 varint of 256: k = 001 (two bytes), 0x0100.
    let expected = [
        "00",
        "11000000",
        "11",
        &"1".repeat(32),
        "00",
        "10000000",
        "11000000",
        "100",
        "0000000010000000",
    ]
    .concat();
    assert_eq!(wire(&v), expected);
    round_trip(&v);
    assert_eq!(Ints::MIN_BITS, 10 + 10 + 10 + 8 + 11);
    assert_eq!(Ints::MAX_BITS, Some(34 + 34 + 34 + 8 + 67));
}

// ---------------------------------------------------------------------------------------------
// with

mod twelve_bits {
    use hopnet_codec::{BitReader, BitWriter, Error, Result};

    pub fn encode(value: &u16, w: &mut BitWriter<'_>) -> Result<()> {
        if *value >= 1 << 12 {
            return Err(Error::custom("too big for twelve bits"));
        }
        w.write_bits(*value as u64, 12);
        Ok(())
    }

    pub fn decode(r: &mut BitReader<'_>) -> Result<u16> {
        Ok(r.read_bits(12)? as u16)
    }
}

#[derive(Rabbit, Debug, PartialEq)]
struct Custom {
    head: bool,
    #[rabbit(with = "twelve_bits")]
    body: u16,
}

#[test]
fn with_fields_use_the_module() {
    let v = Custom {
        head: true,
        body: 0xABC,
    };
    assert_eq!(wire(&v), "1".to_owned() + "001111010101");
    round_trip(&v);
    // A custom codec declares no size.
    assert_eq!((Custom::MIN_BITS, Custom::MAX_BITS), (1, None));
    assert_eq!(v.encoded_bits(), 13);
    let err = hopnet_codec::to_bytes(&Custom {
        head: false,
        body: 0x1000,
    })
    .unwrap_err();
    assert_eq!(field_of(&err), "Custom.body");
    assert_eq!(err.root(), &Error::Custom("too big for twelve bits".into()));
}

// ---------------------------------------------------------------------------------------------
// if

const FAR: u8 = 100;

/// A `Conditional` with every condition but the beacon's true.
fn conditional_present() -> Conditional {
    Conditional {
        breakable: true,
        health: Some(20),
        armour: Some(3),
        distance: 200,
        beacon: None,
        bonus: Some(9),
    }
}

#[derive(Rabbit, Debug, PartialEq)]
struct Conditional {
    breakable: bool,
    #[rabbit(if = "*breakable")]
    health: Option<u8>,
    #[rabbit(if = "health.is_some()")]
    armour: Option<u8>,
    distance: u8,
    #[rabbit(if = "*distance >= FAR && !*breakable")]
    beacon: Option<bool>,
    #[rabbit(if = "matches!(health, Some(h) if *h > 10)")]
    #[bits(4)]
    bonus: Option<u8>,
}

#[test]
fn if_fields_have_no_presence_bit() {
    let absent = Conditional {
        breakable: false,
        health: None,
        armour: None,
        distance: 1,
        beacon: None,
        bonus: None,
    };
    assert_eq!(wire(&absent), "0".to_owned() + "10000000");
    round_trip(&absent);

    let present = conditional_present();
    assert_eq!(
        wire(&present),
        ["1", "00101000", "11000000", "00010011", "1001"].concat()
    );
    round_trip(&present);

    let far = Conditional {
        breakable: false,
        health: None,
        armour: None,
        distance: 100,
        beacon: Some(true),
        bonus: None,
    };
    round_trip(&far);

    assert_eq!(Conditional::MIN_BITS, 1 + 8);
    assert_eq!(Conditional::MAX_BITS, Some(1 + 8 + 8 + 8 + 1 + 4));
}

#[test]
fn if_fields_must_agree_with_their_condition() {
    let missing = Conditional {
        breakable: true,
        health: None,
        armour: None,
        distance: 0,
        beacon: None,
        bonus: None,
    };
    assert_eq!(
        hopnet_codec::to_bytes(&missing).unwrap_err(),
        Error::ConditionMismatch {
            field: "Conditional.health",
            condition: true,
            present: false,
        }
    );
    let unexpected = Conditional {
        breakable: false,
        health: None,
        armour: Some(1),
        distance: 0,
        beacon: None,
        bonus: None,
    };
    assert_eq!(
        hopnet_codec::to_bytes(&unexpected).unwrap_err(),
        Error::ConditionMismatch {
            field: "Conditional.armour",
            condition: false,
            present: true,
        }
    );
}

#[derive(Rabbit, Debug, PartialEq)]
struct TupleCond(u8, #[rabbit(if = "*_0 > 3")] Option<u16>);

#[test]
fn tuple_fields_are_named_by_position_in_conditions() {
    assert_eq!(round_trip(&TupleCond(1, None)), [1]);
    assert_eq!(round_trip(&TupleCond(4, Some(2))).len(), 3);
}

// ---------------------------------------------------------------------------------------------
// max_len

const NAME_LEN: usize = 4;

#[derive(Rabbit, Debug, PartialEq)]
struct Bounded {
    #[rabbit(max_len = 3)]
    items: Vec<u8>,
    #[rabbit(max_len = NAME_LEN)]
    name: String,
}

#[test]
fn max_len_bounds_lists_and_strings() {
    round_trip(&Bounded {
        items: vec![1, 2, 3],
        name: "abcd".into(),
    });
    // Count (10 bits for a u32 below 256) plus at most 3 bytes; same for the 4-byte name.
    assert_eq!(Bounded::MIN_BITS, 20);
    assert_eq!(Bounded::MAX_BITS, Some(10 + 24 + 10 + 32));

    let long = Bounded {
        items: vec![0; 4],
        name: String::new(),
    };
    let err = hopnet_codec::to_bytes(&long).unwrap_err();
    assert_eq!(field_of(&err), "Bounded.items");
    assert_eq!(err.root(), &Error::TooLong { len: 4, max: 3 });

    // The decoder refuses the count before reading the items.
    let unbounded = (vec![0u8; 4], String::new());
    let bytes = hopnet_codec::to_bytes(&unbounded).unwrap();
    let err = hopnet_codec::from_bytes::<Bounded>(&bytes).unwrap_err();
    assert_eq!(err.root(), &Error::TooLong { len: 4, max: 3 });

    let err = hopnet_codec::to_bytes(&Bounded {
        items: vec![],
        name: "hello".into(),
    })
    .unwrap_err();
    assert_eq!(field_of(&err), "Bounded.name");
}

// ---------------------------------------------------------------------------------------------
// skip

#[derive(Rabbit, Debug, PartialEq)]
struct Skipping {
    a: u8,
    #[rabbit(skip)]
    cache: Vec<String>,
    b: u8,
}

#[test]
fn skipped_fields_are_off_the_wire_and_default_on_decode() {
    let v = Skipping {
        a: 1,
        cache: vec!["x".into()],
        b: 2,
    };
    let bytes = hopnet_codec::to_bytes(&v).unwrap();
    assert_eq!(bytes, [1, 2]);
    assert_eq!(v.encoded_bits(), 16);
    let back: Skipping = hopnet_codec::from_bytes(&bytes).unwrap();
    assert_eq!(
        back,
        Skipping {
            a: 1,
            cache: vec![],
            b: 2
        }
    );
    assert_eq!((Skipping::MIN_BITS, Skipping::MAX_BITS), (16, Some(16)));
}

// ---------------------------------------------------------------------------------------------
// Enums and tags

#[derive(Rabbit, Debug, PartialEq)]
enum One {
    Only(u8),
}

#[derive(Rabbit, Debug, PartialEq)]
enum Three {
    A,
    B(bool),
    C { x: u8 },
}

#[derive(Rabbit, Debug, PartialEq)]
#[bits(4)]
enum Wide {
    A,
    B,
}

#[derive(Rabbit, Debug, PartialEq)]
#[rabbit(tag = "varint")]
enum Client {
    Join {
        name: String,
    },
    Leave,
    #[rabbit(index = 300)]
    Far,
}

#[derive(Rabbit, Debug, PartialEq)]
enum Pinned {
    A,
    #[rabbit(index = 5)]
    B,
    C,
    #[rabbit(index = 2)]
    D,
}

#[test]
fn enum_tags_default_to_the_fewest_bits() {
    // One variant: no tag at all.
    assert_eq!(round_trip(&One::Only(9)), [9]);
    assert_eq!(wire(&One::Only(9)), "10010000");
    // Three variants: 2 bits.
    assert_eq!(wire(&Three::A), "00");
    assert_eq!(wire(&Three::B(true)), "101");
    assert_eq!(wire(&Three::C { x: 1 }), "01".to_owned() + "10000000");
    round_trip(&Three::A);
    round_trip(&Three::B(false));
    round_trip(&Three::C { x: 200 });
    assert_eq!((Three::MIN_BITS, Three::MAX_BITS), (2, Some(10)));
}

#[test]
fn enum_tag_width_can_be_fixed() {
    assert_eq!(wire(&Wide::B), "1000");
    assert_eq!((Wide::MIN_BITS, Wide::MAX_BITS), (4, Some(4)));
    round_trip(&Wide::A);
    // Index 2..=15 names no variant.
    let err = hopnet_codec::from_bytes::<Wide>(&[0x07]).unwrap_err();
    assert_eq!(
        err,
        Error::UnknownVariant {
            type_name: "Wide",
            index: 7,
            position: 4,
        }
    );
}

#[test]
fn varint_tags_are_u32_varints() {
    // The spec's ClientMessage: 10 bits for index 0 or 1.
    assert_eq!(wire(&Client::Leave), "00".to_owned() + "10000000");
    assert_eq!(Client::Leave.encoded_bits(), 10);
    // Index 300 needs two bytes.
    assert_eq!(Client::Far.encoded_bits(), 18);
    round_trip(&Client::Far);
    round_trip(&Client::Join {
        name: "rabbit".into(),
    });
    assert_eq!(Client::MIN_BITS, 10);
    assert_eq!(Client::MAX_BITS, None);
    let err =
        hopnet_codec::from_bytes::<Client>(&hopnet_codec::to_bytes(&5u32).unwrap()).unwrap_err();
    assert!(matches!(
        err,
        Error::UnknownVariant {
            type_name: "Client",
            index: 5,
            ..
        }
    ));
}

#[test]
fn pinned_indices_continue_like_discriminants() {
    // A = 0, B = 5, C = 6, D = 2: the largest index 6 needs 3 bits.
    assert_eq!(wire(&Pinned::A), "000");
    assert_eq!(wire(&Pinned::B), "101");
    assert_eq!(wire(&Pinned::C), "011");
    assert_eq!(wire(&Pinned::D), "010");
    for v in [Pinned::A, Pinned::B, Pinned::C, Pinned::D] {
        round_trip(&v);
    }
    let indices: Vec<u64> = match <Pinned as Describe>::type_schema().body {
        Body::Enum { variants, tag } => {
            assert_eq!(tag, Tag::Bits(3));
            variants.iter().map(|v| v.index).collect()
        }
        Body::Struct(_) => unreachable!(),
    };
    assert_eq!(indices, [0, 5, 6, 2]);
}

#[test]
fn truncated_input_is_an_error_never_a_panic() {
    let v = conditional_present();
    let bytes = hopnet_codec::to_bytes(&v).unwrap();
    for len in 0..bytes.len() {
        assert!(hopnet_codec::from_bytes::<Conditional>(&bytes[..len]).is_err());
    }
    let bytes = hopnet_codec::to_bytes(&Client::Join { name: "x".into() }).unwrap();
    for len in 0..bytes.len() {
        assert!(hopnet_codec::from_bytes::<Client>(&bytes[..len]).is_err());
    }
}

// ---------------------------------------------------------------------------------------------
// Errors name their field

#[derive(Rabbit, Debug, PartialEq)]
struct Outer {
    first: u8,
    inner: Inner,
}

#[derive(Rabbit, Debug, PartialEq)]
struct Inner {
    #[bits(2)]
    a: u8,
}

#[derive(Rabbit, Debug, PartialEq)]
enum InVariant {
    V {
        #[bits(2)]
        a: u8,
    },
    W(#[bits(2)] u8),
}

#[test]
fn errors_say_where_they_happened() {
    let err = hopnet_codec::to_bytes(&Outer {
        first: 0,
        inner: Inner { a: 4 },
    })
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "Outer.inner: Inner.a: value 4 does not fit 2 bits"
    );
    let err = hopnet_codec::to_bytes(&InVariant::V { a: 4 }).unwrap_err();
    assert_eq!(field_of(&err), "InVariant::V.a");
    let err = hopnet_codec::to_bytes(&InVariant::W(4)).unwrap_err();
    assert_eq!(field_of(&err), "InVariant::W.0");
    let err = hopnet_codec::from_bytes::<Outer>(&[1]).unwrap_err();
    assert_eq!(field_of(&err), "Outer.inner");
    assert!(matches!(err.root(), Error::UnexpectedEnd { .. }));
}

// ---------------------------------------------------------------------------------------------
// Generics and bounds

#[derive(Rabbit, Debug, PartialEq)]
struct Pair<A, B> {
    a: A,
    b: Vec<B>,
    #[rabbit(skip)]
    marker: PhantomData<fn() -> B>,
}

#[derive(Rabbit, Debug, PartialEq)]
enum Either<L, R> {
    Left(L),
    Right {
        #[rabbit(max_len = 2)]
        items: Vec<R>,
    },
}

/// No `T: Encode` is needed: the parameter is only in `PhantomData`.
#[derive(Rabbit, Debug, PartialEq)]
struct Tagged<T> {
    id: u16,
    kind: PhantomData<T>,
}

#[derive(Debug, PartialEq)]
struct NotEncodable;

#[derive(Rabbit, Debug, PartialEq)]
#[rabbit(bound = "T: hopnet_codec::Encode + hopnet_codec::Decode")]
struct Explicit<T> {
    value: Box<T>,
}

#[derive(Rabbit, Debug, PartialEq)]
struct Lifetimes<'a, const N: usize> {
    items: [u8; N],
    borrowed: PhantomData<&'a str>,
}

#[test]
fn generic_types_get_inferred_bounds() {
    round_trip(&Pair {
        a: 3u16,
        b: vec![true, false],
        marker: PhantomData,
    });
    round_trip(&Either::<u8, i32>::Left(3));
    round_trip(&Either::<u8, i32>::Right { items: vec![-1, 1] });
    assert_eq!(
        <Either<u8, i32>>::MAX_BITS,
        Some(1 + (10 + 2 * 34)).max(Some(1 + 8))
    );
    round_trip(&Tagged::<NotEncodable> {
        id: 1,
        kind: PhantomData,
    });
    round_trip(&Explicit {
        value: Box::new(7u8),
    });
    round_trip(&Lifetimes {
        items: [1, 2, 3],
        borrowed: PhantomData,
    });
    assert_eq!(<Lifetimes<'static, 3>>::MAX_BITS, Some(24));
}

// ---------------------------------------------------------------------------------------------
// crate = "..."

mod reexport {
    pub use hopnet_codec as codec;
}

#[derive(reexport::codec::Rabbit, Debug, PartialEq)]
#[rabbit(crate = "crate::reexport::codec")]
struct Renamed {
    #[bits(4)]
    x: u8,
}

#[test]
fn the_crate_path_can_be_overridden() {
    assert_eq!(round_trip(&Renamed { x: 9 }), [9]);
}

// ---------------------------------------------------------------------------------------------
// Sizes at compile time

#[derive(Rabbit)]
struct Chunk {
    #[rabbit(max_len = 400)]
    payload: Vec<u8>,
    #[rabbit(max_len = 50)]
    note: String,
}

const _: () = assert!(matches!(<Chunk as hopnet_codec::Encode>::MAX_BITS, Some(b) if b <= 504 * 8));
const _: () = assert!(<Packed as Encode>::MIN_BITS == 85);

#[test]
fn sizes_are_constants() {
    assert_eq!(Chunk::MAX_BITS, Some(18 + 400 * 8 + 10 + 50 * 8));
    assert_eq!(Chunk::MIN_BITS, 20);
}

// ---------------------------------------------------------------------------------------------
// Schema

/// A thing in the world.
///
///   Indented second paragraph.
#[derive(Rabbit, Debug, PartialEq)]
struct Described {
    /// Whether it breaks.
    breakable: bool,
    #[rabbit(if = "*breakable")]
    #[bits(7)]
    health: Option<u8>,
    #[rabbit(range = "-3..=3")]
    tilt: i8,
    #[rabbit(zigzag)]
    dx: i32,
    #[rabbit(varint)]
    id: u64,
    #[rabbit(with = "twelve_bits")]
    custom: u16,
    #[rabbit(max_len = 4)]
    tags: Vec<u8>,
    #[rabbit(skip)]
    cache: u32,
    inner: Inner,
}

#[derive(Rabbit, Debug, Clone, PartialEq)]
#[rabbit(delta = "per_field")]
struct Keyed {
    #[rabbit(key = "0")]
    items: Vec<(u8, u16)>,
    plain: Vec<u8>,
}

#[test]
fn schema_records_the_delta_markers() {
    use hopnet_codec::schema::DeltaLayout;
    let schema = <Keyed as Describe>::type_schema();
    assert_eq!(schema.delta, Some(DeltaLayout::PerField));
    let Body::Struct(fields) = schema.body else {
        panic!("a struct")
    };
    assert_eq!((fields[0].key, fields[1].key), (Some("0"), None));
    assert_eq!(<Inner as Describe>::type_schema().delta, None);
}

#[test]
fn schema_describes_the_layout() {
    let schema = <Described as Describe>::type_schema();
    assert_eq!(schema.name, "Described");
    assert_eq!(
        schema.doc,
        "A thing in the world.\n\nIndented second paragraph."
    );
    assert_eq!(schema.min_bits, Described::MIN_BITS);
    assert_eq!(schema.max_bits, Described::MAX_BITS);
    let Body::Struct(fields) = schema.body else {
        panic!("a struct")
    };
    let names: Vec<_> = fields.iter().map(|f| f.name).collect();
    assert_eq!(
        names,
        [
            "breakable",
            "health",
            "tilt",
            "dx",
            "id",
            "custom",
            "tags",
            "cache",
            "inner"
        ]
    );
    assert_eq!(fields[0].doc, "Whether it breaks.");
    assert_eq!(fields[0].encoding, Encoding::Bool);
    assert_eq!(fields[1].ty, "Option<u8>");
    assert_eq!(fields[1].condition, Some("*breakable"));
    assert_eq!(
        fields[1].encoding,
        Encoding::Fixed {
            bits: 7,
            signed: false
        }
    );
    assert_eq!(
        fields[2].encoding,
        Encoding::Range {
            min: -3,
            max: 3,
            bits: 3
        }
    );
    assert_eq!(
        fields[3].encoding,
        Encoding::Varint {
            bytes: 4,
            zigzag: true
        }
    );
    assert_eq!(
        fields[4].encoding,
        Encoding::Varint {
            bytes: 8,
            zigzag: false
        }
    );
    assert_eq!(
        fields[5].encoding,
        Encoding::Custom {
            codec: "twelve_bits"
        }
    );
    assert_eq!(
        fields[6].encoding,
        Encoding::List {
            item: Box::new(Encoding::Fixed {
                bits: 8,
                signed: false
            }),
            max_len: Some(4)
        }
    );
    assert!(fields[7].skipped);
    assert_eq!(fields[7].encoding, Encoding::Empty);
    assert!(!fields[8].skipped);
    match &fields[8].encoding {
        Encoding::Type(r) => {
            assert_eq!(r.name, "Inner");
            assert_eq!(r.resolve(), <Inner as Describe>::type_schema());
        }
        other => panic!("expected a type reference, got {other:?}"),
    }
    assert!(matches!(
        Described::schema(),
        Encoding::Type(r) if r.name == "Described"
    ));
}

#[test]
fn enum_schema_has_tag_and_indices() {
    let schema = <Client as Describe>::type_schema();
    let Body::Enum { tag, variants } = schema.body else {
        panic!("an enum")
    };
    assert_eq!(tag, Tag::Varint { bytes: 4 });
    let v: Vec<_> = variants.iter().map(|v| (v.name, v.index)).collect();
    assert_eq!(v, [("Join", 0), ("Leave", 1), ("Far", 300)]);
    assert_eq!(variants[0].fields[0].name, "name");
    assert_eq!(
        variants[0].fields[0].encoding,
        Encoding::String { max_len: None }
    );
}

// ---------------------------------------------------------------------------------------------
// Streaming: derived types compose with hand-written reads

#[test]
fn derived_values_stream_back_to_back() {
    let mut buf = Vec::new();
    let mut w = BitWriter::new(&mut buf);
    Three::B(true).encode(&mut w).unwrap();
    Three::C { x: 5 }.encode(&mut w).unwrap();
    w.finish();
    let mut r = BitReader::new(&buf);
    assert_eq!(Three::decode(&mut r).unwrap(), Three::B(true));
    assert_eq!(Three::decode(&mut r).unwrap(), Three::C { x: 5 });
}

/// A set of flags kept as its byte, as a bitflags type is.
#[derive(Debug, Clone, Copy, PartialEq, Rabbit)]
#[rabbit(from = "u8", into = "u8")]
struct Flags(u8);

impl From<u8> for Flags {
    fn from(bits: u8) -> Self {
        Flags(bits)
    }
}

impl From<Flags> for u8 {
    fn from(flags: Flags) -> Self {
        flags.0
    }
}

/// A level that only even numbers name: decoding refuses an odd one.
#[derive(Debug, Clone, Copy, PartialEq, Rabbit)]
#[rabbit(try_from = "Wire", into = "Wire")]
struct Even(u8);

/// How an `Even` is written.
#[derive(Rabbit)]
struct Wire {
    /// Half the level.
    #[bits(4)]
    half: u8,
    odd: bool,
}

impl From<Even> for Wire {
    fn from(even: Even) -> Self {
        Wire {
            half: even.0 / 2,
            odd: even.0 % 2 == 1,
        }
    }
}

impl TryFrom<Wire> for Even {
    type Error = String;
    fn try_from(wire: Wire) -> Result<Self, String> {
        if wire.odd {
            return Err(format!("{} is odd", wire.half * 2 + 1));
        }
        Ok(Even(wire.half * 2))
    }
}

#[derive(Debug, PartialEq, Rabbit)]
struct Holder {
    flags: Flags,
    #[bits(3)]
    small: u8,
    even: Even,
}

#[test]
fn types_written_as_another_type() {
    // Exactly the wire type's bits, sizes and words.
    assert_eq!(wire(&Flags(0b1010_0101)), "10100101");
    assert_eq!(
        (Flags::MIN_BITS, Flags::MAX_BITS, Flags::WORD_BITS),
        (8, Some(8), Some(8))
    );
    assert_eq!(wire(&Even(6)), "11000");
    assert_eq!((Even::MIN_BITS, Even::MAX_BITS), (5, Some(5)));
    let value = Holder {
        flags: Flags(3),
        small: 5,
        even: Even(8),
    };
    round_trip(&value);
    // The containers join their neighbours' merged write: 8 + 3 + 5 bits.
    assert_eq!(Holder::WORD_BITS, Some(16));
    assert_eq!(wire(&value), "1100000010100100");

    // `try_from` refusing a value is a decode error that names it, never a panic.
    let odd = hopnet_codec::to_bytes(&Wire { half: 1, odd: true }).unwrap();
    let err = hopnet_codec::from_bytes::<Even>(&odd).unwrap_err();
    assert_eq!(err, Error::custom("3 is odd"));

    // The schema: a derived wire type's layout and doc under the container's name; another
    // wire type as one field.
    let first_field = |schema: hopnet_codec::schema::TypeSchema| match schema.body {
        Body::Struct(fields) => fields.into_iter().next().expect("a field"),
        Body::Enum { .. } => panic!("{} is a struct", schema.name),
    };
    let schema = Even::type_schema();
    assert_eq!(
        (schema.name, schema.doc),
        ("Even", "How an `Even` is written.")
    );
    let half = first_field(schema);
    assert_eq!((half.name, half.doc), ("half", "Half the level."));
    let fixed = |bits| Encoding::Fixed {
        bits,
        signed: false,
    };
    assert_eq!(half.encoding, fixed(4));
    let schema = Flags::type_schema();
    assert_eq!(
        (schema.name, schema.min_bits, schema.max_bits),
        ("Flags", 8, Some(8))
    );
    let byte = first_field(schema);
    assert_eq!((byte.name, byte.ty, byte.encoding), ("0", "u8", fixed(8)));
    let flags = first_field(Holder::type_schema());
    assert!(matches!(flags.encoding, Encoding::Type(r) if r.name == "Flags"));
}
