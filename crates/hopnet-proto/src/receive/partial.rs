//! A payload being reassembled: its buffer, which chunks arrived, where it ends, and the
//! consistency rules a chunk must keep with the ones before it.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::time::Instant;

use super::budget::PARTIAL_OVERHEAD;
use super::{Dropped, Kind};

/// The partial payloads of a connection, by sequence.
pub(crate) type Partials = HashMap<u16, Partial, BuildHasherDefault<SeqHasher>>;

#[derive(Debug)]
pub(crate) struct Partial {
    /// How its chunks are framed and delivered: every chunk must agree.
    pub kind: Kind,
    /// Retransmitted by its sender (so kept for the long timeout, and may be rescued).
    pub reliable: bool,
    /// The reliable index and predecessor from chunk 0, once it arrived.
    pub order: Option<(u16, Option<u16>)>,
    /// Its place on the line of `Delivered::line_of`, which orders reliable ones by age
    /// (`oldest::Ages`).
    pub line: u64,
    buf: Vec<u8>,
    received: [u64; 4],
    count: usize,
    fin: Option<u8>,
    total: usize,
    pub first_at: Instant,
    /// When a chunk of it last arrived, new or repeated.
    pub last_at: Instant,
}

impl Partial {
    pub fn new(kind: Kind, now: Instant, line: u64) -> Partial {
        Partial {
            kind,
            reliable: kind.retransmitted(),
            order: None,
            line,
            buf: Vec::new(),
            received: [0; 4],
            count: 0,
            fin: None,
            total: 0,
            first_at: now,
            last_at: now,
        }
    }

    fn has(&self, chunk: u8) -> bool {
        self.received[usize::from(chunk / 64)] & (1 << (chunk % 64)) != 0
    }

    /// Appends the runs of chunks received so far to `out`, lowest first.
    pub fn received_runs(&self, out: &mut Vec<(u8, u8)>) {
        let mut run: Option<(u8, u8)> = None;
        for chunk in 0..=255u8 {
            if !self.has(chunk) {
                continue;
            }
            run = match run {
                Some((lo, hi)) if hi.wrapping_add(1) == chunk => Some((lo, chunk)),
                Some(done) => {
                    out.push(done);
                    Some((chunk, chunk))
                }
                None => Some((chunk, chunk)),
            };
        }
        out.extend(run);
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

    /// Memory charged to the budget: the buffer and the bookkeeping.
    pub fn charge(&self) -> usize {
        self.buf.capacity() + PARTIAL_OVERHEAD
    }

    /// The buffer's capacity and how much of it is filled in order.
    pub fn room(&self) -> (usize, usize) {
        (self.buf.capacity(), self.buf.len())
    }

    /// Whether chunk `chunk` (`fin` if the last) may join: same framing and delivery, not
    /// seen yet, and consistent with the last chunk's position. A repeat shows the sender is
    /// still working on this payload, so it moves `last_at`.
    pub fn check(&mut self, now: Instant, chunk: u8, fin: bool, kind: Kind) -> Result<(), Dropped> {
        if self.kind != kind {
            return Err(Dropped::Malformed);
        }
        if self.has(chunk) {
            self.last_at = now;
            return Err(Dropped::Duplicate);
        }
        match self.fin {
            Some(f) if fin || chunk > f => return Err(Dropped::Malformed),
            _ => {}
        }
        if fin && self.highest().is_some_and(|h| h > chunk) {
            return Err(Dropped::Malformed);
        }
        Ok(())
    }

    /// Adds a chunk at `offset`, reserving capacity up to `reserve` if it comes in order.
    pub fn insert(
        &mut self,
        now: Instant,
        chunk: u8,
        offset: usize,
        data: &[u8],
        fin: bool,
        reserve: Option<usize>,
    ) {
        self.last_at = now;
        let end = offset + data.len();
        if self.buf.len() == offset {
            // In order: append without zero-filling first.
            let room = reserve.map_or(data.len(), |cap| cap - offset);
            self.buf.reserve_exact(room);
            self.buf.extend_from_slice(data);
        } else {
            if self.buf.len() < end {
                self.buf.reserve_exact(end - self.buf.len());
                self.buf.resize(end, 0);
            }
            self.buf[offset..end].copy_from_slice(data);
        }
        self.received[usize::from(chunk / 64)] |= 1 << (chunk % 64);
        self.count += 1;
        if fin {
            self.fin = Some(chunk);
            self.total = end;
        }
    }

    /// Whether every chunk up to the last has arrived.
    pub fn is_complete(&self) -> bool {
        self.fin.is_some_and(|f| self.count == usize::from(f) + 1)
    }

    /// The payload of a complete partial.
    pub fn into_payload(self) -> Vec<u8> {
        let mut buf = self.buf;
        buf.truncate(self.total);
        buf
    }
}

/// Hashes a sequence number with one multiplication (Fibonacci hashing), where the standard
/// SipHash costs more than the rest of a lookup: the map is looked up two or three times per
/// chunk. Keys are 16-bit and the map is bounded by the reassembly budget, so a peer choosing
/// its sequence numbers can at worst make some of its own lookups probe a little longer.
#[derive(Default)]
pub(crate) struct SeqHasher(u64);

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn highest_is_the_top_received_chunk() {
        let mut p = Partial::new(Kind::Spec { rel: true }, Instant::now(), 0);
        assert_eq!(p.highest(), None);
        for c in [0u8, 5, 63, 64, 130, 255, 200] {
            p.received[usize::from(c / 64)] |= 1 << (c % 64);
            let want = (0..=255u8).rev().find(|&x| p.has(x));
            assert_eq!(p.highest(), want, "after {c}");
        }
    }
}
