//! A delta client's side: the snapshots it received, kept as baselines for the deltas to
//! come, and when to ask for deltas again.
//!
//! Every snapshot it decodes (a full one, or a delta against one it held) is kept, the newest
//! `capacity` of them by tick; a delta names its baseline's tick and is decoded against the
//! snapshot kept for that tick, never another. When that snapshot is not kept (dropped
//! already, or never decoded), the delta is dropped and the client asks for deltas again,
//! which makes the server forget what it believed the client held and send a full snapshot.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use hopnet_snow_fight as wire;

use crate::session::tick_newer;

/// How long after a request for deltas another may follow: deltas already on their way name
/// the same missing baseline.
const REQUEST_AGAIN_AFTER: Duration = Duration::from_millis(250);

#[derive(Debug)]
pub(super) struct Deltas {
    capacity: usize,
    /// Received snapshots by tick, oldest first.
    kept: VecDeque<(u32, wire::Snapshot)>,
    /// A delta named a baseline it does not hold: ask again.
    due: bool,
    /// When it last asked (`None`: not since it joined, or only as part of joining).
    last_request: Option<Instant>,
}

impl Deltas {
    pub(super) fn new(capacity: usize) -> Deltas {
        Deltas {
            capacity,
            kept: VecDeque::new(),
            due: false,
            last_request: None,
        }
    }

    /// Keeps the snapshot of tick `time` as a baseline, dropping the oldest beyond capacity.
    pub(super) fn keep(&mut self, time: u32, snapshot: &wire::Snapshot) {
        if self.kept.iter().any(|(t, _)| *t == time) {
            return;
        }
        // By tick, as ticks wrap: it goes after every kept tick it is newer than (none is
        // the same tick: that returned above).
        let at = self
            .kept
            .iter()
            .rposition(|(t, _)| tick_newer(time, *t))
            .map_or(0, |i| i + 1);
        self.kept.insert(at, (time, snapshot.clone()));
        while self.kept.len() > self.capacity {
            self.kept.pop_front();
        }
    }

    /// The snapshot kept for tick `time`.
    pub(super) fn baseline(&self, time: u32) -> Option<&wire::Snapshot> {
        self.kept.iter().find(|(t, _)| *t == time).map(|(_, s)| s)
    }

    /// A delta could not be decoded against what is kept: ask for deltas again.
    pub(super) fn missing(&mut self) {
        self.due = true;
    }

    /// Whether to ask again now.
    pub(super) fn request_due(&self, now: Instant) -> bool {
        self.due
            && self
                .last_request
                .is_none_or(|t| now.duration_since(t) >= REQUEST_AGAIN_AFTER)
    }

    /// A request went out at `now` (`None`: with `Init`).
    pub(super) fn requested(&mut self, now: Option<Instant>) {
        self.due = false;
        self.last_request = now.or(self.last_request);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snapshot(id: u32) -> wire::Snapshot {
        wire::Snapshot::new(vec![wire::Entity::new(id, wire::EntityKind::Dead)])
    }

    #[test]
    fn the_newest_snapshots_are_kept_by_tick_across_the_wrap() {
        let mut d = Deltas::new(3);
        for t in [u32::MAX - 1, 1, u32::MAX, 0, 1] {
            d.keep(t, &snapshot(t));
        }
        // Four distinct ticks, three kept: the oldest, u32::MAX - 1, went.
        assert!(d.baseline(u32::MAX - 1).is_none());
        for t in [u32::MAX, 0, 1] {
            assert_eq!(d.baseline(t), Some(&snapshot(t)));
        }
    }

    #[test]
    fn a_missing_baseline_asks_again_not_too_often() {
        let mut d = Deltas::new(4);
        let t0 = Instant::now();
        assert!(!d.request_due(t0));
        d.missing();
        assert!(d.request_due(t0));
        d.requested(Some(t0));
        d.missing();
        assert!(!d.request_due(t0 + Duration::from_millis(100)));
        assert!(d.request_due(t0 + REQUEST_AGAIN_AFTER));
    }
}
