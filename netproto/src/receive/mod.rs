//! The receive half of a connection: chunks in, whole payloads out, each handed up exactly
//! once, within a memory budget.
//!
//! - [`delivered`]: which sequences were completed (exactly once across the 16-bit wrap);
//! - [`partial`]: a payload being reassembled, and what a chunk must agree with;
//! - [`budget`]: what a chunk may add to the connection's memory;
//! - [`expiry`]: when an incomplete payload is given up;
//! - [`order`]: ordered messages held back until those they follow are handed up (extended
//!   wire).

mod budget;
mod delivered;
mod expiry;
mod order;
mod partial;

use std::time::{Duration, Instant};

use crate::chunk::{CHUNK_SIZE, MAX_PAYLOAD, valid_len};
use crate::event::Delivery;
use crate::ext::compress;
use crate::ext::frame::DataHeader;
use crate::packet::{Flags, Header, seq_newer};
use budget::{Budget, Room};
use delivered::Delivered;
use expiry::Timeouts;
use order::Orderer;
use partial::{Partial, Partials};

/// Why an incoming chunk was not used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dropped {
    /// The chunk contradicts the rules or earlier chunks (size, FIN position, framing or
    /// delivery mismatch, a bad reliable index), or its message does not decompress.
    Malformed,
    /// Accepting it would exceed the reassembly budget; a reliable chunk is not acknowledged.
    OverBudget,
    /// The chunk (or its whole message) was already received.
    Duplicate,
    /// Sequenced receive: older than the newest sequenced message delivered.
    Stale,
}

/// How a chunk's message is framed and delivered, as far as its receiver can tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// The spec's framing: `REL` or not.
    Spec { rel: bool },
    /// A data frame: the sender's delivery mode, and whether the message is compressed.
    Ext {
        delivery: Delivery,
        compressed: bool,
    },
}

impl Kind {
    /// Whether the chunk is acknowledged (`REL`, or a reliable or tracked mode).
    #[inline]
    pub fn acked(self) -> bool {
        match self {
            Kind::Spec { rel } => rel,
            Kind::Ext { delivery, .. } => delivery.is_acknowledged(),
        }
    }

    /// Whether the sender repeats the chunk until acknowledged. A tracked message is not
    /// repeated, but on the spec's wire it looks like a reliable one.
    #[inline]
    pub fn retransmitted(self) -> bool {
        match self {
            Kind::Spec { rel } => rel,
            Kind::Ext { delivery, .. } => delivery.is_reliable(),
        }
    }
}

/// One chunk as it arrived: from a spec packet or from a data frame.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Incoming<'a> {
    pub sequence: u16,
    pub chunk: u8,
    pub fin: bool,
    pub kind: Kind,
    /// On chunk 0 of an extended reliable message: its reliable index and predecessor.
    pub order: Option<(u16, Option<u16>)>,
    pub data: &'a [u8],
}

impl<'a> Incoming<'a> {
    #[inline]
    pub fn spec(header: Header, data: &'a [u8]) -> Incoming<'a> {
        Incoming {
            sequence: header.sequence,
            chunk: header.chunk,
            fin: header.flags.contains(Flags::FIN),
            kind: Kind::Spec {
                rel: header.flags.contains(Flags::REL),
            },
            order: None,
            data,
        }
    }

    pub fn ext(h: &DataHeader, data: &'a [u8]) -> Incoming<'a> {
        Incoming {
            sequence: h.sequence,
            chunk: h.chunk,
            fin: h.fin,
            kind: Kind::Ext {
                delivery: h.delivery,
                compressed: h.compressed,
            },
            order: h.index.map(|i| (i, h.after)),
            data,
        }
    }
}

/// What the receiver made of one chunk.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Received {
    /// Send an ACK for this chunk.
    pub ack: bool,
    /// Why the chunk (or the message it completed) was dropped, if it was.
    pub dropped: Option<Dropped>,
}

impl Received {
    /// A dropped chunk; an acknowledged duplicate is acknowledged again (its ACK may have been
    /// lost).
    fn dropped(why: Dropped, acked: bool) -> Received {
        Received {
            ack: acked && why == Dropped::Duplicate,
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
    newest_sequenced: Option<u16>,
    /// Unreliable messages on the spec's wire (and unreliable ones on the extended wire) are
    /// sequenced (`ConfigBuilder::sequenced_unreliable`).
    sequenced: bool,
    timeouts: Timeouts,
    /// The chunk size of extended messages, once the connection agreed on it.
    ext_chunk: Option<usize>,
    order: Orderer,
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
            newest_sequenced: None,
            sequenced,
            timeouts: Timeouts {
                unreliable: unreliable_timeout,
                reliable: reliable_timeout,
            },
            ext_chunk: None,
            order: Orderer::new(),
            expiry_bound: None,
        }
    }

    /// The connection agreed on extended messages of `chunk_size`-byte chunks.
    pub fn accept_extended(&mut self, chunk_size: usize) {
        self.ext_chunk = Some(chunk_size);
    }

    /// Bytes held by partial payloads (buffers plus bookkeeping) and by complete messages
    /// held back for ordering.
    pub fn partial_bytes(&self) -> usize {
        self.partial_bytes + self.order.bytes()
    }

    /// Messages held back for ordering.
    pub fn held_back(&self) -> usize {
        self.order.held()
    }

    /// The newest sequence seen from the peer.
    pub fn newest(&self) -> Option<u16> {
        self.delivered.newest()
    }

    /// Whether every chunk of `seq` arrived (its message was completed, handed up or held).
    pub fn is_complete(&self, seq: u16) -> bool {
        self.delivered.contains(seq)
    }

    /// The oldest retransmitted partial (the one the sender most needs completed).
    fn oldest_reliable(&self) -> Option<u16> {
        let newest = self.delivered.newest()?;
        self.partials
            .iter()
            .filter(|(_, p)| p.reliable)
            .map(|(&s, _)| s)
            .min_by_key(|&s| crate::packet::seq_diff(s, newest))
    }

    #[inline]
    fn is_sequenced(&self, kind: Kind) -> bool {
        match kind {
            Kind::Spec { rel } => !rel && self.sequenced,
            Kind::Ext { delivery, .. } => {
                delivery == Delivery::Sequenced
                    || (delivery == Delivery::Unreliable && self.sequenced)
            }
        }
    }

    /// Whether a complete message may be handed up as far as sequencing goes (it is not older
    /// than the newest sequenced one handed up); if so and it is sequenced, it is the newest.
    fn take_sequenced(&mut self, seq: u16, kind: Kind) -> bool {
        if !self.is_sequenced(kind) {
            return true;
        }
        if self.newest_sequenced.is_some_and(|n| !seq_newer(seq, n)) {
            return false;
        }
        self.newest_sequenced = Some(seq);
        true
    }

    /// Takes one chunk. `outside` is memory already charged elsewhere (delivered payloads not
    /// yet polled); `budget` the configured limit (see [`budget`]). Messages handed up (the
    /// one this chunk completed, and those it released from ordering) go to `out` with
    /// whether they were sent reliably.
    pub fn on_chunk(
        &mut self,
        now: Instant,
        c: Incoming<'_>,
        outside: usize,
        budget: usize,
        out: &mut Vec<(Vec<u8>, bool)>,
    ) -> Received {
        let acked = c.kind.acked();
        let size = match c.kind {
            Kind::Spec { .. } => CHUNK_SIZE,
            Kind::Ext { .. } => match self.ext_chunk {
                Some(size) => size,
                None => return Received::dropped(Dropped::Malformed, acked),
            },
        };
        let seq = c.sequence;
        let offset = usize::from(c.chunk) * size;
        let end = offset + c.data.len();
        if !valid_len(c.data.len(), c.fin, size) || end > MAX_PAYLOAD {
            return Received::dropped(Dropped::Malformed, acked);
        }
        if self.delivered.contains(seq) {
            return Received::dropped(Dropped::Duplicate, acked);
        }
        if let Some((index, after)) = c.order
            && !self.order.accepts(index, after)
        {
            return Received::dropped(Dropped::Malformed, acked);
        }
        self.delivered.observe(seq);
        if self.is_sequenced(c.kind) && self.newest_sequenced.is_some_and(|n| !seq_newer(seq, n)) {
            return Received::dropped(Dropped::Stale, acked);
        }
        let budget = Budget {
            used: outside + self.partial_bytes(),
            limit: budget,
        };
        let prefix = self.order.prefix();
        let (room, known) = match self.partials.get_mut(&seq) {
            Some(p) => {
                if let Err(why) = p.check(now, c.chunk, c.fin, c.kind) {
                    return Received::dropped(why, acked);
                }
                let (capacity, filled) = p.room();
                let room = Room {
                    capacity,
                    filled,
                    exists: true,
                };
                (room, p.order)
            }
            None if c.chunk == 0 && c.fin => {
                // A single-chunk message: no reassembly state at all.
                let next = c.order.is_some_and(|(i, _)| i == prefix);
                if !(budget.fits(c.data.len()) || next && budget.rescues(c.data.len())) {
                    return Received::dropped(Dropped::OverBudget, acked);
                }
                return self.complete(seq, c.data.to_vec(), c.kind, c.order, out);
            }
            None => (Room::NONE, None),
        };
        // The message every held one waits for may grow beyond the budget, as the oldest
        // reliable partial may: otherwise held messages could fill the budget for good.
        let next = c.order.or(known).is_some_and(|(i, _)| i == prefix);
        let oldest = || next || self.oldest_reliable() == Some(seq);
        let reliable = c.kind.retransmitted();
        let Some(reserve) = budget.admit(room, offset, end, c.fin, reliable, oldest) else {
            return Received::dropped(Dropped::OverBudget, acked);
        };
        if !room.exists {
            self.note_deadline(now, reliable);
        }
        let partial = self
            .partials
            .entry(seq)
            .or_insert_with(|| Partial::new(c.kind, now));
        if c.order.is_some() {
            partial.order = c.order;
        }
        let before = if room.exists { partial.charge() } else { 0 };
        partial.insert(now, c.chunk, offset, c.data, c.fin, reserve);
        self.partial_bytes = self.partial_bytes + partial.charge() - before;
        if !partial.is_complete() {
            return Received {
                ack: acked,
                dropped: None,
            };
        }
        let Some(p) = self.partials.remove(&seq) else {
            return Received::default();
        };
        self.partial_bytes -= p.charge();
        let order = p.order;
        self.complete(seq, p.into_payload(), c.kind, order, out)
    }

    /// A message is complete: decompressed, then handed up, held for ordering, or dropped as
    /// stale.
    fn complete(
        &mut self,
        seq: u16,
        bytes: Vec<u8>,
        kind: Kind,
        order: Option<(u16, Option<u16>)>,
        out: &mut Vec<(Vec<u8>, bool)>,
    ) -> Received {
        self.delivered.insert(seq);
        let acked = kind.acked();
        let malformed = Received {
            ack: acked,
            dropped: Some(Dropped::Malformed),
        };
        let (delivery, bytes) = match kind {
            Kind::Spec { rel } => {
                if !self.take_sequenced(seq, kind) {
                    return Received {
                        ack: acked,
                        dropped: Some(Dropped::Stale),
                    };
                }
                out.push((bytes, rel));
                return Received {
                    ack: acked,
                    dropped: None,
                };
            }
            Kind::Ext {
                delivery,
                compressed: false,
            } => (delivery, bytes),
            Kind::Ext { delivery, .. } => match compress::decompress(&bytes) {
                Ok(b) => (delivery, b),
                Err(_) => {
                    if let Some((index, _)) = order {
                        self.order.skip(index, out);
                    }
                    return malformed;
                }
            },
        };
        if let Some((index, after)) = order {
            if !self.order.arrive(index, delivery, after, bytes, out) {
                self.order.skip(index, out);
                return malformed;
            }
        } else if delivery.is_reliable() {
            // A reliable message's chunk 0 carries its index: without one, it cannot complete.
            return malformed;
        } else {
            if !self.take_sequenced(seq, kind) {
                return Received {
                    ack: acked,
                    dropped: Some(Dropped::Stale),
                };
            }
            out.push((bytes, false));
        }
        Received {
            ack: acked,
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

    /// What one spec chunk did: the `Received`, and the message it completed.
    struct Got {
        ack: bool,
        dropped: Option<Dropped>,
        message: Option<(Vec<u8>, bool)>,
    }

    fn on(
        r: &mut Reassembler,
        now: Instant,
        h: Header,
        data: &[u8],
        outside: usize,
        budget: usize,
    ) -> Got {
        let mut out = Vec::new();
        let got = r.on_chunk(now, Incoming::spec(h, data), outside, budget, &mut out);
        assert!(out.len() <= 1);
        Got {
            ack: got.ack,
            dropped: got.dropped,
            message: out.pop(),
        }
    }

    #[test]
    fn reassembles_out_of_order_once() {
        let now = Instant::now();
        let mut r = Reassembler::new(false, Duration::from_secs(1), Duration::from_secs(30));
        let payload: Vec<u8> = (0..1200u32).map(|i| i as u8).collect();
        let c2 = on(
            &mut r,
            now,
            h(Flags::REL | Flags::FIN, 2, 7),
            &payload[1008..],
            0,
            1 << 20,
        );
        assert!(c2.ack && c2.message.is_none());
        let c0 = on(
            &mut r,
            now,
            h(Flags::REL, 0, 7),
            &payload[..504],
            0,
            1 << 20,
        );
        assert!(c0.message.is_none());
        let again = on(
            &mut r,
            now,
            h(Flags::REL, 0, 7),
            &payload[..504],
            0,
            1 << 20,
        );
        assert_eq!(again.dropped, Some(Dropped::Duplicate));
        let c1 = on(
            &mut r,
            now,
            h(Flags::REL, 1, 7),
            &payload[504..1008],
            0,
            1 << 20,
        );
        assert_eq!(c1.message.unwrap().0, payload);
        assert_eq!(r.partial_bytes(), 0);
        let late = on(
            &mut r,
            now,
            h(Flags::REL, 1, 7),
            &payload[504..1008],
            0,
            1 << 20,
        );
        assert!(late.ack && late.message.is_none());
    }

    #[test]
    fn delivered_bits_clear_as_the_window_moves() {
        let now = Instant::now();
        let mut r = Reassembler::new(false, Duration::from_secs(1), Duration::from_secs(30));
        let one = |r: &mut Reassembler, seq: u16| {
            on(r, now, h(Flags::FIN, 0, seq), &[1], 0, 1 << 20)
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
            on(r, now, h(flags | Flags::FIN, 0, seq), &[1], 0, 1 << 20)
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
        on(&mut r, now, h(Flags::REL, 0, 1), &[1; 504], 0, budget);
        // Room for two more chunks, and charged: a 1 KiB message needs no more.
        assert_eq!(r.partial_bytes(), 3 * CHUNK_SIZE + PARTIAL_OVERHEAD);
        on(&mut r, now, h(Flags::REL, 1, 1), &[2; 504], 0, budget);
        assert_eq!(r.partial_bytes(), 3 * CHUNK_SIZE + PARTIAL_OVERHEAD);
        let done = on(
            &mut r,
            now,
            h(Flags::REL | Flags::FIN, 2, 1),
            &[3; 16],
            0,
            budget,
        );
        let (bytes, _) = done.message.expect("complete");
        assert_eq!(bytes.len(), 1024);
        assert!(bytes[..504].iter().all(|&b| b == 1) && bytes[1008..].iter().all(|&b| b == 3));
        assert_eq!(r.partial_bytes(), 0);
        // A larger payload: then the buffer doubles.
        for chunk in 0..3 {
            on(&mut r, now, h(Flags::REL, chunk, 3), &[4; 504], 0, budget);
        }
        assert_eq!(r.partial_bytes(), 6 * CHUNK_SIZE + PARTIAL_OVERHEAD);
        for chunk in 3..7 {
            on(&mut r, now, h(Flags::REL, chunk, 3), &[4; 504], 0, budget);
        }
        assert_eq!(r.partial_bytes(), 12 * CHUNK_SIZE + PARTIAL_OVERHEAD);
        let done = on(
            &mut r,
            now,
            h(Flags::REL | Flags::FIN, 7, 3),
            &[5; 1],
            0,
            budget,
        );
        assert_eq!(done.message.map(|(m, _)| m.len()), Some(7 * CHUNK_SIZE + 1));
        assert_eq!(r.partial_bytes(), 0);
        // With the partials near half the budget, the reservation is exact again.
        on(&mut r, now, h(Flags::REL, 0, 2), &[1; 504], 600, 2400);
        assert_eq!(r.partial_bytes(), CHUNK_SIZE + PARTIAL_OVERHEAD);
    }

    #[test]
    fn over_budget_reliable_chunks_are_not_acknowledged() {
        let now = Instant::now();
        let mut r = Reassembler::new(false, Duration::from_secs(1), Duration::from_secs(30));
        let budget = 1500;
        let a = on(&mut r, now, h(Flags::REL, 0, 1), &[0; 504], 0, budget);
        assert!(a.ack);
        let b = on(&mut r, now, h(Flags::REL, 0, 2), &[0; 504], 0, budget);
        assert!(b.ack);
        // A third partial does not fit.
        let c = on(&mut r, now, h(Flags::REL, 0, 3), &[0; 504], 0, budget);
        assert_eq!(c.dropped, Some(Dropped::OverBudget));
        assert!(!c.ack);
        // The oldest reliable partial may still grow, so it can complete.
        let d = on(&mut r, now, h(Flags::REL, 1, 1), &[0; 504], 0, budget);
        assert!(d.ack && d.dropped.is_none());
        // The newer one may not.
        let e = on(&mut r, now, h(Flags::REL, 1, 2), &[0; 504], 0, budget);
        assert_eq!(e.dropped, Some(Dropped::OverBudget));
        let f = on(
            &mut r,
            now,
            h(Flags::REL | Flags::FIN, 2, 1),
            &[0; 10],
            0,
            budget,
        );
        assert_eq!(f.message.map(|m| m.0.len()), Some(1018));
    }

    #[test]
    fn rejects_malformed() {
        let now = Instant::now();
        let mut r = Reassembler::new(false, Duration::from_secs(1), Duration::from_secs(30));
        let short = on(&mut r, now, h(Flags::REL, 0, 1), &[0; 10], 0, 1 << 20);
        assert_eq!(short.dropped, Some(Dropped::Malformed));
        assert!(!short.ack);
        let long = on(&mut r, now, h(Flags::FIN, 0, 2), &[0; 505], 0, 1 << 20);
        assert_eq!(long.dropped, Some(Dropped::Malformed));
    }

    #[test]
    fn unreliable_partials_expire() {
        let now = Instant::now();
        let mut r = Reassembler::new(false, Duration::from_secs(1), Duration::from_secs(30));
        on(&mut r, now, h(Flags::NONE, 0, 9), &[0; 504], 0, 1 << 20);
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
        on(&mut r, now, h(Flags::REL, 0, 5), &[1; 504], 0, 1 << 20);
        on(&mut r, now, h(Flags::REL, 0, 6), &[2; 504], 0, 1 << 20);
        assert_eq!(r.next_expiry(), Some(now + secs(30)));
        // A repeated chunk of sequence 5 at 20 s: its sender is alive, its deadline moves.
        let again = on(
            &mut r,
            now + secs(20),
            h(Flags::REL, 0, 5),
            &[1; 504],
            0,
            1 << 20,
        );
        assert!(again.ack);
        assert_eq!(r.expire(now + secs(29)), Expired::default());
        let expired = r.expire(now + secs(30));
        assert_eq!((expired.unreliable, expired.reliable), (0, 1));
        assert_eq!(r.next_expiry(), Some(now + secs(50)));
        // Sequence 5 still completes.
        let done = on(
            &mut r,
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
