//! Regrowth: while the round runs and fewer than `min_free_breakables` breakable objects lie on
//! the ground, a mushroom grows every `regrow_every` ticks, so the players never run out of
//! things to throw.

use super::GameEvent;
use crate::world::{Entity, ObjectKind, ObjectState, Phase, World};

impl World {
    /// Grows a mushroom now and then while few breakable objects lie around.
    pub(super) fn regrow(&mut self, events: &mut Vec<GameEvent>) {
        if self.phase != Phase::Running {
            return;
        }
        let free = self
            .entities
            .iter()
            .filter_map(Entity::object)
            .filter(|o| o.breakable && o.state == ObjectState::Ground)
            .count();
        if free >= self.config.min_free_breakables {
            self.regrow_timer = 0;
            return;
        }
        self.regrow_timer += 1;
        if self.regrow_timer >= self.config.regrow_every {
            self.regrow_timer = 0;
            if let Some(object) = self.spawn_object(ObjectKind::Mushroom, true) {
                events.push(GameEvent::Grew { object });
            }
        }
    }
}
