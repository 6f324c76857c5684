//! An instance's entities and the rules that move them: players one unit per move; bullets
//! appear where their player stands and then go straight, one unit right per game tick, for
//! [`BULLET_TICKS`] ticks (the RFC's "the bullet will go straight", section 2.3). The counts
//! are bounded, so an instance's memory is too.

use std::collections::BTreeMap;

use hopnet_formats::rtype::Action;

/// Players an instance takes (the RFC's example lists `MAX_PLAYERS` 4).
pub const MAX_PLAYERS: usize = 4;
/// Bullets a player has in play at most: a SPACE beyond this removes its oldest bullet first.
pub const MAX_BULLETS_PER_PLAYER: usize = 8;
/// Game ticks a bullet flies before it is gone.
pub const BULLET_TICKS: u32 = 20;
/// Entities an instance holds at most.
pub const MAX_ENTITIES: usize = MAX_PLAYERS * (1 + MAX_BULLETS_PER_PLAYER);

/// What an entity is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A player's ship.
    Player,
    /// A bullet, fired by the player whose entity id this is.
    Bullet {
        /// The shooter's entity.
        owner: u32,
    },
}

/// An entity: where it is and what it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entity {
    /// Horizontal position, growing to the right.
    pub x: i32,
    /// Vertical position, growing downwards.
    pub y: i32,
    /// Player or bullet.
    pub kind: Kind,
}

/// The entities of one instance, by id (ids are never reused within an instance).
#[derive(Debug, Default)]
pub struct World {
    entities: BTreeMap<u32, Entity>,
    /// Ticks each bullet still flies, by id.
    flights: BTreeMap<u32, u32>,
    next_id: u32,
}

/// What one game tick did to the bullets.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Flown {
    /// Bullets that moved on, by id.
    pub moved: Vec<u32>,
    /// Bullets whose flight ended, removed, by id.
    pub ended: Vec<u32>,
}

impl World {
    /// The entities, by id.
    pub fn entities(&self) -> &BTreeMap<u32, Entity> {
        &self.entities
    }

    /// A new player, placed on a row of its own; its id. `None` when the instance is full.
    pub fn add_player(&mut self) -> Option<u32> {
        let players = self.players().count();
        if players >= MAX_PLAYERS {
            return None;
        }
        let row = (0..MAX_PLAYERS as i32)
            .find(|&r| !self.players().any(|(_, e)| e.y == r * 10))
            .unwrap_or(0);
        Some(self.insert(0, row * 10, Kind::Player))
    }

    fn players(&self) -> impl Iterator<Item = (u32, &Entity)> {
        self.entities
            .iter()
            .filter(|(_, e)| e.kind == Kind::Player)
            .map(|(&id, e)| (id, e))
    }

    fn insert(&mut self, x: i32, y: i32, kind: Kind) -> u32 {
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1);
        self.entities.insert(id, Entity { x, y, kind });
        id
    }

    /// Moves `player` one unit for a LEFT, RIGHT, UP or DOWN (any other action, or an
    /// entity that is not there, moves nothing).
    pub fn step(&mut self, player: u32, action: Action) {
        let (dx, dy) = match action {
            Action::Left => (-1, 0),
            Action::Right => (1, 0),
            Action::Up => (0, -1),
            Action::Down => (0, 1),
            _ => return,
        };
        if let Some(e) = self.entities.get_mut(&player) {
            e.x = e.x.saturating_add(dx);
            e.y = e.y.saturating_add(dy);
        }
    }

    /// A bullet where `player` stands: its id, and the id of the bullet it replaced if the
    /// player already had [`MAX_BULLETS_PER_PLAYER`].
    pub fn fire(&mut self, player: u32) -> Option<(u32, Option<u32>)> {
        let at = *self.entities.get(&player)?;
        let mut own = self
            .entities
            .iter()
            .filter(|(_, e)| e.kind == Kind::Bullet { owner: player })
            .map(|(&id, _)| id);
        let oldest = own.next();
        let replaced = if oldest.is_some() && own.count() + 1 >= MAX_BULLETS_PER_PLAYER {
            oldest
        } else {
            None
        };
        if let Some(id) = replaced {
            self.entities.remove(&id);
            self.flights.remove(&id);
        }
        let bullet = self.insert(at.x, at.y, Kind::Bullet { owner: player });
        self.flights.insert(bullet, BULLET_TICKS);
        Some((bullet, replaced))
    }

    /// Whether a bullet is in flight (the game tick has work).
    pub fn flying(&self) -> bool {
        !self.flights.is_empty()
    }

    /// One game tick: every bullet one unit right, or gone once its [`BULLET_TICKS`] are
    /// flown.
    pub fn fly(&mut self) -> Flown {
        let mut flown = Flown::default();
        for (&id, left) in &mut self.flights {
            *left = left.saturating_sub(1);
            match self.entities.get_mut(&id) {
                Some(e) if *left > 0 => {
                    e.x = e.x.saturating_add(1);
                    flown.moved.push(id);
                }
                _ => flown.ended.push(id),
            }
        }
        for id in &flown.ended {
            self.flights.remove(id);
            self.entities.remove(id);
        }
        flown
    }

    /// Removes `player` and its bullets; their ids, the player's first.
    pub fn remove_player(&mut self, player: u32) -> Vec<u32> {
        if self.entities.remove(&player).is_none() {
            return Vec::new();
        }
        let bullets: Vec<u32> = self
            .entities
            .iter()
            .filter(|(_, e)| e.kind == Kind::Bullet { owner: player })
            .map(|(&id, _)| id)
            .collect();
        for id in &bullets {
            self.entities.remove(id);
            self.flights.remove(id);
        }
        std::iter::once(player).chain(bullets).collect()
    }
}
