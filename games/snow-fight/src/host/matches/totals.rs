//! The server queries of a process of many matches: its totals, the players of every match
//! as each last said, max players the matches times a match's most.

use std::net::SocketAddr;

use hopnet::ServerDriver;

use super::MatchHost;
use crate::host::queries::{self, Queries, sealed};

/// Where queries are answered: [`AnswerQueries`](crate::host::AnswerQueries)' methods, with
/// the process's totals.
impl<D: ServerDriver> sealed::Host for MatchHost<D> {
    type Driver = D;

    fn query_side(&mut self) -> (&mut D, &mut Option<Queries>) {
        (&mut self.server, &mut self.queries)
    }
}

impl<D: ServerDriver> MatchHost<D> {
    /// Where queries are answered, if they are.
    pub fn query_addr(&self) -> Option<SocketAddr> {
        self.queries.as_ref()?.addr()
    }

    /// Answers the queries that came in since the last turn, with the process's totals.
    pub(super) fn answer_pending_queries(&mut self) -> Result<(), D::Error> {
        let Some(q) = &mut self.queries else {
            return Ok(());
        };
        let game = &self.config.game;
        let max = game.max_players.saturating_mul(self.config.matches);
        let rounds = super::rounds_of(self.rounds_before, &self.slots);
        let secure = self.server.is_secure();
        let matches = self.config.matches;
        q.answer_pending(
            &mut self.server,
            max,
            || queries::players(&super::roster_of(&self.slots), game),
            || {
                let mut rules = queries::rules(game, rounds, secure);
                rules.push(("matches".into(), matches.to_string()));
                rules
            },
        )
    }
}
