//! A deterministic sample world: the yardstick for benchmarks and the data for examples.
//!
//! [`sample_snapshot`] builds the same entities for the same seed on every machine, with a small
//! inline generator (SplitMix64), so the crate needs no `rand`:
//!
//! - 60 % of the entities are objects, 30 % of those breakable (with a durability);
//! - 40 % are players, some holding or breaking something;
//! - every coordinate has two decimals and lies in `0..256`.
//!
//! ```
//! use hopnet_snow_fight::sample::{sample_event, sample_snapshot, DEFAULT_SEED};
//!
//! let snapshot = sample_snapshot(1000, DEFAULT_SEED);
//! assert_eq!(snapshot.len(), 1000);
//! assert_eq!(snapshot, sample_snapshot(1000, DEFAULT_SEED));
//! let message = sample_event(1000, DEFAULT_SEED);
//! let bytes = hopnet_codec::to_bytes(&message)?;
//! assert_eq!(hopnet_codec::from_bytes::<hopnet_snow_fight::ServerMessage>(&bytes)?, message);
//! # Ok::<(), hopnet_codec::Error>(())
//! ```

use crate::ids::{EntityId, PlayerId};
use crate::server::ServerMessage;
use crate::world::{Direction, Entity, EntityKind, Object, ObjectKind, Player, Point, Snapshot};

/// The seed the benchmarks use.
pub const DEFAULT_SEED: u64 = 0x5eed_0f0b_1ec7;

/// SplitMix64: a tiny, fast generator with good enough statistics for test data.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator starting from `seed`.
    pub const fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`), by multiply-shift.
    pub fn below(&mut self, n: u32) -> u32 {
        (((self.next_u64() >> 32) * u64::from(n)) >> 32) as u32
    }

    /// True with probability `percent` / 100.
    pub fn chance(&mut self, percent: u32) -> bool {
        self.below(100) < percent
    }
}

/// A coordinate with two decimals in `0..256`.
fn coordinate(rng: &mut SplitMix64) -> f32 {
    rng.below(25_600) as f32 / 100.0
}

fn point(rng: &mut SplitMix64) -> Point {
    Point::new(coordinate(rng), coordinate(rng), coordinate(rng))
}

/// A snapshot of `entities` entities, the same for the same `seed`.
///
/// Exactly `entities * 6 / 10` (rounded) are objects, and 30 % of those (rounded) are breakable;
/// the rest are players. Their order is shuffled. Entity ids are `1..=entities`.
pub fn sample_snapshot(entities: usize, seed: u64) -> Snapshot {
    let mut rng = SplitMix64::new(seed);
    let objects = (entities * 6).div_ceil(10);
    let breakable = (objects * 3).div_ceil(10);
    // 0 = breakable object, 1 = other object, 2 = player; then a Fisher-Yates shuffle.
    let mut kinds: Vec<u8> = (0..entities)
        .map(|i| match i {
            i if i < breakable => 0,
            i if i < objects => 1,
            _ => 2,
        })
        .collect();
    for i in (1..kinds.len()).rev() {
        let j = rng.below(i as u32 + 1) as usize;
        kinds.swap(i, j);
    }
    let players = (entities - objects).max(1) as u32;
    kinds
        .iter()
        .enumerate()
        .map(|(i, &kind)| {
            let id = EntityId(i as u32 + 1);
            let kind = if kind < 2 {
                let max_health = 50 + rng.below(451);
                EntityKind::Object(Object {
                    position: point(&mut rng),
                    kind: if rng.chance(50) {
                        ObjectKind::Tree
                    } else {
                        ObjectKind::Mushroom
                    },
                    durability: (kind == 0).then(|| rng.below(10_001) as f32 / 100.0),
                    health: rng.below(max_health + 1),
                    max_health,
                })
            } else {
                let n = entities as u32;
                let holding = rng.chance(20).then(|| EntityId(1 + rng.below(n)));
                let breaking = rng.chance(10).then(|| EntityId(1 + rng.below(n)));
                EntityKind::Player(Player {
                    position: point(&mut rng),
                    movement: Direction::from_bits_retain(rng.below(16) as u8),
                    holding,
                    breaking,
                    owner: PlayerId(rng.below(players)),
                    health: rng.below(101),
                    max_health: 100,
                })
            };
            Entity { id, kind }
        })
        .collect()
}

/// The benchmark message: `ServerMessage::Event` at tick 1000 with [`sample_snapshot`].
pub fn sample_event(entities: usize, seed: u64) -> ServerMessage {
    ServerMessage::snapshot(1000, sample_snapshot(entities, seed))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE_BYTES: usize = 19_460;

    #[test]
    fn proportions() {
        let snapshot = sample_snapshot(1000, DEFAULT_SEED);
        let objects: Vec<&Object> = snapshot
            .iter()
            .filter_map(|e| match &e.kind {
                EntityKind::Object(o) => Some(o),
                _ => None,
            })
            .collect();
        assert_eq!(objects.len(), 600);
        assert_eq!(
            objects.iter().filter(|o| o.durability.is_some()).count(),
            180
        );
        for entity in &snapshot {
            let p = match &entity.kind {
                EntityKind::Object(o) => o.position,
                EntityKind::Player(p) => p.position,
                EntityKind::Dead => unreachable!(),
            };
            for c in [p.x, p.y, p.z] {
                assert!((0.0..256.0).contains(&c));
                let hundredths = (c * 100.0).round();
                assert_eq!(hundredths / 100.0, c);
            }
        }
        assert_ne!(snapshot, sample_snapshot(1000, DEFAULT_SEED + 1));
    }

    /// The yardstick is fixed: the same bytes on every machine.
    #[test]
    fn encoded_size() {
        let message = sample_event(1000, DEFAULT_SEED);
        let bytes = hopnet_codec::to_bytes(&message).unwrap();
        println!("{} bytes", bytes.len());
        assert_eq!(bytes.len(), hopnet_codec::encoded_len(&message));
        assert_eq!(bytes.len(), SAMPLE_BYTES);
        assert_eq!(
            hopnet_codec::from_bytes::<ServerMessage>(&bytes).unwrap(),
            message
        );
    }
}
