//! What an entity is: an object (tree or mushroom) in one of its states, a living player, or
//! dead.

use super::{Dir, EntityId, PlayerId, Vec2};

/// What an object is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ObjectKind {
    /// Big, slow to break, hits hard.
    Tree,
    /// Small, quick to break.
    Mushroom,
}

/// Where an object is in its life.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ObjectState {
    /// Standing on the ground; it blocks movement.
    Ground,
    /// Carried by a player (the player's entity id); it follows them.
    Held {
        /// The carrying player's entity.
        by: EntityId,
    },
    /// Thrown and in flight.
    Flying {
        /// Distance per tick.
        velocity: Vec2,
        /// Distance left before it lands.
        remaining: f32,
        /// The player entity that threw it (it never hits them).
        thrower: EntityId,
    },
}

/// A tree or a mushroom.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Object {
    /// Centre.
    pub pos: Vec2,
    /// Tree or mushroom.
    pub kind: ObjectKind,
    /// Whether it can be broken and picked up.
    pub breakable: bool,
    /// Breaking work left before a player holds it (only meaningful if `breakable`).
    pub durability: f32,
    /// Current health; at zero it is destroyed.
    pub health: u32,
    /// Full health.
    pub max_health: u32,
    /// On the ground, held, or flying.
    pub state: ObjectState,
}

/// A living player.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Player {
    /// Centre.
    pub pos: Vec2,
    /// The direction it walks in each tick, until the next `Move`.
    pub movement: Dir,
    /// The object it carries.
    pub holding: Option<EntityId>,
    /// The object it is breaking.
    pub breaking: Option<EntityId>,
    /// The player (client) controlling it.
    pub owner: PlayerId,
    /// Current health; at zero the player is dead.
    pub health: u32,
    /// Full health.
    pub max_health: u32,
}

/// What an entity is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum EntityKind {
    /// A tree or mushroom.
    Object(Object),
    /// A living player.
    Player(Player),
    /// A dead player (for the rest of the round) or a destroyed object (for one second, so
    /// every client hears of it; then it is forgotten).
    Dead,
}

/// One entity of the world.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Entity {
    /// Unique within the round.
    pub id: EntityId,
    /// What it is.
    pub kind: EntityKind,
}

impl Entity {
    /// The object, if it is one.
    pub fn object(&self) -> Option<&Object> {
        match &self.kind {
            EntityKind::Object(o) => Some(o),
            _ => None,
        }
    }

    /// The living player, if it is one.
    pub fn player(&self) -> Option<&Player> {
        match &self.kind {
            EntityKind::Player(p) => Some(p),
            _ => None,
        }
    }

    /// Its position, unless it is dead.
    pub fn pos(&self) -> Option<Vec2> {
        match &self.kind {
            EntityKind::Object(o) => Some(o.pos),
            EntityKind::Player(p) => Some(p.pos),
            EntityKind::Dead => None,
        }
    }
}
