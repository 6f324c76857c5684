//! Death: a player at zero health is dead for the rest of the round and drops what it holds; an
//! object at zero health is destroyed, shows as `Dead` for a second (so every client hears of it)
//! and then leaves the world.

use super::GameEvent;
use crate::world::{EntityId, EntityKind, ObjectState, World};

impl World {
    /// Destroyed objects leave the world one second after they died.
    pub(super) fn forget_buried(&mut self) {
        let (now, keep) = (self.tick, self.config.tick_rate);
        let gone: Vec<EntityId> = self
            .buried
            .iter()
            .filter(|(_, died)| now.wrapping_sub(*died) > keep)
            .map(|(id, _)| *id)
            .collect();
        if gone.is_empty() {
            return;
        }
        self.buried.retain(|(id, _)| !gone.contains(id));
        self.entities.retain(|e| !gone.contains(&e.id));
    }

    /// Players and objects at zero health die.
    pub(super) fn bury(&mut self, events: &mut Vec<GameEvent>) {
        let dead: Vec<EntityId> = self
            .entities
            .iter()
            .filter(|e| match &e.kind {
                EntityKind::Player(p) => p.health == 0,
                EntityKind::Object(o) => o.health == 0,
                EntityKind::Dead => false,
            })
            .map(|e| e.id)
            .collect();
        for id in dead {
            self.kill(id, events);
        }
    }

    /// Turns an entity dead; a player drops what it holds.
    pub(super) fn kill(&mut self, id: EntityId, events: &mut Vec<GameEvent>) {
        let Some(i) = self.index_of(id) else { return };
        let owner = match self.entities[i].kind {
            EntityKind::Player(p) => {
                if let Some(held) = p.holding {
                    let kind = self.object_mut(held).kind;
                    let full = self.config.durability(kind);
                    let o = self.object_mut(held);
                    o.state = ObjectState::Ground;
                    o.pos = p.pos;
                    o.durability = full;
                }
                Some(p.owner)
            }
            EntityKind::Object(_) => {
                self.buried.push((id, self.tick));
                None
            }
            EntityKind::Dead => return,
        };
        self.entities[i].kind = EntityKind::Dead;
        events.push(GameEvent::Died { entity: id, owner });
    }
}
