//! The server queries of a process of many matches: its totals, the players of every match
//! as each last said, max players the matches times a match's most.

use std::net::{SocketAddr, UdpSocket};

use hopnet::ServerDriver;

use super::MatchHost;
use crate::host::queries::{self, Listing, Queries};

impl<D: ServerDriver> MatchHost<D> {
    /// Answers server queries on the game's own port from now on, with the process's
    /// totals; fails on a carrier without a side channel (then
    /// [`answer_queries_on`](Self::answer_queries_on) a port of their own).
    pub fn answer_queries(&mut self, listing: Listing) -> Result<(), D::Error> {
        self.queries = Some(Queries::on_game_port(&mut self.server, listing)?);
        Ok(())
    }

    /// Answers server queries on `socket` (bound by the caller) from now on, not on the game's
    /// port.
    pub fn answer_queries_on(
        &mut self,
        socket: UdpSocket,
        listing: Listing,
    ) -> Result<(), D::Error> {
        self.queries = Some(Queries::on_socket(&mut self.server, socket, listing)?);
        Ok(())
    }

    /// Where queries are answered, if they are.
    pub fn query_addr(&self) -> Option<SocketAddr> {
        self.queries.as_ref()?.addr(&self.server)
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
