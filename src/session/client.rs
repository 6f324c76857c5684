//! The spec's client: `Init`, a local state kept from `Connect` and every newer `Snapshot`,
//! pings, and actions.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use game_messages as wire;
use game_messages::Dialect;
use netproto::{Connection, Delivery};
use tracing::{debug, warn};

use crate::rules::Input;
use crate::snapshot::{from_snapshot, to_action};
use crate::world::{Entity, PlayerId};

/// What a client learned from one message.
#[derive(Clone, Debug, PartialEq)]
pub enum ClientEvent {
    /// The server accepted `Init`: this is our player id, and the world is now known.
    Joined(PlayerId),
    /// A newer snapshot replaced the local state.
    Snapshot,
    /// The round ended; `true` if we won.
    GameOver(bool),
    /// A ping came back after this long.
    Pong(Duration),
    /// The server refused a request.
    Error(String),
}

/// Counters of a client, for its status line and the demo's report.
#[derive(Clone, Debug, Default)]
pub struct ClientStats {
    /// `Connect` responses received.
    pub connects: u32,
    /// Snapshots applied.
    pub snapshots: u64,
    /// Snapshot events that never arrived (gaps in their times).
    pub snapshots_lost: u64,
    /// Snapshot events that arrived after a newer one (ignored).
    pub snapshots_stale: u64,
    /// Rounds won.
    pub won: u32,
    /// Rounds lost.
    pub lost: u32,
    /// `Error` responses.
    pub errors: u32,
    /// Messages that did not decode.
    pub undecodable: u32,
    /// Pings sent.
    pub pings: u32,
    /// Round-trip times of the pings answered.
    pub rtts: Vec<Duration>,
}

impl ClientStats {
    /// Snapshots lost as a fraction of those sent (received, lost or late).
    pub fn loss(&self) -> f64 {
        let total = self.snapshots + self.snapshots_lost;
        if total == 0 {
            0.0
        } else {
            self.snapshots_lost as f64 / total as f64
        }
    }

    /// The `q`-quantile (0 to 1) of the round-trip times.
    pub fn rtt_quantile(&self, q: f64) -> Option<Duration> {
        let mut v = self.rtts.clone();
        v.sort_unstable();
        let last = v.len().checked_sub(1)?;
        Some(v[((last as f64) * q).round() as usize])
    }
}

/// The spec's client: `Init`, a local state kept from `Connect` and every newer `Snapshot`,
/// pings, and actions.
///
/// It speaks the spec's [`Dialect`] unless told otherwise ([`GameClient::with_dialect`]).
#[derive(Debug, Default)]
pub struct GameClient {
    dialect: Dialect,
    player: Option<PlayerId>,
    entities: Vec<Entity>,
    latest: Option<u32>,
    next_channel: u32,
    pings: HashMap<u32, Instant>,
    stats: ClientStats,
    buf: Vec<u8>,
}

impl GameClient {
    /// A client that has not joined yet, speaking the spec's dialect.
    pub fn new() -> GameClient {
        GameClient::default()
    }

    /// The same client, encoding its messages in `dialect`: [`Dialect::Original`] to play as the
    /// spec author's own client does (the original server understands nothing else). What a server
    /// sends is the same in both, so only sending changes.
    pub fn with_dialect(mut self, dialect: Dialect) -> GameClient {
        self.dialect = dialect;
        self
    }

    /// The dialect its messages are encoded in.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// Our player id, once joined.
    pub fn player(&self) -> Option<PlayerId> {
        self.player
    }

    /// The world as of the newest snapshot.
    pub fn entities(&self) -> &[Entity] {
        &self.entities
    }

    /// The `time` of the newest snapshot.
    pub fn latest(&self) -> Option<u32> {
        self.latest
    }

    /// Our living player, if any.
    pub fn me(&self) -> Option<&crate::world::Player> {
        let me = self.player?;
        self.entities
            .iter()
            .filter_map(Entity::player)
            .find(|p| p.owner == me)
    }

    /// Counters.
    pub fn stats(&self) -> &ClientStats {
        &self.stats
    }

    fn channel(&mut self) -> u32 {
        self.next_channel = self.next_channel.wrapping_add(1);
        self.next_channel
    }

    fn send(&mut self, conn: &mut Connection, msg: &wire::ClientMessage, delivery: Delivery) {
        self.buf.clear();
        if self.dialect.encode_into(msg, &mut self.buf).is_ok()
            && let Err(e) = conn.send(&self.buf, delivery)
        {
            debug!(error = %e, "send failed");
        }
    }

    /// Sends the `Init` request (reliable).
    pub fn send_init(&mut self, conn: &mut Connection) {
        let ch = self.channel();
        self.send(conn, &wire::ClientMessage::init(ch), Delivery::Reliable);
    }

    /// Sends a `Ping` (unreliable; a lost one is just a missing sample).
    pub fn send_ping(&mut self, conn: &mut Connection, now: Instant) {
        let ch = self.channel();
        self.pings
            .retain(|_, t| now.duration_since(*t) < Duration::from_secs(10));
        self.pings.insert(ch, now);
        self.stats.pings += 1;
        self.send(conn, &wire::ClientMessage::ping(ch), Delivery::Unreliable);
    }

    /// Sends an action (reliable: a lost `Move` would leave the player walking).
    pub fn send_input(&mut self, conn: &mut Connection, input: Input) {
        let msg = wire::ClientMessage::Action(to_action(input));
        self.send(conn, &msg, Delivery::Reliable);
    }

    /// Handles one message from the server.
    pub fn handle(&mut self, bytes: &[u8], now: Instant) -> Option<ClientEvent> {
        let msg = match rabbit::from_bytes::<wire::ServerMessage>(bytes) {
            Ok(m) => m,
            Err(e) => {
                self.stats.undecodable += 1;
                warn!(error = %e, "undecodable message from the server");
                return None;
            }
        };
        match msg {
            wire::ServerMessage::Event(wire::Event { time, kind }) => match kind {
                wire::EventKind::Snapshot(s) => {
                    // The state starts from `Connect`; a snapshot that overtook it is dropped.
                    if self.player.is_none() {
                        self.stats.snapshots_stale += 1;
                        return None;
                    }
                    if let Some(latest) = self.latest {
                        let ahead = time.wrapping_sub(latest);
                        if ahead == 0 || ahead > u32::MAX / 2 {
                            self.stats.snapshots_stale += 1;
                            return None;
                        }
                        self.stats.snapshots_lost += (ahead - 1) as u64;
                    }
                    self.latest = Some(time);
                    self.stats.snapshots += 1;
                    self.entities = from_snapshot(&s);
                    Some(ClientEvent::Snapshot)
                }
                wire::EventKind::GameOver(result) => {
                    let won = result == wire::GameOver::Won;
                    if won {
                        self.stats.won += 1;
                    } else {
                        self.stats.lost += 1;
                    }
                    Some(ClientEvent::GameOver(won))
                }
            },
            wire::ServerMessage::Response(wire::Response { channel, kind }) => match kind {
                wire::ResponseKind::Connect(c) => {
                    self.stats.connects += 1;
                    self.player = Some(c.player.0);
                    self.entities = from_snapshot(&c.snapshot);
                    Some(ClientEvent::Joined(c.player.0))
                }
                wire::ResponseKind::Pong => {
                    let sent = self.pings.remove(&channel.0)?;
                    let rtt = now.duration_since(sent);
                    self.stats.rtts.push(rtt);
                    Some(ClientEvent::Pong(rtt))
                }
                wire::ResponseKind::Error(e) => {
                    self.stats.errors += 1;
                    warn!(error = %e, "the server refused a request");
                    Some(ClientEvent::Error(e.as_str().to_owned()))
                }
            },
        }
    }
}
