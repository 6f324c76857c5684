//! Arbitrary bytes decoded as a snapshot delta (`hopnet_snow_fight::delta::decode`) against a few
//! fixed baselines (empty, 30 and 200 entities of the sample world):
//!
//! - never panics;
//! - never allocates more than twice the baseline (the kept entities are copies of it, and the
//!   vector may double) plus what the input can justify (a new entity takes at least a gap of 10
//!   bits and 12 bits of entity, and its vector may double while it grows and briefly hold the
//!   old and the new block: `2 * size_of::<Entity>()` per input byte, as for a full snapshot);
//! - whatever decodes re-encodes against the same baseline to a delta that decodes to the same
//!   snapshot (a delta is not canonical: an encoder pairs items by key, a forged delta need not).

#![no_main]

use std::mem::size_of;
use std::sync::LazyLock;

use alloc_counter::{Counting, peak_allocation};
use hopnet_snow_fight::delta::{self, DeltaHeader};
use hopnet_snow_fight::sample::{DEFAULT_SEED, sample_snapshot};
use hopnet_snow_fight::{Entity, Snapshot};
use libfuzzer_sys::fuzz_target;

#[global_allocator]
static ALLOC: Counting = Counting;

/// Room for the boxed error wrappers of a failed decode.
const SLACK: usize = 1024;

/// The baselines, with what a copy of each costs.
static BASES: LazyLock<Vec<(Snapshot, usize)>> = LazyLock::new(|| {
    [0, 30, 200]
        .into_iter()
        .map(|n| {
            let s = sample_snapshot(n, DEFAULT_SEED);
            let (_, cost) = peak_allocation(|| s.clone());
            (s, cost)
        })
        .collect()
});

fuzz_target!(|data: &[u8]| {
    for (base, cost) in BASES.iter() {
        let (decoded, peak) = peak_allocation(|| delta::decode(data, base));
        let bound = 2 * cost + 2 * size_of::<Entity>() * data.len() + SLACK;
        assert!(peak <= bound, "{peak} bytes allocated, bound {bound}");
        if let Ok((header, snapshot)) = decoded {
            assert_eq!(DeltaHeader::of(data), Some(header));
            let mut again = Vec::new();
            header
                .encode(&snapshot, base, &mut again)
                .expect("re-encodes");
            let (header_again, snapshot_again) = delta::decode(&again, base).expect("decodes");
            // Floats by their bits: a forged delta may hold NaNs.
            assert_eq!(header_again, header);
            assert_eq!(
                hopnet_codec::to_bytes(&snapshot_again),
                hopnet_codec::to_bytes(&snapshot)
            );
        }
    }
});
