//! A server of many matches ([`MatchHost`]) as [`Matches`]: its players are every match's, its
//! drain is the host's own (no new players or matches, each match ends with its round), and it
//! has a match in play until the host says it is drained.

use hopnet::ServerDriver;

use super::watch::Matches;
use crate::host::MatchHost;

impl<D: ServerDriver> Matches for MatchHost<D> {
    fn placed(&self) -> Vec<String> {
        self.roster()
            .into_iter()
            .map(|entry| entry.player.to_string())
            .collect()
    }

    fn stop_placing(&mut self) {
        self.drain();
    }

    fn in_play(&self) -> bool {
        !self.drained()
    }
}
