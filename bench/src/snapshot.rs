//! The suite's snapshot: what every codec encodes, and what the delta cases change.

use hopnet_snow_fight::Snapshot;
use hopnet_snow_fight::sample::{DEFAULT_SEED, sample_snapshot};

/// Entities in the benchmark snapshot.
pub const ENTITIES: usize = 1000;

/// The snapshot every peer encodes.
pub fn snapshot() -> Snapshot {
    sample_snapshot(ENTITIES, DEFAULT_SEED)
}
