//! Where things are placed: a new round's trees and mushrooms at random free spots away from the
//! spawn points, and joining players at fixed spawn points.

use super::{Config, EntityId, EntityKind, Object, ObjectKind, ObjectState, Phase, Vec2, World};
use crate::rng::Rng;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::Entity;

    #[test]
    fn generation_is_deterministic_and_sane() {
        let a = World::new(42, Config::default());
        let b = World::new(42, Config::default());
        let c = World::new(43, Config::default());
        assert_eq!(a.entities(), b.entities());
        assert_ne!(a.entities(), c.entities());
        let cfg = Config::default();
        assert_eq!(a.entities().len(), cfg.trees + cfg.mushrooms);
        let objects: Vec<&Object> = a.entities().iter().filter_map(Entity::object).collect();
        for (i, o) in objects.iter().enumerate() {
            let r = cfg.object_radius(o.kind);
            assert!(o.pos.x >= r && o.pos.x <= cfg.width - r);
            assert!(o.pos.y >= r && o.pos.y <= cfg.height - r);
            for p in &objects[i + 1..] {
                assert!(o.pos.dist(p.pos) >= r + cfg.object_radius(p.kind));
            }
        }
        let breakable_trees = objects
            .iter()
            .filter(|o| o.kind == ObjectKind::Tree && o.breakable)
            .count();
        assert_eq!(breakable_trees, cfg.breakable_trees);
    }
}
