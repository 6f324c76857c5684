//! Mirror types for the serde / bitcode / bincode peers: the same fields as hopnet-snow-fight'
//! `Snapshot`, each with its peer's idiomatic derive, converted from the same sample data.

use hopnet_snow_fight::{EntityKind, ObjectKind, Snapshot};
use serde::{Deserialize, Serialize};

// The derives of all three peers (serde for JSON and bincode 1, bitcode, bincode 2).
each_with! {
    [
        #[derive(
            Debug,
            Clone,
            PartialEq,
            Serialize,
            Deserialize,
            bitcode::Encode,
            bitcode::Decode,
            bincode::Encode,
            bincode::Decode,
        )]
    ]

    /// `ServerMessage::Event { time, Snapshot }` reduced to what the snapshot benchmark sends.
    pub struct MSnapshot {
        pub entities: Vec<MEntity>,
    }

    pub struct MEntity {
        pub id: u32,
        pub kind: MEntityKind,
    }

    pub enum MEntityKind {
        Object(MObject),
        Player(MPlayer),
        Dead,
    }

    #[derive(Copy)]
    pub enum MObjectKind {
        Tree,
        Mushroom,
    }

    pub struct MObject {
        pub position: MPoint,
        pub kind: MObjectKind,
        pub durability: Option<f32>,
        pub health: u32,
        pub max_health: u32,
    }

    pub struct MPlayer {
        pub position: MPoint,
        pub movement: u8,
        pub holding: Option<u32>,
        pub breaking: Option<u32>,
        pub owner: u32,
        pub health: u32,
        pub max_health: u32,
    }

    #[derive(Copy)]
    pub struct MPoint {
        pub x: f32,
        pub y: f32,
        pub z: f32,
    }
}

impl From<&Snapshot> for MSnapshot {
    fn from(s: &Snapshot) -> Self {
        let point = |p: &hopnet_snow_fight::Point| MPoint {
            x: p.x,
            y: p.y,
            z: p.z,
        };
        MSnapshot {
            entities: s
                .iter()
                .map(|e| MEntity {
                    id: e.id.0,
                    kind: match &e.kind {
                        EntityKind::Object(o) => MEntityKind::Object(MObject {
                            position: point(&o.position),
                            kind: match o.kind {
                                ObjectKind::Tree => MObjectKind::Tree,
                                ObjectKind::Mushroom => MObjectKind::Mushroom,
                            },
                            durability: o.durability,
                            health: o.health,
                            max_health: o.max_health,
                        }),
                        EntityKind::Player(p) => MEntityKind::Player(MPlayer {
                            position: point(&p.position),
                            movement: p.movement.bits(),
                            holding: p.holding.map(|h| h.0),
                            breaking: p.breaking.map(|b| b.0),
                            owner: p.owner.0,
                            health: p.health,
                            max_health: p.max_health,
                        }),
                        EntityKind::Dead => MEntityKind::Dead,
                    },
                })
                .collect(),
        }
    }
}
