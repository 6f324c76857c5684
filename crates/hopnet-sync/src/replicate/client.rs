//! The client side: the copies of the entities in its scope, the states a server may write
//! deltas against, and an update applied whole or not at all.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::fmt;
use std::hash::Hash;

use hopnet_codec::{Decode, DeltaDecode, Encode};

use super::config::ReplicateConfig;
use super::message::Update;
use crate::Tick;

/// Why an update was refused. The update changed nothing; the copies are as before (the
/// [`Replica`]'s example shows one).
#[derive(Debug, Clone, PartialEq)]
pub enum ReplicaError {
    /// The bytes are not an update (or a delta in it does not decode against its baseline).
    Decode(hopnet_codec::Error),
    /// A tick in it is before tick zero (an age larger than the update's tick).
    BadTick,
    /// An entity appears twice in one update.
    Duplicate,
    /// A delta names a baseline the client does not hold.
    UnknownBaseline {
        /// The baseline's tick.
        tick: Tick,
    },
    /// A delta names an entity the client does not have.
    NotSpawned,
    /// The update would take the client past `max_entities`.
    TooManyEntities,
}

impl fmt::Display for ReplicaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplicaError::Decode(e) => write!(f, "the update does not decode: {e}"),
            ReplicaError::BadTick => f.write_str("a tick in the update is before tick zero"),
            ReplicaError::Duplicate => f.write_str("an entity appears twice in the update"),
            ReplicaError::UnknownBaseline { tick } => {
                write!(
                    f,
                    "a delta is against tick {tick}, which the client does not hold"
                )
            }
            ReplicaError::NotSpawned => f.write_str("a delta names an entity never spawned"),
            ReplicaError::TooManyEntities => {
                f.write_str("the update would pass the client's entity limit")
            }
        }
    }
}

impl std::error::Error for ReplicaError {}

/// What an applied update did (the [`Replica`]'s example reads one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied<E> {
    /// The update's tick.
    pub tick: Tick,
    /// Entities that arrived (new copies).
    pub spawned: Vec<E>,
    /// Entities whose copy now shows this update's state.
    pub changed: Vec<E>,
    /// Entities removed.
    pub despawned: Vec<E>,
    /// Parts of the update older than what the client has (a late datagram): kept as
    /// baselines where useful, not shown.
    pub stale: usize,
}

/// One entity's copy.
#[derive(Debug, Clone)]
struct Held<S> {
    /// The stay in scope it belongs to.
    since: Tick,
    /// The tick of the state shown.
    tick: Tick,
    /// States by the tick of the update that carried them: what deltas are written against.
    history: BTreeMap<Tick, S>,
}

/// The client side of replication: applies each update the server's
/// [`Replicator`](super::server::Replicator) sends, keeps a copy of every entity in scope, and the
/// states deltas may be written against.
///
/// Memory is bounded: at most `max_entities` copies and as many despawned ones remembered,
/// each with at most `history + 2` states.
///
/// ```
/// use hopnet_sync::replicate::{Replica, ReplicaError, ReplicateConfig, Spawn, Update};
///
/// let mut client = Replica::<u32, u8>::new(ReplicateConfig::default());
/// let update: Update<u32, u8> = Update {
///     tick: 5,
///     spawns: vec![Spawn { entity: 1, since_age: 0, state: 42 }],
///     changes: vec![],
///     despawns: vec![],
/// };
/// let applied = client.apply(&hopnet_codec::to_bytes(&update).unwrap()).unwrap();
/// assert_eq!(applied.spawned, [1]);
/// assert_eq!(client.get(&1), Some(&42));
/// // Bytes that are no update change nothing.
/// assert!(matches!(client.apply(&[0xff; 3]), Err(ReplicaError::Decode(_))));
/// assert_eq!(client.len(), 1);
/// ```
#[derive(Debug)]
pub struct Replica<E, S> {
    config: ReplicateConfig,
    copies: HashMap<E, Held<S>>,
    /// Despawned entities and the tick of their despawn, so a late datagram does not bring
    /// them back; oldest first in `gone_order`.
    gone: HashMap<E, Tick>,
    gone_order: VecDeque<E>,
    newest: Option<Tick>,
}

/// What the first pass of `apply` decided for one entity.
enum Step<E, S> {
    Spawn(E, Tick, S),
    Change(E, S),
    Despawn(E),
}

impl<E, S> Replica<E, S>
where
    E: Copy + Eq + Hash + Encode + Decode,
    S: DeltaDecode + Encode + Clone,
{
    /// A replica with no entities.
    pub fn new(config: ReplicateConfig) -> Self {
        Replica {
            config,
            copies: HashMap::new(),
            gone: HashMap::new(),
            gone_order: VecDeque::new(),
            newest: None,
        }
    }

    /// The entity's state as the client shows it.
    pub fn get(&self, entity: &E) -> Option<&S> {
        let c = self.copies.get(entity)?;
        c.history.get(&c.tick)
    }

    /// Every entity the client has, and its state.
    pub fn iter(&self) -> impl Iterator<Item = (&E, &S)> {
        self.copies
            .iter()
            .filter_map(|(e, c)| Some((e, c.history.get(&c.tick)?)))
    }

    /// How many entities the client has.
    pub fn len(&self) -> usize {
        self.copies.len()
    }

    /// Whether the client has no entity.
    pub fn is_empty(&self) -> bool {
        self.copies.is_empty()
    }

    /// The states held, all entities together (those shown and those kept for deltas to be
    /// written against): what the replica's memory grows with, bounded by `max_entities`
    /// times `history + 2`.
    pub fn held_states(&self) -> usize {
        self.copies.values().map(|c| c.history.len()).sum()
    }

    /// The tick of the state shown for `entity`.
    pub fn tick_of(&self, entity: &E) -> Option<Tick> {
        self.copies.get(entity).map(|c| c.tick)
    }

    /// Applies an update's bytes, as they arrived (in any order, possibly late): all of it,
    /// or, on an error, none of it.
    pub fn apply(&mut self, bytes: &[u8]) -> Result<Applied<E>, ReplicaError> {
        let update: Update<E, S> = hopnet_codec::from_bytes(bytes).map_err(ReplicaError::Decode)?;
        let tick = update.tick;
        let mut seen = std::collections::HashSet::new();
        let mut steps = Vec::new();
        let mut stale = 0;
        let mut new_copies = 0usize;
        for spawn in update.spawns {
            let since = first_at(&mut seen, spawn.entity, tick, spawn.since_age)?;
            let current = self.copies.get(&spawn.entity);
            let gone = self.gone.get(&spawn.entity).is_some_and(|&d| d >= since);
            if gone || current.is_some_and(|c| c.since > since) {
                stale += 1;
                continue;
            }
            if current.is_none_or(|c| c.since < since) {
                new_copies += 1;
            }
            steps.push(Step::Spawn(spawn.entity, since, spawn.state));
        }
        for change in update.changes {
            let base = first_at(&mut seen, change.entity, tick, change.baseline_age)?;
            let Some(copy) = self.copies.get(&change.entity) else {
                if self.gone.get(&change.entity).is_some_and(|&d| d >= tick) {
                    stale += 1;
                    continue;
                }
                return Err(ReplicaError::NotSpawned);
            };
            if base < copy.since {
                // Against a state of an earlier stay: the update is older than this one.
                stale += 1;
                continue;
            }
            let Some(baseline) = copy.history.get(&base) else {
                let kept_from = self
                    .newest
                    .map_or(0, |n| n.saturating_sub(self.config.history));
                if base < kept_from {
                    // Older than the states kept: a datagram that took longer than the
                    // server waits for its acknowledgement; it will not be a baseline.
                    stale += 1;
                    continue;
                }
                return Err(ReplicaError::UnknownBaseline { tick: base });
            };
            let state = hopnet_codec::delta::from_bytes(baseline, &change.delta)
                .map_err(ReplicaError::Decode)?;
            steps.push(Step::Change(change.entity, state));
        }
        for entity in update.despawns {
            if !seen.insert(entity) {
                return Err(ReplicaError::Duplicate);
            }
            steps.push(Step::Despawn(entity));
        }
        if self.copies.len() + new_copies > self.config.max_entities {
            return Err(ReplicaError::TooManyEntities);
        }

        // Every part checked: now applied.
        let newest = self.newest.map_or(tick, |n| n.max(tick));
        self.newest = Some(newest);
        let mut applied = Applied {
            tick,
            spawned: Vec::new(),
            changed: Vec::new(),
            despawned: Vec::new(),
            stale,
        };
        for step in steps {
            match step {
                Step::Spawn(e, since, state) => {
                    let copy = match self.copies.get_mut(&e) {
                        Some(c) if c.since == since => c,
                        _ => {
                            self.forget_gone(&e);
                            applied.spawned.push(e);
                            self.copies.insert(
                                e,
                                Held {
                                    since,
                                    tick,
                                    history: BTreeMap::new(),
                                },
                            );
                            self.copies.get_mut(&e).expect("inserted just now")
                        }
                    };
                    if record(copy, tick, state) {
                        applied.changed.push(e);
                    } else {
                        applied.stale += 1;
                    }
                    prune(copy, newest, self.config.history);
                }
                Step::Change(e, state) => {
                    let Some(copy) = self.copies.get_mut(&e) else {
                        continue;
                    };
                    if record(copy, tick, state) {
                        applied.changed.push(e);
                    } else {
                        applied.stale += 1;
                    }
                    prune(copy, newest, self.config.history);
                }
                Step::Despawn(e) => {
                    match self.copies.get(&e) {
                        Some(c) if c.since < tick => {
                            self.copies.remove(&e);
                            applied.despawned.push(e);
                        }
                        Some(_) => {
                            applied.stale += 1;
                            continue;
                        }
                        None => {}
                    }
                    self.remember_gone(e, tick);
                }
            }
        }
        Ok(applied)
    }

    fn forget_gone(&mut self, e: &E) {
        if self.gone.remove(e).is_some() {
            self.gone_order.retain(|g| g != e);
        }
    }

    fn remember_gone(&mut self, e: E, tick: Tick) {
        match self.gone.get_mut(&e) {
            Some(d) => *d = (*d).max(tick),
            None => {
                if self.gone_order.len() >= self.config.max_entities
                    && let Some(old) = self.gone_order.pop_front()
                {
                    self.gone.remove(&old);
                }
                self.gone.insert(e, tick);
                self.gone_order.push_back(e);
            }
        }
    }
}

/// The tick `age` ticks before the update's `tick`, for an entity named once in the update:
/// the checks every spawn and change of an update passes.
fn first_at<E: Eq + Hash>(
    seen: &mut std::collections::HashSet<E>,
    entity: E,
    tick: Tick,
    age: u32,
) -> Result<Tick, ReplicaError> {
    if !seen.insert(entity) {
        return Err(ReplicaError::Duplicate);
    }
    tick.checked_sub(age).ok_or(ReplicaError::BadTick)
}

/// Keeps `state` as the entity's state at `tick`; shows it if it is the newest. Returns
/// whether it is shown.
fn record<S>(copy: &mut Held<S>, tick: Tick, state: S) -> bool {
    copy.history.insert(tick, state);
    if tick >= copy.tick || copy.history.len() == 1 {
        copy.tick = tick;
        true
    } else {
        false
    }
}

/// Forgets states no delta can be written against any more: more than `history` ticks
/// behind the newest update (see `baseline.rs` for why that is enough), never the state shown.
fn prune<S>(copy: &mut Held<S>, newest: Tick, history: u32) {
    let kept_from = newest.saturating_sub(history);
    let shown = copy.tick;
    // States are in tick order: only the few at the front can be too old.
    while let Some(t) = copy
        .history
        .range(..kept_from)
        .map(|(t, _)| *t)
        .find(|t| *t != shown)
    {
        copy.history.remove(&t);
    }
}
