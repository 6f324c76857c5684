//! Every tick's snapshot: the world encoded once as a `Snapshot` event and the same bytes sent
//! unreliably to every player (a lost snapshot is made good by the next tick's); every
//! `sample_every`-th one is kept for size statistics.

use game_messages as wire;
use netproto::{ConnectionId, Delivery, Endpoint};

use super::GameServer;
use crate::snapshot::to_snapshot;
use crate::world::PlayerId;

impl GameServer {
    /// Sends the world as it is now to `players`.
    pub(super) fn send_snapshots(
        &mut self,
        endpoint: &mut Endpoint,
        players: &[(ConnectionId, PlayerId)],
    ) {
        let snapshot = to_snapshot(&self.world);
        let entities = snapshot.len() as u64;
        let msg = wire::ServerMessage::snapshot(self.time, snapshot);
        self.buf.clear();
        if rabbit::encode_into(&msg, &mut self.buf).is_ok() {
            self.stats.snapshots_encoded += 1;
            self.stats.snapshot_bytes += self.buf.len() as u64;
            self.stats.snapshot_entities += entities;
            for (c, _) in players {
                self.send_buf(endpoint, *c, Delivery::Unreliable);
                self.stats.snapshots_sent += 1;
            }
        }
        let every = self.config.sample_every;
        if every > 0 && (self.stats.snapshots_encoded - 1).is_multiple_of(every as u64) {
            self.samples.push(msg);
        }
    }
}
