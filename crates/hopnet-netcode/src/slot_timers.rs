//! When each client slot next needs the server's attention (a keep-alive due, or its timeout),
//! found without a pass over every slot.
//!
//! A slot's deadlines only move later (a packet sent or received pushes them back), so the
//! queue holds, per slot, an instant at or before its true deadline: the earliest entry is a
//! safe answer to "when next", and an entry that comes due early is checked and put back at
//! the slot's new deadline. An entry outlives its slot when the slot is freed; each carries
//! the slot's generation so that a later client in the same slot does not inherit it, and the
//! queue is rebuilt when such leftovers could make it grow past a bound.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Instant;

/// The slots' next deadlines, earliest first.
#[derive(Debug, Default)]
pub(crate) struct SlotTimers {
    queue: BinaryHeap<Reverse<(Instant, usize, u64)>>,
}

impl SlotTimers {
    /// Slot `index` of generation `generation` needs attention at `due` (or later).
    pub fn schedule(&mut self, due: Instant, index: usize, generation: u64) {
        self.queue.push(Reverse((due, index, generation)));
    }

    /// The earliest instant an entry comes due.
    pub fn next(&self) -> Option<Instant> {
        self.queue.peek().map(|Reverse((due, ..))| *due)
    }

    /// Takes the next entry due at `now`: its slot and generation.
    pub fn pop_due(&mut self, now: Instant) -> Option<(usize, u64)> {
        match self.queue.peek() {
            Some(Reverse((due, ..))) if *due <= now => self
                .queue
                .pop()
                .map(|Reverse((_, index, generation))| (index, generation)),
            _ => None,
        }
    }

    /// Entries held, leftovers of freed slots included.
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// Keeps only the entries `live` accepts (the current generation of an occupied slot).
    pub fn retain(&mut self, mut live: impl FnMut(usize, u64) -> bool) {
        self.queue
            .retain(|Reverse((_, index, generation))| live(*index, *generation));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn entries_come_due_in_order_and_not_before_their_time() {
        let t0 = Instant::now();
        let mut timers = SlotTimers::default();
        timers.schedule(t0 + Duration::from_millis(30), 2, 0);
        timers.schedule(t0 + Duration::from_millis(10), 5, 1);
        timers.schedule(t0 + Duration::from_millis(20), 0, 7);
        assert_eq!(timers.next(), Some(t0 + Duration::from_millis(10)));
        assert_eq!(timers.pop_due(t0 + Duration::from_millis(9)), None);
        let now = t0 + Duration::from_millis(25);
        assert_eq!(timers.pop_due(now), Some((5, 1)));
        assert_eq!(timers.pop_due(now), Some((0, 7)));
        assert_eq!(timers.pop_due(now), None);
        assert_eq!(timers.len(), 1);
        timers.retain(|index, _| index != 2);
        assert_eq!(timers.next(), None);
    }
}
