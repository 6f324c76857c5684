//! `Move`: a player walks `player_speed` a tick in the direction it was last given, stays inside
//! the world, and never walks into a tree, a mushroom or another player (it slides along them
//! when it can).

use crate::world::{Config, Dir, EntityId, EntityKind, Vec2, World};

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
            let id = self.entities[i].id;
            let to = walk_step(&self.config, p.pos, p.movement, |c| {
                self.can_stand(id, p.pos, c)
            });
            if let EntityKind::Player(p) = &mut self.entities[i].kind {
                p.pos = to;
            }
        }
    }

    /// Keeps a circle of `radius` inside the world.
    pub(super) fn clamp(&self, p: Vec2, radius: f32) -> Vec2 {
        clamp_inside(&self.config, p, radius)
    }

    /// Whether player `id` may go from `from` to `to` (see [`may_stand`]).
    fn can_stand(&self, id: EntityId, from: Vec2, to: Vec2) -> bool {
        let blockers = self
            .entities
            .iter()
            .filter(|e| e.id != id)
            .filter_map(|e| self.blocker(e));
        may_stand(self.config.player_radius, blockers, from, to)
    }
}

/// One player's step from `pos` walking `dir`: straight on, else sliding along one axis, else
/// standing, as `can_stand(to)` allows. The server's rule, public so that a client predicting
/// its own player ([`ClientView`](crate::session::ClientView)) walks exactly as the server will.
pub fn walk_step(config: &Config, pos: Vec2, dir: Dir, can_stand: impl Fn(Vec2) -> bool) -> Vec2 {
    let step = Dir(dir.bits() & 0x0F).vector() * config.player_speed;
    if step == Vec2::ZERO {
        return pos;
    }
    let candidates = [
        pos + step,
        pos + Vec2::new(step.x, 0.0),
        pos + Vec2::new(0.0, step.y),
    ];
    for c in candidates {
        if c == pos {
            continue;
        }
        let c = clamp_inside(config, c, config.player_radius);
        if can_stand(c) {
            return c;
        }
    }
    pos
}

/// Keeps a circle of `radius` inside the world.
fn clamp_inside(config: &Config, p: Vec2, radius: f32) -> Vec2 {
    Vec2::new(
        p.x.clamp(radius, config.width - radius),
        p.y.clamp(radius, config.height - radius),
    )
}

/// Whether a player of radius `r` may go from `from` to `to` among `blockers` (circles): it may
/// not enter anything's circle, but it may always move away from something it already overlaps
/// (say, an object that landed on it).
pub fn may_stand(
    r: f32,
    mut blockers: impl Iterator<Item = (Vec2, f32)>,
    from: Vec2,
    to: Vec2,
) -> bool {
    blockers.all(|(pos, er)| {
        let d = pos.dist(to);
        d >= r + er || d >= pos.dist(from)
    })
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
