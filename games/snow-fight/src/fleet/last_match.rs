//! Today's server as [`Matches`]: one match whose rounds follow each other forever. Drained,
//! it stops after the round in play, so its "last match ended" is the current round's
//! `GameOver`; a server that is waiting for players or between rounds has no match in play
//! and stops at once.

use super::watch::Matches;
use crate::session::GameServer;
use crate::world::Phase;

impl Matches for GameServer {
    fn placed(&self) -> Vec<String> {
        self.connections()
            .into_iter()
            .filter_map(|(_, player)| player.map(|p| p.to_string()))
            .collect()
    }

    fn stop_placing(&mut self) {
        GameServer::stop_placing(self);
    }

    fn in_play(&self) -> bool {
        matches!(self.world().phase(), Phase::Running)
    }
}
