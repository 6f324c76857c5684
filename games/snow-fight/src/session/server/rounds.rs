//! The end of a round and the start of the next: `GameOver` to every player, won or lost, then,
//! after an intermission, a new world from the next seed that everyone still connected plays
//! in again.
//!
//! `GameOver` is sent reliable *and ordered*: a player whose `GameOver` was lost must not hear
//! the next round's first, or it would take that round's result for this one's. The
//! intermission lets the players who leave after a round go before the next one starts, so
//! that the next round does not end around them (a player who leaves dies, and the last one
//! standing wins).

use hopnet::{ConnectionId, Delivery};
use hopnet_snow_fight as wire;
use tracing::info;

use super::{GameServer, Outgoing};
use crate::world::{Outcome, PlayerId, World};

impl GameServer {
    /// Tells every player how the round ended, then starts the next one.
    pub(super) fn end_round(
        &mut self,
        endpoint: &mut impl Outgoing,
        outcome: Outcome,
        players: &[(ConnectionId, PlayerId)],
    ) {
        self.stats.rounds += 1;
        self.outcomes.push(outcome);
        if let Some(winner) = outcome.winner
            && let Some(client) = self.clients.values_mut().find(|c| c.player == Some(winner))
        {
            client.wins += 1;
        }
        info!(round = self.round, winner = ?outcome.winner, reason = ?outcome.reason, ticks = outcome.tick, "round over");
        for &(c, p) in players {
            let result = if outcome.winner == Some(p) {
                wire::GameOver::Won
            } else {
                wire::GameOver::Lost
            };
            let msg = wire::ServerMessage::game_over(self.time, result);
            self.send(endpoint, c, &msg, Delivery::ReliableOrdered);
        }
        self.ended_at.push(self.time);
        let ticks = self
            .config
            .intermission_secs
            .saturating_mul(self.config.game.tick_rate);
        self.next_round_at = Some(self.time.wrapping_add(ticks.max(1)));
    }

    /// Starts the next round with everyone who is connected and joined.
    pub(super) fn new_round(&mut self) {
        self.next_round_at = None;
        self.round += 1;
        self.world = World::new(
            self.config.seed.wrapping_add(self.round as u64),
            self.config.game.clone(),
        );
        let players: Vec<PlayerId> = self.clients.values().filter_map(|c| c.player).collect();
        for p in players {
            let (_, events) = self.world.add_player(p);
            self.log_events(&events);
        }
        info!(round = self.round, players = self.players(), "new round");
    }
}
