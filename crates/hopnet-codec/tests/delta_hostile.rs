//! Deltas from a hostile peer, or against the wrong baseline: every one is an error or a
//! value, never a panic, and decoding one allocates no more than the baseline (which the
//! receiver holds anyway) and the input could justify.
#![cfg(feature = "derive")]

#[allow(dead_code)]
#[path = "common/mod.rs"]
mod common;
#[path = "delta/types.rs"]
mod types;

use alloc_counter::{Counting, peak_allocation};
use hopnet_codec::delta::{self, keyed};
use hopnet_codec::{BitReader, BitWriter, Error};
use proptest::prelude::*;
use types::*;

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Room for a failed decode's error: a few boxed `InField` wrappers.
const ERROR_SLACK: usize = 1024;

/// A keyed list's changes written by hand: the edits bit, the gone positions' gaps, the new
/// positions' gaps, then `rest` as `(value, bits)` fields.
fn forged(gone: &[u64], fresh: &[u64], rest: &[(u64, u32)]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut w = BitWriter::new(&mut out);
    w.write_bool(true);
    for list in [gone, fresh] {
        w.write_varint(list.len() as u64, 4);
        for &gap in list {
            w.write_varint(gap, 4);
        }
    }
    for &(v, n) in rest {
        w.write_bits(v, n);
    }
    w.finish();
    out
}

fn decode(base: &[(u32, u8)], bytes: &[u8]) -> hopnet_codec::Result<Vec<(u32, u8)>> {
    let (result, peak) =
        peak_allocation(|| keyed::decode_changes(base, &mut BitReader::new(bytes)));
    if result.is_err() {
        assert!(
            peak <= ERROR_SLACK + 64,
            "{peak} bytes allocated for an error"
        );
    }
    result
}

fn bad(result: hopnet_codec::Result<Vec<(u32, u8)>>) -> &'static str {
    match result {
        Err(Error::BadDelta { what, .. }) => what,
        other => panic!("expected BadDelta, got {other:?}"),
    }
}

const BASE: [(u32, u8); 3] = [(1, 0), (2, 0), (3, 0)];

#[test]
fn removing_an_item_the_baseline_does_not_have_is_an_error() {
    // Position 3 of three.
    let what = bad(decode(&BASE, &forged(&[3], &[], &[])));
    assert!(what.contains("does not have"), "{what}");
    // Positions 1, then 1 + 1 + 1 = 3.
    bad(decode(&BASE, &forged(&[1, 1], &[], &[])));
    // More than the baseline has, before any position is read.
    let bytes = forged(&[0, 0, 0, 0], &[], &[]);
    let what = bad(decode(&BASE, &bytes));
    assert!(what.contains("more items"), "{what}");
    // A gap that would overflow a position.
    bad(decode(&BASE, &forged(&[u32::MAX as u64], &[], &[])));
}

#[test]
fn placing_a_new_item_past_the_end_is_an_error() {
    // Three kept, one new: positions 0 to 3; 4 is past the end.
    let what = bad(decode(&BASE, &forged(&[], &[4], &[(0, 64)])));
    assert!(what.contains("past the end"), "{what}");
}

#[test]
fn a_count_of_new_items_past_the_input_fails_before_allocating() {
    let mut bytes = Vec::new();
    let mut w = BitWriter::new(&mut bytes);
    w.write_bool(true);
    w.write_varint(0, 4);
    w.write_varint(u32::MAX as u64, 4);
    w.finish();
    let result = decode(&BASE, &bytes);
    assert!(
        matches!(result, Err(Error::CountTooLarge { .. })),
        "{result:?}"
    );
}

#[test]
fn a_delta_against_another_baseline_is_an_error_or_another_value() {
    let base: Vec<(u32, u8)> = (0..10).map(|i| (i, 0)).collect();
    let value: Vec<(u32, u8)> = (0..10).filter(|i| i % 3 != 0).map(|i| (i, 1)).collect();
    let mut bytes = Vec::new();
    let mut w = BitWriter::new(&mut bytes);
    keyed::encode_changes(&value, &base, |item| &item.0, &mut w).unwrap();
    w.finish();
    assert_eq!(decode(&base, &bytes).unwrap(), value);
    // A shorter baseline lacks the removed positions.
    bad(decode(&base[..5], &bytes));
}

#[test]
fn the_same_bits_against_another_baseline_can_be_another_value() {
    // Against `None`, "changed" can only mean `Some`: the bit after it is the value's.
    let bytes = delta::to_bytes(&Some(7u8), &None).unwrap();
    assert_eq!(delta::from_bytes(&None, &bytes).unwrap(), Some(7u8));
    // The same bits against `Some(_)` read "changed, still `Some`", then a `u8` of the
    // value's bits and the padding: another value, without an error. Nothing in a delta
    // names its baseline; the protocol around it must (the game names its tick).
    assert_eq!(delta::from_bytes(&Some(1u8), &bytes).unwrap(), Some(3u8));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    /// Random bytes against a random world: a value or an error, and no more memory than
    /// twice the baseline's plus a bounded amount per input byte.
    #[test]
    fn random_deltas_never_panic_nor_overallocate(
        base in world(),
        bytes in prop::collection::vec(any::<u8>(), 0..64),
    ) {
        let (_, base_cost) = peak_allocation(|| base.clone());
        let (result, peak) = peak_allocation(|| delta::from_bytes(&base, &bytes));
        // A new entity takes at least 11 bits of input and 40 bytes of memory (its vector
        // may double while it grows).
        let bound = 2 * base_cost + 2 * size_of::<Entity>() * bytes.len() + ERROR_SLACK;
        prop_assert!(peak <= bound, "{} bytes allocated, bound {}", peak, bound);
        drop(result);
    }

    /// A delta decoded against another baseline than its own never panics either.
    #[test]
    fn deltas_against_the_wrong_baseline_never_panic(
        value in world(),
        base in world(),
        wrong in world(),
    ) {
        let bytes = delta::to_bytes(&value, &base).unwrap();
        let _ = delta::from_bytes(&wrong, &bytes);
    }

    #[test]
    fn random_everything_deltas_never_panic(
        base in everything(),
        bytes in prop::collection::vec(any::<u8>(), 0..48),
    ) {
        let _ = delta::from_bytes(&base, &bytes);
    }
}
