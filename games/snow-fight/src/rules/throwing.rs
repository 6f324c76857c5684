//! `Throw`: the held object flies toward the target point. The first player (other than the
//! thrower) or grounded object it meets loses the object's damage in health and the thrown object
//! is destroyed; if it meets nothing it lands at the target (or at the world's edge) and can be
//! broken again.

use super::{GameEvent, Refused};
use crate::world::{EntityId, EntityKind, ObjectState, Phase, Player, Vec2, World};

impl World {
    /// `Throw`: the held object leaves the player's hands, flying, or dropped at its feet when
    /// the target is where it stands.
    pub(super) fn throw(
        &mut self,
        pid: EntityId,
        player: &Player,
        target: Vec2,
    ) -> Result<(), Refused> {
        let held = player.holding.ok_or(Refused::NothingHeld)?;
        self.player_mut(pid).holding = None;
        let delta = target - player.pos;
        let distance = delta.len().min(self.config.max_throw);
        let speed = self.config.projectile_speed;
        let kind = self.object_mut(held).kind;
        let full = self.config.durability(kind);
        let o = self.object_mut(held);
        o.pos = player.pos;
        if distance < 0.05 {
            o.state = ObjectState::Ground;
            o.durability = full;
        } else {
            o.state = ObjectState::Flying {
                velocity: delta.normalized() * speed,
                remaining: distance,
                thrower: pid,
            };
        }
        Ok(())
    }

    pub(super) fn fly(&mut self, events: &mut Vec<GameEvent>) {
        for i in 0..self.entities.len() {
            let id = self.entities[i].id;
            let EntityKind::Object(o) = self.entities[i].kind else {
                continue;
            };
            let ObjectState::Flying {
                velocity,
                remaining,
                thrower,
            } = o.state
            else {
                continue;
            };
            let radius = self.config.object_radius(o.kind);
            let total = velocity.len().min(remaining);
            // Substeps short enough that nothing is jumped over.
            let n = (total / 0.2).ceil().max(1.0) as u32;
            let dir = velocity.normalized();
            let mut pos = o.pos;
            let mut travelled = 0.0;
            let mut hit = None;
            for k in 1..=n {
                let d = total * k as f32 / n as f32;
                pos = o.pos + dir * d;
                travelled = d;
                hit = self.first_hit(id, thrower, pos, radius);
                let outside = pos.x < 0.0
                    || pos.y < 0.0
                    || pos.x > self.config.width
                    || pos.y > self.config.height;
                if hit.is_some() || outside {
                    break;
                }
            }
            let pos = self.clamp(pos, radius);
            // Nobody is hurt before the round starts: a round that waits for its last players
            // must not lose one of those already there, or it would never start.
            let damage = if self.phase == Phase::Running {
                self.config.damage(o.kind)
            } else {
                0
            };
            let remaining = remaining - travelled;
            if let Some(target) = hit {
                self.entities[i].kind = EntityKind::Dead;
                self.buried.push((id, self.tick));
                self.damage(target, damage);
                events.push(GameEvent::Hit {
                    object: id,
                    target,
                    damage,
                });
                events.push(GameEvent::Died {
                    entity: id,
                    owner: None,
                });
            } else {
                let full = self.config.durability(o.kind);
                let landed = remaining <= 1e-4
                    || pos.x <= radius
                    || pos.y <= radius
                    || pos.x >= self.config.width - radius
                    || pos.y >= self.config.height - radius;
                let o = self.object_mut(id);
                o.pos = pos;
                if landed {
                    o.state = ObjectState::Ground;
                    o.durability = full;
                    events.push(GameEvent::Landed { object: id });
                } else {
                    o.state = ObjectState::Flying {
                        velocity,
                        remaining,
                        thrower,
                    };
                }
            }
        }
    }

    /// The first living player (not the thrower) or grounded object a projectile at `pos`
    /// touches, lowest id first.
    fn first_hit(
        &self,
        me: EntityId,
        thrower: EntityId,
        pos: Vec2,
        radius: f32,
    ) -> Option<EntityId> {
        self.entities.iter().find_map(|e| {
            if e.id == me || e.id == thrower {
                return None;
            }
            let (p, r) = self.blocker(e)?;
            (p.dist(pos) < r + radius).then_some(e.id)
        })
    }

    fn damage(&mut self, target: EntityId, damage: u32) {
        let Some(i) = self.index_of(target) else {
            return;
        };
        match &mut self.entities[i].kind {
            EntityKind::Player(p) => p.health = p.health.saturating_sub(damage),
            EntityKind::Object(o) => o.health = o.health.saturating_sub(damage),
            EntityKind::Dead => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::test_support::{arm, duel, empty, object, place, player, teleport};
    use crate::rules::{GameEvent, Input, Refused};
    use crate::world::{Dir, EndReason, EntityKind, ObjectKind, ObjectState, Vec2};

    #[test]
    fn nobody_is_hurt_before_the_round_starts() {
        let mut w = empty(3);
        w.add_player(1);
        w.add_player(2);
        teleport(&mut w, 1, Vec2::new(4.0, 4.0));
        teleport(&mut w, 2, Vec2::new(12.0, 4.0));
        let victim = w.player_entity(2).unwrap().id;
        let mut hits = 0;
        for _ in 0..5 {
            arm(&mut w, 1);
            let target = player(&w, 2).pos;
            w.apply(1, Input::Throw(target)).unwrap();
            for _ in 0..60 {
                for e in w.step() {
                    if let GameEvent::Hit { target, damage, .. } = e {
                        assert_eq!((target, damage), (victim, 0));
                        hits += 1;
                    }
                }
            }
        }
        assert_eq!(hits, 5);
        assert_eq!(player(&w, 2).health, 100, "hit, but not hurt");
        assert_eq!(w.phase(), crate::world::Phase::Waiting);
        w.add_player(3);
        assert_eq!(
            w.phase(),
            crate::world::Phase::Running,
            "it starts with all three"
        );
        assert_eq!(w.living_players().count(), 3);
    }

    #[test]
    fn thrown_objects_hit_kill_and_decide_the_round() {
        let mut w = duel(Vec2::new(4.0, 4.0), Vec2::new(12.0, 4.0));
        assert_eq!(
            w.apply(1, Input::Throw(Vec2::new(12.0, 4.0))),
            Err(Refused::NothingHeld)
        );
        let damage = w.config.damage(ObjectKind::Mushroom);
        let victim = w.player_entity(2).unwrap().id;
        let mut hits = 0;
        while w.outcome().is_none() {
            let m = arm(&mut w, 1);
            let target = player(&w, 2).pos;
            w.apply(1, Input::Throw(target)).unwrap();
            assert!(matches!(object(&w, m).state, ObjectState::Flying { .. }));
            assert_eq!(player(&w, 1).holding, None);
            let mut events = Vec::new();
            for _ in 0..60 {
                events.extend(w.step());
            }
            assert!(
                events.contains(&GameEvent::Hit {
                    object: m,
                    target: victim,
                    damage
                }),
                "{events:?}"
            );
            assert_eq!(
                w.entity(m).unwrap().kind,
                EntityKind::Dead,
                "the thrown object breaks"
            );
            hits += 1;
            if hits < 3 {
                assert_eq!(player(&w, 2).health, 100 - hits * damage);
            }
        }
        assert_eq!(hits, 3);
        assert_eq!(w.entity(victim).unwrap().kind, EntityKind::Dead);
        let outcome = w.outcome().unwrap();
        assert_eq!(
            (outcome.winner, outcome.reason),
            (Some(1), EndReason::LastStanding)
        );
        // Over is over.
        assert_eq!(w.apply(1, Input::Move(Dir::EAST)), Err(Refused::RoundOver));
        let snapshot = w.entities().to_vec();
        assert!(w.step().is_empty());
        assert_eq!(w.entities(), &snapshot[..]);
    }

    #[test]
    fn a_miss_lands_and_can_be_broken_again_and_objects_take_damage() {
        let mut w = duel(Vec2::new(4.0, 4.0), Vec2::new(20.0, 14.0));
        let m = arm(&mut w, 1);
        w.apply(1, Input::Throw(Vec2::new(4.0, 10.0))).unwrap();
        let mut events = Vec::new();
        for _ in 0..30 {
            events.extend(w.step());
        }
        assert!(events.contains(&GameEvent::Landed { object: m }));
        let o = object(&w, m);
        assert_eq!(o.state, ObjectState::Ground);
        assert!(o.pos.dist(Vec2::new(4.0, 10.0)) < 1e-3, "{o:?}");
        assert_eq!(o.durability, w.config.durability(ObjectKind::Mushroom));
        // Now hit a tree instead.
        let tree = place(&mut w, ObjectKind::Tree, false, Vec2::new(8.0, 4.0));
        let m2 = arm(&mut w, 1);
        w.apply(1, Input::Throw(Vec2::new(12.0, 4.0))).unwrap();
        for _ in 0..30 {
            w.step();
        }
        assert_eq!(w.entity(m2).unwrap().kind, EntityKind::Dead);
        let t = object(&w, tree);
        assert_eq!(
            t.health,
            t.max_health - w.config.damage(ObjectKind::Mushroom)
        );
        // A destroyed object shows as Dead for a second, then leaves the world.
        for _ in 0..w.config.tick_rate {
            w.step();
        }
        assert!(w.entity(m2).is_none());
        assert!(w.entity(tree).is_some());
    }
}
