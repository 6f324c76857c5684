//! The world as plain data: entities, their kinds, geometry, and how a round's world is generated.
//!
//! These are the game's own types. They carry more than the spec's `Snapshot` does (a thrown
//! object's velocity, who threw it); [`crate::snapshot`] converts them to and from the wire types.
//! The rules that change a world live in [`crate::rules`].

use std::ops::{Add, Mul, Sub};

use crate::rng::Rng;

/// The id of an entity, unique within a round.
pub type EntityId = u32;

/// The id of a player (a connected client); a player's entity has it as its `owner`.
pub type PlayerId = u32;

/// A point or a vector on the ground plane. North is `+y`, east is `+x`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Vec2 {
    /// West to east.
    pub x: f32,
    /// South to north.
    pub y: f32,
}

impl Vec2 {
    /// The origin.
    pub const ZERO: Vec2 = Vec2 { x: 0.0, y: 0.0 };

    /// A vector from its coordinates.
    pub const fn new(x: f32, y: f32) -> Self {
        Vec2 { x, y }
    }

    /// Euclidean length.
    pub fn len(self) -> f32 {
        (self.x * self.x + self.y * self.y).sqrt()
    }

    /// Distance to `other`.
    pub fn dist(self, other: Vec2) -> f32 {
        (other - self).len()
    }

    /// This vector scaled to length 1, or zero if it is (nearly) zero.
    pub fn normalized(self) -> Vec2 {
        let len = self.len();
        if len < 1e-6 {
            Vec2::ZERO
        } else {
            self * (1.0 / len)
        }
    }
}

impl Add for Vec2 {
    type Output = Vec2;
    fn add(self, o: Vec2) -> Vec2 {
        Vec2::new(self.x + o.x, self.y + o.y)
    }
}

impl Sub for Vec2 {
    type Output = Vec2;
    fn sub(self, o: Vec2) -> Vec2 {
        Vec2::new(self.x - o.x, self.y - o.y)
    }
}

impl Mul<f32> for Vec2 {
    type Output = Vec2;
    fn mul(self, k: f32) -> Vec2 {
        Vec2::new(self.x * k, self.y * k)
    }
}

/// The spec's `Direction` bitfield: `NORTH = 1`, `WEST = 2`, `SOUTH = 4`, `EAST = 8`.
///
/// Opposite bits cancel out (north and south together is no vertical motion); the other four
/// bits of the byte are kept but mean nothing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Dir(pub u8);

impl Dir {
    /// Standing still.
    pub const NONE: Dir = Dir(0);
    /// `+y`.
    pub const NORTH: Dir = Dir(1);
    /// `-x`.
    pub const WEST: Dir = Dir(2);
    /// `-y`.
    pub const SOUTH: Dir = Dir(4);
    /// `+x`.
    pub const EAST: Dir = Dir(8);

    /// The raw bits.
    pub const fn bits(self) -> u8 {
        self.0
    }

    /// Whether every bit of `other` is set here.
    pub const fn contains(self, other: Dir) -> bool {
        self.0 & other.0 == other.0
    }

    /// Both directions' bits.
    pub const fn union(self, other: Dir) -> Dir {
        Dir(self.0 | other.0)
    }

    /// The unit vector of this direction (diagonals normalized), or zero.
    pub fn vector(self) -> Vec2 {
        let mut v = Vec2::ZERO;
        if self.contains(Dir::NORTH) {
            v.y += 1.0;
        }
        if self.contains(Dir::SOUTH) {
            v.y -= 1.0;
        }
        if self.contains(Dir::EAST) {
            v.x += 1.0;
        }
        if self.contains(Dir::WEST) {
            v.x -= 1.0;
        }
        v.normalized()
    }

    /// The 8-way direction that best approximates `delta`; components smaller than `deadzone`
    /// are ignored, and a component less than half the other's is dropped (so a mostly
    /// northward delta gives `NORTH`, not `NORTH | EAST`).
    pub fn toward(delta: Vec2, deadzone: f32) -> Dir {
        let (ax, ay) = (delta.x.abs(), delta.y.abs());
        let mut d = Dir::NONE;
        if ax > deadzone && ax * 2.0 >= ay {
            d = d.union(if delta.x > 0.0 { Dir::EAST } else { Dir::WEST });
        }
        if ay > deadzone && ay * 2.0 >= ax {
            d = d.union(if delta.y > 0.0 {
                Dir::NORTH
            } else {
                Dir::SOUTH
            });
        }
        d
    }
}

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

/// Every tunable number of the game. Speeds and rates are per tick; [`Config::for_tick_rate`]
/// derives them from per-second values so a round lasts as long at any tick rate.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// Ticks per second the values below were derived for.
    pub tick_rate: u32,
    /// World extent along x (the world is `[0, width] × [0, height]`).
    pub width: f32,
    /// World extent along y.
    pub height: f32,
    /// Players needed before the round starts (win condition and time limit run only then).
    pub min_players: usize,
    /// Distance a player walks per tick.
    pub player_speed: f32,
    /// A player's radius.
    pub player_radius: f32,
    /// A player's full health.
    pub player_health: u32,
    /// Gap between a player's edge and an object's edge within which it can break it.
    pub reach: f32,
    /// Durability removed per tick of breaking.
    pub break_rate: f32,
    /// Distance a thrown object flies per tick.
    pub projectile_speed: f32,
    /// The farthest an object can be thrown.
    pub max_throw: f32,
    /// Trees generated per round.
    pub trees: usize,
    /// Of those, how many are breakable.
    pub breakable_trees: usize,
    /// Mushrooms generated per round (all breakable).
    pub mushrooms: usize,
    /// When fewer breakable objects lie on the ground than this, one mushroom grows...
    pub min_free_breakables: usize,
    /// ...every this many ticks.
    pub regrow_every: u32,
    /// Round length limit in ticks; then the healthiest living player wins.
    pub max_ticks: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config::for_tick_rate(60)
    }
}

impl Config {
    /// The default game at `tick_rate` ticks per second.
    pub fn for_tick_rate(tick_rate: u32) -> Config {
        let hz = tick_rate.max(1) as f32;
        Config {
            tick_rate: tick_rate.max(1),
            width: 24.0,
            height: 16.0,
            min_players: 2,
            player_speed: 6.0 / hz,
            player_radius: 0.4,
            player_health: 100,
            reach: 0.6,
            break_rate: 60.0 / hz,
            projectile_speed: 30.0 / hz,
            max_throw: 14.0,
            trees: 10,
            breakable_trees: 4,
            mushrooms: 12,
            min_free_breakables: 6,
            regrow_every: (tick_rate.max(1) / 2).max(1),
            max_ticks: 40 * tick_rate.max(1),
        }
    }

    /// The radius of an object of `kind`.
    pub fn object_radius(&self, kind: ObjectKind) -> f32 {
        match kind {
            ObjectKind::Tree => 0.5,
            ObjectKind::Mushroom => 0.3,
        }
    }

    /// Breaking work an object of `kind` needs (one unit per second at `break_rate`·tick_rate = 60).
    pub fn durability(&self, kind: ObjectKind) -> f32 {
        match kind {
            ObjectKind::Tree => 60.0,
            ObjectKind::Mushroom => 20.0,
        }
    }

    /// Full health of an object of `kind`.
    pub fn object_health(&self, kind: ObjectKind) -> u32 {
        match kind {
            ObjectKind::Tree => 100,
            ObjectKind::Mushroom => 30,
        }
    }

    /// Damage an object of `kind` does to what it hits when thrown.
    pub fn damage(&self, kind: ObjectKind) -> u32 {
        match kind {
            ObjectKind::Tree => 50,
            ObjectKind::Mushroom => 34,
        }
    }
}

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
    /// A new round's world, generated from `seed`: trees and mushrooms scattered, no players.
    pub fn new(seed: u64, config: Config) -> World {
        let mut world = World {
            config,
            tick: 0,
            started_at: None,
            phase: Phase::Waiting,
            entities: Vec::new(),
            next_id: 1,
            rng: Rng::new(seed),
            owners: Vec::new(),
            regrow_timer: 0,
            buried: Vec::new(),
        };
        let c = world.config.clone();
        for i in 0..c.trees {
            let breakable = i < c.breakable_trees;
            world.spawn_object(ObjectKind::Tree, breakable);
        }
        for _ in 0..c.mushrooms {
            world.spawn_object(ObjectKind::Mushroom, true);
        }
        world
    }

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

    /// The fixed places players spawn at, in join order: corners, then edge midpoints.
    pub(crate) fn spawn_points(&self) -> [Vec2; 8] {
        let (w, h, m) = (self.config.width, self.config.height, 1.5);
        [
            Vec2::new(m, m),
            Vec2::new(w - m, h - m),
            Vec2::new(w - m, m),
            Vec2::new(m, h - m),
            Vec2::new(w / 2.0, m),
            Vec2::new(w / 2.0, h - m),
            Vec2::new(m, h / 2.0),
            Vec2::new(w - m, h / 2.0),
        ]
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

    /// A random free place for a new object, away from the spawn points; `None` if the world
    /// seems full.
    pub(crate) fn free_spot(&mut self, radius: f32) -> Option<Vec2> {
        let spawns = self.spawn_points();
        for _ in 0..200 {
            let x = self
                .rng
                .range_f32(radius + 0.5, self.config.width - radius - 0.5);
            let y = self
                .rng
                .range_f32(radius + 0.5, self.config.height - radius - 0.5);
            let pos = Vec2::new(x, y);
            if spawns.iter().all(|s| s.dist(pos) > 2.0) && self.is_free(pos, radius, 0.8, None) {
                return Some(pos);
            }
        }
        None
    }

    /// Places a new object at a random free spot; `None` if none was found.
    pub(crate) fn spawn_object(&mut self, kind: ObjectKind, breakable: bool) -> Option<EntityId> {
        let radius = self.config.object_radius(kind);
        let pos = self.free_spot(radius)?;
        let health = self.config.object_health(kind);
        Some(self.push(EntityKind::Object(Object {
            pos,
            kind,
            breakable,
            durability: if breakable {
                self.config.durability(kind)
            } else {
                0.0
            },
            health,
            max_health: health,
            state: ObjectState::Ground,
        })))
    }
}
