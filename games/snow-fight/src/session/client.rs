//! The spec's client: `Init`, a local state kept from `Connect` and every newer `Snapshot`,
//! pings, and actions; and, if it asks, snapshots as deltas ([`GameClient::with_deltas`]) or
//! scoped updates ([`GameClient::with_scoped`]).

mod deltas;
mod move_repair;
mod scoped;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use hopnet::{Delivery, proto::Client};
use hopnet_snow_fight as wire;
use hopnet_snow_fight::Dialect;
use tracing::{debug, warn};

use deltas::Deltas;
use move_repair::MoveRepair;

use crate::rules::Input;
use crate::session::tick_newer;
use crate::snapshot::{from_snapshot, to_action};
use crate::world::{Entity, PlayerId};

/// What a client learned from one message.
#[derive(Clone, Debug, PartialEq)]
pub enum ClientEvent {
    /// The server accepted `Init`: this is our player id, and the world is now known.
    Joined(PlayerId),
    /// A newer snapshot replaced the local state.
    Snapshot,
    /// A delta named a baseline (its tick) that the client does not hold: it was dropped, and
    /// the client will ask for deltas again, which brings a full snapshot.
    BaselineMissing(u32),
    /// The round ended, with our result.
    GameOver(RoundResult),
    /// A ping came back after this long.
    Pong(Duration),
    /// The server refused a request.
    Error(String),
}

/// A round's result as a client heard it: the `time` of its `GameOver` names the round (the
/// server's [`GameServer::round_ends`](crate::session::GameServer::round_ends) lists the same
/// times), so that a result is never read as another round's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoundResult {
    /// The server's time when the round ended.
    pub time: u32,
    /// Whether we won it.
    pub won: bool,
}

/// Counters of a client, for its status line and the demo's report.
#[derive(Clone, Debug, Default)]
pub struct ClientStats {
    /// `Connect` responses received.
    pub connects: u32,
    /// Snapshots applied.
    pub snapshots: u64,
    /// Snapshot events that never arrived (gaps in their times larger than the smallest;
    /// not counted for scoped updates, which have no fixed rate: their losses are the
    /// transport's to count).
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
    /// Snapshot events received (full or deltas), and their bytes.
    pub snapshot_events: u64,
    pub snapshot_event_bytes: u64,
    /// Deltas decoded.
    pub deltas: u64,
    /// Deltas whose baseline the client did not hold (dropped, and reported).
    pub baselines_missing: u64,
    /// Deltas that did not decode against their baseline.
    pub deltas_undecodable: u64,
    /// Requests for deltas sent: the first, and one after each missing baseline.
    pub delta_requests: u32,
    /// `Move`s sent again because the snapshots kept showing the player walking another way
    /// (an older `Move`, resent after a loss, had overtaken the newer one).
    pub moves_resent: u32,
    /// Scoped updates applied (each makes a snapshot of the entities in scope).
    pub scoped_updates: u64,
    /// Scoped updates refused (a delta against a state not held, bytes that do not decode):
    /// each makes the client ask again.
    pub scoped_refused: u64,
    /// Requests for scoped updates sent: the first, and one after each refused update.
    pub scoped_requests: u32,
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
    /// The smallest gap between the times of two snapshots applied one after the other.
    step: Option<u32>,
    /// The newest snapshot applied, as it came.
    current: Option<wire::Snapshot>,
    /// Set by [`GameClient::with_deltas`].
    deltas: Option<Deltas>,
    /// Set by [`GameClient::with_scoped`].
    scoped: Option<scoped::Scoped>,
    next_channel: u32,
    pings: HashMap<u32, Instant>,
    /// The direction sent last, sent again when the server walks another.
    moves: MoveRepair,
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

    /// How many of the snapshots it received a client that asked for deltas keeps as
    /// baselines (the newest ones). A server's `delta_window` of at most this many ticks never
    /// writes a delta against one it dropped.
    pub const BASELINES: usize = 64;

    /// The same client, asking for snapshots as deltas right after its `Init`
    /// ([`hopnet_snow_fight::delta`]). The original dialect has no such request: a client of it
    /// asks for nothing and gets full snapshots.
    pub fn with_deltas(mut self) -> GameClient {
        self.deltas = Some(Deltas::new(GameClient::BASELINES));
        self
    }

    /// Whether it asked for deltas.
    pub fn wants_deltas(&self) -> bool {
        self.deltas.is_some()
    }

    /// The same client, asking for scoped updates right after its `Init`
    /// ([`hopnet_snow_fight::scoped`]) in place of snapshots, and of deltas if it asked for
    /// those: the entities near its player, nearest first, as the server's view radius and
    /// byte budget allow. Its [`entities`](Self::entities) and
    /// [`snapshot`](Self::snapshot) are those it holds, built from hopnet-sync's `Replica`.
    /// The original dialect has no such request: a client of it gets full snapshots.
    ///
    /// ```
    /// use snow_fight::session::GameClient;
    ///
    /// let client = GameClient::new().with_scoped();
    /// assert!(client.wants_scoped() && !client.wants_deltas());
    /// ```
    pub fn with_scoped(mut self) -> GameClient {
        self.deltas = None;
        self.scoped = Some(scoped::Scoped::new());
        self
    }

    /// Whether it asks for scoped updates.
    pub fn wants_scoped(&self) -> bool {
        self.scoped.is_some()
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

    /// The newest snapshot, as it came (decoded against its baseline, for a delta), with its
    /// time.
    pub fn snapshot(&self) -> Option<(u32, &wire::Snapshot)> {
        Some((self.latest?, self.current.as_ref()?))
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

    fn send(&mut self, conn: &mut Client, msg: &wire::ClientMessage, delivery: Delivery) {
        self.buf.clear();
        if self.dialect.encode_into(msg, &mut self.buf).is_ok()
            && let Err(e) = conn.send(&self.buf, delivery)
        {
            debug!(error = %e, "send failed");
        }
    }

    /// Sends the `Init` request (reliable), and the request for deltas or scoped updates if
    /// it asks for them.
    pub fn send_init(&mut self, conn: &mut Client) {
        let ch = self.channel();
        self.send(conn, &wire::ClientMessage::init(ch), Delivery::Reliable);
        let request = match self.scoped_request(None) {
            Some(request) => Some(request),
            None => self.delta_request(None),
        };
        if let Some(request) = request {
            self.send(conn, &request, Delivery::Reliable);
        }
    }

    /// The request for scoped updates (again) on a new channel, unless the client does not
    /// ask for them or its dialect cannot.
    fn scoped_request(&mut self, now: Option<Instant>) -> Option<wire::ClientMessage> {
        if self.dialect == Dialect::Original || self.scoped.is_none() {
            return None;
        }
        let ch = self.channel();
        self.scoped.as_mut()?.requested(ch, now);
        self.stats.scoped_requests += 1;
        Some(wire::ClientMessage::scoped(ch))
    }

    /// The request for deltas (again) on a new channel, unless the client does not ask for
    /// them or its dialect cannot.
    fn delta_request(&mut self, now: Option<Instant>) -> Option<wire::ClientMessage> {
        if self.dialect == Dialect::Original {
            return None;
        }
        self.deltas.as_mut()?.requested(now);
        let ch = self.channel();
        self.stats.delta_requests += 1;
        Some(wire::ClientMessage::deltas(ch))
    }

    /// What the client owes the server besides its actions, to send reliably: after a delta
    /// named a baseline it does not hold, the request for deltas again (at most every 250 ms,
    /// since deltas already on their way name it too). [`GameClient::send_requests`] sends
    /// it.
    pub fn pending_request(&mut self, now: Instant) -> Option<wire::ClientMessage> {
        if self.scoped.as_ref().is_some_and(|s| s.request_due(now)) {
            self.scoped_request(Some(now))
        } else if self.deltas.as_ref().is_some_and(|d| d.request_due(now)) {
            self.delta_request(Some(now))
        } else {
            None
        }
    }

    /// Sends [`GameClient::pending_request`], if any, and the direction sent last again if
    /// the snapshots show the player walking another way for longer than a `Move` takes to
    /// show (an older `Move`, resent after a loss, overtook it). Call it often.
    pub fn send_requests(&mut self, conn: &mut Client, now: Instant) {
        if let Some(request) = self.pending_request(now) {
            self.send(conn, &request, Delivery::Reliable);
        }
        let walking = self.me().map(|p| p.movement);
        let rtt = self.stats.rtts.last().copied();
        if let Some(dir) = self.moves.due(walking, rtt, now) {
            self.stats.moves_resent += 1;
            let msg = wire::ClientMessage::Action(to_action(Input::Move(dir)));
            self.send(conn, &msg, Delivery::Reliable);
        }
    }

    /// Sends a `Ping` (unreliable; a lost one is just a missing sample).
    pub fn send_ping(&mut self, conn: &mut Client, now: Instant) {
        let ch = self.channel();
        self.pings
            .retain(|_, t| now.duration_since(*t) < Duration::from_secs(10));
        self.pings.insert(ch, now);
        self.stats.pings += 1;
        self.send(conn, &wire::ClientMessage::ping(ch), Delivery::Unreliable);
    }

    /// Sends an action (reliable: a lost `Move` would leave the player walking; unordered, see
    /// [`GameClient::send_requests`] for a `Move` overtaken by an older one).
    pub fn send_input(&mut self, conn: &mut Client, input: Input) {
        if let Input::Move(dir) = input {
            self.moves.sent(dir);
        }
        let msg = wire::ClientMessage::Action(to_action(input));
        self.send(conn, &msg, Delivery::Reliable);
    }

    /// Handles one message from the server.
    pub fn handle(&mut self, bytes: &[u8], now: Instant) -> Option<ClientEvent> {
        if self.scoped.is_some() && wire::scoped::ScopedHeader::of(bytes).is_some() {
            return self.scoped_update(bytes);
        }
        if self.deltas.is_some()
            && let Some(header) = wire::delta::DeltaHeader::of(bytes)
        {
            return self.delta(header, bytes);
        }
        let msg = match hopnet_codec::from_bytes::<wire::ServerMessage>(bytes) {
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
                    self.stats.snapshot_events += 1;
                    self.stats.snapshot_event_bytes += bytes.len() as u64;
                    if let Some(deltas) = &mut self.deltas {
                        deltas.keep(time, &s);
                    }
                    if let Some(scoped) = &mut self.scoped {
                        scoped.full_snapshot();
                    }
                    self.apply(time, s)
                }
                wire::EventKind::GameOver(result) => {
                    let won = result == wire::GameOver::Won;
                    if won {
                        self.stats.won += 1;
                    } else {
                        self.stats.lost += 1;
                    }
                    // The world stands still until the next round, which starts everyone
                    // standing: no direction is owed any more.
                    self.moves.forget();
                    Some(ClientEvent::GameOver(RoundResult { time, won }))
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

impl GameClient {
    /// A snapshot delta: decoded against the baseline it names, kept as a baseline in turn,
    /// and applied if it is the newest.
    fn delta(&mut self, header: wire::delta::DeltaHeader, bytes: &[u8]) -> Option<ClientEvent> {
        let deltas = self.deltas.as_mut()?;
        self.stats.snapshot_events += 1;
        self.stats.snapshot_event_bytes += bytes.len() as u64;
        let Some(base) = deltas.baseline(header.base) else {
            self.stats.baselines_missing += 1;
            deltas.missing();
            warn!(
                time = header.time,
                base = header.base,
                "a delta against a snapshot this client does not hold: dropped, deltas asked for again"
            );
            return Some(ClientEvent::BaselineMissing(header.base));
        };
        let snapshot = match wire::delta::decode(bytes, base) {
            Ok((_, snapshot)) => snapshot,
            Err(error) => {
                self.stats.deltas_undecodable += 1;
                deltas.missing();
                warn!(%error, time = header.time, base = header.base, "undecodable delta dropped");
                return None;
            }
        };
        self.stats.deltas += 1;
        deltas.keep(header.time, &snapshot);
        self.apply(header.time, snapshot)
    }

    /// A scoped update: applied to the replica, whose entities become the local state if it
    /// is the newest.
    fn scoped_update(&mut self, bytes: &[u8]) -> Option<ClientEvent> {
        self.stats.snapshot_events += 1;
        self.stats.snapshot_event_bytes += bytes.len() as u64;
        let (header, update) = match wire::scoped::decode(bytes) {
            Ok(decoded) => decoded,
            Err(error) => {
                self.stats.undecodable += 1;
                warn!(%error, "undecodable scoped update from the server");
                return None;
            }
        };
        let scoped = self.scoped.as_mut()?;
        match scoped.apply(header.channel, &update)? {
            Ok(_) => {
                self.stats.scoped_updates += 1;
                let snapshot = scoped.snapshot();
                self.apply(header.time, snapshot)
            }
            Err(error) => {
                self.stats.scoped_refused += 1;
                warn!(%error, time = header.time, "scoped update refused: asking again");
                None
            }
        }
    }

    /// Makes `snapshot`, of tick `time`, the local state if it is newer than the state.
    fn apply(&mut self, time: u32, snapshot: wire::Snapshot) -> Option<ClientEvent> {
        // The state starts from `Connect`; a snapshot that overtook it is dropped.
        if self.player.is_none() {
            self.stats.snapshots_stale += 1;
            return None;
        }
        if let Some(latest) = self.latest {
            if !tick_newer(time, latest) {
                self.stats.snapshots_stale += 1;
                return None;
            }
            let ahead = time.wrapping_sub(latest);
            // Snapshots come every `step` ticks (the server's snapshot rate), the smallest
            // gap seen: a larger one is the snapshots lost in between. Scoped updates come
            // when something in scope changed and the budget allows: a gap is no loss.
            if self.scoped.is_none() {
                let step = self.step.map_or(ahead, |s| s.min(ahead));
                self.step = Some(step);
                self.stats.snapshots_lost += u64::from(ahead / step - 1);
            }
        }
        self.latest = Some(time);
        self.stats.snapshots += 1;
        self.entities = from_snapshot(&snapshot);
        self.current = Some(snapshot);
        Some(ClientEvent::Snapshot)
    }
}
