//! `Break`: every tick a player stands within `reach` of the object it breaks, the object's
//! durability falls by `break_rate`; at zero the player holds it. A player holds one thing at a
//! time, and what it holds follows it.

use super::{GameEvent, Refused};
use crate::world::{
    Entity, EntityId, EntityKind, Object, ObjectKind, ObjectState, Player, Vec2, World,
};

impl World {
    /// `Break`: `None` stops breaking; an object must lie on the ground, be breakable, and the
    /// player's hands must be free.
    pub(super) fn start_breaking(
        &mut self,
        pid: EntityId,
        player: &Player,
        target: Option<EntityId>,
    ) -> Result<(), Refused> {
        let Some(target) = target else {
            self.player_mut(pid).breaking = None;
            return Ok(());
        };
        if player.holding.is_some() {
            return Err(Refused::HandsFull);
        }
        match self.entity(target).and_then(Entity::object) {
            Some(o) if o.state == ObjectState::Ground => {
                if !o.breakable {
                    return Err(Refused::Unbreakable(target));
                }
            }
            _ => return Err(Refused::NotOnGround(target)),
        }
        self.player_mut(pid).breaking = Some(target);
        Ok(())
    }

    /// Whether a player at `pos` can reach an object of `kind` at `opos`.
    pub fn in_reach(&self, pos: Vec2, opos: Vec2, kind: ObjectKind) -> bool {
        pos.dist(opos)
            <= self.config.player_radius + self.config.object_radius(kind) + self.config.reach
    }

    pub(super) fn break_objects(&mut self, events: &mut Vec<GameEvent>) {
        for i in 0..self.entities.len() {
            let EntityKind::Player(p) = self.entities[i].kind else {
                continue;
            };
            let Some(target) = p.breaking else { continue };
            let pid = self.entities[i].id;
            let valid = p.holding.is_none()
                && matches!(self.entity(target).and_then(Entity::object),
                    Some(o) if o.breakable && o.state == ObjectState::Ground);
            if !valid {
                self.player_mut(pid).breaking = None;
                continue;
            }
            let o = *self
                .entity(target)
                .and_then(Entity::object)
                .expect("checked");
            if !self.in_reach(p.pos, o.pos, o.kind) {
                continue;
            }
            let rate = self.config.break_rate;
            let o = self.object_mut(target);
            o.durability = (o.durability - rate).max(0.0);
            if o.durability <= 0.0 {
                o.state = ObjectState::Held { by: pid };
                let p = self.player_mut(pid);
                p.holding = Some(target);
                p.breaking = None;
                events.push(GameEvent::PickedUp {
                    player: pid,
                    object: target,
                });
            }
        }
    }

    /// Held objects follow their holders.
    pub(super) fn carry(&mut self) {
        for i in 0..self.entities.len() {
            let EntityKind::Object(Object {
                state: ObjectState::Held { by },
                ..
            }) = self.entities[i].kind
            else {
                continue;
            };
            if let Some(pos) = self.entity(by).and_then(Entity::player).map(|p| p.pos)
                && let EntityKind::Object(o) = &mut self.entities[i].kind
            {
                o.pos = pos;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::test_support::{empty, object, place, player, teleport};
    use crate::rules::{GameEvent, Input, Refused};
    use crate::world::{Dir, ObjectKind, ObjectState, Vec2};

    #[test]
    fn breaking_needs_reach_then_the_player_holds_the_object() {
        let mut w = empty(1);
        w.add_player(1);
        let m = place(&mut w, ObjectKind::Mushroom, true, Vec2::new(10.0, 10.0));
        let rock = place(&mut w, ObjectKind::Tree, false, Vec2::new(3.0, 10.0));
        teleport(&mut w, 1, Vec2::new(5.0, 10.0));
        assert_eq!(
            w.apply(1, Input::Break(Some(rock))),
            Err(Refused::Unbreakable(rock))
        );
        assert_eq!(
            w.apply(1, Input::Break(Some(999))),
            Err(Refused::NotOnGround(999))
        );
        w.apply(1, Input::Break(Some(m))).unwrap();
        let full = object(&w, m).durability;
        for _ in 0..10 {
            w.step();
        }
        assert_eq!(object(&w, m).durability, full, "too far: no progress");
        assert_eq!(player(&w, 1).breaking, Some(m));
        teleport(&mut w, 1, Vec2::new(9.2, 10.0));
        let mut ticks = 0;
        while player(&w, 1).holding.is_none() {
            let ev = w.step();
            ticks += 1;
            assert!(ticks < 1000);
            if player(&w, 1).holding.is_some() {
                let pid = w.player_entity(1).unwrap().id;
                assert_eq!(
                    ev,
                    vec![GameEvent::PickedUp {
                        player: pid,
                        object: m
                    }]
                );
            } else {
                assert!(
                    object(&w, m).durability < full,
                    "{:?} {:?}",
                    object(&w, m),
                    player(&w, 1)
                );
            }
        }
        assert_eq!(ticks, (full / w.config.break_rate).ceil() as u32);
        let p = player(&w, 1);
        assert_eq!((p.holding, p.breaking), (Some(m), None));
        // The held object follows its holder and no longer blocks anyone.
        w.apply(1, Input::Move(Dir::EAST)).unwrap();
        w.step();
        assert_eq!(object(&w, m).pos, player(&w, 1).pos);
        assert!(matches!(object(&w, m).state, ObjectState::Held { .. }));
        // One thing at a time.
        let other = place(&mut w, ObjectKind::Mushroom, true, Vec2::new(12.0, 12.0));
        assert_eq!(
            w.apply(1, Input::Break(Some(other))),
            Err(Refused::HandsFull)
        );
    }
}
