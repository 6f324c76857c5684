//! The server side: the world's entities, each client's scope, priorities, budget and
//! baselines, and the update each client is sent each tick.

use std::collections::{HashMap, VecDeque};
use std::hash::Hash;
use std::time::{Duration, Instant};

use hopnet_codec::{Decode, DeltaDecode, DeltaEncode, Encode};
use hopnet_proto::{MessageId, Stats};

use super::baseline::Record;
use super::budget::{Budget, wire_len};
use super::config::ReplicateConfig;
use super::message::{Change, Spawn, Update};
use super::priority::{ByDistance, Candidate, Priority, clamp_rate};
use super::rooms::{RoomId, Rooms, intersect};
use super::scope::{Everywhere, Position, Spatial, distance_squared};
use crate::Tick;

/// The most bits an update's own fields take (its tick and three counts, each at most a
/// 34-bit `u32`): an update's size is bounded before it is encoded.
const HEADER_BITS: u64 = 4 * 34;

/// One entity's part of an update.
enum Item<E, S> {
    Spawn(Spawn<E, S>),
    Change(Change<E>),
}

/// An entity of the world, as the replicator holds it.
#[derive(Debug, Clone)]
struct Entity<S> {
    state: S,
    position: Position,
}

/// An update sent and not yet acknowledged or lost.
#[derive(Debug, Clone)]
struct InFlight<E, S> {
    id: MessageId,
    tick: Tick,
    /// Entity, stay, state.
    states: Vec<(E, Tick, S)>,
    /// Entity and the stay it left.
    despawns: Vec<(E, Tick)>,
}

/// One client's view of the world.
#[derive(Debug)]
struct Peer<E, S> {
    view: Position,
    cap: Option<u64>,
    link_rate: Option<u64>,
    round_trip: Option<Duration>,
    budget: Budget,
    records: HashMap<E, Record<S>>,
    /// Entities that left the client's scope, with the stay they left and when a despawn of
    /// them last went out, until one is acknowledged.
    leaving: HashMap<E, (Tick, Option<Instant>)>,
    in_flight: VecDeque<InFlight<E, S>>,
    stats: PeerStats,
}

impl<E: Eq + Hash, S: DeltaEncode + Clone> Peer<E, S> {
    /// Takes the update `id` off the in-flight list.
    fn take_in_flight(&mut self, id: MessageId) -> Option<InFlight<E, S>> {
        let at = self.in_flight.iter().position(|f| f.id == id)?;
        self.in_flight.remove(at)
    }

    /// The update may or may not have arrived: none of its states becomes a baseline, and
    /// its despawns go out again.
    fn on_lost(&mut self, update: InFlight<E, S>) {
        self.stats.lost += 1;
        for (e, since) in update.despawns {
            if let Some((s, sent)) = self.leaving.get_mut(&e)
                && *s == since
            {
                *sent = None;
            }
        }
        for (e, since, _) in update.states {
            if let Some(r) = self.records.get_mut(&e)
                && r.since == since
            {
                r.lost(update.tick);
            }
        }
    }
}

/// What the replicator did for one client, in total ([`Replicator::stats`]).
///
/// ```
/// use std::time::Instant;
/// use hopnet_proto::MessageId;
/// use hopnet_sync::replicate::{ReplicateConfig, Replicator};
///
/// let mut server = Replicator::<u8, u32, u8>::new(ReplicateConfig::default());
/// server.add_client(0, [0.0; 3], None);
/// server.set(7, 1, [0.0; 3]);
/// server.send(&0, Instant::now(), |_| Some(MessageId(0)));
/// server.lost(&0, MessageId(0));
/// let stats = server.stats(&0).unwrap();
/// assert_eq!((stats.updates, stats.spawns, stats.lost), (1, 1, 1));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PeerStats {
    /// Updates sent.
    pub updates: u64,
    /// Their bytes, as the transport puts them on the wire (see [`wire_len`]).
    pub wire_bytes: u64,
    /// Entities sent whole.
    pub spawns: u64,
    /// Entities sent as deltas.
    pub changes: u64,
    /// Despawns sent.
    pub despawns: u64,
    /// Entity states a tick's budget left for later.
    pub deferred: u64,
    /// Updates acknowledged.
    pub acked: u64,
    /// Updates reported lost (or pushed out past `max_in_flight`).
    pub lost: u64,
    /// Entity states larger than any update the client can be sent (`max_update_bytes`, or
    /// its budget's capacity): never sent while they stay so large.
    pub oversize: u64,
}

/// What one call of [`Replicator::send`] sent a client (the [`Replicator`]'s example reads
/// one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sent {
    /// The update's tick.
    pub tick: Tick,
    /// Its bytes on the wire.
    pub wire_bytes: usize,
    /// Entities it carried (whole or as deltas).
    pub entities: usize,
    /// Entities the client needed that did not fit this tick.
    pub deferred: usize,
}

/// The server side of replication: the game sets each entity's state and place every tick,
/// and [`send`](Self::send) builds each client's update, tracked.
///
/// `C` names a client (hopnet's `ConnectionId`, or the game's own), `E` an entity (a small
/// Rabbit type: a number), `S` an entity's state (a Rabbit type with `#[rabbit(delta)]`).
///
/// Each tick, for each client: entities in its scope (a shared room, and the spatial rule)
/// that it has not acknowledged, or whose state changed since, grow in priority by the
/// game's rate; the update is filled from the highest priority down, whole for an entity new
/// to the client, as a delta against the newest state it acknowledged otherwise, while its
/// bytes on the wire fit the client's budget. Entities that left the scope are despawned.
/// Nothing is sent for an entity the client has as it is now: a world at rest costs nothing.
///
/// A client in a room of its own sees only that room's entities (the module's docs show a
/// whole exchange):
///
/// ```
/// use std::time::Instant;
/// use hopnet_proto::MessageId;
/// use hopnet_sync::replicate::{ReplicateConfig, Replicator, RoomId};
///
/// let mut server = Replicator::<&str, u32, u8>::new(ReplicateConfig::default());
/// server.add_client("bob", [0.0; 3], None);
/// server.client_leave(&"bob", RoomId::DEFAULT);
/// server.client_join(&"bob", RoomId(3));
/// server.set(1, 10, [0.0; 3]); // in the default room only
/// server.set(2, 20, [0.0; 3]);
/// server.entity_join(2, RoomId(3));
/// assert!(!server.in_scope(&"bob", &1));
/// assert!(server.in_scope(&"bob", &2));
///
/// let sent = server.send(&"bob", Instant::now(), |_| Some(MessageId(0))).unwrap();
/// assert_eq!(sent.entities, 1);
/// ```
#[derive(Debug)]
pub struct Replicator<C, E, S> {
    config: ReplicateConfig,
    tick: Tick,
    entities: HashMap<E, Entity<S>>,
    entity_rooms: Rooms<E>,
    client_rooms: Rooms<C>,
    peers: HashMap<C, Peer<E, S>>,
    spatial: SpatialBox,
    priority: PriorityBox<C, E, S>,
    /// Reused by `send`.
    order: Vec<(f32, E)>,
}

struct SpatialBox(Box<dyn Spatial>);
struct PriorityBox<C, E, S>(Box<dyn Priority<C, E, S>>);

impl std::fmt::Debug for SpatialBox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Spatial")
    }
}
impl<C, E, S> std::fmt::Debug for PriorityBox<C, E, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Priority")
    }
}

impl<C, E, S> Replicator<C, E, S>
where
    C: Clone + Eq + Hash,
    E: Copy + Eq + Hash + Ord + Encode + Decode,
    S: DeltaEncode + DeltaDecode + Clone,
{
    /// A replicator with no spatial rule ([`Everywhere`]) and priority by distance
    /// ([`ByDistance`], `near` 10).
    pub fn new(config: ReplicateConfig) -> Self {
        Replicator {
            config,
            tick: 0,
            entities: HashMap::new(),
            entity_rooms: Rooms::default(),
            client_rooms: Rooms::default(),
            peers: HashMap::new(),
            spatial: SpatialBox(Box::new(Everywhere)),
            priority: PriorityBox(Box::new(ByDistance { near: 10.0 })),
            order: Vec::new(),
        }
    }

    /// The spatial rule of relevance ([`Radius`](super::scope::Radius), [`Grid`](super::scope::Grid) or
    /// the game's).
    pub fn with_spatial(mut self, spatial: impl Spatial + 'static) -> Self {
        self.spatial = SpatialBox(Box::new(spatial));
        self
    }

    /// The rate priorities grow by.
    pub fn with_priority(mut self, priority: impl Priority<C, E, S> + 'static) -> Self {
        self.priority = PriorityBox(Box::new(priority));
        self
    }

    /// The configuration.
    pub fn config(&self) -> &ReplicateConfig {
        &self.config
    }

    /// Adds a client, in [`RoomId::DEFAULT`], looking from `view`, its budget capped at
    /// `cap` bytes per second (`None`: only its link's rate limits it).
    pub fn add_client(&mut self, client: C, view: Position, cap: Option<u64>) {
        self.client_rooms.join(client.clone(), RoomId::DEFAULT);
        self.peers.insert(
            client,
            Peer {
                view,
                cap,
                link_rate: None,
                round_trip: None,
                budget: Budget::new(self.config.carry).with_burst(wire_len(
                    self.config.max_update_bytes,
                    self.config.datagram_overhead,
                ) as u64),
                records: HashMap::new(),
                leaving: HashMap::new(),
                in_flight: VecDeque::new(),
                stats: PeerStats::default(),
            },
        );
    }

    /// Forgets a client (disconnected).
    pub fn remove_client(&mut self, client: &C) {
        self.peers.remove(client);
        self.client_rooms.remove(client);
    }

    /// Moves a client's point of view.
    pub fn set_view(&mut self, client: &C, view: Position) {
        if let Some(p) = self.peers.get_mut(client) {
            p.view = view;
        }
    }

    /// Changes a client's cap, in bytes per second.
    pub fn set_cap(&mut self, client: &C, cap: Option<u64>) {
        if let Some(p) = self.peers.get_mut(client) {
            p.cap = cap;
        }
    }

    /// What the client's link carries, in bytes per second: hopnet's
    /// [`Stats::send_rate`](hopnet_proto::Stats::send_rate) for its connection, given
    /// every tick. The budget is the smaller of this and the cap.
    ///
    /// hopnet measures the round trip from the acknowledgements of reliable messages, and
    /// its congestion window moves with reliable traffic: updates alone (tracked) leave the
    /// figure unset. A game with no other reliable traffic to the client sends a small
    /// reliable message now and then (a clock, a score) for the figure to follow the link.
    pub fn set_link_rate(&mut self, client: &C, rate: Option<u64>) {
        if let Some(p) = self.peers.get_mut(client) {
            p.link_rate = rate;
        }
    }

    /// What hopnet measures of the client's connection, given every tick: its link's rate
    /// ([`Stats::send_rate`], see [`set_link_rate`](Self::set_link_rate)) and its round trip
    /// (how long a state sent waits for its acknowledgement before it is sent again).
    pub fn set_link(&mut self, client: &C, stats: &Stats) {
        if let Some(p) = self.peers.get_mut(client) {
            p.link_rate = stats.send_rate();
            p.round_trip = stats.smoothed_rtt;
        }
    }

    /// Counts `wire_bytes` the game sent `client` at `now` besides its updates (reliable
    /// events, chat: [`wire_len`] of each message) against the client's budget, so that
    /// everything sent stays under it.
    pub fn charge(&mut self, client: &C, now: Instant, wire_bytes: usize) {
        if let Some(p) = self.peers.get_mut(client) {
            let rate = rate_of(p.cap, p.link_rate);
            p.budget.available(now, rate);
            p.budget.spend(now, wire_bytes as u64);
        }
    }

    /// The client's budget now, in bytes per second (`None`: unlimited).
    pub fn budget_of(&self, client: &C) -> Option<u64> {
        self.peers
            .get(client)
            .and_then(|p| rate_of(p.cap, p.link_rate))
    }

    /// What was sent the client, in total.
    pub fn stats(&self, client: &C) -> Option<&PeerStats> {
        self.peers.get(client).map(|p| &p.stats)
    }

    /// Puts a client in a room (it stays in the others).
    pub fn client_join(&mut self, client: &C, room: RoomId) {
        self.client_rooms.join(client.clone(), room);
    }

    /// Takes a client out of a room.
    pub fn client_leave(&mut self, client: &C, room: RoomId) {
        self.client_rooms.leave(client, room);
    }

    /// Puts an entity in a room (it stays in the others).
    pub fn entity_join(&mut self, entity: E, room: RoomId) {
        self.entity_rooms.join(entity, room);
    }

    /// Takes an entity out of a room.
    pub fn entity_leave(&mut self, entity: &E, room: RoomId) {
        self.entity_rooms.leave(entity, room);
    }

    /// Sets an entity's state and place; a new entity joins [`RoomId::DEFAULT`].
    pub fn set(&mut self, entity: E, state: S, position: Position) {
        match self.entities.get_mut(&entity) {
            Some(e) => {
                e.state = state;
                e.position = position;
            }
            None => {
                self.entity_rooms.join(entity, RoomId::DEFAULT);
                self.entities.insert(entity, Entity { state, position });
            }
        }
    }

    /// Removes an entity from the world: clients that have it are sent its despawn.
    pub fn remove(&mut self, entity: &E) {
        self.entities.remove(entity);
        self.entity_rooms.remove(entity);
    }

    /// The server's tick: the states set are this tick's. Call before sending its updates.
    pub fn set_tick(&mut self, tick: Tick) {
        self.tick = tick;
    }

    /// Whether `entity` is in `client`'s scope now, by rooms and the spatial rule.
    pub fn in_scope(&self, client: &C, entity: &E) -> bool {
        let (Some(p), Some(e)) = (self.peers.get(client), self.entities.get(entity)) else {
            return false;
        };
        self.client_rooms.shares(client, &self.entity_rooms, entity)
            && self.spatial.0.in_scope(p.view, e.position)
    }

    /// The client's update of this tick at `now`, handed to `send` (which sends it tracked
    /// and returns its id, or `None` if it could not be sent: nothing is then counted as
    /// sent). Nothing is sent when the client needs nothing.
    ///
    /// Call once per client per tick, after [`set_tick`](Self::set_tick) and the tick's
    /// [`set`](Self::set)s: priorities grow once per call.
    pub fn send(
        &mut self,
        client: &C,
        now: Instant,
        send: impl FnOnce(&[u8]) -> Option<MessageId>,
    ) -> Option<Sent> {
        let tick = self.tick;
        self.update_scope(client);
        let peer = self.peers.get_mut(client)?;
        let rate = rate_of(peer.cap, peer.link_rate);
        let available = peer.budget.available(now, rate);
        let wait = peer
            .round_trip
            .map_or(self.config.resend_after, |rtt| rtt + rtt / 2);

        // Priorities grow for what the client needs; the rest rests at zero.
        self.order.clear();
        for (id, record) in &mut peer.records {
            let Some(entity) = self.entities.get(id) else {
                continue;
            };
            if !record.needs_sending(&entity.state, now, wait) {
                record.priority = 0.0;
                continue;
            }
            let candidate = Candidate {
                entity: id,
                state: &entity.state,
                position: entity.position,
                viewer: peer.view,
                distance: distance_squared(peer.view, entity.position).sqrt(),
                ticks_behind: record.acked.as_ref().map(|(t, _)| tick.saturating_sub(*t)),
            };
            record.priority += clamp_rate(self.priority.0.rate(client, &candidate));
            self.order.push((record.priority, *id));
        }
        // Highest first; ties by entity, so a run is the same every time.
        self.order
            .sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));

        let mut update = Update {
            tick,
            spawns: Vec::new(),
            changes: Vec::new(),
            despawns: Vec::new(),
        };
        let mut bits = HEADER_BITS;
        let overhead = self.config.datagram_overhead;
        let max_bytes = self.config.max_update_bytes;
        let fits_in = |bits: u64, room: u64| {
            let bytes = bits.div_ceil(8) as usize;
            bytes <= max_bytes && wire_len(bytes, overhead) as u64 <= room
        };
        // What an update alone may ever take: an entity larger is never sent.
        let ever = peer.budget.capacity(rate);
        // A despawn in flight is not repeated within a round trip and a half, as states are not.
        let mut leaving: Vec<(E, Tick)> = peer
            .leaving
            .iter()
            .filter(|(_, (_, sent))| sent.is_none_or(|t| now.saturating_duration_since(t) >= wait))
            .map(|(e, (since, _))| (*e, *since))
            .collect();
        leaving.sort_unstable_by_key(|a| a.0);
        let mut despawns = Vec::new();
        for (e, since) in leaving {
            let more = e.encoded_bits();
            if !fits_in(bits + more, available) {
                break;
            }
            bits += more;
            update.despawns.push(e);
            despawns.push((e, since));
        }
        let mut states = Vec::new();
        let mut deferred = 0;
        let max_age = self.config.max_baseline_age;
        for (i, &(_, id)) in self.order.iter().enumerate() {
            let (Some(entity), Some(record)) = (self.entities.get(&id), peer.records.get(&id))
            else {
                continue;
            };
            let baseline = record
                .acked
                .as_ref()
                .filter(|(b, _)| tick.saturating_sub(*b) <= max_age);
            let item = match baseline {
                None => Item::Spawn(Spawn {
                    entity: id,
                    since_age: tick.saturating_sub(record.since),
                    state: entity.state.clone(),
                }),
                Some((b, base)) => {
                    let Ok(delta) = hopnet_codec::delta::to_bytes(&entity.state, base) else {
                        continue;
                    };
                    Item::Change(Change {
                        entity: id,
                        baseline_age: tick.saturating_sub(*b),
                        delta,
                    })
                }
            };
            let more = match &item {
                Item::Spawn(s) => s.encoded_bits(),
                Item::Change(c) => c.encoded_bits(),
            };
            if !fits_in(HEADER_BITS + more, ever) {
                // Larger than any update this client can be sent: skipped, counted, so that
                // it holds up nothing behind it.
                peer.stats.oversize += 1;
                continue;
            }
            if !fits_in(bits + more, available) {
                // The rest waits, its priority kept: the highest goes first next time.
                deferred = self.order.len() - i;
                break;
            }
            match item {
                Item::Spawn(s) => update.spawns.push(s),
                Item::Change(c) => update.changes.push(c),
            }
            bits += more;
            states.push((id, record.since, entity.state.clone()));
        }
        peer.stats.deferred += deferred as u64;
        if states.is_empty() && despawns.is_empty() {
            return None;
        }
        // Cut short by the budget before the budget holds `min_budgeted_update`: wait for a
        // fuller update, so that fewer datagrams' headers share the budget (everything the
        // client needs, however small, goes now). The bucket fills up to `ever`, so the
        // wait ends.
        let batch = (self.config.min_budgeted_update as u64).min(ever);
        if deferred > 0 && available < batch {
            return None;
        }
        let bytes = hopnet_codec::to_bytes(&update).ok()?;
        let wire = wire_len(bytes.len(), self.config.datagram_overhead);
        let id = send(&bytes)?;
        peer.budget.spend(now, wire as u64);
        for (e, _) in &despawns {
            if let Some((_, sent)) = peer.leaving.get_mut(e) {
                *sent = Some(now);
            }
        }
        for (e, _, state) in &states {
            if let Some(r) = peer.records.get_mut(e) {
                r.sent(tick, state, now);
            }
        }
        peer.stats.updates += 1;
        peer.stats.wire_bytes += wire as u64;
        peer.stats.spawns += update.spawns.len() as u64;
        peer.stats.changes += update.changes.len() as u64;
        peer.stats.despawns += update.despawns.len() as u64;
        let entities = states.len();
        if peer.in_flight.len() >= self.config.max_in_flight
            && let Some(old) = peer.in_flight.pop_front()
        {
            peer.on_lost(old);
        }
        peer.in_flight.push_back(InFlight {
            id,
            tick,
            states,
            despawns,
        });
        Some(Sent {
            tick,
            wire_bytes: wire,
            entities,
            deferred,
        })
    }

    /// The tracked update `id` sent `client` was acknowledged (hopnet's
    /// `Event::Acknowledged`): its states become the client's baselines.
    pub fn acknowledged(&mut self, client: &C, id: MessageId) {
        let Some(peer) = self.peers.get_mut(client) else {
            return;
        };
        let Some(update) = peer.take_in_flight(id) else {
            return;
        };
        peer.stats.acked += 1;
        for (e, since, state) in update.states {
            if let Some(r) = peer.records.get_mut(&e)
                && r.since == since
            {
                r.acknowledged(update.tick, state);
            }
        }
        for (e, since) in update.despawns {
            if peer.leaving.get(&e).is_some_and(|(s, _)| *s == since) {
                peer.leaving.remove(&e);
            }
        }
    }

    /// The tracked update `id` sent `client` was reported lost (hopnet's `Event::Lost`):
    /// nothing it carried becomes a baseline; what the client still needs is sent again as
    /// its priority says.
    pub fn lost(&mut self, client: &C, id: MessageId) {
        if let Some(peer) = self.peers.get_mut(client)
            && let Some(update) = peer.take_in_flight(id)
        {
            peer.on_lost(update);
        }
    }

    /// Brings a client's records in line with its scope now: entities entering get a record
    /// (spawned), entities leaving lose it (despawned).
    fn update_scope(&mut self, client: &C) {
        let tick = self.tick;
        let Some(peer) = self.peers.get_mut(client) else {
            return;
        };
        let client_rooms = self.client_rooms.set_of(client);
        for (id, entity) in &self.entities {
            let rooms = client_rooms
                .zip(self.entity_rooms.set_of(id))
                .is_some_and(|(a, b)| intersect(a, b));
            let visible = rooms && self.spatial.0.in_scope(peer.view, entity.position);
            if visible {
                if !peer.records.contains_key(id) {
                    peer.leaving.remove(id);
                    peer.records.insert(*id, Record::new(tick));
                }
            } else if let Some(r) = peer.records.remove(id)
                && r.sent_any
            {
                peer.leaving.insert(*id, (r.since, None));
            }
        }
        let entities = &self.entities;
        let leaving = &mut peer.leaving;
        peer.records.retain(|id, r| {
            let keep = entities.contains_key(id);
            if !keep && r.sent_any {
                leaving.insert(*id, (r.since, None));
            }
            keep
        });
    }
}

/// The smaller of a cap and a link's rate, either of which may be unset.
fn rate_of(cap: Option<u64>, link: Option<u64>) -> Option<u64> {
    match (cap, link) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}
