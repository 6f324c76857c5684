//! Property tests of derived types: random values round-trip, `encoded_bits` is exactly what the
//! writer writes, and it lies within `MIN_BITS..=MAX_BITS`; truncated encodings are errors.
#![cfg(feature = "derive")]

use hopnet_codec::Rabbit;
use proptest::prelude::*;
use test_vectors::round_trip;

mod common;
use common::nibble;

#[derive(Rabbit, Debug, PartialEq, Clone)]
struct Point {
    #[bits(10)]
    x: i16,
    #[bits(10)]
    y: i16,
}

#[derive(Rabbit, Debug, PartialEq, Clone)]
#[rabbit(tag = "varint")]
enum Shape {
    Dot,
    Circle {
        #[rabbit(range = "1..=64")]
        radius: u8,
        centre: Point,
    },
    #[rabbit(index = 9)]
    Polygon(#[rabbit(max_len = 4)] Vec<Point>),
}

#[derive(Rabbit, Debug, PartialEq, Clone)]
enum Pinned {
    A,
    #[rabbit(index = 4)]
    B(u16),
    C {
        name: String,
        #[rabbit(zigzag)]
        delta: i8,
    },
}

#[derive(Rabbit, Debug, PartialEq, Clone)]
#[bits(5)]
enum Wide {
    Empty,
    Flag(bool),
}

#[derive(Rabbit, Debug, PartialEq, Clone)]
struct Everything {
    #[bits(5)]
    small: u8,
    #[bits(13)]
    signed: i16,
    #[bits(1)]
    flag: bool,
    #[rabbit(varint)]
    id: u64,
    #[rabbit(varint)]
    twos: i32,
    #[rabbit(zigzag)]
    dx: i64,
    #[rabbit(range = "-100..=1000")]
    level: i32,
    present: bool,
    #[rabbit(if = "*present")]
    extra: Option<u32>,
    #[rabbit(if = "*present && *small > 10")]
    #[bits(7)]
    more: Option<u8>,
    #[rabbit(max_len = 5)]
    items: Vec<i16>,
    #[rabbit(max_len = 12)]
    name: String,
    #[rabbit(with = "nibble")]
    custom: u8,
    #[rabbit(skip)]
    cache: u32,
    nested: Option<Shape>,
    pinned: Pinned,
    wide: Wide,
    real: f32,
    pair: (u8, f64),
}

#[derive(Rabbit, Debug, PartialEq, Clone)]
struct Generic<T> {
    items: Vec<T>,
    one: T,
}

fn point() -> impl Strategy<Value = Point> {
    (-512i16..512, -512i16..512).prop_map(|(x, y)| Point { x, y })
}

fn shape() -> impl Strategy<Value = Shape> {
    prop_oneof![
        Just(Shape::Dot),
        (1u8..=64, point()).prop_map(|(radius, centre)| Shape::Circle { radius, centre }),
        prop::collection::vec(point(), 0..=4).prop_map(Shape::Polygon),
    ]
}

fn pinned() -> impl Strategy<Value = Pinned> {
    prop_oneof![
        Just(Pinned::A),
        any::<u16>().prop_map(Pinned::B),
        (".{0,8}", any::<i8>()).prop_map(|(name, delta)| Pinned::C { name, delta }),
    ]
}

fn wide() -> impl Strategy<Value = Wide> {
    prop_oneof![Just(Wide::Empty), any::<bool>().prop_map(Wide::Flag)]
}

fn finite_f64() -> impl Strategy<Value = f64> {
    prop::num::f64::NORMAL | prop::num::f64::ZERO | prop::num::f64::SUBNORMAL
}

fn finite_f32() -> impl Strategy<Value = f32> {
    prop::num::f32::NORMAL | prop::num::f32::ZERO
}

prop_compose! {
    fn everything()(
        (small, signed, flag, id, twos, dx) in
            (0u8..32, -4096i16..4096, any::<bool>(), any::<u64>(), any::<i32>(), any::<i64>()),
        (level, present, extra, more) in (-100i32..=1000, any::<bool>(), any::<u32>(), 0u8..128),
        (items, name, custom) in
            (prop::collection::vec(any::<i16>(), 0..=5), "[a-z]{0,12}", 0u8..16),
        (nested, pinned, wide) in (prop::option::of(shape()), pinned(), wide()),
        (real, pair) in (finite_f32(), (any::<u8>(), finite_f64())),
    ) -> Everything {
        Everything {
            small,
            signed,
            flag,
            id,
            twos,
            dx,
            level,
            present,
            extra: present.then_some(extra),
            more: (present && small > 10).then_some(more),
            items,
            name,
            custom,
            cache: 0,
            nested,
            pinned,
            wide,
            real,
            pair,
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn everything_round_trips(value in everything()) {
        round_trip(&value);
    }

    #[test]
    fn shapes_round_trip(value in shape()) {
        round_trip(&value);
    }

    #[test]
    fn pinned_round_trips(value in pinned()) {
        round_trip(&value);
    }

    #[test]
    fn generics_round_trip(items in prop::collection::vec(any::<i32>(), 0..20), one in any::<i32>()) {
        round_trip(&Generic { items, one });
    }

    #[test]
    fn generic_over_derived_round_trips(items in prop::collection::vec(shape(), 0..6), one in shape()) {
        round_trip(&Generic { items, one });
    }

    #[test]
    fn truncation_is_always_an_error(value in everything()) {
        let bytes = hopnet_codec::to_bytes(&value).unwrap();
        for len in 0..bytes.len() {
            prop_assert!(hopnet_codec::from_bytes::<Everything>(&bytes[..len]).is_err());
        }
    }

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        let _ = hopnet_codec::from_bytes::<Everything>(&bytes);
        let _ = hopnet_codec::from_bytes::<Shape>(&bytes);
        let _ = hopnet_codec::from_bytes::<Pinned>(&bytes);
    }
}
