//! The local player's walking, as `hopnet_sync`'s prediction steps it: the server's own rule
//! ([`walk_step`]) against the obstacles of the newest snapshot, so that a prediction and the
//! server agree wherever the obstacles stood still.

use std::cell::RefCell;

use hopnet_sync::Tick;
use hopnet_sync::predict::Simulation;

use crate::rules::{may_stand, walk_step};
use crate::world::{Config, Dir, Entity, EntityId, EntityKind, ObjectState, Vec2};

/// One player walking: its position is the state, the direction it was last sent is the input.
#[derive(Debug)]
pub(super) struct Walk {
    config: Config,
    /// The circles that block it, from the newest snapshot (itself left out). Behind a
    /// `RefCell` because the predictor owns its simulation and lends it only shared: each
    /// snapshot replaces them.
    blockers: RefCell<Vec<(Vec2, f32)>>,
}

impl Walk {
    pub(super) fn new(config: Config) -> Walk {
        Walk {
            config,
            blockers: RefCell::new(Vec::new()),
        }
    }

    /// What blocks entity `me` in `entities`: grounded objects and the other living players.
    pub(super) fn set_obstacles(&self, entities: &[Entity], me: EntityId) {
        let mut blockers = self.blockers.borrow_mut();
        blockers.clear();
        blockers.extend(
            entities
                .iter()
                .filter(|e| e.id != me)
                .filter_map(|e| match &e.kind {
                    EntityKind::Object(o) if o.state == ObjectState::Ground => {
                        Some((o.pos, self.config.object_radius(o.kind)))
                    }
                    EntityKind::Player(p) => Some((p.pos, self.config.player_radius)),
                    _ => None,
                }),
        );
    }
}

impl Simulation for Walk {
    type State = Vec2;
    type Input = Dir;

    fn step(&self, _tick: Tick, pos: &mut Vec2, dir: &Dir) {
        let blockers = self.blockers.borrow();
        let r = self.config.player_radius;
        *pos = walk_step(&self.config, *pos, *dir, |to| {
            may_stand(r, blockers.iter().copied(), *pos, to)
        });
    }

    fn distance(&self, a: &Vec2, b: &Vec2) -> f32 {
        a.dist(*b)
    }

    fn blend(&self, from: &Vec2, to: &Vec2, t: f32) -> Vec2 {
        *from + (*to - *from) * t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::{Object, ObjectKind};

    #[test]
    fn it_walks_as_the_server_does_and_stops_at_an_obstacle() {
        let config = Config::for_tick_rate(60);
        let walk = Walk::new(config.clone());
        let tree = Entity {
            id: 9,
            kind: EntityKind::Object(Object {
                pos: Vec2::new(8.0, 5.0),
                kind: ObjectKind::Tree,
                breakable: false,
                state: ObjectState::Ground,
                durability: 1.0,
                health: 1,
                max_health: 1,
            }),
        };
        walk.set_obstacles(&[tree], 1);
        let mut pos = Vec2::new(5.0, 5.0);
        walk.step(1, &mut pos, &Dir::EAST);
        assert!((pos.x - (5.0 + config.player_speed)).abs() < 1e-5);
        for t in 2..600 {
            walk.step(t, &mut pos, &Dir::EAST);
        }
        let gap = config.player_radius + config.object_radius(ObjectKind::Tree);
        assert!(
            pos.x <= 8.0 - gap + 1e-4,
            "stopped before the tree: {pos:?}"
        );
        assert!(pos.x > 8.0 - gap - config.player_speed, "{pos:?}");
    }
}
