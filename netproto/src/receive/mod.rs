//! The receive half of a connection: chunks in, whole payloads out, each handed up exactly
//! once, within a memory budget.
//!
//! - [`delivered`]: which sequences were handed up (exactly once across the 16-bit wrap);
//! - [`partial`]: a payload being reassembled, and what a chunk must agree with;
//! - [`budget`]: what a chunk may add to the connection's memory;
//! - [`expiry`]: when an incomplete payload is given up.

mod budget;
mod delivered;
mod expiry;
mod partial;

use std::time::{Duration, Instant};

use crate::chunk::{CHUNK_SIZE, valid_len};
use crate::packet::{Flags, Header, seq_diff, seq_newer};
use budget::{Budget, Room};
use delivered::Delivered;
use expiry::Timeouts;
use partial::{Partial, Partials};

/// Why an incoming chunk was not used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dropped {
    /// The chunk contradicts the spec or earlier chunks (size, FIN position, REL mismatch).
    Malformed,
    /// Accepting it would exceed the reassembly budget; a reliable chunk is not acknowledged.
    OverBudget,
    /// The chunk (or its whole message) was already received.
    Duplicate,
    /// Sequenced unreliable receive: older than the newest delivered unreliable message.
    Stale,
}

/// What the receiver made of one chunk.
#[derive(Debug, Default)]
pub(crate) struct Received {
    /// Send an ACK for this chunk.
    pub ack: bool,
    /// A payload completed by this chunk, and whether it was reliable.
    pub message: Option<(Vec<u8>, bool)>,
    /// Why the chunk was dropped, if it was.
    pub dropped: Option<Dropped>,
}

impl Received {
    /// A dropped chunk; a reliable duplicate is acknowledged again (its ACK may have been lost).
    fn dropped(why: Dropped, reliable: bool) -> Received {
        Received {
            ack: reliable && why == Dropped::Duplicate,
            message: None,
            dropped: Some(why),
        }
    }
}

/// The receive half of a connection.
#[derive(Debug)]
pub(crate) struct Reassembler {
    delivered: Delivered,
    partials: Partials,
    partial_bytes: usize,
    newest_unreliable: Option<u16>,
    sequenced: bool,
    timeouts: Timeouts,
    /// No partial expires before this (a lower bound, `None` with no partials). A chunk only
    /// moves a deadline later, so the bound stays valid without a walk over the partials per
    /// chunk; [`expire`](Self::expire) makes it exact again. Costs at most one early wake-up
    /// per timeout period.
    expiry_bound: Option<Instant>,
}

impl Reassembler {
    pub fn new(
        sequenced: bool,
        unreliable_timeout: Duration,
        reliable_timeout: Duration,
    ) -> Reassembler {
        Reassembler {
            delivered: Delivered::new(),
            partials: Partials::default(),
            partial_bytes: 0,
            newest_unreliable: None,
            sequenced,
            timeouts: Timeouts {
                unreliable: unreliable_timeout,
                reliable: reliable_timeout,
            },
            expiry_bound: None,
        }
    }

    /// Bytes held by partial payloads (buffers plus bookkeeping).
    pub fn partial_bytes(&self) -> usize {
        self.partial_bytes
    }

    /// The newest sequence seen from the peer.
    pub fn newest(&self) -> Option<u16> {
        self.delivered.newest()
    }

    /// The oldest reliable partial (the one the sender most needs completed).
    fn oldest_reliable(&self) -> Option<u16> {
        let newest = self.delivered.newest()?;
        self.partials
            .iter()
            .filter(|(_, p)| p.reliable)
            .map(|(&s, _)| s)
            .min_by_key(|&s| seq_diff(s, newest))
    }

    /// Takes one chunk. `outside` is memory already charged elsewhere (delivered payloads not
    /// yet polled); `budget` the configured limit (see [`budget`]).
    pub fn on_chunk(
        &mut self,
        now: Instant,
        header: Header,
        data: &[u8],
        outside: usize,
        budget: usize,
    ) -> Received {
        let reliable = header.flags.contains(Flags::REL);
        let fin = header.flags.contains(Flags::FIN);
        let seq = header.sequence;
        if !valid_len(data.len(), fin) {
            return Received::dropped(Dropped::Malformed, reliable);
        }
        if self.delivered.contains(seq) {
            return Received::dropped(Dropped::Duplicate, reliable);
        }
        self.delivered.observe(seq);
        if !reliable && self.sequenced && self.newest_unreliable.is_some_and(|n| !seq_newer(seq, n))
        {
            return Received::dropped(Dropped::Stale, reliable);
        }
        let budget = Budget {
            used: outside + self.partial_bytes,
            limit: budget,
        };
        let room = match self.partials.get_mut(&seq) {
            Some(p) => {
                if let Err(why) = p.check(now, header.chunk, fin, reliable) {
                    return Received::dropped(why, reliable);
                }
                let (capacity, filled) = p.room();
                Room {
                    capacity,
                    filled,
                    exists: true,
                }
            }
            None if header.chunk == 0 && fin => {
                // A single-chunk message: no reassembly state at all.
                if !budget.fits(data.len()) {
                    return Received::dropped(Dropped::OverBudget, reliable);
                }
                return self.complete(seq, data.to_vec(), reliable);
            }
            None => Room::NONE,
        };
        let offset = usize::from(header.chunk) * CHUNK_SIZE;
        let end = offset + data.len();
        let oldest = || self.oldest_reliable() == Some(seq);
        let Some(reserve) = budget.admit(room, offset, end, fin, reliable, oldest) else {
            return Received::dropped(Dropped::OverBudget, reliable);
        };
        if !room.exists {
            self.note_deadline(now, reliable);
        }
        let partial = self
            .partials
            .entry(seq)
            .or_insert_with(|| Partial::new(reliable, now));
        let before = if room.exists { partial.charge() } else { 0 };
        partial.insert(now, header.chunk, offset, data, fin, reserve);
        self.partial_bytes = self.partial_bytes + partial.charge() - before;
        if !partial.is_complete() {
            return Received {
                ack: reliable,
                message: None,
                dropped: None,
            };
        }
        let Some(p) = self.partials.remove(&seq) else {
            return Received::default();
        };
        self.partial_bytes -= p.charge();
        self.complete(seq, p.into_payload(), reliable)
    }

    fn complete(&mut self, seq: u16, bytes: Vec<u8>, reliable: bool) -> Received {
        self.delivered.insert(seq);
        if !reliable {
            self.newest_unreliable = match self.newest_unreliable {
                Some(n) if !seq_newer(seq, n) => Some(n),
                _ => Some(seq),
            };
        }
        Received {
            ack: reliable,
            message: Some((bytes, reliable)),
            dropped: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::receive::budget::PARTIAL_OVERHEAD;
    use crate::receive::expiry::Expired;

    fn h(flags: Flags, chunk: u8, seq: u16) -> Header {
        Header::new(flags, chunk, seq)
    }

    #[test]
    fn reassembles_out_of_order_once() {
        let now = Instant::now();
        let mut r = Reassembler::new(false, Duration::from_secs(1), Duration::from_secs(30));
        let payload: Vec<u8> = (0..1200u32).map(|i| i as u8).collect();
        let c2 = r.on_chunk(
            now,
            h(Flags::REL | Flags::FIN, 2, 7),
            &payload[1008..],
            0,
            1 << 20,
        );
        assert!(c2.ack && c2.message.is_none());
        let c0 = r.on_chunk(now, h(Flags::REL, 0, 7), &payload[..504], 0, 1 << 20);
        assert!(c0.message.is_none());
        let again = r.on_chunk(now, h(Flags::REL, 0, 7), &payload[..504], 0, 1 << 20);
        assert_eq!(again.dropped, Some(Dropped::Duplicate));
        let c1 = r.on_chunk(now, h(Flags::REL, 1, 7), &payload[504..1008], 0, 1 << 20);
        assert_eq!(c1.message.unwrap().0, payload);
        assert_eq!(r.partial_bytes(), 0);
        let late = r.on_chunk(now, h(Flags::REL, 1, 7), &payload[504..1008], 0, 1 << 20);
        assert!(late.ack && late.message.is_none());
    }

    #[test]
    fn delivered_bits_clear_as_the_window_moves() {
        let now = Instant::now();
        let mut r = Reassembler::new(false, Duration::from_secs(1), Duration::from_secs(30));
        let one = |r: &mut Reassembler, seq: u16| {
            r.on_chunk(now, h(Flags::FIN, 0, seq), &[1], 0, 1 << 20)
                .message
                .is_some()
        };
        for seq in (0..=65535u16)
            .step_by(1000)
            .chain([65535, 0, 1, 63, 64, 65, 129])
        {
            assert!(one(&mut r, seq) || seq < 1000, "seq {seq}");
        }
        // Everything at or behind the newest (129) within half the space counts as delivered.
        assert!(!one(&mut r, 129));
        assert!(!one(&mut r, 65000));
        // 32,000 ahead clears the bits it passes over: the ids are new again next time round.
        assert!(one(&mut r, 32_129));
        assert!(one(&mut r, 64_000));
        assert!(one(&mut r, 1000));
        assert!(!one(&mut r, 1000));
    }

    #[test]
    fn sequenced_unreliable_drops_older() {
        let now = Instant::now();
        let mut r = Reassembler::new(true, Duration::from_secs(1), Duration::from_secs(30));
        let got = |r: &mut Reassembler, flags: Flags, seq: u16| {
            r.on_chunk(now, h(flags | Flags::FIN, 0, seq), &[1], 0, 1 << 20)
        };
        assert!(got(&mut r, Flags::NONE, 65534).message.is_some());
        assert!(got(&mut r, Flags::NONE, 2).message.is_some());
        assert_eq!(
            got(&mut r, Flags::NONE, 65535).dropped,
            Some(Dropped::Stale)
        );
        // Reliable messages are never dropped as stale.
        assert!(got(&mut r, Flags::REL, 1).message.is_some());
        assert!(got(&mut r, Flags::NONE, 3).message.is_some());
    }

    #[test]
    fn in_order_chunks_reserve_ahead_while_memory_is_plentiful() {
        let now = Instant::now();
        let mut r = Reassembler::new(false, Duration::from_secs(1), Duration::from_secs(30));
        let budget = 1 << 20;
        r.on_chunk(now, h(Flags::REL, 0, 1), &[1; 504], 0, budget);
        // Room for two more chunks, and charged: a 1 KiB message needs no more.
        assert_eq!(r.partial_bytes(), 3 * CHUNK_SIZE + PARTIAL_OVERHEAD);
        r.on_chunk(now, h(Flags::REL, 1, 1), &[2; 504], 0, budget);
        assert_eq!(r.partial_bytes(), 3 * CHUNK_SIZE + PARTIAL_OVERHEAD);
        let done = r.on_chunk(now, h(Flags::REL | Flags::FIN, 2, 1), &[3; 16], 0, budget);
        let (bytes, _) = done.message.expect("complete");
        assert_eq!(bytes.len(), 1024);
        assert!(bytes[..504].iter().all(|&b| b == 1) && bytes[1008..].iter().all(|&b| b == 3));
        assert_eq!(r.partial_bytes(), 0);
        // A larger payload: then the buffer doubles.
        for chunk in 0..3 {
            r.on_chunk(now, h(Flags::REL, chunk, 3), &[4; 504], 0, budget);
        }
        assert_eq!(r.partial_bytes(), 6 * CHUNK_SIZE + PARTIAL_OVERHEAD);
        for chunk in 3..7 {
            r.on_chunk(now, h(Flags::REL, chunk, 3), &[4; 504], 0, budget);
        }
        assert_eq!(r.partial_bytes(), 12 * CHUNK_SIZE + PARTIAL_OVERHEAD);
        let done = r.on_chunk(now, h(Flags::REL | Flags::FIN, 7, 3), &[5; 1], 0, budget);
        assert_eq!(done.message.map(|(m, _)| m.len()), Some(7 * CHUNK_SIZE + 1));
        assert_eq!(r.partial_bytes(), 0);
        // With the partials near half the budget, the reservation is exact again.
        r.on_chunk(now, h(Flags::REL, 0, 2), &[1; 504], 600, 2400);
        assert_eq!(r.partial_bytes(), CHUNK_SIZE + PARTIAL_OVERHEAD);
    }

    #[test]
    fn over_budget_reliable_chunks_are_not_acknowledged() {
        let now = Instant::now();
        let mut r = Reassembler::new(false, Duration::from_secs(1), Duration::from_secs(30));
        let budget = 1500;
        let a = r.on_chunk(now, h(Flags::REL, 0, 1), &[0; 504], 0, budget);
        assert!(a.ack);
        let b = r.on_chunk(now, h(Flags::REL, 0, 2), &[0; 504], 0, budget);
        assert!(b.ack);
        // A third partial does not fit.
        let c = r.on_chunk(now, h(Flags::REL, 0, 3), &[0; 504], 0, budget);
        assert_eq!(c.dropped, Some(Dropped::OverBudget));
        assert!(!c.ack);
        // The oldest reliable partial may still grow, so it can complete.
        let d = r.on_chunk(now, h(Flags::REL, 1, 1), &[0; 504], 0, budget);
        assert!(d.ack && d.dropped.is_none());
        // The newer one may not.
        let e = r.on_chunk(now, h(Flags::REL, 1, 2), &[0; 504], 0, budget);
        assert_eq!(e.dropped, Some(Dropped::OverBudget));
        let f = r.on_chunk(now, h(Flags::REL | Flags::FIN, 2, 1), &[0; 10], 0, budget);
        assert_eq!(f.message.map(|m| m.0.len()), Some(1018));
    }

    #[test]
    fn rejects_malformed() {
        let now = Instant::now();
        let mut r = Reassembler::new(false, Duration::from_secs(1), Duration::from_secs(30));
        let short = r.on_chunk(now, h(Flags::REL, 0, 1), &[0; 10], 0, 1 << 20);
        assert_eq!(short.dropped, Some(Dropped::Malformed));
        assert!(!short.ack);
        let long = r.on_chunk(now, h(Flags::FIN, 0, 2), &[0; 505], 0, 1 << 20);
        assert_eq!(long.dropped, Some(Dropped::Malformed));
    }

    #[test]
    fn unreliable_partials_expire() {
        let now = Instant::now();
        let mut r = Reassembler::new(false, Duration::from_secs(1), Duration::from_secs(30));
        r.on_chunk(now, h(Flags::NONE, 0, 9), &[0; 504], 0, 1 << 20);
        assert!(r.partial_bytes() > 0);
        assert_eq!(r.next_expiry(), Some(now + Duration::from_secs(1)));
        assert_eq!(
            r.expire(now + Duration::from_millis(999)),
            Expired::default()
        );
        let expired = r.expire(now + Duration::from_secs(1));
        assert_eq!((expired.unreliable, expired.reliable), (1, 0));
        assert_eq!(r.partial_bytes(), 0);
    }

    #[test]
    fn silent_reliable_partials_are_abandoned_and_repeats_keep_them() {
        let now = Instant::now();
        let secs = Duration::from_secs;
        let mut r = Reassembler::new(false, secs(1), secs(30));
        r.on_chunk(now, h(Flags::REL, 0, 5), &[1; 504], 0, 1 << 20);
        r.on_chunk(now, h(Flags::REL, 0, 6), &[2; 504], 0, 1 << 20);
        assert_eq!(r.next_expiry(), Some(now + secs(30)));
        // A repeated chunk of sequence 5 at 20 s: its sender is alive, its deadline moves.
        let again = r.on_chunk(now + secs(20), h(Flags::REL, 0, 5), &[1; 504], 0, 1 << 20);
        assert!(again.ack);
        assert_eq!(r.expire(now + secs(29)), Expired::default());
        let expired = r.expire(now + secs(30));
        assert_eq!((expired.unreliable, expired.reliable), (0, 1));
        assert_eq!(r.next_expiry(), Some(now + secs(50)));
        // Sequence 5 still completes.
        let done = r.on_chunk(
            now + secs(40),
            h(Flags::REL | Flags::FIN, 1, 5),
            &[3; 10],
            0,
            1 << 20,
        );
        assert_eq!(done.message.map(|(m, _)| m.len()), Some(514));
        assert_eq!(r.partial_bytes(), 0);
    }
}
