//! The end of a round: once it runs, the last player standing wins (or, when the last ones die
//! together, the healthiest of them a moment before); after `max_ticks` the healthiest living
//! player wins.

use super::GameEvent;
use crate::world::{EndReason, Outcome, Phase, PlayerId, World};

impl World {
    pub(super) fn check_over(
        &mut self,
        health_before: &[(PlayerId, u32)],
        events: &mut Vec<GameEvent>,
    ) {
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
    use crate::rules::GameEvent;
    use crate::rules::test_support::empty;
    use crate::world::EndReason;

    #[test]
    fn time_limit_picks_the_healthiest() {
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
    }
}
