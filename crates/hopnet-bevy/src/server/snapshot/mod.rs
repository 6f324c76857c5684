//! The server's side of a snapshot type: a sequence number per snapshot, each client's
//! baselines, and each snapshot written once per baseline in use.

mod baselines;
mod tracked;

use std::any::type_name;
use std::collections::HashMap;

use bevy_ecs::prelude::*;
use hopnet::ConnectionId;

use crate::server::NetServer;
use crate::shared::error::{NetworkError, Peer};
use crate::shared::inbox::Inbox;
use crate::shared::messages::{ClientDisconnected, SendTo};
use crate::shared::protocol::{Direction, Kind, NetworkSnapshot, Protocol};
use crate::shared::snapshot::{ResetRequest, SnapshotToClients, frame};
use baselines::Baselines;
pub(crate) use tracked::TrackedReports;

/// One snapshot type's state on the server.
#[derive(Resource, Debug)]
pub(crate) struct SnapshotServer<S> {
    /// The next snapshot's sequence number.
    next: u32,
    clients: HashMap<ConnectionId, Baselines<S>>,
    /// This snapshot's payloads by baseline: clients with the same baseline share one.
    encoded: Vec<(Option<u32>, Vec<u8>)>,
}

impl<S> Default for SnapshotServer<S> {
    fn default() -> Self {
        SnapshotServer {
            next: 1,
            clients: HashMap::new(),
            encoded: Vec::new(),
        }
    }
}

/// Applies this frame's acknowledgements, losses, requests to start again and
/// disconnections to the baselines.
pub(crate) fn receive<S: NetworkSnapshot>(
    protocol: Res<Protocol>,
    tracked: Res<TrackedReports>,
    mut state: ResMut<SnapshotServer<S>>,
    mut inbox: ResMut<Inbox<ConnectionId>>,
    mut disconnected: MessageReader<ClientDisconnected>,
    mut errors: MessageWriter<NetworkError>,
) {
    for &(client, id, acknowledged) in tracked.iter() {
        if let Some(baselines) = state.clients.get_mut(&client) {
            if acknowledged {
                baselines.acknowledged(id);
            } else {
                baselines.lost(id);
            }
        }
    }
    if let Some((tag, _)) = protocol.tag_of::<S>(Direction::ToServer, Kind::SnapshotReset) {
        inbox.drain(tag, |&client, bytes| {
            // The request is its tag alone.
            match crate::shared::protocol::frame::open(bytes, true).and_then(|(_, r)| r.finish()) {
                Ok(()) => {
                    if let Some(baselines) = state.clients.get_mut(&client) {
                        baselines.restart();
                    }
                }
                Err(reason) => {
                    errors.write(NetworkError::Undecodable {
                        peer: Peer::Client(client),
                        message: type_name::<ResetRequest<S>>(),
                        reason,
                    });
                }
            }
        });
    }
    for gone in disconnected.read() {
        state.clients.remove(&gone.client);
    }
}

/// Sends this frame's [`SnapshotToClients<S>`], to each client against its baseline.
pub(crate) fn send<S: NetworkSnapshot>(
    protocol: Res<Protocol>,
    mut server: ResMut<NetServer>,
    mut state: ResMut<SnapshotServer<S>>,
    mut outgoing: MessageReader<SnapshotToClients<S>>,
    mut errors: MessageWriter<NetworkError>,
) {
    let Some((tag, _)) = protocol.tag_of::<S>(Direction::ToClients, Kind::Snapshot) else {
        return;
    };
    let server = &mut *server;
    let state = &mut *state;
    let mut targets = Vec::new();
    for out in outgoing.read() {
        let sequence = state.next;
        state.next = state.next.wrapping_add(1);
        targets.clear();
        match out.to {
            SendTo::One(client) => targets.push(client),
            to => targets.extend(server.clients.keys().copied().filter(|&c| to.includes(c))),
        }
        let mut used = 0;
        for &client in &targets {
            let baselines = state.clients.entry(client).or_default();
            let base = baselines.base(sequence);
            let base_sequence = base.map(|(s, _)| s);
            let at = match state.encoded[..used]
                .iter()
                .position(|(b, _)| *b == base_sequence)
            {
                Some(at) => at,
                None => {
                    if state.encoded.len() == used {
                        state.encoded.push((None, Vec::new()));
                    }
                    let (slot_base, bytes) = &mut state.encoded[used];
                    *slot_base = base_sequence;
                    let base = base.map(|(s, snapshot)| (s, &**snapshot));
                    if let Err(reason) = frame::encode(tag, sequence, &*out.snapshot, base, bytes) {
                        errors.write(NetworkError::Unencodable {
                            message: type_name::<S>(),
                            reason,
                        });
                        continue;
                    }
                    used += 1;
                    used - 1
                }
            };
            match server.transport.send_tracked(client, &state.encoded[at].1) {
                Ok(id) => baselines.sent(id, sequence, out.snapshot.clone()),
                Err(error) => {
                    errors.write(NetworkError::NotSent {
                        peer: Peer::Client(client),
                        message: type_name::<S>(),
                        error,
                    });
                }
            }
        }
    }
}
