//! The snapshots, on the ticks the snapshot rate picks. A client that did not ask for deltas
//! (every spec client, the original's) gets the spec's `Snapshot` event: encoded once, the
//! same bytes sent unreliably to all of them (a lost snapshot is made good by the next one).
//! A client that asked gets, tracked so that the server learns which arrived, a delta against
//! the newest snapshot it acknowledged ([`hopnet_snow_fight::delta`]), or the full event when it
//! has none in the window. A client that asked for scoped updates gets those instead
//! (`scoped.rs`). Every `sample_every`-th snapshot event is kept for size statistics.

use std::sync::Arc;

use hopnet::{ConnectionId, Payload};
use hopnet_snow_fight as wire;
use hopnet_snow_fight::delta::DeltaHeader;
use tracing::warn;

use super::{GameServer, Outgoing};
use crate::snapshot::to_snapshot;
use crate::world::PlayerId;

impl GameServer {
    /// Whether this tick sends a snapshot: every tick, or as many a second as the snapshot
    /// rate says, spread evenly over the ticks.
    pub(super) fn snapshot_due(&self) -> bool {
        let tick_rate = u64::from(self.config.game.tick_rate.max(1));
        match self.config.snapshot_rate.map(u64::from) {
            Some(rate) if rate < tick_rate => {
                let t = u64::from(self.time);
                (t * rate) / tick_rate != (t.saturating_sub(1) * rate) / tick_rate
            }
            _ => true,
        }
    }

    /// Sends the world as it is now to `players`.
    pub(super) fn send_snapshots(
        &mut self,
        out: &mut impl Outgoing,
        players: &[(ConnectionId, PlayerId)],
    ) {
        let snapshot = to_snapshot(&self.world);
        let entities = snapshot.len() as u64;
        let msg = wire::ServerMessage::snapshot(self.time, snapshot);
        self.buf.clear();
        let encoded = hopnet_codec::encode_into(&msg, &mut self.buf);
        let (scoped, others): (Vec<_>, Vec<_>) = players
            .iter()
            .copied()
            .partition(|(c, _)| self.scoped.has(*c));
        let (full, deltas): (Vec<_>, Vec<_>) = others
            .iter()
            .map(|(c, _)| *c)
            .partition(|c| !self.wants_deltas(*c));
        let Some(payload) = self.count_full(&msg, entities, encoded) else {
            return;
        };
        // Taken back out of the message, not cloned into it: a snapshot is the whole world.
        let wire::ServerMessage::Event(wire::Event {
            kind: wire::EventKind::Snapshot(snapshot),
            ..
        }) = msg
        else {
            return;
        };
        let snapshot = Arc::new(snapshot);
        for c in full {
            if out.send(c, &payload) {
                self.stats.messages_out += 1;
            }
            self.stats.snapshots_sent += 1;
        }
        if !deltas.is_empty() {
            self.send_deltas(out, &deltas, &snapshot, &payload);
            self.history.push(self.time, snapshot.clone());
        }
        if !scoped.is_empty() {
            self.send_scoped(out, &scoped, &snapshot);
        }
        self.last_snapshot = Some((self.time, snapshot));
    }

    /// To each scoped client, tracked: its update of this tick, if it needs one.
    fn send_scoped(
        &mut self,
        out: &mut impl Outgoing,
        clients: &[(ConnectionId, PlayerId)],
        snapshot: &wire::Snapshot,
    ) {
        self.scoped.set_world(self.time, snapshot);
        for &(c, player) in clients {
            let view = snapshot.iter().find_map(|e| match &e.kind {
                wire::EntityKind::Player(p) if p.owner.0 == player => {
                    Some([p.position.x, p.position.y, 0.0])
                }
                _ => None,
            });
            let tick_rate = self.config.game.tick_rate;
            if let Some(bytes) = self.scoped.send(out, c, self.time, tick_rate, view) {
                self.stats.messages_out += 1;
                self.stats.scoped_updates += 1;
                self.stats.scoped_bytes += bytes as u64;
            }
        }
    }

    /// Counts the snapshot event `msg`, whose encoding into `self.buf` gave `encoded`, and
    /// returns its bytes to send. Apart from [`GameServer::send_snapshots`] so that a test can
    /// hand it an encoding that failed: only a world of more than `u32::MAX` entities could
    /// make one fail. `msg` is borrowed so that only a kept sample costs a copy of the world.
    fn count_full(
        &mut self,
        msg: &wire::ServerMessage,
        entities: u64,
        encoded: hopnet_codec::Result<()>,
    ) -> Option<Payload> {
        if let Err(error) = encoded {
            warn!(%error, "cannot encode a snapshot: not sent");
            return None;
        }
        let every = u64::from(self.config.sample_every);
        let sample = every > 0 && self.stats.snapshots_encoded.is_multiple_of(every);
        self.stats.snapshots_encoded += 1;
        self.stats.snapshot_bytes += self.buf.len() as u64;
        self.stats.snapshot_entities += entities;
        if sample {
            self.samples.push(msg.clone());
        }
        // Encoded once, shared: every connection's queue holds the same bytes, not a copy.
        Some(Payload::from(&self.buf[..]))
    }

    /// To each delta client, tracked: the snapshot against its newest acknowledged one, or
    /// `full` (the spec's event) when it has none in the window.
    fn send_deltas(
        &mut self,
        out: &mut impl Outgoing,
        clients: &[ConnectionId],
        snapshot: &wire::Snapshot,
        full: &Payload,
    ) {
        for &c in clients {
            let Some(client) = self.clients.get(&c) else {
                continue;
            };
            let Some(deltas) = &client.deltas else {
                continue;
            };
            let against = deltas
                .baselines
                .base(self.time, &self.history)
                .and_then(|base| Some((base, self.history.get(base)?.clone())));
            let payload = match against {
                Some((base, base_snapshot)) => {
                    let header = DeltaHeader {
                        channel: deltas.channel,
                        time: self.time,
                        base,
                    };
                    self.buf.clear();
                    match header.encode(snapshot, &base_snapshot, &mut self.buf) {
                        Ok(()) => {
                            self.stats.deltas_sent += 1;
                            Payload::from(&self.buf[..])
                        }
                        Err(error) => {
                            warn!(%error, "cannot encode a delta: the full snapshot instead");
                            full.clone()
                        }
                    }
                }
                None => full.clone(),
            };
            self.stats.delta_client_events += 1;
            self.stats.delta_client_bytes += payload.len() as u64;
            self.stats.snapshots_sent += 1;
            if let Some(id) = out.send_tracked(c, &payload) {
                self.stats.messages_out += 1;
                let time = self.time;
                if let Some(d) = self.deltas_of(c) {
                    d.baselines.sent(id, time);
                }
            }
        }
    }

    /// The delta state of the client on `connection`, if it asked for deltas.
    fn deltas_of(&mut self, connection: ConnectionId) -> Option<&mut super::DeltaClient> {
        self.clients
            .get_mut(&connection)
            .and_then(|c| c.deltas.as_mut())
    }

    /// The transport says tracked message `id` on `connection` arrived: its snapshot may be
    /// a baseline.
    pub fn acknowledged(&mut self, connection: ConnectionId, id: u64) {
        if let Some(d) = self.deltas_of(connection) {
            d.baselines.acknowledged(id);
        }
    }

    /// The transport gave up waiting for the acknowledgement of tracked message `id`.
    pub fn lost(&mut self, connection: ConnectionId, id: u64) {
        if let Some(d) = self.deltas_of(connection) {
            d.baselines.lost(id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::ServerConfig;

    /// A server that keeps every snapshot event as a sample.
    fn server() -> GameServer {
        GameServer::new(ServerConfig {
            sample_every: 1,
            ..ServerConfig::default()
        })
    }

    /// The tick's snapshot event, encoded into the server's buffer.
    fn encode(
        server: &mut GameServer,
        time: u32,
    ) -> (wire::ServerMessage, hopnet_codec::Result<()>) {
        let msg = wire::ServerMessage::snapshot(time, to_snapshot(&server.world));
        server.buf.clear();
        let encoded = hopnet_codec::encode_into(&msg, &mut server.buf);
        (msg, encoded)
    }

    #[test]
    fn a_snapshot_that_failed_to_encode_is_neither_sent_nor_counted_nor_sampled() {
        let mut server = server();
        // The first snapshot of all fails: nothing was encoded before it.
        let (msg, _) = encode(&mut server, 1);
        let failed = Err(hopnet_codec::Error::custom("cannot encode"));
        assert!(server.count_full(&msg, 10, failed).is_none());
        let stats = server.stats();
        assert_eq!((stats.snapshots_encoded, stats.snapshot_bytes), (0, 0));
        assert!(server.samples().is_empty(), "a sample is a snapshot sent");

        // The next one encodes: it is counted, and it is the first sample.
        let (msg, encoded) = encode(&mut server, 2);
        assert!(encoded.is_ok());
        let bytes = server.buf.clone();
        let payload = server.count_full(&msg, 10, encoded).unwrap();
        assert_eq!(&payload[..], &bytes[..]);
        let stats = server.stats();
        assert_eq!(
            (stats.snapshots_encoded, stats.snapshot_bytes),
            (1, bytes.len() as u64)
        );
        assert_eq!(server.samples(), &[msg]);
    }

    #[test]
    fn the_snapshot_rate_spreads_snapshots_over_the_ticks() {
        let mut server = GameServer::new(ServerConfig {
            snapshot_rate: Some(20),
            game: crate::Config::for_tick_rate(60),
            ..ServerConfig::default()
        });
        let mut due = Vec::new();
        for t in 1..=12 {
            server.time = t;
            due.push(server.snapshot_due());
        }
        // Every third tick.
        assert_eq!(due.iter().filter(|d| **d).count(), 4);
        assert!(due.chunks(3).all(|c| c.iter().filter(|d| **d).count() == 1));
        server.config.snapshot_rate = Some(60);
        assert!(server.snapshot_due());
        server.config.snapshot_rate = None;
        assert!(server.snapshot_due());
    }
}
