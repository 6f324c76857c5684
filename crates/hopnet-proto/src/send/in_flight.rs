//! What is in flight: every transmission of a reliable chunk not yet acknowledged nor declared
//! lost, by transmission id, and the counters that follow from it (how many, the next id, the
//! largest acknowledged, when an acknowledgement last came). This file alone writes them;
//! [`loss`](super::loss) decides what is lost through [`InFlight::take_oldest`].
//!
//! Each transmission gets the next id, so the ids in flight form a window of consecutive
//! numbers with holes where a transmission was acknowledged or lost. A ring of slots indexed by
//! `id - front_tx` finds any of them with one subtraction, and the front is trimmed of holes on
//! every removal: the oldest slot is always a transmission in flight, so a timer query reads it
//! without a walk (and without `&mut`).

use std::collections::VecDeque;
use std::time::Instant;

/// One transmission of a reliable chunk, in flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Sent {
    /// The message's absolute sequence number.
    pub abs: u64,
    pub chunk: u8,
    pub sent_at: Instant,
}

/// The transmissions in flight, oldest first.
#[derive(Debug)]
pub(crate) struct InFlight {
    /// The transmission id of `transmissions[0]`.
    front_tx: u64,
    /// By id: `None` for one acknowledged or declared lost; never `None` at the front.
    transmissions: VecDeque<Option<Sent>>,
    /// Transmissions in flight: the `Some` slots.
    in_flight: usize,
    next_tx_id: u64,
    /// The largest transmission id acknowledged, in flight or not: the packet threshold counts
    /// from it.
    largest_acked: u64,
    /// When a transmission in flight was last acknowledged: a timeout with acknowledgements
    /// still arriving is a lost chunk, one after a silence of a whole RTO is a blackout.
    last_ack_at: Option<Instant>,
}

impl InFlight {
    pub fn new() -> InFlight {
        InFlight {
            front_tx: 1,
            transmissions: VecDeque::new(),
            in_flight: 0,
            next_tx_id: 1,
            largest_acked: 0,
            last_ack_at: None,
        }
    }

    /// Transmissions in flight.
    #[inline]
    pub fn len(&self) -> usize {
        self.in_flight
    }

    /// The id the next transmission will get.
    #[inline]
    pub fn next_tx_id(&self) -> u64 {
        self.next_tx_id
    }

    /// The largest transmission id acknowledged so far (0 before any).
    #[inline]
    pub fn largest_acked(&self) -> u64 {
        self.largest_acked
    }

    /// When a transmission in flight was last acknowledged.
    #[inline]
    pub fn last_ack_at(&self) -> Option<Instant> {
        self.last_ack_at
    }

    /// Chunk `chunk` of message `abs` leaves now: returns its transmission id.
    #[inline]
    pub fn send(&mut self, abs: u64, chunk: u8, now: Instant) -> u64 {
        let tx_id = self.next_tx_id;
        self.next_tx_id += 1;
        if self.transmissions.is_empty() {
            self.front_tx = tx_id;
        }
        debug_assert_eq!(self.front_tx + self.transmissions.len() as u64, tx_id);
        self.transmissions.push_back(Some(Sent {
            abs,
            chunk,
            sent_at: now,
        }));
        self.in_flight += 1;
        tx_id
    }

    /// Transmission `tx_id` was acknowledged at `now`. Returns whether it was in flight (it is
    /// no longer); an acknowledgement of one declared lost still counts as the largest.
    #[inline]
    pub fn acked(&mut self, tx_id: u64, now: Instant) -> bool {
        self.largest_acked = self.largest_acked.max(tx_id);
        if self.remove(tx_id).is_none() {
            return false;
        }
        self.last_ack_at = Some(now);
        true
    }

    /// The oldest transmission in flight, with its id.
    #[inline]
    pub fn oldest(&self) -> Option<(u64, Sent)> {
        Some((self.front_tx, (*self.transmissions.front()?)?))
    }

    /// Takes the oldest transmission out of flight if `lost` says it is lost.
    pub fn take_oldest(&mut self, lost: impl FnOnce(u64, &Sent) -> bool) -> Option<(u64, Sent)> {
        let (tx_id, sent) = self.oldest()?;
        if !lost(tx_id, &sent) {
            return None;
        }
        self.remove(tx_id);
        Some((tx_id, sent))
    }

    #[inline]
    fn remove(&mut self, tx_id: u64) -> Option<Sent> {
        let index = usize::try_from(tx_id.checked_sub(self.front_tx)?).ok()?;
        if index > 0 {
            // Behind the front: a hole, trimmed once the front leaves.
            let sent = self.transmissions.get_mut(index)?.take()?;
            self.in_flight -= 1;
            return Some(sent);
        }
        // The front (most acknowledgements arrive in order): it leaves with the holes behind.
        let sent = self.transmissions.pop_front()??;
        self.front_tx += 1;
        self.in_flight -= 1;
        while let Some(None) = self.transmissions.front() {
            self.transmissions.pop_front();
            self.front_tx += 1;
        }
        Some(sent)
    }

    /// Forgets every transmission (the connection closed); ids go on from where they were.
    pub fn clear(&mut self) {
        self.transmissions.clear();
        self.in_flight = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_front_is_always_in_flight_and_the_count_follows_the_slots() {
        let now = Instant::now();
        let mut f = InFlight::new();
        let ids: Vec<u64> = (0..4).map(|c| f.send(7, c, now)).collect();
        assert_eq!(ids, [1, 2, 3, 4]);
        assert_eq!((f.len(), f.next_tx_id()), (4, 5));
        // A hole behind the front stays; the largest acknowledged moves.
        assert!(f.acked(3, now));
        assert_eq!((f.len(), f.largest_acked()), (3, 3));
        assert_eq!(f.oldest().map(|(id, s)| (id, s.chunk)), Some((1, 0)));
        // Acknowledged twice: not in flight the second time.
        assert!(!f.acked(3, now));
        // The front leaves, and the hole behind it with it.
        assert!(f.acked(1, now));
        assert_eq!(f.oldest().map(|(id, _)| id), Some(2));
        assert_eq!(f.take_oldest(|_, _| false), None);
        assert_eq!(
            f.take_oldest(|_, s| s.chunk == 1).map(|(id, _)| id),
            Some(2)
        );
        assert_eq!(f.oldest().map(|(id, _)| id), Some(4));
        // An acknowledgement of a transmission declared lost counts only as the largest.
        let later = now + std::time::Duration::from_millis(1);
        assert!(!f.acked(2, later));
        assert_eq!(f.last_ack_at(), Some(now));
        assert!(f.acked(4, later));
        assert_eq!(
            (f.len(), f.oldest(), f.last_ack_at()),
            (0, None, Some(later))
        );
        // Ids go on after the ring emptied, and after a clear.
        assert_eq!(f.send(8, 0, later), 5);
        f.clear();
        assert_eq!((f.len(), f.send(9, 0, later)), (0, 6));
        assert_eq!(f.oldest().map(|(id, _)| id), Some(6));
    }
}
