//! Acknowledgements on the extended wire: the chunks owed, gathered into ranges (whole
//! messages as one range of sequences, the rest as runs of chunks), sent when `ack_every` are
//! owed, `ack_delay` after the first, at once for a repeated chunk (its sender is waiting), or
//! with any datagram that leaves before. Without the `ack_ranges` extension every chunk gets
//! a frame of its own, sent at once.

use std::time::{Duration, Instant};

use crate::ext::frame::{
    ACK_ENTRY, ACK_HEADER, AckRange, MAX_ACK_ENTRIES, MAX_ACK_SPAN, write_ack,
};
use crate::packet::seq_diff;

/// Sequences between two whole ranges that may be checked for completeness to merge them.
const MERGE_GAP: u16 = 64;

/// The acknowledgements a connection owes on the extended wire, bounded.
#[derive(Debug)]
pub(crate) struct OwedAcks {
    owed: Vec<(u16, u8)>,
    /// Ranges built but not yet sent (more than one frame could hold), in serial order.
    carry: Vec<AckRange>,
    /// When the oldest owed chunk arrived.
    first_at: Option<Instant>,
    /// When the newest owed chunk arrived (the frame's delay counts from it).
    newest_at: Option<Instant>,
    /// A repeated chunk arrived: its sender is retransmitting, answer now.
    urgent: bool,
    ranges: bool,
    max: usize,
    delay: Duration,
    every: usize,
}

impl OwedAcks {
    pub fn new(max: usize, delay: Duration, every: usize) -> OwedAcks {
        OwedAcks {
            owed: Vec::new(),
            carry: Vec::new(),
            first_at: None,
            newest_at: None,
            urgent: false,
            ranges: false,
            max,
            delay,
            every,
        }
    }

    /// Whether ranges and delays were agreed.
    pub fn set_ranges(&mut self, on: bool) {
        self.ranges = on;
    }

    /// Owes an ACK for `(sequence, chunk)`; `false` if too many are owed (the peer sends the
    /// chunk again, and it is acknowledged then).
    pub fn push(&mut self, now: Instant, sequence: u16, chunk: u8, repeated: bool) -> bool {
        if self.owed.len() >= self.max {
            return false;
        }
        self.owed.push((sequence, chunk));
        self.first_at.get_or_insert(now);
        self.newest_at = Some(now);
        self.urgent |= repeated;
        true
    }

    pub fn is_empty(&self) -> bool {
        self.owed.is_empty() && self.carry.is_empty()
    }

    pub fn clear(&mut self) {
        self.owed.clear();
        self.carry.clear();
        self.first_at = None;
        self.urgent = false;
    }

    /// Whether an ACK must leave now, even in a datagram of its own.
    pub fn due(&self, now: Instant) -> bool {
        if self.is_empty() {
            return false;
        }
        !self.ranges
            || self.urgent
            || !self.carry.is_empty()
            || self.owed.len() >= self.every
            || self.first_at.is_some_and(|t| now >= t + self.delay)
    }

    /// When an ACK becomes due by its delay.
    pub fn deadline(&self) -> Option<Instant> {
        if self.is_empty() {
            return None;
        }
        if !self.ranges || self.urgent || !self.carry.is_empty() {
            return self.first_at;
        }
        self.first_at.map(|t| t + self.delay)
    }

    /// Appends one ACK frame of what is owed to `buf`, within `room` bytes; returns whether it
    /// wrote one. `complete` tells whether every chunk of a sequence arrived; `newest` is the
    /// newest sequence seen from the peer (the reference for serial order).
    pub fn write(
        &mut self,
        now: Instant,
        buf: &mut Vec<u8>,
        room: usize,
        complete: impl Fn(u16) -> bool,
        newest: Option<u16>,
    ) -> bool {
        let fit = room.saturating_sub(ACK_HEADER) / ACK_ENTRY;
        if fit == 0 || self.is_empty() {
            return false;
        }
        if self.carry.is_empty() {
            self.compact(&complete, newest.unwrap_or(0));
        }
        // What fits, within half the sequence space of the first range.
        let start = self.carry[0].sequence;
        let n = self
            .carry
            .iter()
            .take(fit.min(MAX_ACK_ENTRIES))
            .take_while(|r| u32::from(r.last_sequence().wrapping_sub(start)) <= MAX_ACK_SPAN)
            .count()
            .max(1);
        let since = self
            .newest_at
            .map_or(Duration::ZERO, |t| now.saturating_duration_since(t));
        let delay = u16::try_from(since.as_micros()).unwrap_or(u16::MAX);
        write_ack(buf, delay, &self.carry[..n]);
        self.carry.drain(..n);
        if self.carry.is_empty() {
            self.first_at = None;
            self.urgent = false;
        }
        true
    }

    /// Turns the owed chunks into ranges, in serial order (oldest first).
    fn compact(&mut self, complete: &impl Fn(u16) -> bool, reference: u16) {
        if !self.ranges {
            // One chunk per frame, oldest first.
            let (seq, chunk) = self.owed.remove(0);
            self.carry.push(AckRange {
                sequence: seq,
                extra: 0,
                first_chunk: chunk,
                last_chunk: chunk,
            });
            return;
        }
        self.owed
            .sort_unstable_by_key(|&(s, c)| (seq_diff(s, reference), c));
        self.owed.dedup();
        let mut i = 0;
        while i < self.owed.len() {
            let seq = self.owed[i].0;
            let mut j = i;
            while j < self.owed.len() && self.owed[j].0 == seq {
                j += 1;
            }
            if complete(seq) {
                let merged = self.carry.last_mut().is_some_and(|last| {
                    let whole = last.first_chunk == 0 && last.last_chunk == 255;
                    let gap = seq.wrapping_sub(last.last_sequence());
                    let ok = whole
                        && (1..=MERGE_GAP).contains(&gap)
                        && (1..gap).all(|k| complete(last.last_sequence().wrapping_add(k)));
                    if ok {
                        last.extra += gap;
                    }
                    ok
                });
                if !merged {
                    self.carry.push(AckRange {
                        sequence: seq,
                        extra: 0,
                        first_chunk: 0,
                        last_chunk: 255,
                    });
                }
            } else {
                let mut k = i;
                while k < j {
                    let lo = self.owed[k].1;
                    let mut hi = lo;
                    while k + 1 < j && self.owed[k + 1].1 == hi.wrapping_add(1) && hi < 255 {
                        k += 1;
                        hi += 1;
                    }
                    self.carry.push(AckRange {
                        sequence: seq,
                        extra: 0,
                        first_chunk: lo,
                        last_chunk: hi,
                    });
                    k += 1;
                }
            }
            i = j;
        }
        self.owed.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ext::frame::{Frame, decode};

    fn ranges_of(buf: &[u8]) -> Vec<AckRange> {
        match decode(buf).unwrap().0 {
            Frame::Ack(a) => a.ranges().collect(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn whole_messages_merge_and_partials_keep_their_runs() {
        let t0 = Instant::now();
        let mut a = OwedAcks::new(1000, Duration::from_millis(2), 16);
        a.set_ranges(true);
        // 65534..=2 complete except 0 (unreliable, never seen), 5 has chunks 0, 1, 3 so far.
        let complete = |s: u16| matches!(s, 65534 | 65535 | 1 | 2);
        for (s, c) in [
            (2, 0),
            (65535, 0),
            (5, 3),
            (65534, 0),
            (5, 0),
            (5, 1),
            (1, 0),
            (2, 0),
        ] {
            assert!(a.push(t0, s, c, false));
        }
        assert!(!a.due(t0), "8 owed, 2 ms not passed");
        assert!(a.due(t0 + Duration::from_millis(2)));
        let mut buf = Vec::new();
        assert!(a.write(
            t0 + Duration::from_millis(1),
            &mut buf,
            1200,
            complete,
            Some(5)
        ));
        let got = ranges_of(&buf);
        let r = |sequence, extra, first_chunk, last_chunk| AckRange {
            sequence,
            extra,
            first_chunk,
            last_chunk,
        };
        assert_eq!(
            got,
            [
                r(65534, 1, 0, 255),
                r(1, 1, 0, 255),
                r(5, 0, 0, 1),
                r(5, 0, 3, 3)
            ]
        );
        assert_eq!(u16::from_be_bytes([buf[1], buf[2]]), 1000, "delay in µs");
        assert!(a.is_empty());
    }

    #[test]
    fn a_full_datagram_carries_the_rest_over_and_without_ranges_one_each() {
        let t0 = Instant::now();
        let mut a = OwedAcks::new(1000, Duration::from_millis(2), 16);
        a.set_ranges(true);
        for s in 0..20u16 {
            a.push(t0, s * 2, 0, false);
        }
        assert!(a.due(t0), "16 owed");
        let mut buf = Vec::new();
        assert!(a.write(
            t0,
            &mut buf,
            ACK_HEADER + 5 * ACK_ENTRY,
            |_| false,
            Some(40)
        ));
        assert_eq!(ranges_of(&buf).len(), 5);
        assert!(a.due(t0), "the rest is due at once");
        buf.clear();
        assert!(a.write(t0, &mut buf, 1200, |_| false, Some(40)));
        assert_eq!(ranges_of(&buf).len(), 15);
        assert!(a.is_empty());
        let mut plain = OwedAcks::new(1000, Duration::from_millis(2), 16);
        plain.push(t0, 7, 1, false);
        plain.push(t0, 7, 2, false);
        assert!(plain.due(t0));
        buf.clear();
        assert!(plain.write(t0, &mut buf, 1200, |_| true, Some(7)));
        assert_eq!(ranges_of(&buf).len(), 1);
        assert!(!plain.is_empty());
        // A repeated chunk is answered at once.
        let mut r = OwedAcks::new(1000, Duration::from_millis(2), 16);
        r.set_ranges(true);
        r.push(t0, 3, 0, true);
        assert!(r.due(t0) && r.deadline() == Some(t0));
    }
}
