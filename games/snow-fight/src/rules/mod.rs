//! The rules: how players join and leave, how the spec's actions (`Move`, `Break`, `Throw`)
//! change the world, and what one tick does. One file a rule:
//!
//! - `joining`: a player joins at the next spawn point; the round starts once `min_players`
//!   have joined. A player who leaves dies where it stands.
//! - `movement`: `Move` sets the direction a player walks in; every tick it walks
//!   `player_speed` that way, stays inside the world and never walks into a tree, a mushroom or
//!   another player (it slides along them when it can).
//! - `breaking`: `Break` names an object to break. Every tick the player stands within `reach`
//!   of it, its durability falls by `break_rate`; at zero the player holds it. A player holds one
//!   thing at a time, and what it holds follows it.
//! - `throwing`: `Throw` sends the held object flying toward the target point. The first player
//!   (other than the thrower) or grounded object it meets loses the object's damage in health and
//!   the thrown object is destroyed; if it meets nothing it lands at the target and can be broken
//!   again.
//! - `death`: a player at zero health is dead; an object at zero health is destroyed (it shows
//!   as `Dead` for a second, then leaves the world).
//! - `regrowth`: while few breakable objects lie around, a mushroom grows now and then.
//! - `round_end`: once the round is running, the last player standing wins; after `max_ticks`
//!   the healthiest living player wins.
//!
//! Everything is deterministic: the same seed and the same inputs in the same order give the
//! same world, tick for tick.

mod breaking;
mod death;
mod joining;
mod movement;
mod regrowth;
mod round_end;
#[cfg(test)]
mod test_support;
mod throwing;

pub use movement::{may_stand, walk_step};

use std::fmt;

use crate::world::{
    Dir, EntityId, EntityKind, Object, Outcome, Phase, Player, PlayerId, Vec2, World,
};

/// An action a player asks for: the spec's `Action` in the game's own types.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Input {
    /// Walk in this direction every tick (`Dir::NONE` stops).
    Move(Dir),
    /// Start breaking this object, or stop breaking.
    Break(Option<EntityId>),
    /// Throw the held object toward this point.
    Throw(Vec2),
}

/// Why an action was refused. Refused actions change nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// The player has not joined this round.
    NotJoined,
    /// The player is dead.
    Dead,
    /// The round is over.
    RoundOver,
    /// No such entity, or it is not an object lying on the ground.
    NotOnGround(EntityId),
    /// The object cannot be broken.
    Unbreakable(EntityId),
    /// The player already holds something.
    HandsFull,
    /// The player holds nothing to throw.
    NothingHeld,
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refused::NotJoined => write!(f, "the player has not joined this round"),
            Refused::Dead => write!(f, "the player is dead"),
            Refused::RoundOver => write!(f, "the round is over"),
            Refused::NotOnGround(id) => write!(f, "entity {id} is not an object on the ground"),
            Refused::Unbreakable(id) => write!(f, "entity {id} cannot be broken"),
            Refused::HandsFull => write!(f, "the player already holds something"),
            Refused::NothingHeld => write!(f, "the player holds nothing"),
        }
    }
}

impl std::error::Error for Refused {}

/// Something that happened during a tick (or a join), for logs, tests and displays.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum GameEvent {
    /// Enough players joined: the round runs.
    Started,
    /// A player picked up the object it broke.
    PickedUp {
        /// The player entity.
        player: EntityId,
        /// The object.
        object: EntityId,
    },
    /// A thrown object hit something.
    Hit {
        /// The thrown object (destroyed by the hit).
        object: EntityId,
        /// What it hit.
        target: EntityId,
        /// Health lost.
        damage: u32,
    },
    /// A thrown object landed without hitting anything.
    Landed {
        /// The object.
        object: EntityId,
    },
    /// A player died (`owner` is set) or an object was destroyed.
    Died {
        /// The entity.
        entity: EntityId,
        /// The player who controlled it, for a player.
        owner: Option<PlayerId>,
    },
    /// A mushroom grew.
    Grew {
        /// The new object.
        object: EntityId,
    },
    /// The round ended.
    Over(Outcome),
}

impl World {
    /// Applies one action of `owner`'s player.
    pub fn apply(&mut self, owner: PlayerId, input: Input) -> Result<(), Refused> {
        if matches!(self.phase, Phase::Over(_)) {
            return Err(Refused::RoundOver);
        }
        let entity = self.player_entity(owner).ok_or(Refused::NotJoined)?;
        let pid = entity.id;
        let player = *entity.player().ok_or(Refused::Dead)?;
        match input {
            Input::Move(dir) => self.set_movement(pid, dir),
            Input::Break(target) => self.start_breaking(pid, &player, target)?,
            Input::Throw(target) => self.throw(pid, &player, target)?,
        }
        Ok(())
    }

    /// Runs one tick: players walk and break, held objects follow, thrown objects fly and hit,
    /// the dead die, mushrooms regrow, and the win condition is checked. Does nothing once the
    /// round is over.
    pub fn step(&mut self) -> Vec<GameEvent> {
        let mut events = Vec::new();
        if matches!(self.phase, Phase::Over(_)) {
            return events;
        }
        self.tick = self.tick.wrapping_add(1);
        let health_before: Vec<(PlayerId, u32)> = self
            .living_players()
            .map(|(_, p)| (p.owner, p.health))
            .collect();

        self.forget_buried();
        self.walk();
        self.break_objects(&mut events);
        self.carry();
        self.fly(&mut events);
        self.bury(&mut events);
        self.regrow(&mut events);
        self.check_over(&health_before, &mut events);
        events
    }

    fn player_mut(&mut self, id: EntityId) -> &mut Player {
        let i = self.index_of(id).expect("player entity exists");
        match &mut self.entities[i].kind {
            EntityKind::Player(p) => p,
            _ => unreachable!("entity {id} is a living player"),
        }
    }

    fn object_mut(&mut self, id: EntityId) -> &mut Object {
        let i = self.index_of(id).expect("object entity exists");
        match &mut self.entities[i].kind {
            EntityKind::Object(o) => o,
            _ => unreachable!("entity {id} is an object"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::Bot;
    use crate::world::{Config, EndReason};

    /// Plays a whole round with bots, the rules alone.
    fn bot_round(seed: u64, players: u32) -> (World, Vec<GameEvent>) {
        let mut w = World::new(seed, Config::default());
        let mut bots: Vec<Bot> = (1..=players)
            .map(|p| Bot::new(p, seed + p as u64))
            .collect();
        for p in 1..=players {
            w.add_player(p);
        }
        let mut log = Vec::new();
        while w.outcome().is_none() {
            for bot in &mut bots {
                let view = w.entities().to_vec();
                for input in bot.think(&view, w.config()) {
                    let _ = w.apply(bot.owner(), input);
                }
            }
            log.extend(w.step());
        }
        (w, log)
    }

    #[test]
    fn bots_play_a_round_to_the_end_deterministically() {
        let (a, log_a) = bot_round(7, 4);
        let (b, log_b) = bot_round(7, 4);
        assert_eq!(a.entities(), b.entities());
        assert_eq!(log_a, log_b);
        let mut last_standing = 0;
        for seed in 0..8 {
            let (w, log) = bot_round(seed, 4);
            let o = w.outcome().unwrap();
            assert!(o.winner.is_some());
            assert!(
                log.iter().any(|e| matches!(e, GameEvent::Hit { .. })),
                "seed {seed}: bots hit"
            );
            if o.reason == EndReason::LastStanding {
                last_standing += 1;
            }
            eprintln!("seed {seed}: {o:?} after {:.1} s", o.tick as f32 / 60.0);
        }
        assert!(
            last_standing >= 6,
            "bots mostly fight it out: {last_standing}/8"
        );
    }
}
