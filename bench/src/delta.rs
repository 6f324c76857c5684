//! The codec suite's `delta-10pct` case: the 1000-entity snapshot against its predecessor,
//! where 10 % of the entities moved and 1 % came or went, and the same world in two other
//! delta layouts (every struct `per_field`; positions quantized) for the sizes in
//! BENCHMARKS.md.

use hopnet_snow_fight::sample::{DEFAULT_SEED, SplitMix64, sample_snapshot};
use hopnet_snow_fight::{Direction, EntityId, EntityKind, ObjectKind, PlayerId, Snapshot};

use crate::snapshot::ENTITIES;

/// The seed of the changes between the two snapshots.
const SEED: u64 = 0xde17_a10f;

/// Entities that move (10 %), and that come and go (1 %: half of them each).
pub const MOVED: usize = ENTITIES / 10;
pub const CHURN: usize = ENTITIES / 100;

/// The predecessor: the codec suite's snapshot.
pub fn predecessor() -> Snapshot {
    sample_snapshot(ENTITIES, DEFAULT_SEED)
}

/// The snapshot after `prev`: `MOVED` living entities moved by up to half a unit on the
/// ground (x and y, two decimals), `CHURN / 2` removed and as many new ones added at the end
/// with the next ids, as a world's new entities are.
pub fn successor(prev: &Snapshot) -> Snapshot {
    let mut rng = SplitMix64::new(SEED);
    let mut next = prev.clone();
    let mut moved = 0;
    let n = next.len() as u32;
    while moved < MOVED {
        let e = &mut next.entities[rng.below(n) as usize];
        let position = match &mut e.kind {
            EntityKind::Object(o) => &mut o.position,
            EntityKind::Player(p) => &mut p.position,
            EntityKind::Dead => continue,
        };
        let mut step = || (rng.below(101) as f32 - 50.0) / 100.0;
        let (dx, dy) = (step(), step());
        if dx == 0.0 && dy == 0.0 {
            continue;
        }
        position.x += dx;
        position.y += dy;
        moved += 1;
    }
    for _ in 0..CHURN / 2 {
        let at = rng.below(next.len() as u32) as usize;
        next.entities.remove(at);
    }
    let first = prev.iter().map(|e| e.id.0).max().unwrap_or(0) + 1;
    let fresh = sample_snapshot(CHURN / 2, SEED);
    next.entities
        .extend(fresh.entities.into_iter().enumerate().map(|(i, mut e)| {
            e.id = EntityId(first + i as u32);
            e
        }));
    next
}

/// Declares the world's types again, every struct and enum with the delta layout `layout`
/// and each coordinate with the attributes `coord`, and `convert`, from the world's own; the
/// layouts the sizes compare differ in nothing else.
macro_rules! world_types {
    (layout: [$($layout:tt)*], coord: [$($coord:tt)*]) => {
        use super::*;
        use hopnet_codec::Rabbit;

        #[derive(Rabbit, Debug, Clone, PartialEq)]
        #[rabbit($($layout)*)]
        pub struct Snapshot {
            #[rabbit(key = "id")]
            pub entities: Vec<Entity>,
        }

        #[derive(Rabbit, Debug, Clone, PartialEq)]
        #[rabbit($($layout)*)]
        pub struct Entity {
            pub id: EntityId,
            pub kind: Kind,
        }

        #[derive(Rabbit, Debug, Clone, PartialEq)]
        #[rabbit($($layout)*)]
        #[bits(2)]
        pub enum Kind {
            Object(Object),
            Player(Player),
            Dead,
        }

        #[derive(Rabbit, Debug, Clone, PartialEq)]
        #[rabbit($($layout)*)]
        pub struct Object {
            pub position: Point,
            pub kind: ObjectKind,
            pub durability: Option<f32>,
            pub health: u32,
            pub max_health: u32,
        }

        #[derive(Rabbit, Debug, Clone, PartialEq)]
        #[rabbit($($layout)*)]
        pub struct Player {
            pub position: Point,
            pub movement: Direction,
            pub holding: Option<EntityId>,
            pub breaking: Option<EntityId>,
            pub owner: PlayerId,
            pub health: u32,
            pub max_health: u32,
        }

        #[derive(Rabbit, Debug, Clone, PartialEq)]
        #[rabbit($($layout)*)]
        pub struct Point {
            $($coord)*
            pub x: f32,
            $($coord)*
            pub y: f32,
            $($coord)*
            pub z: f32,
        }

        fn convert(s: &super::Snapshot) -> Snapshot {
            let point = |p: &hopnet_snow_fight::Point| Point {
                x: p.x,
                y: p.y,
                z: p.z,
            };
            let kind = |k: &EntityKind| match k {
                EntityKind::Object(o) => Kind::Object(Object {
                    position: point(&o.position),
                    kind: o.kind,
                    durability: o.durability,
                    health: o.health,
                    max_health: o.max_health,
                }),
                EntityKind::Player(p) => Kind::Player(Player {
                    position: point(&p.position),
                    movement: p.movement,
                    holding: p.holding,
                    breaking: p.breaking,
                    owner: p.owner,
                    health: p.health,
                    max_health: p.max_health,
                }),
                EntityKind::Dead => Kind::Dead,
            };
            Snapshot {
                entities: s
                    .iter()
                    .map(|e| Entity {
                        id: e.id,
                        kind: kind(&e.kind),
                    })
                    .collect(),
            }
        }
    };
}

/// The world's types with every struct and enum `delta = "per_field"`: no changed bit of
/// their own, each field's instead (the other layout of the question).
pub mod per_field {
    world_types!(layout: [delta = "per_field"], coord: []);

    impl From<&super::Snapshot> for Snapshot {
        fn from(s: &super::Snapshot) -> Self {
            convert(s)
        }
    }
}

/// The world's types (the default layout) with positions quantized to the centimetre over
/// `-512..=512`: 17 bits a coordinate where an `f32` takes 32.
pub mod quantized {
    world_types!(
        layout: [delta],
        coord: [#[rabbit(quantize(range = "-512.0..=512.0", precision = 0.01))]]
    );

    impl From<&super::Snapshot> for Snapshot {
        fn from(s: &super::Snapshot) -> Self {
            // What a receiver holds: every position on its grid point.
            hopnet_codec::from_bytes(
                &hopnet_codec::to_bytes(&convert(s)).expect("positions in range"),
            )
            .expect("decodes")
        }
    }
}
