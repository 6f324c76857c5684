//! The rules: how players join and leave, how the spec's actions (`Move`, `Break`, `Throw`)
//! change the world, and what one tick does.
//!
//! - `Move` sets the direction a player walks in; every tick it walks `player_speed` that way,
//!   stays inside the world and never walks into a tree, a mushroom or another player (it slides
//!   along them when it can).
//! - `Break` names an object to break. Every tick the player stands within `reach` of it, its
//!   durability falls by `break_rate`; at zero the player holds it. A player holds one thing at a
//!   time.
//! - `Throw` sends the held object flying toward the target point. The first player (other than
//!   the thrower) or grounded object it meets loses the object's damage in health and the thrown
//!   object is destroyed; if it meets nothing it lands at the target and can be broken again.
//! - A player at zero health is dead; an object at zero health is destroyed (it shows as
//!   `Dead` for a second, then leaves the world). Once the round is
//!   running, the last player standing wins; after `max_ticks` the healthiest living player wins.
//!
//! Everything is deterministic: the same seed and the same inputs in the same order give the
//! same world, tick for tick.

use std::fmt;

use crate::world::{
    Dir, EndReason, Entity, EntityId, EntityKind, Object, ObjectKind, ObjectState, Outcome, Phase,
    Player, PlayerId, Vec2, World,
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
    /// Adds `owner`'s player at the next spawn point and returns its entity id. The round starts
    /// once `min_players` have joined. Joining again replaces the old player (it dies).
    pub fn add_player(&mut self, owner: PlayerId) -> (EntityId, Vec<GameEvent>) {
        let mut events = self.remove_player(owner);
        let r = self.config.player_radius;
        let spawns = self.spawn_points();
        let first = self.owners.len();
        let mut pos = None;
        for k in 0..spawns.len() {
            let p = spawns[(first + k) % spawns.len()];
            if self.is_free(p, r, 0.1, None) {
                pos = Some(p);
                break;
            }
        }
        let pos = match pos {
            Some(p) => p,
            None => self.free_spot(r).unwrap_or(spawns[first % spawns.len()]),
        };
        let health = self.config.player_health;
        let id = self.push(EntityKind::Player(Player {
            pos,
            movement: Dir::NONE,
            holding: None,
            breaking: None,
            owner,
            health,
            max_health: health,
        }));
        self.owners.push((id, owner));
        if self.phase == Phase::Waiting && self.living_players().count() >= self.config.min_players
        {
            self.phase = Phase::Running;
            self.started_at = Some(self.tick);
            events.push(GameEvent::Started);
        }
        (id, events)
    }

    /// Removes `owner`'s player (it left): it dies where it stands and drops what it holds. The
    /// win condition sees it at the next tick.
    pub fn remove_player(&mut self, owner: PlayerId) -> Vec<GameEvent> {
        let mut events = Vec::new();
        let ids: Vec<EntityId> = self
            .living_players()
            .filter(|(_, p)| p.owner == owner)
            .map(|(id, _)| id)
            .collect();
        for id in ids {
            self.kill(id, &mut events);
        }
        events
    }

    /// Applies one action of `owner`'s player.
    pub fn apply(&mut self, owner: PlayerId, input: Input) -> Result<(), Refused> {
        if matches!(self.phase, Phase::Over(_)) {
            return Err(Refused::RoundOver);
        }
        let entity = self.player_entity(owner).ok_or(Refused::NotJoined)?;
        let pid = entity.id;
        let player = *entity.player().ok_or(Refused::Dead)?;
        match input {
            Input::Move(dir) => {
                self.player_mut(pid).movement = Dir(dir.bits() & 0x0F);
            }
            Input::Break(None) => self.player_mut(pid).breaking = None,
            Input::Break(Some(target)) => {
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
            }
            Input::Throw(target) => {
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
            }
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

    /// Destroyed objects leave the world one second after they died.
    fn forget_buried(&mut self) {
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

    /// Moves every living player one step, in id order.
    fn walk(&mut self) {
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
    fn clamp(&self, p: Vec2, radius: f32) -> Vec2 {
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

    /// Whether a player at `pos` can reach an object of `kind` at `opos`.
    pub fn in_reach(&self, pos: Vec2, opos: Vec2, kind: ObjectKind) -> bool {
        pos.dist(opos)
            <= self.config.player_radius + self.config.object_radius(kind) + self.config.reach
    }

    fn break_objects(&mut self, events: &mut Vec<GameEvent>) {
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
    fn carry(&mut self) {
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

    fn fly(&mut self, events: &mut Vec<GameEvent>) {
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
            let damage = self.config.damage(o.kind);
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

    /// Players and objects at zero health die.
    fn bury(&mut self, events: &mut Vec<GameEvent>) {
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
    fn kill(&mut self, id: EntityId, events: &mut Vec<GameEvent>) {
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

    /// Grows a mushroom now and then while few breakable objects lie around.
    fn regrow(&mut self, events: &mut Vec<GameEvent>) {
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

    fn check_over(&mut self, health_before: &[(PlayerId, u32)], events: &mut Vec<GameEvent>) {
        let Some(started) = self.started_at else {
            return;
        };
        if self.phase != Phase::Running {
            return;
        }
        let living: Vec<(PlayerId, u32)> = self
            .living_players()
            .map(|(_, p)| (p.owner, p.health))
            .collect();
        let contenders = {
            let mut owners: Vec<PlayerId> = self.owners.iter().map(|(_, o)| *o).collect();
            owners.sort_unstable();
            owners.dedup();
            owners.len()
        };
        let outcome = if living.len() <= 1 && contenders >= 2 {
            let winner = match living.first() {
                Some((owner, _)) => Some(*owner),
                // The last ones died together: the healthiest of them a moment ago wins.
                None => healthiest(health_before),
            };
            Some(Outcome {
                winner,
                reason: EndReason::LastStanding,
                tick: self.tick,
            })
        } else if self.tick.wrapping_sub(started) >= self.config.max_ticks {
            Some(Outcome {
                winner: healthiest(&living),
                reason: EndReason::TimeLimit,
                tick: self.tick,
            })
        } else {
            None
        };
        if let Some(outcome) = outcome {
            self.phase = Phase::Over(outcome);
            events.push(GameEvent::Over(outcome));
        }
    }
}

/// The player with the most health; ties go to the lowest player id.
fn healthiest(players: &[(PlayerId, u32)]) -> Option<PlayerId> {
    players
        .iter()
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
        .map(|(owner, _)| *owner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::Bot;
    use crate::world::{Config, ObjectKind};

    /// A world with no generated objects.
    fn empty(min_players: usize) -> World {
        let config = Config {
            trees: 0,
            mushrooms: 0,
            min_players,
            min_free_breakables: 0,
            ..Config::default()
        };
        World::new(1, config)
    }

    fn place(world: &mut World, kind: ObjectKind, breakable: bool, pos: Vec2) -> EntityId {
        let c = world.config.clone();
        world.push(EntityKind::Object(Object {
            pos,
            kind,
            breakable,
            durability: if breakable { c.durability(kind) } else { 0.0 },
            health: c.object_health(kind),
            max_health: c.object_health(kind),
            state: ObjectState::Ground,
        }))
    }

    fn teleport(world: &mut World, owner: PlayerId, pos: Vec2) {
        let id = world.player_entity(owner).unwrap().id;
        world.player_mut(id).pos = pos;
    }

    fn player(world: &World, owner: PlayerId) -> Player {
        *world
            .player_entity(owner)
            .and_then(Entity::player)
            .expect("alive")
    }

    fn object(world: &World, id: EntityId) -> Object {
        *world.entity(id).and_then(Entity::object).expect("object")
    }

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

    #[test]
    fn round_starts_with_enough_players() {
        let mut w = empty(2);
        let (_, ev) = w.add_player(1);
        assert!(ev.is_empty());
        assert_eq!(w.phase(), Phase::Waiting);
        for _ in 0..10 {
            w.step();
        }
        assert_eq!(w.phase(), Phase::Waiting, "one player alone never wins");
        let (_, ev) = w.add_player(2);
        assert_eq!(ev, vec![GameEvent::Started]);
        assert_eq!(w.phase(), Phase::Running);
        assert_ne!(player(&w, 1).pos, player(&w, 2).pos);
    }

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

    /// Gives `owner` a mushroom to throw.
    fn arm(w: &mut World, owner: PlayerId) -> EntityId {
        let pos = player(w, owner).pos;
        let m = place(w, ObjectKind::Mushroom, true, pos + Vec2::new(0.0, 0.75));
        w.apply(owner, Input::Break(Some(m))).unwrap();
        while player(w, owner).holding.is_none() {
            w.step();
        }
        m
    }

    #[test]
    fn thrown_objects_hit_kill_and_decide_the_round() {
        let mut w = empty(2);
        w.add_player(1);
        w.add_player(2);
        teleport(&mut w, 1, Vec2::new(4.0, 4.0));
        teleport(&mut w, 2, Vec2::new(12.0, 4.0));
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
        let mut w = empty(2);
        w.add_player(1);
        w.add_player(2);
        teleport(&mut w, 1, Vec2::new(4.0, 4.0));
        teleport(&mut w, 2, Vec2::new(20.0, 14.0));
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

    #[test]
    fn time_limit_picks_the_healthiest_and_leaving_loses() {
        let mut w = empty(2);
        w.config.max_ticks = 100;
        w.add_player(1);
        w.add_player(2);
        w.add_player(3);
        let id2 = w.player_entity(2).unwrap().id;
        w.player_mut(id2).health = 40;
        let mut over = None;
        for _ in 0..200 {
            for e in w.step() {
                if let GameEvent::Over(o) = e {
                    over = Some(o);
                }
            }
        }
        let o = over.expect("the time limit ends the round");
        assert_eq!(
            (o.winner, o.reason, o.tick),
            (Some(1), EndReason::TimeLimit, 100)
        );

        let mut w = empty(2);
        w.add_player(1);
        w.add_player(2);
        let m = arm(&mut w, 1);
        let ev = w.remove_player(1);
        assert!(matches!(ev[..], [GameEvent::Died { owner: Some(1), .. }]));
        assert_eq!(object(&w, m).state, ObjectState::Ground, "dropped");
        w.step();
        assert_eq!(w.outcome().map(|o| o.winner), Some(Some(2)));
    }

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
