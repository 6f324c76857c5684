//! `Move`: a player walks `player_speed` a tick in the direction it was last given, stays inside
//! the world, and never walks into a tree, a mushroom or another player (it slides along them
//! when it can).

use crate::world::{Dir, EntityId, EntityKind, Vec2, World};

impl World {
    /// `Move`: only the four compass bits count; the rest of the byte is dropped.
    pub(super) fn set_movement(&mut self, pid: EntityId, dir: Dir) {
        self.player_mut(pid).movement = Dir(dir.bits() & 0x0F);
    }

    /// Moves every living player one step, in id order.
    pub(super) fn walk(&mut self) {
        for i in 0..self.entities.len() {
            let EntityKind::Player(p) = self.entities[i].kind else {
                continue;
            };
            let step = p.movement.vector() * self.config.player_speed;
            if step == Vec2::ZERO {
                continue;
            }
            let candidates = [
                p.pos + step,
                p.pos + Vec2::new(step.x, 0.0),
                p.pos + Vec2::new(0.0, step.y),
            ];
            let id = self.entities[i].id;
            for c in candidates {
                if c == p.pos {
                    continue;
                }
                let c = self.clamp(c, self.config.player_radius);
                if self.can_stand(id, p.pos, c) {
                    if let EntityKind::Player(p) = &mut self.entities[i].kind {
                        p.pos = c;
                    }
                    break;
                }
            }
        }
    }

    /// Keeps a circle of `radius` inside the world.
    pub(super) fn clamp(&self, p: Vec2, radius: f32) -> Vec2 {
        Vec2::new(
            p.x.clamp(radius, self.config.width - radius),
            p.y.clamp(radius, self.config.height - radius),
        )
    }

    /// Whether player `id` may go from `from` to `to`: it may not enter anything's circle, but
    /// it may always move away from something it already overlaps (say, an object that landed
    /// on it).
    fn can_stand(&self, id: EntityId, from: Vec2, to: Vec2) -> bool {
        let r = self.config.player_radius;
        self.entities.iter().all(|e| {
            if e.id == id {
                return true;
            }
            match self.blocker(e) {
                Some((pos, er)) => {
                    let d = pos.dist(to);
                    d >= r + er || d >= pos.dist(from)
                }
                None => true,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::Input;
    use crate::rules::test_support::{empty, object, place, player, teleport};
    use crate::world::{Dir, ObjectKind, Vec2};

    #[test]
    fn move_walks_speed_per_tick_and_stays_inside() {
        let mut w = empty(1);
        w.add_player(1);
        teleport(&mut w, 1, Vec2::new(5.0, 5.0));
        let speed = w.config.player_speed;
        w.apply(1, Input::Move(Dir::NORTH)).unwrap();
        w.step();
        let p = player(&w, 1);
        assert!((p.pos.y - (5.0 + speed)).abs() < 1e-5 && p.pos.x == 5.0);
        assert_eq!(p.movement, Dir::NORTH);
        // Diagonals are no faster.
        w.apply(1, Input::Move(Dir::NORTH.union(Dir::EAST)))
            .unwrap();
        let before = player(&w, 1).pos;
        w.step();
        assert!((player(&w, 1).pos.dist(before) - speed).abs() < 1e-5);
        // Opposite bits cancel.
        w.apply(1, Input::Move(Dir::NORTH.union(Dir::SOUTH)))
            .unwrap();
        let before = player(&w, 1).pos;
        w.step();
        assert_eq!(player(&w, 1).pos, before);
        // Walls hold.
        w.apply(1, Input::Move(Dir::WEST.union(Dir::SOUTH)))
            .unwrap();
        for _ in 0..2000 {
            w.step();
        }
        let r = w.config.player_radius;
        assert_eq!(player(&w, 1).pos, Vec2::new(r, r));
        w.apply(1, Input::Move(Dir::NONE)).unwrap();
        w.step();
        assert_eq!(player(&w, 1).pos, Vec2::new(r, r));
    }

    #[test]
    fn players_do_not_walk_through_objects_or_players() {
        let mut w = empty(3);
        w.add_player(1);
        w.add_player(2);
        let tree = place(&mut w, ObjectKind::Tree, false, Vec2::new(8.0, 5.0));
        teleport(&mut w, 1, Vec2::new(5.0, 5.0));
        teleport(&mut w, 2, Vec2::new(5.0, 9.0));
        w.apply(1, Input::Move(Dir::EAST)).unwrap();
        w.apply(2, Input::Move(Dir::SOUTH)).unwrap();
        for _ in 0..300 {
            w.step();
        }
        let (p1, p2) = (player(&w, 1), player(&w, 2));
        let min_tree = w.config.player_radius + w.config.object_radius(ObjectKind::Tree);
        assert!(
            p1.pos.dist(object(&w, tree).pos) >= min_tree - 1e-4,
            "{p1:?}"
        );
        assert!(p1.pos.x < 8.0, "stopped in front of the tree");
        assert!(
            p1.pos.dist(p2.pos) >= 2.0 * w.config.player_radius - 1e-4,
            "{p1:?} {p2:?}"
        );
        // Sliding: walking north-east along the tree's side gets past it.
        w.apply(1, Input::Move(Dir::EAST.union(Dir::NORTH)))
            .unwrap();
        w.apply(2, Input::Move(Dir::NONE)).unwrap();
        teleport(&mut w, 2, Vec2::new(1.0, 15.0));
        for _ in 0..120 {
            w.step();
        }
        assert!(player(&w, 1).pos.x > 8.0);
    }
}
