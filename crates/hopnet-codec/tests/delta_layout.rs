//! The bits a delta holds, exactly as `hopnet_codec::delta` lays them out: the changed bits of
//! structs, fields and enums, `Option`, lists, keyed lists, and both layouts.
#![cfg(feature = "derive")]

#[allow(dead_code)]
#[path = "common/mod.rs"]
mod common;
#[path = "delta/types.rs"]
mod types;

use hopnet_codec::delta::{self, keyed};
use hopnet_codec::{BitReader, BitWriter, DeltaEncode};
use types::*;

/// The bytes `write` writes.
fn written(write: impl FnOnce(&mut BitWriter<'_>) -> hopnet_codec::Result<()>) -> Vec<u8> {
    let mut bytes = Vec::new();
    let mut w = BitWriter::new(&mut bytes);
    write(&mut w).unwrap();
    w.finish();
    bytes
}

/// The bytes of these `(value, bits)` fields, written in order.
fn bits(fields: &[(u64, u32)]) -> Vec<u8> {
    written(|w| {
        for &(v, n) in fields {
            w.write_bits(v, n);
        }
        Ok(())
    })
}

/// The delta of `value` against `base` is `expected`, and decodes back to `value`.
fn assert_delta<T>(value: &T, base: &T, expected: &[(u64, u32)])
where
    T: hopnet_codec::DeltaEncode + hopnet_codec::DeltaDecode + PartialEq + std::fmt::Debug,
{
    let bytes = delta::to_bytes(value, base).unwrap();
    assert_eq!(bytes, bits(expected), "{value:?} against {base:?}");
    assert_eq!(&delta::from_bytes(base, &bytes).unwrap(), value);
}

const ONE: f32 = 1.0;

fn point(x: f32, y: f32, z: f32) -> Point {
    Point { x, y, z }
}

/// The bits of `a` and `b` that differ, checked to have `leading` zeros of 32 before them.
fn bits_difference(a: f32, b: f32, leading: u32) -> u64 {
    let xor = u64::from(a.to_bits() ^ b.to_bits());
    assert_eq!(xor.leading_zeros(), 32 + leading);
    xor
}

#[test]
fn a_struct_has_one_bit_then_its_fields() {
    let base = point(ONE, ONE, ONE);
    assert_delta(&base, &base, &[(0, 1)]);
    let moved = Point {
        y: 2.5,
        ..base.clone()
    };
    // y as its bits' difference from 1.0's: one leading zero, then the 30 bits below the
    // highest set bit.
    let xor = bits_difference(2.5, ONE, 1);
    assert_delta(
        &moved,
        &base,
        &[(1, 1), (0, 1), (1, 1), (1, 5), (xor, 30), (0, 1)],
    );
}

#[test]
fn a_float_that_moved_a_little_is_its_low_bits() {
    let base = point(100.0, ONE, ONE);
    let moved = Point {
        x: 100.25,
        ..base.clone()
    };
    // 100 and 100.25 share their sign, exponent and high mantissa bits: 16 leading zeros of
    // 32, then the 15 bits below the highest set one.
    let xor = bits_difference(100.25, 100.0, 16);
    assert_delta(
        &moved,
        &base,
        &[(1, 1), (1, 1), (16, 5), (xor, 15), (0, 1), (0, 1)],
    );
}

#[test]
fn a_float_changes_by_its_bits() {
    let base = point(0.0, f32::NAN, ONE);
    let signed = Point {
        x: -0.0,
        ..base.clone()
    };
    assert!(!signed.unchanged(&base));
    let z = (-0.0f32).to_bits() as u64;
    let bytes = delta::to_bytes(&signed, &base).unwrap();
    // Only the sign bit differs: no leading zero, then the 31 zero bits below it.
    assert_eq!(
        bytes,
        bits(&[(1, 1), (1, 1), (0, 5), (0, 31), (0, 1), (0, 1)])
    );
    let back = delta::from_bytes(&base, &bytes).unwrap();
    assert_eq!(u64::from(back.x.to_bits()), z);
    assert_eq!(back.y.to_bits(), f32::NAN.to_bits());
    // The same NaN is unchanged, whatever `==` says.
    assert!(base.unchanged(&base.clone()));
}

#[test]
fn per_field_has_no_bit_of_its_own() {
    let base = Flat { a: 7, b: None };
    assert_delta(&base, &base, &[(0, 1), (0, 1)]);
    // `a` unchanged; `b` from `None`: its bit, then the `i32` whole (zig-zag 10 is 20: 10 bits).
    let changed = Flat { a: 7, b: Some(10) };
    assert_delta(&changed, &base, &[(0, 1), (1, 1), (0, 2), (20, 8)]);
}

#[test]
fn options_say_what_they_became() {
    // From `Some`, to `None`: `1 0`.
    assert_delta(&None::<u16>, &Some(5u16), &[(1, 1), (0, 1)]);
    // From `Some` to another `Some`: `1 1`, then the `u16`'s changes (the value whole).
    assert_delta(&Some(6u16), &Some(5u16), &[(1, 1), (1, 1), (0, 1), (6, 8)]);
    // From `None`: only `Some` is a change, so the value follows at once.
    assert_delta(&Some(6u16), &None, &[(1, 1), (0, 1), (6, 8)]);
}

#[test]
fn lists_send_their_length_then_item_deltas_then_new_items() {
    // [1, 2] to [1, 3, 4]: changed, length 3, item 0 unchanged, item 1 changed to 3, item 2 new.
    assert_delta(
        &vec![1u8, 3, 4],
        &vec![1u8, 2],
        &[(1, 1), (0, 2), (3, 8), (0, 1), (1, 1), (3, 8), (4, 8)],
    );
    // Shorter: the length alone drops the tail.
    assert_delta(&vec![1u8], &vec![1u8, 2], &[(1, 1), (0, 2), (1, 8), (0, 1)]);
}

#[test]
fn an_enum_sends_a_new_variant_whole_and_the_same_one_as_changes() {
    let label = Shape::Label("a".into());
    // Changed, another variant, then the whole value: varint tag 10 (prefix 0, one byte), the
    // string's count 1 and its byte.
    assert_delta(
        &label,
        &Shape::Dot,
        &[
            (1, 1),
            (0, 1),
            (0, 2),
            (10, 8),
            (0, 2),
            (1, 8),
            (b'a' as u64, 8),
        ],
    );
    // Same variant: changed, same, then its one field's changes (its bit would say nothing
    // new).
    assert_delta(
        &Shape::Label("b".into()),
        &label,
        &[(1, 1), (1, 1), (0, 2), (1, 8), (b'b' as u64, 8)],
    );
    // Per-field layout: same variant, then the fields' bits, nothing else.
    let on = Toggle::On {
        level: 3,
        flat: Flat { a: 1, b: None },
    };
    assert_delta(&on, &on, &[(1, 1), (0, 1), (0, 1), (0, 1)]);
}

#[test]
fn a_single_field_speaks_for_its_struct() {
    let base = Single(Grid { x: 0.0, y: 0.5 });
    assert_delta(&base, &base, &[(0, 1)]);
}

#[test]
fn quantized_fields_are_their_grid_index() {
    // -100..=100 in steps of 0.25: 800 steps, 10 bits; 0..=1 in steps of 0.001: 1000, 10 bits.
    let base = Grid { x: 0.0, y: 0.0 };
    assert_eq!(hopnet_codec::to_bytes(&base).unwrap().len(), 3);
    // x moves by less than half a step: unchanged.
    let nudged = Grid { x: 0.1, y: 0.0 };
    assert!(nudged.unchanged(&base));
    // y moves to its grid point 0.5: index 500.
    let moved = Grid { x: 0.0, y: 0.5 };
    assert_delta(&moved, &base, &[(1, 1), (0, 1), (1, 1), (500, 10)]);
}

#[test]
fn keyed_lists_remove_add_and_change() {
    let e = |id: u32, radius: u8| Entity {
        id,
        shape: Shape::Circle {
            radius,
            centre: point(ONE, ONE, ONE),
        },
    };
    let base = World {
        tick: 0,
        entities: vec![e(1, 1), e(2, 1), e(3, 1), e(5, 1)],
    };
    // 2 and 5 go, 4 comes between 3 and 6, 3 changes, 1 stays.
    let value = World {
        tick: 0,
        entities: vec![e(1, 1), e(3, 2), e(4, 1), e(6, 1)],
    };
    let bytes = delta::to_bytes(&value, &base).unwrap();
    assert_eq!(delta::from_bytes(&base, &bytes).unwrap(), value);
    let mut r = BitReader::new(&bytes);
    assert!(r.read_bool().unwrap(), "the world changed");
    assert!(!r.read_bool().unwrap(), "not its tick");
    assert!(r.read_bool().unwrap(), "its list changed");
    assert!(r.read_bool().unwrap(), "items came and went");
    // Gone: 2 of them, at 1 and then 3 (a gap of 1 after position 2).
    assert_eq!(r.read_varint(4).unwrap(), 2);
    assert_eq!(r.read_varint(4).unwrap(), 1);
    assert_eq!(r.read_varint(4).unwrap(), 1);
    // New: 2 of them, at 2 and 3 (a gap of 0).
    assert_eq!(r.read_varint(4).unwrap(), 2);
    assert_eq!(r.read_varint(4).unwrap(), 2);
    assert_eq!(r.read_varint(4).unwrap(), 0);
    // Entity 1 unchanged, entity 3 changed (its delta), then 4 and 6 whole.
    assert!(!r.read_bool().unwrap());
    assert!(r.read_bool().unwrap());
}

#[test]
fn keyed_lists_in_any_order_pair_equal_keys() {
    let base: Vec<(u32, u8)> = vec![(9, 0), (3, 0), (7, 0)];
    let value: Vec<(u32, u8)> = vec![(3, 0), (7, 1), (8, 0)];
    let bytes = written(|w| keyed::encode_changes(&value, &base, |item| &item.0, w));
    let mut r = BitReader::new(&bytes);
    assert!(r.read_bool().unwrap(), "items came and went");
    // 9 is gone (position 0); 3 and 7 are kept, 8 is new (position 2).
    assert_eq!(
        [0, 1, 2, 3].map(|_| r.read_varint(4).unwrap()),
        [1, 0, 1, 2]
    );
    let back = keyed::decode_changes(&base, &mut BitReader::new(&bytes)).unwrap();
    assert_eq!(back, value);
}

#[test]
fn a_keyed_list_where_nothing_came_or_went_says_so_in_a_bit() {
    let base: Vec<(u32, u8)> = vec![(1, 0), (2, 0), (3, 0)];
    let value: Vec<(u32, u8)> = vec![(1, 0), (2, 5), (3, 0)];
    let bytes = written(|w| keyed::encode_delta(&value, &base, |item| &item.0, w));
    // Changed, no edits, then the three items: unchanged, (changed: the tuple's bit, its
    // first item's, its second's and 8 bits), unchanged.
    assert_eq!(
        bytes,
        bits(&[
            (1, 1),
            (0, 1),
            (0, 1),
            (1, 1),
            (0, 1),
            (1, 1),
            (5, 8),
            (0, 1)
        ])
    );
    let back = keyed::decode_delta(&base, &mut BitReader::new(&bytes)).unwrap();
    assert_eq!(back, value);
}
