//! Acknowledgements on the extended wire: sent when `ack_every` chunks are owed, `ack_delay`
//! after the first, at once for a repeated chunk (its sender is waiting), or with any datagram
//! that leaves before. Without the `ack_ranges` extension every chunk gets a frame of its own,
//! sent at once.
//!
//! With ranges, a frame describes what the receiver has over a window of sequences rather
//! than only what arrived since the last frame: from the oldest sequence owed by it or the two
//! frames before it to the newest sequence seen, every complete message as part of a range of
//! sequences and every incomplete one's chunks received so far. So each acknowledgement is
//! repeated by the next two frames: one frame acknowledges tens of chunks, and were it the
//! only one, its loss would make the sender resend them all and take the burst for
//! congestion. A sender's `ACK_NOW` gets a frame at once, even with nothing new owed.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use crate::ext::frame::{
    ACK_ENTRY, ACK_HEADER, AckRange, MAX_ACK_ENTRIES, MAX_ACK_SPAN, write_ack,
};
use crate::packet::seq_diff;
use crate::receive::Reassembler;

/// Sequences between two whole ranges that may be checked for completeness to merge them.
const MERGE_GAP: u16 = 64;

/// How many frames after the first repeat what it acknowledged.
const REPEATS: usize = 2;

/// The widest window of sequences one frame describes: past it, older owed sequences are
/// acknowledged one by one, as without the window.
const WINDOW: u16 = 2048;

/// What the receiver has, as an ACK frame describes it.
pub(crate) trait Received {
    /// Whether every chunk of `seq` arrived.
    fn is_complete(&self, seq: u16) -> bool;
    /// The runs of chunks of incomplete `seq` received so far, appended to `out`.
    fn received_runs(&self, seq: u16, out: &mut Vec<(u8, u8)>);
}

impl Received for Reassembler {
    fn is_complete(&self, seq: u16) -> bool {
        Reassembler::is_complete(self, seq)
    }
    fn received_runs(&self, seq: u16, out: &mut Vec<(u8, u8)>) {
        Reassembler::received_runs(self, seq, out);
    }
}

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
    /// A repeated chunk arrived (its sender is retransmitting), or the sender asked: answer
    /// now.
    urgent: bool,
    /// The sender asked for an acknowledgement (`ACK_NOW`), even of nothing new.
    requested: bool,
    /// The oldest sequence owed by each of the last frames, newest last.
    recent: VecDeque<u16>,
    /// Scratch for chunk runs.
    runs: Vec<(u8, u8)>,
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
            requested: false,
            recent: VecDeque::new(),
            runs: Vec::new(),
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
        self.owed.is_empty() && self.carry.is_empty() && !self.requested
    }

    /// The peer asked (`ACK_NOW`: its window is full, or it heard nothing for a while): an
    /// ACK frame leaves at once, describing the recent window even if nothing new is owed.
    pub fn hurry(&mut self, now: Instant) {
        self.urgent = true;
        self.requested = true;
        self.first_at.get_or_insert(now);
    }

    pub fn clear(&mut self) {
        self.owed.clear();
        self.carry.clear();
        self.recent.clear();
        self.first_at = None;
        self.urgent = false;
        self.requested = false;
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
    /// wrote one. `rx` tells what arrived; `newest` is the newest sequence seen from the peer
    /// (the reference for serial order).
    pub fn write(
        &mut self,
        now: Instant,
        buf: &mut Vec<u8>,
        room: usize,
        rx: &impl Received,
        newest: Option<u16>,
    ) -> bool {
        let fit = room.saturating_sub(ACK_HEADER) / ACK_ENTRY;
        if fit == 0 || self.is_empty() {
            return false;
        }
        if self.carry.is_empty() {
            self.compact(rx, newest.unwrap_or(0));
            self.requested = false;
            if self.carry.is_empty() {
                self.first_at = None;
                self.urgent = false;
                return false;
            }
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

    /// Turns the owed chunks into ranges, in serial order (oldest first): the window from the
    /// oldest sequence owed now or by the last frames to the newest owed, described whole
    /// (see the module doc); owed sequences older than the window one by one.
    fn compact(&mut self, rx: &impl Received, reference: u16) {
        if !self.ranges {
            // One chunk per frame, oldest first.
            if self.owed.is_empty() {
                return;
            }
            let (seq, chunk) = self.owed.remove(0);
            self.carry.push(AckRange {
                sequence: seq,
                extra: 0,
                first_chunk: chunk,
                last_chunk: chunk,
            });
            return;
        }
        let key = |s: u16| seq_diff(s, reference);
        self.owed.sort_unstable_by_key(|&(s, c)| (key(s), c));
        self.owed.dedup();
        // The window: from the oldest sequence owed now or by the last frames to the newest
        // seen, at most WINDOW sequences.
        let owed_first = self.owed.first().map(|&(s, _)| s);
        let Some(first) = owed_first.or_else(|| self.recent.back().copied()) else {
            return;
        };
        let oldest = self
            .recent
            .iter()
            .copied()
            .chain([first])
            .min_by_key(|&s| key(s))
            .unwrap_or(first);
        let last = reference;
        let floor = last.wrapping_sub(WINDOW);
        let start = if key(oldest) < key(floor) {
            floor
        } else {
            oldest
        };
        // Owed sequences before the window: what arrived of each, one by one.
        let mut i = 0;
        while i < self.owed.len() && key(self.owed[i].0) < key(start) {
            let seq = self.owed[i].0;
            while i < self.owed.len() && self.owed[i].0 == seq {
                i += 1;
            }
            self.describe(rx, seq);
        }
        // The window, whole.
        let mut seq = start;
        loop {
            self.describe(rx, seq);
            if seq == last {
                break;
            }
            seq = seq.wrapping_add(1);
        }
        if owed_first.is_some() {
            self.recent.push_back(first);
            while self.recent.len() > REPEATS {
                self.recent.pop_front();
            }
        }
        self.owed.clear();
    }

    /// Appends what arrived of `seq` to the ranges: the whole message (merged with the range
    /// before it when that ends just before, or only complete messages lie between), or the
    /// runs of chunks received so far.
    fn describe(&mut self, rx: &impl Received, seq: u16) {
        if rx.is_complete(seq) {
            let merged = self.carry.last_mut().is_some_and(|last| {
                let whole = last.first_chunk == 0 && last.last_chunk == 255;
                let gap = seq.wrapping_sub(last.last_sequence());
                let ok = whole
                    && (1..=MERGE_GAP).contains(&gap)
                    && (1..gap).all(|k| rx.is_complete(last.last_sequence().wrapping_add(k)));
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
            return;
        }
        self.runs.clear();
        rx.received_runs(seq, &mut self.runs);
        for &(lo, hi) in &self.runs {
            self.carry.push(AckRange {
                sequence: seq,
                extra: 0,
                first_chunk: lo,
                last_chunk: hi,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ext::frame::{Frame, decode};

    /// A receiver's state: complete sequences, and chunks of incomplete ones.
    struct Have {
        complete: fn(u16) -> bool,
        chunks: Vec<(u16, u8)>,
    }

    impl Have {
        /// A receiver holding every message whole.
        fn whole() -> Have {
            Have {
                complete: |_| true,
                chunks: Vec::new(),
            }
        }

        /// A receiver holding no message whole, only `chunks`.
        fn partial(chunks: Vec<(u16, u8)>) -> Have {
            Have {
                complete: |_| false,
                chunks,
            }
        }
    }

    impl Received for Have {
        fn is_complete(&self, seq: u16) -> bool {
            (self.complete)(seq)
        }
        fn received_runs(&self, seq: u16, out: &mut Vec<(u8, u8)>) {
            let mut got: Vec<u8> = self
                .chunks
                .iter()
                .filter(|c| c.0 == seq)
                .map(|c| c.1)
                .collect();
            got.sort_unstable();
            for c in got {
                match out.last_mut() {
                    Some((_, hi)) if *hi + 1 == c => *hi = c,
                    _ => out.push((c, c)),
                }
            }
        }
    }

    fn ranges_of(buf: &[u8]) -> Vec<AckRange> {
        match decode(buf).unwrap().0 {
            Frame::Ack(a) => a.ranges().collect(),
            other => panic!("{other:?}"),
        }
    }

    /// The ranges of the frame that `a` must write at `now` into `room` bytes.
    fn frame(
        a: &mut OwedAcks,
        now: Instant,
        room: usize,
        have: &Have,
        newest: Option<u16>,
    ) -> Vec<AckRange> {
        let mut buf = Vec::new();
        assert!(a.write(now, &mut buf, room, have, newest));
        ranges_of(&buf)
    }

    fn r(sequence: u16, extra: u16, first_chunk: u8, last_chunk: u8) -> AckRange {
        AckRange {
            sequence,
            extra,
            first_chunk,
            last_chunk,
        }
    }

    /// Acknowledgements owed with ranges on: a delay of 1,000 µs written in the frame, sent
    /// after 2 ms or 16 owed.
    fn with_ranges() -> OwedAcks {
        let mut a = OwedAcks::new(1000, Duration::from_millis(2), 16);
        a.set_ranges(true);
        a
    }

    #[test]
    fn whole_messages_merge_and_partials_give_their_runs() {
        let t0 = Instant::now();
        let mut a = with_ranges();
        // 65534..=2 complete except 0 (unreliable, never seen); 5 has chunks 0, 1, 3 so far.
        let have = Have {
            complete: |s| matches!(s, 65534 | 65535 | 1 | 2),
            chunks: vec![(5, 0), (5, 1), (5, 3)],
        };
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
            &have,
            Some(5)
        ));
        assert_eq!(
            ranges_of(&buf),
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
    fn each_acknowledgement_is_repeated_by_the_next_two_frames() {
        let t0 = Instant::now();
        let mut a = with_ranges();
        let have = Have::whole();
        let mut frames = Vec::new();
        for first in [10u16, 20, 30, 40] {
            for s in first..first + 5 {
                a.push(t0, s, 0, false);
            }
            frames.push(frame(&mut a, t0, 1200, &have, Some(first + 4)));
        }
        assert_eq!(frames[0], [r(10, 4, 0, 255)]);
        assert_eq!(frames[1], [r(10, 14, 0, 255)]);
        assert_eq!(frames[2], [r(10, 24, 0, 255)]);
        assert_eq!(frames[3], [r(20, 24, 0, 255)], "10..15 was repeated twice");
    }

    #[test]
    fn a_full_datagram_carries_the_rest_over_and_without_ranges_one_each() {
        let t0 = Instant::now();
        let mut a = with_ranges();
        // Every other sequence incomplete, with its chunk 0: 20 ranges.
        let have = Have::partial((0..20u16).map(|s| (s * 2, 0)).collect());
        for s in 0..20u16 {
            a.push(t0, s * 2, 0, false);
        }
        assert!(a.due(t0), "16 owed");
        let room = ACK_HEADER + 5 * ACK_ENTRY;
        assert_eq!(frame(&mut a, t0, room, &have, Some(40)).len(), 5);
        assert!(a.due(t0), "the rest is due at once");
        assert_eq!(frame(&mut a, t0, 1200, &have, Some(40)).len(), 15);
        assert!(a.is_empty());
        let mut plain = OwedAcks::new(1000, Duration::from_millis(2), 16);
        plain.push(t0, 7, 1, false);
        plain.push(t0, 7, 2, false);
        assert!(plain.due(t0));
        assert_eq!(frame(&mut plain, t0, 1200, &have, Some(7)), [r(7, 0, 1, 1)]);
        assert!(!plain.is_empty());
        // A repeated chunk is answered at once.
        let mut urgent = OwedAcks::new(1000, Duration::from_millis(2), 16);
        urgent.set_ranges(true);
        urgent.push(t0, 3, 0, true);
        assert!(urgent.due(t0) && urgent.deadline() == Some(t0));
    }
}
