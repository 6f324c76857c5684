//! Snapshots replicated from the server to its clients as deltas against what each client
//! has acknowledged, as Snow Fight sends its world.
//!
//! A type that derives `Rabbit` with `#[rabbit(delta)]` (so it implements
//! [`DeltaEncode`](hopnet_codec::DeltaEncode) and [`DeltaDecode`](hopnet_codec::DeltaDecode))
//! is registered on both apps with
//! [`add_snapshot`](crate::NetworkApp::add_snapshot). The server writes
//! [`SnapshotToClients<S>`] each time it has a new state (every tick, or at a lower snapshot
//! rate); a client reads [`SnapshotFromServer<S>`], the newest snapshot only (an older one
//! that arrives late is kept for the deltas but not handed up).
//!
//! Underneath, every snapshot gets a sequence number and goes to each client as a
//! [`Delivery::Tracked`](hopnet::Delivery::Tracked) message: sent once, never retransmitted
//! (a newer snapshot replaces a lost one), and its acknowledgement reported to the server. The
//! server writes each snapshot against the newest one the client acknowledged, as long as it
//! is at most [`SNAPSHOT_WINDOW`] snapshots old, and whole otherwise; the client keeps the
//! snapshots it received, the newest [`SNAPSHOT_WINDOW`] of them, as the baselines for the
//! deltas to come. A delta against one it does not hold (a snapshot that did not decode) is
//! dropped, and the client asks the server to start again from a whole snapshot.
//!
//! On the wire, a snapshot's payload is its tag, its sequence number and how many snapshots
//! before it its baseline is (`u32`s; 0: none, the snapshot is whole), then the snapshot or
//! its delta. A client's request to start again is the request's tag alone.

pub(crate) mod frame;

use std::marker::PhantomData;
use std::sync::Arc;

use bevy_ecs::message::Message;
use hopnet::ConnectionId;

use crate::shared::messages::SendTo;

/// How many snapshots back a delta's baseline may be, and how many a client keeps: at 60
/// snapshots a second, about a second, far more than a round trip.
pub const SNAPSHOT_WINDOW: u32 = 64;

/// A snapshot for clients, written on the server; it leaves in the frame's `PostUpdate`,
/// to each client as a delta against what that client has.
#[derive(Debug, Clone, PartialEq)]
pub struct SnapshotToClients<S> {
    /// To whom.
    pub to: SendTo,
    /// The snapshot (kept, shared, as a baseline until the clients have newer ones).
    pub snapshot: Arc<S>,
}

impl<S> SnapshotToClients<S> {
    /// `snapshot` for every connected client.
    pub fn all(snapshot: impl Into<Arc<S>>) -> SnapshotToClients<S> {
        SnapshotToClients {
            to: SendTo::All,
            snapshot: snapshot.into(),
        }
    }

    /// `snapshot` for one client (its own view of the world, say).
    pub fn one(client: ConnectionId, snapshot: impl Into<Arc<S>>) -> SnapshotToClients<S> {
        SnapshotToClients {
            to: SendTo::One(client),
            snapshot: snapshot.into(),
        }
    }
}

impl<S: Send + Sync + 'static> Message for SnapshotToClients<S> {}

/// The newest snapshot from the server, on a client.
#[derive(Debug, Clone, PartialEq)]
pub struct SnapshotFromServer<S> {
    /// Its sequence number: newer snapshots have larger ones (wrapping), with gaps where a
    /// snapshot was lost or went to other clients only.
    pub sequence: u32,
    /// The snapshot.
    pub snapshot: S,
}

impl<S: Send + Sync + 'static> Message for SnapshotFromServer<S> {}

/// A client's request that snapshot type `S` start again from a whole snapshot (its name in
/// error reports on either side; the request itself is a bare tag).
pub(crate) struct ResetRequest<S>(PhantomData<S>);

/// Whether sequence number `a` is newer than `b`, as they wrap: serial-number arithmetic.
pub(crate) fn newer(a: u32, b: u32) -> bool {
    a != b && a.wrapping_sub(b) < 1 << 31
}
