//! A scoped client's side: hopnet-sync's [`Replica`] of the entities in its scope, the
//! snapshot the rest of the client sees built from it, and when to ask again.
//!
//! An update the replica refuses (a delta against a state it does not hold, one that does not
//! decode) was still acknowledged by the transport, so the server believes the client holds
//! it: the client asks for scoped updates again on a fresh channel, which makes the server
//! forget what it believed, and starts a new replica; updates still on their way on the old
//! channel are dropped.
//!
//! A full snapshot after updates came means the server no longer sends this client updates:
//! a server of many matches moved it to another match, which knows nothing of its request
//! and of what it holds. The client asks again there, with a new replica. (A server that never
//! sent one, an older one that does not know the request, is not asked again.)

use std::time::{Duration, Instant};

use hopnet_snow_fight as wire;
use hopnet_sync::replicate::{Applied, Replica, ReplicaError, ReplicateConfig};

/// How long after a request another may follow: updates already on their way fail the same.
const REQUEST_AGAIN_AFTER: Duration = Duration::from_millis(250);

#[derive(Debug)]
pub(super) struct Scoped {
    replica: Replica<wire::EntityId, wire::EntityKind>,
    /// The channel of the last request: updates on another are from before it.
    channel: Option<wire::ChannelId>,
    /// An update was refused, or the server went back to full snapshots: ask again.
    due: bool,
    /// An update on the current channel was applied.
    got_update: bool,
    last_request: Option<Instant>,
}

impl Scoped {
    pub(super) fn new() -> Scoped {
        Scoped {
            replica: Replica::new(ReplicateConfig::default()),
            channel: None,
            due: false,
            got_update: false,
            last_request: None,
        }
    }

    /// A request on `channel` went out at `now` (`None`: with `Init`): everything held
    /// before is forgotten, as the server forgets it.
    pub(super) fn requested(&mut self, channel: u32, now: Option<Instant>) {
        self.replica = Replica::new(ReplicateConfig::default());
        self.channel = Some(wire::ChannelId(channel));
        self.due = false;
        self.got_update = false;
        self.last_request = now.or(self.last_request);
    }

    /// Whether to ask again now.
    pub(super) fn request_due(&self, now: Instant) -> bool {
        self.due
            && self
                .last_request
                .is_none_or(|t| now.duration_since(t) >= REQUEST_AGAIN_AFTER)
    }

    /// Applies an update that came on `channel`: `None` if it answers an older request.
    pub(super) fn apply(
        &mut self,
        channel: wire::ChannelId,
        update: &[u8],
    ) -> Option<Result<Applied<wire::EntityId>, ReplicaError>> {
        if self.channel != Some(channel) {
            return None;
        }
        let applied = self.replica.apply(update);
        match applied {
            Ok(_) => self.got_update = true,
            Err(_) => self.due = true,
        }
        Some(applied)
    }

    /// A full snapshot event came: after updates, the server stopped sending them.
    pub(super) fn full_snapshot(&mut self) {
        if self.got_update {
            self.due = true;
        }
    }

    /// The entities held, as a snapshot (by entity id).
    pub(super) fn snapshot(&self) -> wire::Snapshot {
        let mut entities: Vec<wire::Entity> = self
            .replica
            .iter()
            .map(|(id, kind)| wire::Entity {
                id: *id,
                kind: kind.clone(),
            })
            .collect();
        entities.sort_unstable_by_key(|e| e.id.0);
        wire::Snapshot::new(entities)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn updates_of_an_older_request_are_dropped_and_a_refused_one_asks_again() {
        let mut s = Scoped::new();
        let t0 = Instant::now();
        s.requested(1, None);
        assert!(
            s.apply(wire::ChannelId(2), &[]).is_none(),
            "not our channel"
        );
        // Not an update: refused, and the client asks again, not too often.
        assert!(matches!(s.apply(wire::ChannelId(1), &[0xff]), Some(Err(_))));
        assert!(s.request_due(t0));
        s.requested(3, Some(t0));
        assert!(!s.request_due(t0));
        assert!(
            s.apply(wire::ChannelId(1), &[0xff]).is_none(),
            "the old channel"
        );
        assert!(matches!(s.apply(wire::ChannelId(3), &[0xff]), Some(Err(_))));
        assert!(!s.request_due(t0 + Duration::from_millis(100)));
        assert!(s.request_due(t0 + REQUEST_AGAIN_AFTER));
    }

    #[test]
    fn a_full_snapshot_asks_again_only_after_updates_came() {
        let t0 = Instant::now();
        let mut s = Scoped::new();
        s.requested(1, None);
        // A server that never sent an update (one that does not know the request).
        s.full_snapshot();
        assert!(!s.request_due(t0));
        // One that did, then went back to full snapshots (another match).
        let empty = hopnet_sync::replicate::Update::<wire::EntityId, wire::EntityKind> {
            tick: 5,
            spawns: vec![],
            changes: vec![],
            despawns: vec![],
        };
        let bytes = hopnet_codec::to_bytes(&empty).unwrap();
        assert!(matches!(s.apply(wire::ChannelId(1), &bytes), Some(Ok(_))));
        s.full_snapshot();
        assert!(s.request_due(t0));
        s.requested(2, Some(t0));
        s.full_snapshot();
        assert!(
            !s.request_due(t0 + REQUEST_AGAIN_AFTER),
            "nothing came on the new channel"
        );
    }
}
