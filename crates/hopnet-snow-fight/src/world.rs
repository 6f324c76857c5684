//! The state of the world as the server describes it: snapshots of entities, and the small types
//! they are built from (positions, directions).

use crate::ids::{EntityId, PlayerId};
use hopnet_codec::Rabbit;

/// The state of every entity in the world at one tick.
///
/// The server sends one to every client each tick, as an event, and one inside the `Connect`
/// response when a player joins.
///
/// The entities are a plain `Vec`: decoding builds them in place, with no second copy. A
/// server encodes a snapshot once and sends the same bytes to every client; to share one
/// snapshot value between threads or owners, put the whole snapshot (or the message holding
/// it) behind an [`Arc`](std::sync::Arc).
#[derive(Rabbit, Debug, Clone, PartialEq, Default)]
#[rabbit(delta)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct Snapshot {
    /// Every entity in the world.
    #[rabbit(key = "id")]
    pub entities: Vec<Entity>,
}

impl Snapshot {
    /// A snapshot of these entities.
    pub fn new(entities: impl Into<Vec<Entity>>) -> Self {
        Snapshot {
            entities: entities.into(),
        }
    }

    /// The number of entities.
    pub fn len(&self) -> usize {
        self.entities.len()
    }

    /// Whether the world is empty.
    pub fn is_empty(&self) -> bool {
        self.entities.is_empty()
    }

    /// The entities, in the order they are sent.
    pub fn iter(&self) -> std::slice::Iter<'_, Entity> {
        self.entities.iter()
    }
}

impl From<Vec<Entity>> for Snapshot {
    fn from(entities: Vec<Entity>) -> Self {
        Snapshot::new(entities)
    }
}

impl FromIterator<Entity> for Snapshot {
    fn from_iter<I: IntoIterator<Item = Entity>>(iter: I) -> Self {
        Snapshot {
            entities: iter.into_iter().collect(),
        }
    }
}

impl<'a> IntoIterator for &'a Snapshot {
    type Item = &'a Entity;
    type IntoIter = std::slice::Iter<'a, Entity>;
    fn into_iter(self) -> Self::IntoIter {
        self.entities.iter()
    }
}

/// One entity of the world: its id and what it currently is.
#[derive(Rabbit, Debug, Clone, PartialEq)]
#[rabbit(delta)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct Entity {
    /// The id of the entity, stable for its whole life.
    pub id: EntityId,
    /// What the entity is.
    pub kind: EntityKind,
}

impl Entity {
    /// An entity with this id and kind.
    pub fn new(id: impl Into<EntityId>, kind: impl Into<EntityKind>) -> Self {
        Entity {
            id: id.into(),
            kind: kind.into(),
        }
    }
}

/// What an entity is: a thing lying in the world, a player's avatar, or gone.
#[derive(Rabbit, Debug, Clone, PartialEq)]
#[rabbit(delta)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[bits(2)]
pub enum EntityKind {
    /// A tree or mushroom in the world.
    Object(Object),
    /// A player's avatar.
    Player(Player),
    /// The entity has died or was destroyed; the client can forget it.
    Dead,
}

from_variants!(EntityKind: Object, Player);

/// A thing in the world that players can break and carry.
#[derive(Rabbit, Debug, Clone, PartialEq)]
#[rabbit(delta)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct Object {
    /// Where the object is.
    pub position: Point,
    /// Whether it is a tree or a mushroom.
    pub kind: ObjectKind,
    /// How much durability is left before a player can pick the object up; `None` if it cannot
    /// be broken at all.
    pub durability: Option<f32>,
    /// The current health of the object.
    pub health: u32,
    /// The most health the object can have.
    pub max_health: u32,
}

/// The two kinds of objects (the spec's one-bit `Object.kind`).
#[derive(Rabbit, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[rabbit(delta)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[bits(1)]
pub enum ObjectKind {
    /// A tree.
    Tree,
    /// A mushroom.
    Mushroom,
}

/// A player's avatar in the world.
#[derive(Rabbit, Debug, Clone, PartialEq)]
#[rabbit(delta)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct Player {
    /// Where the avatar is.
    pub position: Point,
    /// The direction the avatar is moving in (empty when standing still).
    pub movement: Direction,
    /// The entity the avatar is carrying, if any.
    pub holding: Option<EntityId>,
    /// The entity the avatar is breaking, if any.
    pub breaking: Option<EntityId>,
    /// The player who controls this avatar.
    pub owner: PlayerId,
    /// The current health of the avatar.
    pub health: u32,
    /// The most health the avatar can have.
    pub max_health: u32,
}

/// A position in the world: x from left to right, y from back to front, z from below upwards.
#[derive(Rabbit, Debug, Clone, Copy, PartialEq, Default)]
#[rabbit(delta)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct Point {
    /// The x coordinate.
    pub x: f32,
    /// The y coordinate.
    pub y: f32,
    /// The z coordinate.
    pub z: f32,
}

impl Point {
    /// The point `(x, y, z)`.
    pub const fn new(x: f32, y: f32, z: f32) -> Self {
        Point { x, y, z }
    }
}

bitflags::bitflags! {
    /// A direction in the world as seen from above (north is the positive y axis): any
    /// combination of the four compass points, e.g. `NORTH | EAST`, or none for standing still.
    ///
    /// On the wire it is one byte. All eight bits are kept, also the four that have no name
    /// yet, so a direction from a newer peer survives a round trip through this one: use
    /// [`Direction::from_bits_retain`] to build one from a raw byte.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Rabbit)]
    #[rabbit(delta, from = "DirectionBits", into = "DirectionBits")]
    pub struct Direction: u8 {
        /// Towards the positive y axis (bit 0).
        const NORTH = 1;
        /// Towards the negative x axis (bit 1).
        const WEST = 1 << 1;
        /// Towards the negative y axis (bit 2).
        const SOUTH = 1 << 2;
        /// Towards the positive x axis (bit 3).
        const EAST = 1 << 3;
        // The other bits are not named yet, but they are part of the value.
        const _ = !0;
    }
}

impl Default for Direction {
    /// No direction: standing still.
    fn default() -> Self {
        Direction::empty()
    }
}

// The wire form of `Direction`: the byte as it is, every bit of it, named or not. Its doc
// comments are the schema's (`rabbit-msg schema Direction`).
/// Which way something moves, seen from above (north is the positive y axis): one bit per
/// compass point, none for standing still.
#[derive(Rabbit, Clone)]
#[rabbit(delta)]
struct DirectionBits {
    /// a bitfield: bit 0 north, bit 1 west, bit 2 south, bit 3 east; the other bits are kept
    /// as they are.
    bits: u8,
}

impl From<Direction> for DirectionBits {
    fn from(direction: Direction) -> Self {
        DirectionBits {
            bits: direction.bits(),
        }
    }
}

impl From<DirectionBits> for Direction {
    fn from(wire: DirectionBits) -> Self {
        Direction::from_bits_retain(wire.bits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoding_a_snapshot_builds_its_entities_in_place() {
        let snapshot = Snapshot::from(vec![Entity::new(1, EntityKind::Dead); 3]);
        let bytes = hopnet_codec::to_bytes(&snapshot).unwrap();
        let decoded = hopnet_codec::from_bytes::<Snapshot>(&bytes).unwrap();
        assert_eq!(decoded, snapshot);
        // The decoder's own vector, reserved for the count it read: not a copy of it.
        assert_eq!(decoded.entities.capacity(), 3);
    }

    #[test]
    fn direction_keeps_unknown_bits() {
        let d = Direction::from_bits_retain(0b1010_0101);
        assert!(d.contains(Direction::NORTH | Direction::SOUTH));
        let bytes = hopnet_codec::to_bytes(&d).unwrap();
        assert_eq!(bytes, [0b1010_0101]);
        assert_eq!(
            hopnet_codec::from_bytes::<Direction>(&bytes)
                .unwrap()
                .bits(),
            0b1010_0101
        );
    }
}
