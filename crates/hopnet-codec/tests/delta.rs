//! Property tests of delta encoding: any value against any baseline (empty, unrelated, or the
//! value's own predecessor) decodes against that baseline to exactly the value, bit for bit;
//! every truncation of a delta is an error.
#![cfg(feature = "derive")]

#[path = "common/mod.rs"]
mod common;
#[path = "delta/types.rs"]
mod types;

use std::fmt::Debug;

use hopnet_codec::{DeltaDecode, DeltaEncode, delta};
use proptest::prelude::*;
use types::*;

fn fail(e: hopnet_codec::Error) -> TestCaseError {
    TestCaseError::fail(e.to_string())
}

/// Encodes `value` against `base`, decodes it against `base`, and checks that the result
/// encodes to exactly the bits `value` does (floats by their bits) and that every truncation
/// of the delta fails. Returns what was decoded.
fn round_trip<T: DeltaEncode + DeltaDecode + Debug>(
    value: &T,
    base: &T,
) -> Result<T, TestCaseError> {
    let bytes = delta::to_bytes(value, base).map_err(fail)?;
    let back = delta::from_bytes(base, &bytes).map_err(fail)?;
    prop_assert_eq!(
        hopnet_codec::to_bytes(&back).map_err(fail)?,
        hopnet_codec::to_bytes(value).map_err(fail)?,
        "decoded {:?} from the delta of {:?} against {:?}",
        back,
        value,
        base
    );
    for len in 0..bytes.len() {
        prop_assert!(delta::from_bytes(base, &bytes[..len]).is_err());
    }
    Ok(back)
}

/// A value against itself: one `0` bit, and the baseline back.
fn against_itself<T: DeltaEncode + DeltaDecode + Debug>(value: &T) -> Result<(), TestCaseError> {
    prop_assert!(value.unchanged(value));
    prop_assert_eq!(delta::to_bytes(value, value).map_err(fail)?, [0]);
    round_trip(value, value)?;
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn everything_against_any_baseline(value in everything(), base in everything()) {
        let back = round_trip(&value, &base)?;
        // Not on the wire: a skipped field is the baseline's.
        prop_assert_eq!(back.cache, base.cache);
    }

    #[test]
    fn everything_against_itself(value in everything()) {
        against_itself(&value)?;
    }

    #[test]
    fn worlds_against_unrelated_baselines(value in world(), base in world()) {
        round_trip(&value, &base)?;
    }

    #[test]
    fn worlds_against_their_predecessor(
        base in world(),
        edits in prop::collection::vec(edit(), 0..10),
    ) {
        let value = edited(&base, &edits);
        let back = round_trip(&value, &base)?;
        prop_assert_eq!(back.entities.len(), value.entities.len());
        against_itself(&value)?;
    }

    #[test]
    fn worlds_from_and_to_nothing(world in world()) {
        let empty = World { tick: 0, entities: Vec::new() };
        round_trip(&world, &empty)?;
        round_trip(&empty, &world)?;
    }

    #[test]
    fn enums_in_both_layouts(a in shape(), b in shape(), c in toggle(), d in toggle()) {
        round_trip(&a, &b)?;
        round_trip(&c, &d)?;
        against_itself(&a)?;
    }

    #[test]
    fn generics_and_single_fields(
        a in any::<(u8, Vec<u8>)>(),
        b in any::<(u8, Vec<u8>)>(),
        p in point(),
        q in prop::collection::vec(point(), 0..4),
        g in grid(),
        h in grid(),
    ) {
        let (x, y) = (Generic { one: a.0, many: a.1 }, Generic { one: b.0, many: b.1 });
        round_trip(&x, &y)?;
        let (x, y) = (Generic { one: p.clone(), many: q.clone() }, Generic { one: p, many: Vec::new() });
        round_trip(&x, &y)?;
        let (g, h) = (Single(snapped(&g)?), Single(snapped(&h)?));
        round_trip(&g, &h)?;
    }

    /// A quantized value decodes to its grid point, against any baseline on the grid; and a
    /// grid point is its own grid point.
    #[test]
    fn quantized_floats_decode_to_their_grid_point(value in grid(), base in grid()) {
        let (grid_value, base) = (snapped(&value)?, snapped(&base)?);
        prop_assert_eq!(snapped(&grid_value)?, grid_value.clone());
        let back = round_trip(&value, &base)?;
        prop_assert_eq!(back, grid_value);
    }
}

/// The value a full encoding gives back: its floats on their grid.
fn snapped(value: &Grid) -> Result<Grid, TestCaseError> {
    hopnet_codec::from_bytes(&hopnet_codec::to_bytes(value).map_err(fail)?).map_err(fail)
}

#[test]
fn a_moved_entity_costs_its_changed_fields_and_the_rest_a_bit_each() {
    let circle = |x| Shape::Circle {
        radius: 3,
        centre: Point { x, y: 2.0, z: 0.0 },
    };
    let base = World {
        tick: 1,
        entities: (1..=8)
            .map(|id| Entity {
                id,
                shape: circle(1.0),
            })
            .collect(),
    };
    let mut value = base.clone();
    value.tick = 2;
    value.entities[3].shape = circle(5.0);
    let bytes = delta::to_bytes(&value, &base).unwrap();
    assert_eq!(delta::from_bytes(&base, &bytes).unwrap(), value);
    // World's bit, tick (1 + 10), the list's bit, no removal or addition (1), seven
    // unchanged entities (1 each), the moved one: its bit, id (1), shape (bit, same variant,
    // radius 1, centre: bit, x (its bit, 5 bits saying 1.0 and 5.0 share one leading bit,
    // the 30 below the first that differs), y 1, z 1).
    let bits = 1 + 11 + 1 + 1 + 7 + (1 + 1 + (1 + 1 + 1 + (1 + 36 + 1 + 1)));
    assert_eq!(bytes.len(), (bits as usize).div_ceil(8));
}
