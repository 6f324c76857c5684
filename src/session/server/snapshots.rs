//! Every tick's snapshot: the world encoded once as a `Snapshot` event and the same bytes sent
//! unreliably to every player (a lost snapshot is made good by the next tick's); every
//! `sample_every`-th one is kept for size statistics.

use game_messages as wire;
use netproto::{ConnectionId, Delivery, Endpoint, Payload};
use tracing::{debug, warn};

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
        let encoded = rabbit::encode_into(&msg, &mut self.buf);
        self.broadcast(endpoint, players, msg, entities, encoded);
    }

    /// Sends the snapshot event `msg`, whose encoding into `self.buf` gave `encoded`, and counts
    /// it. Apart from [`GameServer::send_snapshots`] so that a test can hand it an encoding that
    /// failed: only a world of more than `u32::MAX` entities could make one fail.
    fn broadcast(
        &mut self,
        endpoint: &mut Endpoint,
        players: &[(ConnectionId, PlayerId)],
        msg: wire::ServerMessage,
        entities: u64,
        encoded: rabbit::Result<()>,
    ) {
        if let Err(error) = encoded {
            warn!(%error, "cannot encode a snapshot: not sent");
            return;
        }
        let every = u64::from(self.config.sample_every);
        let sample = every > 0 && self.stats.snapshots_encoded.is_multiple_of(every);
        self.stats.snapshots_encoded += 1;
        self.stats.snapshot_bytes += self.buf.len() as u64;
        self.stats.snapshot_entities += entities;
        // Encoded once, shared: every connection's queue holds the same bytes, not a copy.
        let payload = Payload::from(&self.buf[..]);
        for (c, _) in players {
            match endpoint.send_payload(*c, &payload, Delivery::Unreliable) {
                Ok(()) => self.stats.messages_out += 1,
                Err(e) => debug!(connection = ?c, error = %e, "send failed"),
            }
            self.stats.snapshots_sent += 1;
        }
        if sample {
            self.samples.push(msg);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::ServerConfig;

    /// A server that keeps every snapshot event as a sample, one client that plays, and the
    /// endpoint it sends through.
    fn server() -> (GameServer, Endpoint, [(ConnectionId, PlayerId); 1]) {
        let server = GameServer::new(ServerConfig {
            sample_every: 1,
            ..ServerConfig::default()
        });
        let endpoint = Endpoint::new(netproto::Config::default());
        (server, endpoint, [(ConnectionId(1), 1)])
    }

    /// The tick's snapshot event, encoded into the server's buffer.
    fn encode(server: &mut GameServer, time: u32) -> (wire::ServerMessage, rabbit::Result<()>) {
        let msg = wire::ServerMessage::snapshot(time, to_snapshot(&server.world));
        server.buf.clear();
        let encoded = rabbit::encode_into(&msg, &mut server.buf);
        (msg, encoded)
    }

    #[test]
    fn a_snapshot_that_failed_to_encode_is_neither_sent_nor_counted_nor_sampled() {
        let (mut server, mut endpoint, players) = server();
        // The first snapshot of all fails: nothing was encoded before it.
        let (msg, _) = encode(&mut server, 1);
        let failed = Err(rabbit::Error::custom("cannot encode"));
        server.broadcast(&mut endpoint, &players, msg, 10, failed);
        let stats = server.stats();
        assert_eq!(
            (
                stats.snapshots_encoded,
                stats.snapshots_sent,
                stats.snapshot_bytes
            ),
            (0, 0, 0)
        );
        assert!(server.samples().is_empty(), "a sample is a snapshot sent");

        // The next one encodes: it is counted, and it is the first sample.
        let (msg, encoded) = encode(&mut server, 2);
        assert!(encoded.is_ok());
        let bytes = server.buf.len() as u64;
        server.broadcast(&mut endpoint, &players, msg.clone(), 10, encoded);
        let stats = server.stats();
        assert_eq!(
            (
                stats.snapshots_encoded,
                stats.snapshots_sent,
                stats.snapshot_bytes
            ),
            (1, 1, bytes)
        );
        assert_eq!(server.samples(), &[msg]);
    }
}
