//! Decoding through a `BitWindow` (the path lists take for items of bounded size) reads exactly
//! what the checked `BitReader` reads: the same values, errors, error positions and final
//! cursor, for valid encodings, for every truncation and single-bit corruption of them, and
//! for random bytes.
#![cfg(feature = "derive")]

use hopnet_codec::{BitReader, Decode, Encode, Rabbit, Result};
use proptest::prelude::*;

mod common;
use common::nibble;

/// Tags of two bits with three variants (the unknown index in the same two bits).
#[derive(Rabbit, Debug, PartialEq, Clone)]
#[bits(2)]
enum Kind {
    Thing(Thing),
    Person(Person),
    Gone,
}

#[derive(Rabbit, Debug, PartialEq, Clone)]
struct Thing {
    x: f32,
    y: f32,
    #[bits(1)]
    flag: bool,
    durability: Option<f32>,
    health: u32,
    max: u16,
    sparse: Sparse,
}

#[derive(Rabbit, Debug, PartialEq, Clone)]
struct Person {
    id: u64,
    delta: i32,
    wide: f64,
    held: Option<u32>,
    #[rabbit(varint)]
    raw: u64,
    #[rabbit(range = "-100..=1000")]
    level: i32,
    present: bool,
    #[rabbit(if = "*present")]
    extra: Option<u16>,
    letter: char,
    pair: (u8, i8),
    arr: [u16; 2],
    tagged: Tagged,
}

/// Indices with gaps in a three-bit tag.
#[derive(Rabbit, Debug, PartialEq, Clone)]
#[bits(3)]
enum Sparse {
    A,
    #[rabbit(index = 2)]
    B(u8),
    #[rabbit(index = 5)]
    C,
}

/// A varint tag.
#[derive(Rabbit, Debug, PartialEq, Clone)]
#[rabbit(tag = "varint")]
enum Tagged {
    X,
    #[rabbit(index = 9)]
    Y(bool),
}

#[derive(Rabbit, Debug, PartialEq, Clone)]
struct Item {
    id: u32,
    kind: Kind,
}

/// A field with its own decoder: no `MAX_BITS`, so lists never take the window for it, but
/// its `decode_window` must still read what `decode` reads.
#[derive(Rabbit, Debug, PartialEq, Clone)]
struct Custom {
    #[rabbit(with = "nibble")]
    custom: u8,
    #[bits(3)]
    small: u8,
    after: u16,
}

/// Too large for a window: lists of it take the checked path only.
#[derive(Rabbit, Debug, PartialEq, Clone)]
struct Big {
    a: Person,
    b: Person,
}

#[test]
fn the_item_types_fit_a_window_and_big_does_not() {
    let fits = |max: Option<u64>| max.is_some_and(|m| m <= hopnet_codec::limits::WINDOW_MAX_BITS);
    assert!(fits(Item::MAX_BITS), "{:?}", Item::MAX_BITS);
    assert!(fits(Sparse::MAX_BITS));
    assert!(!fits(Big::MAX_BITS));
}

/// A window holds only what a type that fits it can take: reads past its 64th byte would wrap
/// around. So there is none for a type that does not fit, however long the input; before this
/// rule, `Big::decode_window` on this input read its last tag from the window's start and
/// returned a value where `Big::decode` finds an unknown variant.
#[test]
fn no_window_for_a_type_that_does_not_fit() {
    let bytes = [
        0, 56, 0, 0, 0, 0, 0, 0, 129, 0, 0, 0, 0, 0, 0, 0, 0, 128, 217, 0, 1, 0, 0, 61, 16, 0, 0,
        80, 0, 97, 0, 1, 9, 124, 0, 0, 0, 0, 0, 0, 65, 0, 0, 0, 0, 0, 0, 0, 0, 64, 92, 44, 0, 0, 0,
        0, 0, 0, 1, 128, 0, 40, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0,
    ];
    let mut r = BitReader::new(&bytes);
    r.read_bits(10).unwrap();
    assert!(r.window::<Big>().is_none());
    assert!(r.window::<Person>().is_some());
    let err = Big::decode(&mut r).unwrap_err();
    assert!(format!("{err:?}").contains("UnknownVariant"), "{err:?}");
}

/// `T::decode` and `T::decode_window` from bit `offset` of `bytes`, with the final cursor;
/// `None` if the input has no whole window there.
#[allow(clippy::type_complexity)]
fn both<T: Decode + Encode>(
    bytes: &[u8],
    offset: u32,
) -> Option<((Result<T>, u64), (Result<T>, u64))> {
    let mut r = BitReader::new(bytes);
    r.read_bits(offset).ok()?;
    let mut w = r.window::<T>()?;
    let through_window = T::decode_window(&mut w);
    let mut after = r.clone();
    after.resume(&w);
    let checked = T::decode(&mut r);
    Some(((checked, r.position()), (through_window, after.position())))
}

/// A list decoded one item at a time through `T::decode` only: what `Vec<T>` must match.
fn reference<T: Decode + Encode>(bytes: &[u8]) -> Result<Vec<T>> {
    let mut r = BitReader::new(bytes);
    let count = r.read_varint(4)?;
    r.check_count(count, T::MIN_BITS)?;
    let mut items = Vec::new();
    for _ in 0..count {
        items.push(T::decode(&mut r)?);
    }
    r.finish()?;
    Ok(items)
}

fn sparse() -> impl Strategy<Value = Sparse> {
    prop_oneof![
        Just(Sparse::A),
        any::<u8>().prop_map(Sparse::B),
        Just(Sparse::C)
    ]
}

fn thing() -> impl Strategy<Value = Thing> {
    (
        (any::<f32>(), any::<f32>(), any::<bool>()),
        (any::<Option<f32>>(), any::<u32>(), any::<u16>(), sparse()),
    )
        .prop_map(|((x, y, flag), (durability, health, max, sparse))| Thing {
            x,
            y,
            flag,
            durability,
            health,
            max,
            sparse,
        })
}

fn person() -> impl Strategy<Value = Person> {
    (
        (
            any::<u64>(),
            any::<i32>(),
            any::<f64>(),
            any::<Option<u32>>(),
        ),
        (any::<u64>(), -100i32..=1000, any::<Option<u16>>()),
        (any::<char>(), any::<(u8, i8)>(), any::<[u16; 2]>()),
        prop_oneof![Just(Tagged::X), any::<bool>().prop_map(Tagged::Y)],
    )
        .prop_map(
            |((id, delta, wide, held), (raw, level, extra), (letter, pair, arr), tagged)| Person {
                id,
                delta,
                wide,
                held,
                raw,
                level,
                present: extra.is_some(),
                extra,
                letter,
                pair,
                arr,
                tagged,
            },
        )
}

fn item() -> impl Strategy<Value = Item> {
    let kind = prop_oneof![
        thing().prop_map(Kind::Thing),
        person().prop_map(Kind::Person),
        Just(Kind::Gone),
    ];
    (any::<u32>(), kind).prop_map(|(id, kind)| Item { id, kind })
}

/// The same result, compared by `Debug` so that NaN floats compare equal to themselves.
fn same<T: std::fmt::Debug>(a: &T, b: &T) -> bool {
    format!("{a:?}") == format!("{b:?}")
}

fn check_list<T: Decode + Encode + std::fmt::Debug>(
    bytes: &[u8],
) -> std::result::Result<(), TestCaseError> {
    let got = hopnet_codec::from_bytes::<Vec<T>>(bytes);
    let want = reference::<T>(bytes);
    prop_assert!(same(&got, &want), "{:?} != {:?}", got, want);
    Ok(())
}

fn check_list_and_damage<T: Decode + Encode + std::fmt::Debug>(
    items: &[T],
) -> std::result::Result<(), TestCaseError> {
    let bytes = hopnet_codec::to_bytes(items).unwrap();
    check_list::<T>(&bytes)?;
    prop_assert!(hopnet_codec::from_bytes::<Vec<T>>(&bytes).is_ok());
    for len in 0..bytes.len() {
        check_list::<T>(&bytes[..len])?;
    }
    let mut damaged = bytes.clone();
    for bit in 0..bytes.len() * 8 {
        damaged[bit / 8] ^= 1 << (bit % 8);
        check_list::<T>(&damaged)?;
        damaged[bit / 8] ^= 1 << (bit % 8);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Random bytes at every bit offset: the window and the reader agree on the value or the
    /// error and on where they stop.
    #[test]
    fn window_reads_what_the_reader_reads(bytes in prop::collection::vec(any::<u8>(), 72..160), offset in 0u32..16) {
        if let Some((checked, windowed)) = both::<Item>(&bytes, offset) {
            prop_assert!(same(&checked, &windowed), "{:?} != {:?}", checked, windowed);
        }
        if let Some((checked, windowed)) = both::<Kind>(&bytes, offset) {
            prop_assert!(same(&checked, &windowed), "{:?} != {:?}", checked, windowed);
        }
        if let Some((checked, windowed)) = both::<Custom>(&bytes, offset) {
            prop_assert!(same(&checked, &windowed), "{:?} != {:?}", checked, windowed);
        }
    }

    /// Lists of valid items, whole, cut at every byte and with every single bit flipped: the
    /// same result as decoding item by item through the checked reader.
    #[test]
    fn lists_decode_as_item_by_item(items in prop::collection::vec(item(), 0..10)) {
        check_list_and_damage(&items)?;
    }

    #[test]
    fn lists_of_big_items_decode_as_item_by_item(
        items in prop::collection::vec((person(), person()), 0..3),
    ) {
        let items: Vec<Big> = items.into_iter().map(|(a, b)| Big { a, b }).collect();
        check_list_and_damage(&items)?;
    }

    /// Random bytes as a list.
    #[test]
    fn random_lists_decode_as_item_by_item(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        check_list::<Item>(&bytes)?;
        check_list::<Sparse>(&bytes)?;
        check_list::<Big>(&bytes)?;
    }
}

/// A hand-written impl that breaks the `MAX_BITS` contract: it claims one byte and writes
/// `LIAR_BYTES`, and reads them back through the window. A list of them must still decode
/// exactly (the window's wrapped reads are detected and the item is read again, checked).
#[derive(Debug, PartialEq)]
struct Liar([u8; LIAR_BYTES]);

const LIAR_BYTES: usize = 100;

impl Encode for Liar {
    const MIN_BITS: u64 = 8;
    const MAX_BITS: Option<u64> = Some(8);
    fn encode(&self, w: &mut hopnet_codec::BitWriter<'_>) -> Result<()> {
        for b in self.0 {
            w.write_bits(b.into(), 8);
        }
        Ok(())
    }
    fn encoded_bits(&self) -> u64 {
        8 * LIAR_BYTES as u64
    }
}

impl Decode for Liar {
    fn decode(r: &mut BitReader<'_>) -> Result<Self> {
        let mut out = [0; LIAR_BYTES];
        for b in &mut out {
            *b = r.read_bits(8)? as u8;
        }
        Ok(Liar(out))
    }
    fn decode_window(w: &mut hopnet_codec::BitWindow<'_>) -> Result<Self> {
        let mut out = [0; LIAR_BYTES];
        for b in &mut out {
            *b = w.read_bits(8)? as u8;
        }
        Ok(Liar(out))
    }
}

#[test]
fn an_impl_longer_than_its_max_bits_still_decodes_exactly() {
    let items: Vec<Liar> = (0..5u8)
        .map(|i| {
            Liar(std::array::from_fn(|j| {
                i.wrapping_mul(31).wrapping_add(j as u8)
            }))
        })
        .collect();
    let bytes = hopnet_codec::to_bytes(&items).unwrap();
    assert_eq!(
        hopnet_codec::from_bytes::<Vec<Liar>>(&bytes).unwrap(),
        items
    );
}
