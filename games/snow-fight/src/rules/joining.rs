//! Players join and leave: a joining player stands at the next free spawn point, and the round
//! starts once `min_players` have joined (until then nobody is hurt: `throwing.rs`); a player
//! who leaves dies where it stands.

use super::GameEvent;
use crate::world::{Dir, EntityId, EntityKind, Phase, Player, PlayerId, World};

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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::test_support::{arm, empty, object, player};
    use crate::world::ObjectState;

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
    fn leaving_drops_what_it_holds_and_loses() {
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
}
