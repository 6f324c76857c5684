//! What the server knows of the snapshots a delta client holds: the snapshots it sent lately
//! (one history for all clients, by tick) and, per client, which of them the transport says
//! arrived. A delta is written against the newest snapshot the client acknowledged, as long as
//! it is still in the history; otherwise the client gets a full snapshot.
//!
//! The transport reports a tracked message as acknowledged once every chunk of it was, which
//! the client's transport does on receipt: the client holds the snapshot unless it could not
//! decode it (a delta against a baseline it no longer had). Then its next delta names a
//! baseline it lacks; it says so by asking for deltas again, and [`Baselines::restart`]
//! forgets everything acknowledged before, so the next snapshot is full.

use std::collections::VecDeque;
use std::sync::Arc;

use hopnet_snow_fight::Snapshot;

use crate::session::tick_newer;

/// The snapshots sent lately, by tick: those not older than `window` ticks.
#[derive(Debug, Default)]
pub struct History {
    window: u32,
    snapshots: VecDeque<(u32, Arc<Snapshot>)>,
}

impl History {
    /// A history of the last `window` ticks.
    pub fn new(window: u32) -> History {
        History {
            window,
            snapshots: VecDeque::new(),
        }
    }

    /// Keeps the snapshot of tick `time` (the newest) and forgets those now out of the window.
    pub fn push(&mut self, time: u32, snapshot: Arc<Snapshot>) {
        self.snapshots.push_back((time, snapshot));
        while self
            .snapshots
            .front()
            .is_some_and(|(t, _)| !within(*t, time, self.window))
        {
            self.snapshots.pop_front();
        }
    }

    /// The snapshot of tick `time`, if it is still kept.
    pub fn get(&self, time: u32) -> Option<&Arc<Snapshot>> {
        self.snapshots
            .iter()
            .rev()
            .find(|(t, _)| *t == time)
            .map(|(_, s)| s)
    }

    /// How many snapshots are kept.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.snapshots.len()
    }
}

/// Whether tick `then` is at most `window` ticks before `now` (ticks wrap around).
fn within(then: u32, now: u32, window: u32) -> bool {
    now.wrapping_sub(then) <= window
}

/// One delta client's baselines: the tracked snapshot events in flight, and the newest tick it
/// acknowledged. Message ids are the transport's.
#[derive(Debug, Default)]
pub struct Baselines {
    /// (message id, tick), oldest first.
    in_flight: VecDeque<(u64, u32)>,
    /// The newest tick acknowledged since the last restart.
    newest: Option<u32>,
}

/// In-flight messages kept per client: far more than a window of ticks; beyond it the oldest
/// are forgotten (an acknowledgement for one of them is then ignored).
const MAX_IN_FLIGHT: usize = 1024;

impl Baselines {
    /// The snapshot event of tick `time` went out as tracked message `id`.
    pub fn sent(&mut self, id: u64, time: u32) {
        if self.in_flight.len() >= MAX_IN_FLIGHT {
            self.in_flight.pop_front();
        }
        self.in_flight.push_back((id, time));
    }

    /// Message `id` arrived: its tick is a baseline if it is newer than the newest one.
    pub fn acknowledged(&mut self, id: u64) {
        let Some(at) = self.in_flight.iter().position(|(m, _)| *m == id) else {
            return;
        };
        let (_, time) = self.in_flight.remove(at).expect("found");
        let newer = self.newest.is_none_or(|n| tick_newer(time, n));
        if newer {
            self.newest = Some(time);
        }
    }

    /// Message `id` was not acknowledged in time: it may have arrived, but it is no baseline.
    pub fn lost(&mut self, id: u64) {
        self.in_flight.retain(|(m, _)| *m != id);
    }

    /// The client asked for deltas again: whatever it acknowledged before may be gone, and so
    /// may the snapshots in flight.
    pub fn restart(&mut self) {
        self.in_flight.clear();
        self.newest = None;
    }

    /// The tick to write the snapshot of tick `now` against: the newest one acknowledged, if
    /// the history still holds it.
    pub fn base(&self, now: u32, history: &History) -> Option<u32> {
        let newest = self.newest?;
        (within(newest, now, history.window) && history.get(newest).is_some()).then_some(newest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn history(window: u32, ticks: std::ops::RangeInclusive<u32>) -> History {
        let mut h = History::new(window);
        for t in ticks {
            h.push(t, Arc::new(Snapshot::default()));
        }
        h
    }

    #[test]
    fn the_history_keeps_its_window_across_the_wrap() {
        let mut h = history(3, u32::MAX - 5..=u32::MAX);
        h.push(0, Arc::new(Snapshot::default()));
        h.push(1, Arc::new(Snapshot::default()));
        // Ticks 1 - 3 = u32::MAX - 1 to 1.
        assert_eq!(h.len(), 4);
        assert!(h.get(u32::MAX - 2).is_none());
        assert!(h.get(u32::MAX - 1).is_some() && h.get(1).is_some());
    }

    #[test]
    fn the_base_is_the_newest_acknowledged_tick_still_in_the_history() {
        let h = history(10, 1..=20);
        let mut b = Baselines::default();
        assert_eq!(
            b.base(20, &h),
            None,
            "nothing acknowledged: a full snapshot"
        );
        for (id, t) in [(1, 12), (2, 14), (3, 16)] {
            b.sent(id, t);
        }
        b.acknowledged(2);
        assert_eq!(b.base(20, &h), Some(14));
        // An older tick acknowledged later changes nothing; an unknown id neither.
        b.acknowledged(1);
        b.acknowledged(99);
        assert_eq!(b.base(20, &h), Some(14));
        b.lost(3);
        b.acknowledged(3);
        assert_eq!(b.base(20, &h), Some(14), "a lost message is no baseline");
        // Out of the window: a full snapshot again.
        assert_eq!(b.base(25, &h), None);
    }

    #[test]
    fn a_restart_forgets_what_was_acknowledged_and_in_flight() {
        let h = history(10, 1..=20);
        let mut b = Baselines::default();
        b.sent(1, 15);
        b.sent(2, 16);
        b.acknowledged(1);
        b.restart();
        assert_eq!(b.base(20, &h), None);
        b.acknowledged(2);
        assert_eq!(b.base(20, &h), None, "sent before the restart");
    }

    #[test]
    fn newer_means_newer_across_the_wrap() {
        let mut h = History::new(10);
        for t in [u32::MAX - 1, u32::MAX, 0, 1] {
            h.push(t, Arc::new(Snapshot::default()));
        }
        let mut b = Baselines::default();
        b.sent(1, u32::MAX);
        b.sent(2, 1);
        b.acknowledged(2);
        b.acknowledged(1);
        assert_eq!(b.base(2, &h), Some(1));
    }
}
