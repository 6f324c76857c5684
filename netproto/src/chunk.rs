//! Splitting payloads into chunks and reassembling them, with exactly-once hand-up.
//!
//! The receiver keeps one bit per sequence id (8 KiB) saying "delivered". The bits are valid for
//! the half of the sequence space at or behind the newest sequence seen; when the newest advances,
//! the bits it passes over are cleared, because they belonged to messages 65,536 ids ago. This is
//! what makes hand-up exactly-once across the 16-bit wrap without unbounded history.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::time::{Duration, Instant};

use crate::packet::{Flags, Header, seq_diff, seq_newer};

/// Bytes of payload in every chunk but the last.
pub const CHUNK_SIZE: usize = 504;
/// Chunks per message at most (the chunk index is one byte).
pub const MAX_CHUNKS: usize = 256;
/// The largest payload a message can carry: 256 × 504 = 129,024 bytes.
pub const MAX_PAYLOAD: usize = CHUNK_SIZE * MAX_CHUNKS;

/// Bookkeeping charged per partial payload on top of its buffer, so that many tiny partials
/// cannot slip under the memory budget.
const PARTIAL_OVERHEAD: usize = 96;

/// Number of chunks a payload of `len` bytes is split into (an empty payload is one empty chunk).
pub const fn chunk_count(len: usize) -> usize {
    if len == 0 {
        1
    } else {
        len.div_ceil(CHUNK_SIZE)
    }
}

/// The bytes of chunk `index` of `payload`.
pub fn chunk_bytes(payload: &[u8], index: usize) -> &[u8] {
    let start = (index * CHUNK_SIZE).min(payload.len());
    let end = (start + CHUNK_SIZE).min(payload.len());
    &payload[start..end]
}

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
    fn dropped(why: Dropped, ack: bool) -> Received {
        Received {
            ack,
            message: None,
            dropped: Some(why),
        }
    }
}

#[derive(Debug)]
struct Partial {
    reliable: bool,
    buf: Vec<u8>,
    received: [u64; 4],
    count: usize,
    fin: Option<u8>,
    total: usize,
    first_at: Instant,
    /// When a chunk of it last arrived, new or repeated.
    last_at: Instant,
}

impl Partial {
    fn has(&self, chunk: u8) -> bool {
        self.received[usize::from(chunk / 64)] & (1 << (chunk % 64)) != 0
    }
    /// The highest chunk received: the top set bit of the highest non-zero word.
    fn highest(&self) -> Option<u8> {
        let (i, word) = self
            .received
            .iter()
            .enumerate()
            .rev()
            .find(|(_, w)| **w != 0)?;
        Some((i * 64 + 63 - word.leading_zeros() as usize) as u8)
    }
    fn charge(&self) -> usize {
        self.buf.capacity() + PARTIAL_OVERHEAD
    }
}

/// Hashes a sequence number with one multiplication (Fibonacci hashing), where the standard
/// SipHash costs more than the rest of a lookup: the map is looked up two or three times per
/// chunk. Keys are 16-bit and the map is bounded by the reassembly budget, so a peer choosing
/// its sequence numbers can at worst make some of its own lookups probe a little longer.
#[derive(Default)]
struct SeqHasher(u64);

impl Hasher for SeqHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u16(&mut self, n: u16) {
        self.write_u64(u64::from(n));
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0 ^ n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// What [`Reassembler::expire`] dropped.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Expired {
    /// Incomplete unreliable payloads past their timeout.
    pub unreliable: usize,
    /// Incomplete reliable payloads abandoned by a silent sender.
    pub reliable: usize,
}

/// The receive half of a connection.
#[derive(Debug)]
pub(crate) struct Reassembler {
    delivered: Vec<u64>,
    newest: Option<u16>,
    partials: HashMap<u16, Partial, BuildHasherDefault<SeqHasher>>,
    partial_bytes: usize,
    newest_unreliable: Option<u16>,
    sequenced: bool,
    unreliable_timeout: Duration,
    reliable_timeout: Duration,
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
            delivered: vec![0; 65536 / 64],
            newest: None,
            partials: HashMap::default(),
            partial_bytes: 0,
            newest_unreliable: None,
            sequenced,
            unreliable_timeout,
            reliable_timeout,
            expiry_bound: None,
        }
    }

    /// Bytes held by partial payloads (buffers plus bookkeeping).
    pub fn partial_bytes(&self) -> usize {
        self.partial_bytes
    }

    /// The newest sequence seen from the peer.
    pub fn newest(&self) -> Option<u16> {
        self.newest
    }

    fn is_delivered(&self, seq: u16) -> bool {
        match self.newest {
            Some(n) if !seq_newer(seq, n) => {
                self.delivered[usize::from(seq / 64)] & (1 << (seq % 64)) != 0
            }
            _ => false,
        }
    }

    fn set_delivered(&mut self, seq: u16) {
        self.delivered[usize::from(seq / 64)] |= 1 << (seq % 64);
    }

    fn observe(&mut self, seq: u16) {
        match self.newest {
            None => self.newest = Some(seq),
            Some(n) if seq_newer(seq, n) => {
                // Clear the bits the newest sequence passes over, a word at a time.
                let mut s = n.wrapping_add(1);
                let mut count = u32::from(seq.wrapping_sub(n));
                while count > 0 {
                    let bit = u32::from(s % 64);
                    let take = (64 - bit).min(count);
                    let mask = if take == 64 {
                        !0u64
                    } else {
                        ((1u64 << take) - 1) << bit
                    };
                    self.delivered[usize::from(s / 64)] &= !mask;
                    s = s.wrapping_add(take as u16);
                    count -= take;
                }
                self.newest = Some(seq);
            }
            Some(_) => {}
        }
    }

    /// The oldest reliable partial (the one the sender most needs completed).
    fn oldest_reliable(&self) -> Option<u16> {
        let newest = self.newest?;
        self.partials
            .iter()
            .filter(|(_, p)| p.reliable)
            .map(|(&s, _)| s)
            .min_by_key(|&s| seq_diff(s, newest))
    }

    /// Takes one chunk. `outside` is memory already charged elsewhere (delivered payloads not
    /// yet polled); `budget` the configured limit. Beyond the budget, only the oldest reliable
    /// partial may still grow (up to one maximum payload more), so reassembly cannot deadlock.
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
        if data.len() > CHUNK_SIZE || (!fin && data.len() != CHUNK_SIZE) {
            return Received::dropped(Dropped::Malformed, false);
        }
        if self.is_delivered(seq) {
            return Received::dropped(Dropped::Duplicate, reliable);
        }
        self.observe(seq);
        if !reliable && self.sequenced && self.newest_unreliable.is_some_and(|n| !seq_newer(seq, n))
        {
            return Received::dropped(Dropped::Stale, false);
        }
        let used = outside + self.partial_bytes;

        if header.chunk == 0 && fin && !self.partials.contains_key(&seq) {
            // A single-chunk message: no reassembly state at all.
            if used + data.len() > budget {
                return Received::dropped(Dropped::OverBudget, false);
            }
            return self.complete(seq, data.to_vec(), reliable);
        }

        let chunk = header.chunk;
        let offset = usize::from(chunk) * CHUNK_SIZE;
        let end = offset + data.len();
        let (existing_cap, filled, exists) = match self.partials.get_mut(&seq) {
            Some(p) => {
                if p.reliable != reliable {
                    return Received::dropped(Dropped::Malformed, false);
                }
                if p.has(chunk) {
                    // A repeat shows the sender is still working on this payload.
                    p.last_at = now;
                    return Received::dropped(Dropped::Duplicate, reliable);
                }
                match p.fin {
                    Some(f) if fin || chunk > f => {
                        return Received::dropped(Dropped::Malformed, false);
                    }
                    _ => {}
                }
                if fin && p.highest().is_some_and(|h| h > chunk) {
                    return Received::dropped(Dropped::Malformed, false);
                }
                (p.buf.capacity(), p.buf.len(), true)
            }
            None => (0, 0, false),
        };
        let overhead = if exists { 0 } else { PARTIAL_OVERHEAD };
        let need = end.max(existing_cap) - existing_cap + overhead;
        // A chunk without FIN arriving in order has another after it: with memory to spare,
        // reserve ahead, charged like the rest. A first chunk makes room for two more, so a
        // 1 KiB message (504 + 504 + 16 bytes) is one allocation; after that the buffer
        // doubles, so a large payload is a handful of allocations, not one per chunk.
        let ahead = if !fin && filled == offset {
            let next = end + CHUNK_SIZE;
            let cap = if next <= existing_cap {
                existing_cap
            } else if filled == 0 {
                next + CHUNK_SIZE
            } else {
                next.max(2 * existing_cap)
            };
            let cap = cap.min(MAX_PAYLOAD).max(existing_cap);
            let roomy = cap - existing_cap + overhead;
            (used + roomy <= budget / 2).then_some(cap)
        } else {
            None
        };
        let within = used + need <= budget;
        // Only over budget: finding the oldest reliable partial walks them all.
        let rescue = || {
            exists
                && reliable
                && used + need <= budget + MAX_PAYLOAD + PARTIAL_OVERHEAD
                && self.oldest_reliable() == Some(seq)
        };
        if !within && !rescue() {
            return Received::dropped(Dropped::OverBudget, false);
        }

        if !exists {
            let deadline = now
                + if reliable {
                    self.reliable_timeout
                } else {
                    self.unreliable_timeout
                };
            self.expiry_bound = Some(self.expiry_bound.map_or(deadline, |b| b.min(deadline)));
        }
        let partial = self.partials.entry(seq).or_insert_with(|| Partial {
            reliable,
            buf: Vec::new(),
            received: [0; 4],
            count: 0,
            fin: None,
            total: 0,
            first_at: now,
            last_at: now,
        });
        partial.last_at = now;
        let before = if exists { partial.charge() } else { 0 };
        if partial.buf.len() == offset {
            // In order: append without zero-filling first.
            let room = ahead.map_or(data.len(), |cap| cap - offset);
            partial.buf.reserve_exact(room);
            partial.buf.extend_from_slice(data);
        } else {
            if partial.buf.len() < end {
                partial.buf.reserve_exact(end - partial.buf.len());
                partial.buf.resize(end, 0);
            }
            partial.buf[offset..end].copy_from_slice(data);
        }
        partial.received[usize::from(chunk / 64)] |= 1 << (chunk % 64);
        partial.count += 1;
        if fin {
            partial.fin = Some(chunk);
            partial.total = end;
        }
        let after = partial.charge();
        self.partial_bytes = self.partial_bytes + after - before;

        let done = partial
            .fin
            .is_some_and(|f| partial.count == usize::from(f) + 1);
        if done {
            let Some(p) = self.partials.remove(&seq) else {
                return Received::default();
            };
            self.partial_bytes -= p.charge();
            let mut buf = p.buf;
            buf.truncate(p.total);
            return self.complete(seq, buf, reliable);
        }
        Received {
            ack: reliable,
            message: None,
            dropped: None,
        }
    }

    fn complete(&mut self, seq: u16, bytes: Vec<u8>, reliable: bool) -> Received {
        self.set_delivered(seq);
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

    /// When a partial payload is dropped: an unreliable one a fixed time after its first
    /// chunk, a reliable one once no chunk of it has arrived for the reliable timeout.
    fn deadline(&self, p: &Partial) -> Instant {
        if p.reliable {
            p.last_at + self.reliable_timeout
        } else {
            p.first_at + self.unreliable_timeout
        }
    }

    /// Drops the partial payloads whose deadline has passed; returns how many unreliable and
    /// how many reliable ones.
    pub fn expire(&mut self, now: Instant) -> Expired {
        let mut expired = Expired::default();
        if self.expiry_bound.is_none_or(|b| now < b) {
            return expired;
        }
        let mut freed = 0;
        self.partials.retain(|_, p| {
            let deadline = if p.reliable {
                p.last_at + self.reliable_timeout
            } else {
                p.first_at + self.unreliable_timeout
            };
            if now < deadline {
                return true;
            }
            if p.reliable {
                expired.reliable += 1;
            } else {
                expired.unreliable += 1;
            }
            freed += p.charge();
            false
        });
        self.partial_bytes -= freed;
        self.expiry_bound = self.partials.values().map(|p| self.deadline(p)).min();
        expired
    }

    /// When the next partial payload may expire: never later than the real deadline, at times
    /// earlier (then [`expire`](Self::expire) finds nothing and makes it exact).
    pub fn next_expiry(&self) -> Option<Instant> {
        self.expiry_bound
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(flags: Flags, chunk: u8, seq: u16) -> Header {
        Header::new(flags, chunk, seq)
    }

    #[test]
    fn counts() {
        assert_eq!(chunk_count(0), 1);
        assert_eq!(chunk_count(504), 1);
        assert_eq!(chunk_count(505), 2);
        assert_eq!(chunk_count(MAX_PAYLOAD), 256);
        assert_eq!(chunk_bytes(&[1, 2, 3], 0), &[1, 2, 3]);
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
    fn highest_is_the_top_received_chunk() {
        let now = Instant::now();
        let mut p = Partial {
            reliable: true,
            buf: Vec::new(),
            received: [0; 4],
            count: 0,
            fin: None,
            total: 0,
            first_at: now,
            last_at: now,
        };
        assert_eq!(p.highest(), None);
        for c in [0u8, 5, 63, 64, 130, 255, 200] {
            p.received[usize::from(c / 64)] |= 1 << (c % 64);
            let want = (0..=255u8).rev().find(|&x| p.has(x));
            assert_eq!(p.highest(), want, "after {c}");
        }
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
}
