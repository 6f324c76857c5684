//! What the server knows of the snapshots one client holds: those in flight to it, and the
//! newest it acknowledged. A delta is written against that one while it is at most
//! [`SNAPSHOT_WINDOW`] snapshots old (the client keeps that many); otherwise the client gets
//! a whole snapshot.

use std::collections::VecDeque;
use std::sync::Arc;

use hopnet::MessageId;

use crate::shared::snapshot::{SNAPSHOT_WINDOW, newer};

/// Tracked snapshots in flight to one client, at most: far more than a window's worth; beyond
/// it the oldest are forgotten (an acknowledgement of one of them then makes no baseline).
const MAX_IN_FLIGHT: usize = 4 * SNAPSHOT_WINDOW as usize;

/// One client's baselines for one snapshot type.
#[derive(Debug)]
pub(crate) struct Baselines<S> {
    /// (message, sequence number, snapshot), oldest first.
    in_flight: VecDeque<(MessageId, u32, Arc<S>)>,
    /// The newest snapshot acknowledged since the last restart.
    acknowledged: Option<(u32, Arc<S>)>,
}

impl<S> Default for Baselines<S> {
    fn default() -> Self {
        Baselines {
            in_flight: VecDeque::new(),
            acknowledged: None,
        }
    }
}

impl<S> Baselines<S> {
    /// The snapshot of sequence `sequence` went out as tracked message `id`.
    pub fn sent(&mut self, id: MessageId, sequence: u32, snapshot: Arc<S>) {
        if self.in_flight.len() >= MAX_IN_FLIGHT {
            self.in_flight.pop_front();
        }
        self.in_flight.push_back((id, sequence, snapshot));
    }

    /// Message `id` arrived: its snapshot is the baseline if it is the newest acknowledged.
    pub fn acknowledged(&mut self, id: MessageId) {
        let Some(at) = self.in_flight.iter().position(|(m, ..)| *m == id) else {
            return;
        };
        let (_, sequence, snapshot) = self.in_flight.remove(at).expect("found");
        if self
            .acknowledged
            .as_ref()
            .is_none_or(|(newest, _)| newer(sequence, *newest))
        {
            self.acknowledged = Some((sequence, snapshot));
        }
    }

    /// Message `id` was not acknowledged in time: it may have arrived, but it is no baseline.
    pub fn lost(&mut self, id: MessageId) {
        self.in_flight.retain(|(m, ..)| *m != id);
    }

    /// The client no longer holds what it acknowledged: whole snapshots until it
    /// acknowledges one sent from now on.
    pub fn restart(&mut self) {
        self.in_flight.clear();
        self.acknowledged = None;
    }

    /// The baseline for the snapshot of sequence `sequence`: the newest acknowledged, if it
    /// is within the window.
    pub fn base(&self, sequence: u32) -> Option<(u32, &Arc<S>)> {
        let (base, snapshot) = self.acknowledged.as_ref()?;
        let behind = sequence.wrapping_sub(*base);
        (behind != 0 && behind <= SNAPSHOT_WINDOW).then_some((*base, snapshot))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sent(b: &mut Baselines<u32>, pairs: &[(u64, u32)]) {
        for &(id, sequence) in pairs {
            b.sent(MessageId(id), sequence, Arc::new(sequence));
        }
    }

    #[test]
    fn the_base_is_the_newest_acknowledged_within_the_window() {
        let mut b = Baselines::default();
        assert!(b.base(10).is_none(), "nothing acknowledged: whole");
        sent(&mut b, &[(1, 10), (2, 11), (3, 12)]);
        b.acknowledged(MessageId(2));
        assert_eq!(b.base(13).map(|(s, v)| (s, **v)), Some((11, 11)));
        // An older one acknowledged later, an unknown id, a lost one: no change.
        b.acknowledged(MessageId(1));
        b.acknowledged(MessageId(99));
        b.lost(MessageId(3));
        b.acknowledged(MessageId(3));
        assert_eq!(b.base(13).map(|(s, _)| s), Some(11));
        // At the window's edge and past it.
        assert_eq!(b.base(11 + SNAPSHOT_WINDOW).map(|(s, _)| s), Some(11));
        assert!(b.base(12 + SNAPSHOT_WINDOW).is_none());
    }

    #[test]
    fn a_restart_forgets_what_was_acknowledged_and_in_flight() {
        let mut b = Baselines::default();
        sent(&mut b, &[(1, 1), (2, 2)]);
        b.acknowledged(MessageId(1));
        b.restart();
        assert!(b.base(3).is_none());
        b.acknowledged(MessageId(2));
        assert!(b.base(3).is_none(), "sent before the restart");
    }

    #[test]
    fn newer_means_newer_across_the_wrap() {
        let mut b = Baselines::default();
        sent(&mut b, &[(1, u32::MAX), (2, 1)]);
        b.acknowledged(MessageId(2));
        b.acknowledged(MessageId(1));
        assert_eq!(b.base(2).map(|(s, _)| s), Some(1));
    }

    #[test]
    fn in_flight_is_bounded() {
        let mut b = Baselines::default();
        for i in 0..(MAX_IN_FLIGHT as u64 + 10) {
            b.sent(MessageId(i), i as u32, Arc::new(0));
        }
        assert_eq!(b.in_flight.len(), MAX_IN_FLIGHT);
        b.acknowledged(MessageId(0));
        assert!(b.base(20).is_none(), "forgotten");
    }
}
