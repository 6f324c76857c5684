//! Who plays, as a listing shows them (a server browser's `A2S_PLAYER`): each player with the
//! rounds it won and how long ago it joined, in the server's ticks so that the session stays
//! without clocks.

use super::GameServer;
use crate::world::PlayerId;

/// One player of the game, for listings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RosterEntry {
    /// The player's id (the protocol has no names: a listing calls it "player N").
    pub player: PlayerId,
    /// Rounds it won since it joined: its score.
    pub wins: u32,
    /// Ticks since it joined.
    pub ticks_joined: u32,
}

impl GameServer {
    /// Every player in the game, in the order they joined.
    pub fn roster(&self) -> Vec<RosterEntry> {
        let mut roster: Vec<RosterEntry> = self
            .clients
            .values()
            .filter_map(|c| {
                Some(RosterEntry {
                    player: c.player?,
                    wins: c.wins,
                    ticks_joined: self.time.wrapping_sub(c.joined_at),
                })
            })
            .collect();
        roster.sort_by_key(|e| e.player);
        roster
    }

    /// The server's settings: the most players, players needed to start, and so on.
    pub fn config(&self) -> &super::ServerConfig {
        &self.config
    }
}
