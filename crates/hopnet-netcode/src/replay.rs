//! Replay protection: each packet sequence is accepted once, and only while it is within 256
//! of the newest sequence received.
//!
//! A sequence is recorded only after its packet decrypted (the caller asks [`is_fresh`]
//! before decrypting, and calls [`record`] after): a forged header with a sequence far ahead
//! cannot push the window past the real traffic. The staleness test is written so that it
//! cannot overflow near `u64::MAX` (IMPLEMENTERS.md, finding 1).
//!
//! [`is_fresh`]: ReplayWindow::is_fresh
//! [`record`]: ReplayWindow::record

/// How many recent sequences the window remembers (the standard's conservative guide).
pub const REPLAY_WINDOW: u64 = 256;

/// The sequences received recently from one peer.
#[derive(Debug, Clone)]
pub(crate) struct ReplayWindow {
    newest: Option<u64>,
    /// The sequence last recorded in each slot (`sequence % 256`).
    slots: Box<[Option<u64>; REPLAY_WINDOW as usize]>,
}

impl Default for ReplayWindow {
    fn default() -> Self {
        ReplayWindow {
            newest: None,
            slots: Box::new([None; REPLAY_WINDOW as usize]),
        }
    }
}

impl ReplayWindow {
    /// Whether a packet with this sequence may be accepted: not older than the window, and not
    /// received before.
    pub(crate) fn is_fresh(&self, sequence: u64) -> bool {
        if let Some(newest) = self.newest
            && newest >= REPLAY_WINDOW
            && sequence <= newest - REPLAY_WINDOW
        {
            return false;
        }
        match self.slots[(sequence % REPLAY_WINDOW) as usize] {
            // The slot holds this sequence (a replay) or a newer one that overwrote it
            // (which means this one is older than the window).
            Some(held) => held < sequence,
            None => true,
        }
    }

    /// Records a sequence whose packet decrypted.
    pub(crate) fn record(&mut self, sequence: u64) {
        self.newest = Some(self.newest.map_or(sequence, |newest| newest.max(sequence)));
        self.slots[(sequence % REPLAY_WINDOW) as usize] = Some(sequence);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_sequence_once_in_any_order() {
        let mut w = ReplayWindow::default();
        for sequence in [5u64, 3, 9, 4, 0] {
            assert!(w.is_fresh(sequence));
            w.record(sequence);
            assert!(!w.is_fresh(sequence));
        }
        assert!(w.is_fresh(1) && w.is_fresh(10));
    }

    #[test]
    fn older_than_the_window_is_refused() {
        let mut w = ReplayWindow::default();
        w.record(1000);
        assert!(!w.is_fresh(1000 - REPLAY_WINDOW));
        assert!(w.is_fresh(1000 - REPLAY_WINDOW + 1));
        assert!(!w.is_fresh(0));
    }

    #[test]
    fn a_slot_overwritten_by_a_newer_sequence_refuses_the_older() {
        let mut w = ReplayWindow::default();
        w.record(3 + REPLAY_WINDOW);
        // 3 shares the slot and is exactly a window behind.
        assert!(!w.is_fresh(3));
    }

    #[test]
    fn the_top_of_the_sequence_space_is_accepted() {
        let mut w = ReplayWindow::default();
        for sequence in u64::MAX - 300..=u64::MAX {
            assert!(w.is_fresh(sequence), "{sequence}");
            w.record(sequence);
        }
        assert!(!w.is_fresh(u64::MAX));
        assert!(!w.is_fresh(u64::MAX - REPLAY_WINDOW));
    }

    #[test]
    fn only_what_is_recorded_counts() {
        // Asking is not recording: a forged sequence far ahead that failed to decrypt leaves
        // the window where it was.
        let mut w = ReplayWindow::default();
        w.record(10);
        assert!(w.is_fresh(1 << 40));
        assert!(w.is_fresh(11));
    }
}
