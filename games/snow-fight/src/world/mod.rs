//! The world as plain data: entities, their kinds, geometry, and how a round's world is generated.
//!
//! These are the game's own types. They carry more than the spec's `Snapshot` does (a thrown
//! object's velocity, who threw it); [`crate::snapshot`] converts them to and from the wire types.
//! The rules that change a world live in [`crate::rules`].
//!
//! - `geometry`: points and directions ([`Vec2`], [`Dir`]);
//! - `entity`: what an entity is ([`Entity`], [`Object`], [`Player`]);
//! - `config`: every tunable number ([`Config`]);
//! - `generation`: where a new round's objects and joining players are placed.

mod config;
mod entity;
mod generation;
mod geometry;

pub use config::Config;
pub use entity::{Entity, EntityKind, Object, ObjectKind, ObjectState, Player};
pub use geometry::{Dir, Vec2};

use crate::rng::Rng;

/// The id of an entity, unique within a round.
pub type EntityId = u32;

/// The id of a player (a connected client); a player's entity has it as its `owner`.
pub type PlayerId = u32;

/// Where a round stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Fewer than `min_players` players have joined.
    Waiting,
    /// Running; the win condition is checked every tick.
    Running,
    /// Over: no more changes.
    Over(Outcome),
}

/// How a round ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The player who won, if anyone is left to win.
    pub winner: Option<PlayerId>,
    /// Why it ended.
    pub reason: EndReason,
    /// The tick it ended at.
    pub tick: u32,
}

/// Why a round ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndReason {
    /// One player was left standing (or the last ones died together; the healthiest of them wins).
    LastStanding,
    /// The time limit ran out; the healthiest living player wins.
    TimeLimit,
}

/// A round's world: its entities, its clock, its random source.
#[derive(Clone, Debug)]
pub struct World {
    pub(crate) config: Config,
    pub(crate) tick: u32,
    pub(crate) started_at: Option<u32>,
    pub(crate) phase: Phase,
    /// Sorted by id; ids are never reused within a round.
    pub(crate) entities: Vec<Entity>,
    pub(crate) next_id: EntityId,
    pub(crate) rng: Rng,
    /// Every player entity ever added this round, with its owner, in join order.
    pub(crate) owners: Vec<(EntityId, PlayerId)>,
    pub(crate) regrow_timer: u32,
    /// Destroyed objects and the tick they died at; they leave the world a second later.
    pub(crate) buried: Vec<(EntityId, u32)>,
}

impl World {
    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The current tick (it counts from 0 at creation, also while waiting).
    pub fn tick(&self) -> u32 {
        self.tick
    }

    /// Where the round stands.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The outcome, once over.
    pub fn outcome(&self) -> Option<Outcome> {
        match self.phase {
            Phase::Over(o) => Some(o),
            _ => None,
        }
    }

    /// Every entity, sorted by id.
    pub fn entities(&self) -> &[Entity] {
        &self.entities
    }

    /// The entity with `id`.
    pub fn entity(&self, id: EntityId) -> Option<&Entity> {
        self.index_of(id).map(|i| &self.entities[i])
    }

    pub(crate) fn index_of(&self, id: EntityId) -> Option<usize> {
        self.entities.binary_search_by_key(&id, |e| e.id).ok()
    }

    /// The entity of `owner`'s player: alive or dead (the latest one if they joined twice).
    pub fn player_entity(&self, owner: PlayerId) -> Option<&Entity> {
        let (id, _) = self.owners.iter().rev().find(|(_, o)| *o == owner)?;
        self.entity(*id)
    }

    /// The owner of a player entity, dead or alive.
    pub fn owner_of(&self, id: EntityId) -> Option<PlayerId> {
        self.owners.iter().find(|(e, _)| *e == id).map(|(_, o)| *o)
    }

    /// The living players, in id order.
    pub fn living_players(&self) -> impl Iterator<Item = (EntityId, &Player)> {
        self.entities
            .iter()
            .filter_map(|e| e.player().map(|p| (e.id, p)))
    }

    /// Whether `owner` has a living player.
    pub fn is_alive(&self, owner: PlayerId) -> bool {
        self.living_players().any(|(_, p)| p.owner == owner)
    }

    pub(crate) fn push(&mut self, kind: EntityKind) -> EntityId {
        let id = self.next_id;
        self.next_id += 1;
        self.entities.push(Entity { id, kind });
        id
    }

    /// Whether a circle at `pos` with `radius` overlaps nothing that stands on the ground or walks
    /// (ignoring `except`), keeping `margin` extra space.
    pub(crate) fn is_free(
        &self,
        pos: Vec2,
        radius: f32,
        margin: f32,
        except: Option<EntityId>,
    ) -> bool {
        self.entities.iter().all(|e| {
            if Some(e.id) == except {
                return true;
            }
            match self.blocker(e) {
                Some((p, r)) => p.dist(pos) >= r + radius + margin,
                None => true,
            }
        })
    }

    /// The circle an entity blocks movement with: grounded objects and living players.
    pub(crate) fn blocker(&self, e: &Entity) -> Option<(Vec2, f32)> {
        match &e.kind {
            EntityKind::Object(o) if o.state == ObjectState::Ground => {
                Some((o.pos, self.config.object_radius(o.kind)))
            }
            EntityKind::Player(p) => Some((p.pos, self.config.player_radius)),
            _ => None,
        }
    }
}
