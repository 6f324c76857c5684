//! The toolkit's worked example: a small networked game built on `rabbit`, `game-messages` and
//! `netproto`.
//!
//! - [`world`]: the world as plain data (trees, mushrooms, players) and its generation.
//! - [`rules`]: how the spec's actions and each tick change a world; deterministic.
//! - [`bot`]: a player that plays by itself.

pub mod bot;
pub mod rng;
pub mod rules;
pub mod world;

pub use rules::{GameEvent, Input, Refused};
pub use world::{
    Config, Dir, EndReason, Entity, EntityId, EntityKind, Object, ObjectKind, ObjectState, Outcome,
    Phase, Player, PlayerId, Vec2, World,
};
