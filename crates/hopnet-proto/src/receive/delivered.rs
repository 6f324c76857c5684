//! Exactly-once hand-up across the 16-bit wrap, without unbounded history.
//!
//! The receiver keeps one bit per sequence id (8 KiB) saying "delivered". The bits are valid for
//! the half of the sequence space at or behind the newest sequence seen; when the newest
//! advances, the bits it passes over are cleared, because they belonged to messages 65,536 ids
//! ago.

use crate::packet::{seq_diff, seq_newer};

/// Where the unwrapped line starts: far enough from zero that no sequence seen behind the
/// first one goes below it.
const LINE_START: u64 = 1 << 32;

/// Which 16-bit sequences were handed up (or received), within half the sequence space behind
/// the newest seen: exactly-once across the wrap in 8 KiB, whatever the peer sends.
#[derive(Debug)]
pub struct Delivered {
    bits: Vec<u64>,
    newest: Option<u16>,
    /// The newest sequence's place on a line that never wraps: it moves with the newest, by
    /// less than half the sequence space at a time, so it counts every step (see
    /// [`line_of`](Self::line_of)).
    line: u64,
}

impl Default for Delivered {
    fn default() -> Self {
        Delivered::new()
    }
}

impl Delivered {
    /// Nothing seen yet.
    pub fn new() -> Delivered {
        Delivered {
            bits: vec![0; 65536 / 64],
            newest: None,
            line: LINE_START,
        }
    }

    /// The newest sequence seen from the peer.
    pub fn newest(&self) -> Option<u16> {
        self.newest
    }

    /// `seq`'s place on the line: behind (or ahead of) the newest by their 16-bit distance.
    /// Unlike 16-bit comparisons, places keep their order however far the newest moves on,
    /// which orders messages by age (`oldest.rs`).
    #[inline]
    pub fn line_of(&self, seq: u16) -> u64 {
        match self.newest {
            None => LINE_START,
            Some(newest) => self
                .line
                .saturating_add_signed(i64::from(seq_diff(seq, newest))),
        }
    }

    /// Whether `seq` was inserted, and is not newer than the newest seen.
    pub fn contains(&self, seq: u16) -> bool {
        match self.newest {
            Some(n) if !seq_newer(seq, n) => {
                self.bits[usize::from(seq / 64)] & (1 << (seq % 64)) != 0
            }
            _ => false,
        }
    }

    /// Marks `seq` (call [`observe`](Self::observe) for it first).
    pub fn insert(&mut self, seq: u16) {
        self.bits[usize::from(seq / 64)] |= 1 << (seq % 64);
    }

    /// A chunk of `seq` arrived: if it is the newest, the bits it passes over are cleared.
    pub fn observe(&mut self, seq: u16) {
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
                    self.bits[usize::from(s / 64)] &= !mask;
                    s = s.wrapping_add(take as u16);
                    count -= take;
                }
                self.line += u64::from(seq.wrapping_sub(n));
                self.newest = Some(seq);
            }
            Some(_) => {}
        }
    }
}
