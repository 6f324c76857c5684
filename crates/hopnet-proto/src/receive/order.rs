//! Ordered delivery kept by the receiver, on the extended wire: a reliable ordered message is
//! handed up after the ordered message it names as its predecessor, a semi-ordered one after
//! every message with a lower reliable index (PROTOCOL.md, "Order information").
//!
//! The receiver keeps the lowest reliable index not yet handed up (the prefix), one bit per
//! index at or after it (8 KiB), and the complete messages it holds back, charged to the
//! reassembly budget. A sender keeps its live reliable messages within 16,384 sequence ids
//! (and so within 16,384 indexes), so an index further ahead of the prefix, or behind it, is
//! malformed.
//!
//! The index is any [`SerialIndex`]: hopnet's 16-bit reliable index, or another wire's
//! numbering (Semi-ordered UDP's 24-bit ids), through [`crate::engine`].

use std::collections::HashMap;

use crate::event::Delivery;
use crate::serial::SerialIndex;

/// How far ahead of the prefix an index may be.
pub const WINDOW: i32 = 16_384;

/// What a held message costs the budget besides its bytes (as a delivered event does).
pub const HELD_OVERHEAD: usize = 64;

#[derive(Debug)]
struct HeldMessage {
    bytes: Vec<u8>,
    semi: bool,
}

/// The reliable indexes handed up, and the messages held back: exactly-once and semi-ordered
/// (or predecessor-ordered) delivery of messages numbered by a sender, within a window of
/// [`WINDOW`] indexes ahead of the lowest index not yet handed up.
///
/// Memory: 8 KiB of bits, plus the messages held back ([`bytes`](Self::bytes), which the
/// caller keeps within its budget).
#[derive(Debug)]
pub struct Orderer<I = u16> {
    prefix: I,
    done: Vec<u64>,
    held: HashMap<I, HeldMessage>,
    /// A held reliable ordered message, by the index it waits for.
    waiting_on: HashMap<I, I>,
    bytes: usize,
}

impl Orderer<u16> {
    /// An orderer whose first index is 0 (hopnet's reliable indexes).
    pub fn new() -> Orderer<u16> {
        Orderer::starting_at(0)
    }
}

impl Default for Orderer<u16> {
    fn default() -> Self {
        Orderer::new()
    }
}

impl<I: SerialIndex> Orderer<I> {
    /// An orderer whose first index, the one nothing waits behind, is `prefix`.
    pub fn starting_at(prefix: I) -> Orderer<I> {
        Orderer {
            prefix,
            done: vec![0; 65536 / 64],
            held: HashMap::new(),
            waiting_on: HashMap::new(),
            bytes: 0,
        }
    }

    #[inline(always)]
    fn bit(&self, i: I) -> bool {
        let slot = i.slot();
        self.done[slot / 64] & (1 << (slot % 64)) != 0
    }

    #[inline(always)]
    fn set(&mut self, i: I, on: bool) {
        let slot = i.slot();
        let word = &mut self.done[slot / 64];
        if on {
            *word |= 1 << (slot % 64);
        } else {
            *word &= !(1 << (slot % 64));
        }
    }

    fn is_done(&self, i: I) -> bool {
        i.diff(self.prefix) < 0 || self.bit(i)
    }

    /// Whether `index` was handed up already (behind the prefix, or marked done ahead of it).
    pub fn handed_up(&self, index: I) -> bool {
        let ahead = index.diff(self.prefix);
        ahead < 0 || ((0..WINDOW).contains(&ahead) && self.bit(index))
    }

    /// The index every held semi-ordered message waits to reach.
    pub fn prefix(&self) -> I {
        self.prefix
    }

    /// Bytes held back, with their overhead.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Messages held back.
    pub fn held(&self) -> usize {
        self.held.len()
    }

    /// Whether a message may carry `index` (and `after`): within the window, not handed up
    /// or held already, its predecessor before it.
    pub fn accepts(&self, index: I, after: Option<I>) -> bool {
        let ahead = index.diff(self.prefix);
        let fresh =
            (0..WINDOW).contains(&ahead) && !self.bit(index) && !self.held.contains_key(&index);
        let before = after.is_none_or(|a| (1..=WINDOW).contains(&index.diff(a)));
        fresh && before && after.is_none_or(|a| !self.waiting_on.contains_key(&a))
    }

    /// A complete message with reliable `index` arrived: hands it up now (to `out`, with what
    /// it releases) or holds it back. `false` if it may not carry that index (then it is
    /// dropped, and its index counts as handed up so that nothing waits for it forever).
    pub fn arrive(
        &mut self,
        index: I,
        delivery: Delivery,
        after: Option<I>,
        bytes: Vec<u8>,
        out: &mut Vec<(Vec<u8>, bool)>,
    ) -> bool {
        if !self.accepts(index, after) {
            return false;
        }
        let ready = match delivery {
            Delivery::SemiOrdered => index == self.prefix,
            Delivery::ReliableOrdered => after.is_none_or(|a| self.is_done(a)),
            _ => true,
        };
        if !ready {
            self.bytes += bytes.capacity() + HELD_OVERHEAD;
            let semi = delivery == Delivery::SemiOrdered;
            self.held.insert(index, HeldMessage { bytes, semi });
            if let (Some(a), false) = (after, semi) {
                self.waiting_on.insert(a, index);
            }
            return true;
        }
        out.push((bytes, true));
        self.mark_done(index, out);
        true
    }

    /// Counts `index` as handed up without a message (one that failed to decompress), so that
    /// the messages after it are not held forever.
    pub fn skip(&mut self, index: I, out: &mut Vec<(Vec<u8>, bool)>) {
        let ahead = index.diff(self.prefix);
        if (0..WINDOW).contains(&ahead) && !self.bit(index) {
            self.mark_done(index, out);
        }
    }

    /// Marks `index` handed up and hands up what that releases.
    fn mark_done(&mut self, index: I, out: &mut Vec<(Vec<u8>, bool)>) {
        if self.held.is_empty() && self.waiting_on.is_empty() {
            // Nothing held back, so nothing to release: the common case of a stream of
            // plain reliable messages, which should cost no allocation and no hashing.
            self.set(index, true);
            self.advance_prefix();
            return;
        }
        let mut work = vec![index];
        while let Some(i) = work.pop() {
            self.set(i, true);
            self.advance_prefix();
            if self.held.get(&self.prefix).is_some_and(|h| h.semi) {
                let p = self.prefix;
                self.release(p, out);
                work.push(p);
            }
            if let Some(next) = self.waiting_on.remove(&i) {
                self.release(next, out);
                work.push(next);
            }
        }
    }

    /// Moves the prefix past the indexes handed up, clearing their bits for reuse.
    fn advance_prefix(&mut self) {
        while self.bit(self.prefix) {
            self.set(self.prefix, false);
            self.prefix = self.prefix.next();
        }
    }

    fn release(&mut self, index: I, out: &mut Vec<(Vec<u8>, bool)>) {
        if let Some(h) = self.held.remove(&index) {
            self.bytes -= h.bytes.capacity() + HELD_OVERHEAD;
            out.push((h.bytes, true));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const R: Delivery = Delivery::Reliable;
    const O: Delivery = Delivery::ReliableOrdered;
    const S: Delivery = Delivery::SemiOrdered;

    fn got(out: &mut Vec<(Vec<u8>, bool)>) -> Vec<u8> {
        out.drain(..).map(|(b, _)| b[0]).collect()
    }

    #[test]
    fn semi_ordered_waits_for_every_lower_index() {
        let mut o = Orderer::new();
        let mut out = Vec::new();
        // 0 reliable, 1 reliable, 2 semi, 3 reliable, 4 semi.
        assert!(o.arrive(2, S, None, vec![2], &mut out));
        assert!(o.arrive(3, R, None, vec![3], &mut out));
        assert!(o.arrive(4, S, None, vec![4], &mut out));
        assert_eq!(got(&mut out), [3]);
        assert_eq!((o.held(), o.bytes()), (2, 2 * (1 + HELD_OVERHEAD)));
        assert!(o.arrive(1, R, None, vec![1], &mut out));
        assert_eq!(got(&mut out), [1]);
        assert!(o.arrive(0, R, None, vec![0], &mut out));
        assert_eq!(got(&mut out), [0, 2, 4]);
        assert_eq!((o.held(), o.bytes(), o.prefix()), (0, 0, 5));
    }

    #[test]
    fn ordered_follows_its_predecessor_only() {
        let mut o = Orderer::new();
        let mut out = Vec::new();
        // 0 ordered, 1 reliable, 2 ordered (after 0), 3 semi, 4 ordered (after 3).
        assert!(o.arrive(4, O, Some(3), vec![4], &mut out));
        assert!(o.arrive(2, O, Some(0), vec![2], &mut out));
        assert!(o.arrive(3, S, None, vec![3], &mut out));
        assert!(out.is_empty());
        assert!(o.arrive(0, O, None, vec![0], &mut out));
        assert_eq!(got(&mut out), [0, 2], "3 still waits for 1");
        assert!(o.arrive(1, R, None, vec![1], &mut out));
        assert_eq!(got(&mut out), [1, 3, 4]);
    }

    #[test]
    fn forged_indexes_are_refused_and_skips_unblock() {
        let mut o = Orderer::new();
        let mut out = Vec::new();
        assert!(!o.accepts(16_384, None), "too far ahead");
        assert!(!o.accepts(65_535, None), "behind the prefix");
        assert!(!o.accepts(5, Some(5)) && !o.accepts(5, Some(6)));
        assert!(o.arrive(1, S, None, vec![1], &mut out));
        assert!(
            !o.arrive(1, R, None, vec![9], &mut out),
            "index already held"
        );
        assert!(o.arrive(3, O, Some(2), vec![3], &mut out));
        assert!(!o.accepts(4, Some(2)), "2 already has a successor");
        o.skip(0, &mut out);
        assert_eq!(got(&mut out), [1]);
        o.skip(2, &mut out);
        assert_eq!(got(&mut out), [3]);
        assert!(
            !o.arrive(0, R, None, vec![0], &mut out),
            "handed up already"
        );
        // Across the wrap.
        let mut o = Orderer::new();
        for i in 0..70_000u32 {
            assert!(o.arrive(i as u16, R, None, vec![0], &mut out));
        }
        assert_eq!(o.prefix(), (70_000 % 65_536) as u16);
    }
}
