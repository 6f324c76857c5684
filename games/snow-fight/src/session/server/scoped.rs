//! Scoped updates ([`hopnet_snow_fight::scoped`]), for the clients that ask: hopnet-sync's
//! [`Replicator`] decides, per client, which entities it is sent (those within the view
//! radius of its player), in what order (nearest first, by [`ByDistance`]), how much (the
//! smaller of the server's per-client cap and what the client's congestion controller
//! allows), and how (whole when new to the client, else as a delta against a state it
//! acknowledged). The game only tells it the world, each client's point of view and the
//! transport's acknowledgements; none of those rules is the game's own.
//!
//! The replicator's clock is the server's ticks: a server's time moves a tick at a time, in
//! real time as in the simulator, and a budget per second is counted in the same seconds.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use hopnet::{ConnectionId, Payload, proto::MessageId};
use hopnet_snow_fight as wire;
use hopnet_snow_fight::scoped::{MAX_ENVELOPE_BYTES, ScopedHeader};
use hopnet_sync::replicate::{
    ByDistance, Everywhere, PeerStats, Position, Radius, ReplicateConfig, Replicator,
};
use tracing::warn;

use super::Outgoing;

/// How a server scopes the updates of the clients that ask for them.
///
/// ```
/// use snow_fight::session::{ScopeConfig, ServerConfig};
///
/// let config = ServerConfig {
///     scope: ScopeConfig { view_radius: Some(12.0), client_kbps: Some(64) },
///     ..ServerConfig::default()
/// };
/// assert_eq!(config.scope.client_bytes_per_second(), Some(8_000));
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ScopeConfig {
    /// Entities farther than this from a client's player are not sent to it; `None` (the
    /// default): the whole map, which is what the terminal client shows.
    pub view_radius: Option<f32>,
    /// Each client's budget, in kbit/s (updates with hopnet's header); `None` (the default):
    /// what its congestion controller allows, alone.
    pub client_kbps: Option<u64>,
}

impl ScopeConfig {
    /// The cap in bytes a second.
    pub fn client_bytes_per_second(&self) -> Option<u64> {
        self.client_kbps.map(|k| k.saturating_mul(1000) / 8)
    }
}

/// The scoped clients' side of a server.
pub(super) struct Scoped {
    replicator: Replicator<ConnectionId, wire::EntityId, wire::EntityKind>,
    cap: Option<u64>,
    /// Each scoped client's channel.
    channels: HashMap<ConnectionId, wire::ChannelId>,
    /// Where each entity was last seen: a dead one has no position of its own and stays
    /// where it fell.
    places: HashMap<wire::EntityId, Position>,
    /// The entities the replicator holds.
    present: HashSet<wire::EntityId>,
    /// The instant the server's tick 0 stands for.
    epoch: Instant,
    buf: Vec<u8>,
}

/// Where an entity is, for scope and priority: on the ground plane (a carried or flying
/// object's height is a flag, not a place).
fn place_of(kind: &wire::EntityKind) -> Option<Position> {
    match kind {
        wire::EntityKind::Player(p) => Some([p.position.x, p.position.y, 0.0]),
        wire::EntityKind::Object(o) => Some([o.position.x, o.position.y, 0.0]),
        wire::EntityKind::Dead => None,
    }
}

/// Far outside any radius: a dead entity the server never saw alive (it died before the
/// first scoped client came).
const NOWHERE: Position = [f32::MAX, f32::MAX, 0.0];

impl Scoped {
    pub(super) fn new(config: &super::ServerConfig) -> Scoped {
        let replicate = ReplicateConfig {
            // An update and its envelope in one chunk: a lost datagram loses one update.
            max_update_bytes: hopnet::proto::CHUNK_SIZE - MAX_ENVELOPE_BYTES,
            // The envelope counted against the budget, as the datagram carries it.
            datagram_overhead: MAX_ENVELOPE_BYTES,
            ..ReplicateConfig::default()
        };
        // Half the view, or a third of the map's width: what is near the player first.
        let near = config
            .scope
            .view_radius
            .map_or(config.game.width / 3.0, |r| r / 2.0);
        let replicator = Replicator::new(replicate).with_priority(ByDistance { near });
        let replicator = match config.scope.view_radius {
            Some(r) => replicator.with_spatial(Radius(r)),
            None => replicator.with_spatial(Everywhere),
        };
        Scoped {
            replicator,
            cap: config.scope.client_bytes_per_second(),
            channels: HashMap::new(),
            places: HashMap::new(),
            present: HashSet::new(),
            epoch: Instant::now(),
            buf: Vec::new(),
        }
    }

    /// Whether the client on `connection` asked for scoped updates.
    pub(super) fn has(&self, connection: ConnectionId) -> bool {
        self.channels.contains_key(&connection)
    }

    /// The client asked (again): whatever it held is forgotten, and the updates to come
    /// answer on `channel`.
    pub(super) fn request(&mut self, connection: ConnectionId, channel: wire::ChannelId) {
        self.replicator.remove_client(&connection);
        self.replicator.add_client(connection, NOWHERE, self.cap);
        self.channels.insert(connection, channel);
    }

    /// The client left.
    pub(super) fn remove(&mut self, connection: ConnectionId) {
        self.replicator.remove_client(&connection);
        self.channels.remove(&connection);
    }

    /// The tracked update `id` arrived.
    pub(super) fn acknowledged(&mut self, connection: ConnectionId, id: u64) {
        self.replicator.acknowledged(&connection, MessageId(id));
    }

    /// The tracked update `id` was not acknowledged in time.
    pub(super) fn lost(&mut self, connection: ConnectionId, id: u64) {
        self.replicator.lost(&connection, MessageId(id));
    }

    /// What was sent the client, in total.
    pub(super) fn stats(&self, connection: ConnectionId) -> Option<&PeerStats> {
        self.replicator.stats(&connection)
    }

    /// The world as of tick `time`: every entity's state and place.
    pub(super) fn set_world(&mut self, time: u32, snapshot: &wire::Snapshot) {
        self.replicator.set_tick(time);
        let mut now = HashSet::with_capacity(snapshot.len());
        for e in snapshot {
            let place = match place_of(&e.kind) {
                Some(p) => {
                    self.places.insert(e.id, p);
                    p
                }
                None => self.places.get(&e.id).copied().unwrap_or(NOWHERE),
            };
            self.replicator.set(e.id, e.kind.clone(), place);
            now.insert(e.id);
        }
        for gone in self.present.difference(&now) {
            self.replicator.remove(gone);
            self.places.remove(gone);
        }
        self.present = now;
    }

    /// Sends the client its update of tick `time`, looking from `view` (its player's place;
    /// `None` while it has no player alive: it keeps looking from where it last did).
    /// Returns the bytes sent, if any.
    pub(super) fn send(
        &mut self,
        out: &mut impl Outgoing,
        connection: ConnectionId,
        time: u32,
        tick_rate: u32,
        view: Option<Position>,
    ) -> Option<usize> {
        let channel = *self.channels.get(&connection)?;
        if let Some(view) = view {
            self.replicator.set_view(&connection, view);
        }
        if let Some(stats) = out.stats(connection) {
            self.replicator.set_link(&connection, &stats);
        }
        let now =
            self.epoch + Duration::from_secs_f64(f64::from(time) / f64::from(tick_rate.max(1)));
        let buf = &mut self.buf;
        let mut sent = None;
        self.replicator.send(&connection, now, |update| {
            buf.clear();
            let header = ScopedHeader { channel, time };
            if let Err(error) = header.encode(update, buf) {
                warn!(%error, "cannot encode a scoped update: not sent");
                return None;
            }
            let id = out.send_tracked(connection, &Payload::from(&buf[..]))?;
            sent = Some(buf.len());
            Some(MessageId(id))
        })?;
        sent
    }
}
