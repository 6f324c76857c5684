//! Conversions between the game's own types and the spec's wire types (`hopnet-snow-fight`).
//!
//! The server turns its [`World`] into a [`Snapshot`](wire::Snapshot) every tick; a client turns every snapshot
//! it receives back into a list of [`Entity`] to draw and to feed the bot. The spec's `Object`
//! has no field for "held" or "flying", so the height tells: `z = 0` on the ground, `z = 0.5` in
//! flight, `z = 1` carried. A client also knows an object is carried when a player's `holding`
//! names it.

use hopnet_snow_fight as wire;

use crate::rules::Input;
use crate::world::{Dir, Entity, EntityKind, Object, ObjectKind, ObjectState, Player, Vec2, World};

/// Height of a thrown object in flight.
pub const Z_FLYING: f32 = 0.5;
/// Height of a carried object.
pub const Z_HELD: f32 = 1.0;

/// The spec's snapshot of every entity of `world`, dead ones included (as `Dead`).
pub fn to_snapshot(world: &World) -> wire::Snapshot {
    world.entities().iter().map(to_wire).collect()
}

/// One entity in the spec's types.
pub fn to_wire(e: &Entity) -> wire::Entity {
    let kind = match &e.kind {
        EntityKind::Object(o) => {
            let z = match o.state {
                ObjectState::Ground => 0.0,
                ObjectState::Flying { .. } => Z_FLYING,
                ObjectState::Held { .. } => Z_HELD,
            };
            wire::EntityKind::Object(wire::Object {
                position: wire::Point::new(o.pos.x, o.pos.y, z),
                kind: match o.kind {
                    ObjectKind::Tree => wire::ObjectKind::Tree,
                    ObjectKind::Mushroom => wire::ObjectKind::Mushroom,
                },
                durability: o.breakable.then_some(o.durability),
                health: o.health,
                max_health: o.max_health,
            })
        }
        EntityKind::Player(p) => wire::EntityKind::Player(wire::Player {
            position: wire::Point::new(p.pos.x, p.pos.y, 0.0),
            movement: wire::Direction::from_bits_retain(p.movement.bits()),
            holding: p.holding.map(wire::EntityId),
            breaking: p.breaking.map(wire::EntityId),
            owner: wire::PlayerId(p.owner),
            health: p.health,
            max_health: p.max_health,
        }),
        EntityKind::Dead => wire::EntityKind::Dead,
    };
    wire::Entity {
        id: wire::EntityId(e.id),
        kind,
    }
}

/// A received snapshot in the game's types, as a client sees it: the state of objects comes
/// from their height and from who holds them; a flying object's velocity is unknown (zero).
pub fn from_snapshot(snapshot: &wire::Snapshot) -> Vec<Entity> {
    let holders: Vec<(u32, u32)> = snapshot
        .iter()
        .filter_map(|e| match &e.kind {
            wire::EntityKind::Player(p) => p.holding.map(|h| (h.0, e.id.0)),
            _ => None,
        })
        .collect();
    let mut entities: Vec<Entity> = snapshot
        .iter()
        .map(|e| {
            let kind = match &e.kind {
                wire::EntityKind::Object(o) => {
                    let held_by = holders
                        .iter()
                        .find(|(h, _)| *h == e.id.0)
                        .map(|(_, by)| *by);
                    let state = match held_by {
                        Some(by) => ObjectState::Held { by },
                        None if o.position.z >= (Z_FLYING + Z_HELD) / 2.0 => {
                            ObjectState::Held { by: 0 }
                        }
                        None if o.position.z >= Z_FLYING / 2.0 => ObjectState::Flying {
                            velocity: Vec2::ZERO,
                            remaining: 0.0,
                            thrower: 0,
                        },
                        None => ObjectState::Ground,
                    };
                    EntityKind::Object(Object {
                        pos: Vec2::new(o.position.x, o.position.y),
                        kind: match o.kind {
                            wire::ObjectKind::Tree => ObjectKind::Tree,
                            wire::ObjectKind::Mushroom => ObjectKind::Mushroom,
                        },
                        breakable: o.durability.is_some(),
                        durability: o.durability.unwrap_or(0.0),
                        health: o.health,
                        max_health: o.max_health,
                        state,
                    })
                }
                wire::EntityKind::Player(p) => EntityKind::Player(Player {
                    pos: Vec2::new(p.position.x, p.position.y),
                    movement: Dir(p.movement.bits()),
                    holding: p.holding.map(|h| h.0),
                    breaking: p.breaking.map(|b| b.0),
                    owner: p.owner.0,
                    health: p.health,
                    max_health: p.max_health,
                }),
                wire::EntityKind::Dead => EntityKind::Dead,
            };
            Entity { id: e.id.0, kind }
        })
        .collect();
    entities.sort_by_key(|e| e.id);
    entities
}

/// An input as the spec's `Action`.
pub fn to_action(input: Input) -> wire::Action {
    match input {
        Input::Move(d) => wire::Action::Move(wire::Move {
            direction: wire::Direction::from_bits_retain(d.bits()),
        }),
        Input::Break(target) => wire::Action::Break(wire::Break {
            entity: target.map(wire::EntityId),
        }),
        Input::Throw(p) => wire::Action::Throw(wire::Throw {
            target: wire::Point::new(p.x, p.y, 0.0),
        }),
    }
}

/// The spec's `Action` as an input.
pub fn from_action(action: &wire::Action) -> Input {
    match action {
        wire::Action::Move(m) => Input::Move(Dir(m.direction.bits())),
        wire::Action::Break(b) => Input::Break(b.entity.map(|e| e.0)),
        wire::Action::Throw(t) => Input::Throw(Vec2::new(t.target.x, t.target.y)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::Config;

    #[test]
    fn snapshots_round_trip_through_the_wire_types() {
        let mut w = World::new(3, Config::default());
        w.add_player(1);
        w.add_player(2);
        for _ in 0..5 {
            w.step();
        }
        let snap = to_snapshot(&w);
        assert_eq!(snap.len(), w.entities().len());
        let bytes =
            hopnet_codec::to_bytes(&wire::ServerMessage::snapshot(5, snap.clone())).unwrap();
        let back: wire::ServerMessage = hopnet_codec::from_bytes(&bytes).unwrap();
        let wire::ServerMessage::Event(wire::Event {
            kind: wire::EventKind::Snapshot(s),
            ..
        }) = back
        else {
            panic!("not a snapshot")
        };
        assert_eq!(from_snapshot(&s), w.entities());
    }

    #[test]
    fn actions_round_trip() {
        for input in [
            Input::Move(Dir::NORTH.union(Dir::EAST)),
            Input::Move(Dir::NONE),
            Input::Break(Some(7)),
            Input::Break(None),
            Input::Throw(Vec2::new(3.5, -1.0)),
        ] {
            assert_eq!(from_action(&to_action(input)), input);
        }
    }
}
