//! Worlds built by hand for the rules' unit tests.

use crate::rules::Input;
use crate::world::{
    Config, Entity, EntityId, EntityKind, Object, ObjectKind, ObjectState, Player, PlayerId, Vec2,
    World,
};

/// A world with no generated objects.
pub(super) fn empty(min_players: usize) -> World {
    let config = Config {
        trees: 0,
        mushrooms: 0,
        min_players,
        min_free_breakables: 0,
        ..Config::default()
    };
    World::new(1, config)
}

pub(super) fn place(world: &mut World, kind: ObjectKind, breakable: bool, pos: Vec2) -> EntityId {
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

pub(super) fn teleport(world: &mut World, owner: PlayerId, pos: Vec2) {
    let id = world.player_entity(owner).unwrap().id;
    world.player_mut(id).pos = pos;
}

pub(super) fn player(world: &World, owner: PlayerId) -> Player {
    *world
        .player_entity(owner)
        .and_then(Entity::player)
        .expect("alive")
}

pub(super) fn object(world: &World, id: EntityId) -> Object {
    *world.entity(id).and_then(Entity::object).expect("object")
}

/// Gives `owner` a mushroom to throw.
pub(super) fn arm(w: &mut World, owner: PlayerId) -> EntityId {
    let pos = player(w, owner).pos;
    let m = place(w, ObjectKind::Mushroom, true, pos + Vec2::new(0.0, 0.75));
    w.apply(owner, Input::Break(Some(m))).unwrap();
    while player(w, owner).holding.is_none() {
        w.step();
    }
    m
}

/// Two players, 1 at `a` and 2 at `b`, in a running round.
pub(super) fn duel(a: Vec2, b: Vec2) -> World {
    let mut w = empty(2);
    w.add_player(1);
    w.add_player(2);
    teleport(&mut w, 1, a);
    teleport(&mut w, 2, b);
    w
}
