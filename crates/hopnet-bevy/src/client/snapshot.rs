//! A client's side of a snapshot type: the snapshots it received, kept as baselines; the
//! newest handed up; and its request to start again when a delta names a baseline it lacks.

use std::any::type_name;
use std::collections::VecDeque;
use std::time::{Duration, Instant};

use bevy_ecs::prelude::*;
use bevy_time::{Real, Time};
use hopnet::Delivery;

use super::NetClient;
use crate::shared::clock::frame_instant;
use crate::shared::error::{NetworkError, Peer};
use crate::shared::inbox::Inbox;
use crate::shared::messages::Connected;
use crate::shared::protocol::{Direction, Kind, NetworkSnapshot, Protocol};
use crate::shared::snapshot::{ResetRequest, SNAPSHOT_WINDOW, SnapshotFromServer, frame, newer};

/// How long after a request to start again another may follow: the snapshots already on
/// their way name the same missing baseline.
const REQUEST_AGAIN_AFTER: Duration = Duration::from_millis(250);

/// What a client did with one snapshot type's payloads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SnapshotStats {
    /// Snapshots that arrived whole.
    pub whole: u64,
    /// Snapshots that arrived as a delta and decoded against their baseline.
    pub deltas: u64,
    /// Deltas against a baseline the client did not hold (dropped; it asked to start again).
    pub missing_baseline: u64,
    /// Payloads that did not decode (dropped; reported as [`NetworkError`]s).
    pub undecodable: u64,
    /// Snapshots that arrived after a newer one (kept as baselines, not handed up).
    pub stale: u64,
    /// Requests to start again sent.
    pub restarts: u64,
}

/// One snapshot type's state on a client.
#[derive(Resource, Debug)]
pub struct SnapshotClient<S> {
    /// Received snapshots by sequence number, oldest first.
    kept: VecDeque<(u32, S)>,
    /// The newest handed up.
    latest: Option<u32>,
    /// A delta could not be decoded: ask to start again.
    restart_due: bool,
    last_request: Option<Instant>,
    stats: SnapshotStats,
}

impl<S> Default for SnapshotClient<S> {
    fn default() -> Self {
        SnapshotClient {
            kept: VecDeque::new(),
            latest: None,
            restart_due: false,
            last_request: None,
            stats: SnapshotStats::default(),
        }
    }
}

impl<S> SnapshotClient<S> {
    /// What the client did with the snapshots it received.
    pub fn stats(&self) -> &SnapshotStats {
        &self.stats
    }

    /// The newest snapshot received, and its sequence number.
    pub fn latest(&self) -> Option<(u32, &S)> {
        let latest = self.latest?;
        self.baseline(latest).map(|s| (latest, s))
    }

    fn baseline(&self, sequence: u32) -> Option<&S> {
        self.kept
            .iter()
            .find(|(s, _)| *s == sequence)
            .map(|(_, snapshot)| snapshot)
    }

    /// Keeps the snapshot of `sequence` as a baseline, by sequence number, the newest
    /// [`SNAPSHOT_WINDOW`] only.
    fn keep(&mut self, sequence: u32, snapshot: S) {
        if self.baseline(sequence).is_some() {
            return;
        }
        let at = self
            .kept
            .iter()
            .rposition(|(s, _)| newer(sequence, *s))
            .map_or(0, |i| i + 1);
        self.kept.insert(at, (sequence, snapshot));
        while self.kept.len() > SNAPSHOT_WINDOW as usize {
            self.kept.pop_front();
        }
    }
}

/// Decodes this frame's snapshot payloads; hands up the newest.
pub(crate) fn receive<S: NetworkSnapshot>(
    protocol: Res<Protocol>,
    mut state: ResMut<SnapshotClient<S>>,
    mut inbox: ResMut<Inbox<()>>,
    mut connected: MessageReader<Connected>,
    mut snapshots: MessageWriter<SnapshotFromServer<S>>,
    mut errors: MessageWriter<NetworkError>,
) {
    if connected.read().count() > 0 {
        // A new connection: a new server's numbers.
        *state = SnapshotClient::default();
    }
    let Some((tag, _)) = protocol.tag_of::<S>(Direction::ToClients, Kind::Snapshot) else {
        return;
    };
    let mut newest: Option<u32> = None;
    inbox.drain(tag, |_, bytes| {
        let decoded = frame::open(bytes).and_then(|(sequence, base, r)| {
            let base = match base {
                None => None,
                Some(base) => match state.baseline(base) {
                    Some(snapshot) => Some(snapshot),
                    None => return Ok(None),
                },
            };
            let whole = base.is_none();
            frame::decode::<S>(r, base).map(|s| Some((sequence, whole, s)))
        });
        match decoded {
            Ok(Some((sequence, whole, snapshot))) => {
                if whole {
                    state.stats.whole += 1;
                } else {
                    state.stats.deltas += 1;
                }
                state.keep(sequence, snapshot);
                if state.latest.is_none_or(|l| newer(sequence, l))
                    && newest.is_none_or(|n| newer(sequence, n))
                {
                    newest = Some(sequence);
                } else {
                    state.stats.stale += 1;
                }
            }
            Ok(None) => {
                state.stats.missing_baseline += 1;
                state.restart_due = true;
            }
            Err(reason) => {
                state.stats.undecodable += 1;
                state.restart_due = true;
                errors.write(NetworkError::Undecodable {
                    peer: Peer::Server,
                    message: type_name::<S>(),
                    reason,
                });
            }
        }
    });
    if let Some(sequence) = newest {
        state.latest = Some(sequence);
        if let Some(snapshot) = state.baseline(sequence) {
            snapshots.write(SnapshotFromServer {
                sequence,
                snapshot: snapshot.clone(),
            });
        }
    }
}

/// Asks the server to start again from a whole snapshot, when a delta could not be decoded
/// (at most every [`REQUEST_AGAIN_AFTER`]).
pub(crate) fn request_restart<S: NetworkSnapshot>(
    protocol: Res<Protocol>,
    mut client: ResMut<NetClient>,
    mut state: ResMut<SnapshotClient<S>>,
    time: Option<Res<Time<Real>>>,
    mut errors: MessageWriter<NetworkError>,
) {
    let now = frame_instant(time.as_deref());
    let due = state.restart_due
        && state
            .last_request
            .is_none_or(|t| now.saturating_duration_since(t) >= REQUEST_AGAIN_AFTER);
    if !due || !client.is_connected() {
        return;
    }
    let Some((tag, _)) = protocol.tag_of::<S>(Direction::ToServer, Kind::SnapshotReset) else {
        return;
    };
    let client = &mut *client;
    if let Err(reason) = crate::shared::protocol::frame::encode(Some(tag), &(), &mut client.buf) {
        errors.write(NetworkError::Unencodable {
            message: type_name::<ResetRequest<S>>(),
            reason,
        });
        return;
    }
    match client.transport.send(&client.buf, Delivery::Reliable) {
        Ok(()) => {
            state.restart_due = false;
            state.last_request = Some(now);
            state.stats.restarts += 1;
        }
        Err(error) => {
            errors.write(NetworkError::NotSent {
                peer: Peer::Server,
                message: type_name::<ResetRequest<S>>(),
                error,
            });
        }
    }
}
