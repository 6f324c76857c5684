//! Which reliable partial message is the oldest, answered without a walk over the partials.
//!
//! Over the reassembly budget every reliable chunk asks whether its message is the oldest
//! reliable one here (`budget.rs`: only that one may still grow). A walk over the partials per
//! chunk let a peer that filled the budget with thousands of small partials make each of its
//! chunks cost thousands of steps. Here every reliable partial is kept in an ordered set by its
//! age, counted on a sequence line that never wraps: the 16-bit sequence numbers are unwrapped
//! against the newest one seen, which only moves forward, less than half the sequence space at
//! a time. A partial that falls more than half the sequence space behind stays the oldest
//! here (a 16-bit comparison would take it for the newest); it still grows past the budget by
//! at most the rescue's one maximum payload, and expires on its timeout.

use std::collections::BTreeSet;

use crate::packet::seq_diff;

/// Where the unwrapped line starts: far enough from zero that no sequence seen behind the
/// first one goes below it.
const START: u64 = 1 << 32;

/// The reliable partials' unwrapped sequence numbers, and the newest sequence seen.
#[derive(Debug, Default)]
pub(crate) struct Ages {
    /// The newest sequence seen and its unwrapped number.
    newest: Option<(u16, u64)>,
    reliable: BTreeSet<u64>,
}

impl Ages {
    /// The newest sequence seen is now `newest` (never older than the one before).
    #[inline]
    pub fn observe(&mut self, newest: u16) {
        self.newest = Some(match self.newest {
            None => (newest, START),
            Some((seq, line)) => (newest, line + u64::from(newest.wrapping_sub(seq))),
        });
    }

    /// `seq`'s unwrapped number: behind the newest by their 16-bit distance.
    #[inline]
    pub fn unwrap(&self, seq: u16) -> u64 {
        match self.newest {
            None => START,
            Some((newest, line)) => line.saturating_add_signed(i64::from(seq_diff(seq, newest))),
        }
    }

    /// A reliable partial numbered `line` (from [`unwrap`](Self::unwrap)) was created.
    pub fn insert(&mut self, line: u64) {
        self.reliable.insert(line);
    }

    /// The reliable partial numbered `line` is gone (completed, expired, cleared).
    pub fn remove(&mut self, line: u64) {
        self.reliable.remove(&line);
    }

    /// Whether the message numbered `line` is older than every other reliable partial.
    #[inline]
    pub fn is_oldest(&self, line: u64) -> bool {
        self.reliable.first().is_none_or(|&first| line <= first)
    }

    /// Reliable partials kept.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.reliable.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ordered set against a walk over every partial with 16-bit comparisons, as the
    /// receiver answered before, while no partial is half the sequence space behind (where the
    /// two differ on purpose, see the module doc).
    #[test]
    fn agrees_with_a_walk_while_partials_stay_within_half_the_space() {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        for start in [0u16, 40_000, 65_500] {
            let mut ages = Ages::default();
            let mut newest = start;
            ages.observe(newest);
            // (seq, line) of the live reliable partials.
            let mut live: Vec<(u16, u64)> = Vec::new();
            for _ in 0..20_000 {
                match next(4) {
                    0 => {
                        newest = newest.wrapping_add(next(300) as u16);
                        ages.observe(newest);
                        // Partials too far behind expire, as the timeout would drop them.
                        live.retain(|&(s, line)| {
                            let keep = seq_diff(s, newest) > -20_000;
                            if !keep {
                                ages.remove(line);
                            }
                            keep
                        });
                    }
                    1 | 2 => {
                        let seq = newest.wrapping_sub(next(2_000) as u16);
                        if live.iter().all(|&(s, _)| s != seq) {
                            let line = ages.unwrap(seq);
                            ages.insert(line);
                            live.push((seq, line));
                        }
                    }
                    _ if !live.is_empty() => {
                        let (_, line) = live.swap_remove(next(live.len() as u64) as usize);
                        ages.remove(line);
                    }
                    _ => {}
                }
                assert_eq!(ages.len(), live.len());
                let probe = newest.wrapping_sub(next(3_000) as u16);
                let walk = live
                    .iter()
                    .filter(|&&(s, _)| s != probe)
                    .all(|&(s, _)| seq_diff(s, newest) > seq_diff(probe, newest));
                assert_eq!(ages.is_oldest(ages.unwrap(probe)), walk, "seq {probe}");
            }
        }
    }

    #[test]
    fn the_line_runs_on_across_the_wrap() {
        let mut ages = Ages::default();
        ages.observe(65_530);
        let old = ages.unwrap(65_530);
        ages.insert(old);
        ages.observe(10);
        assert_eq!(ages.unwrap(10), old + 16);
        assert_eq!(ages.unwrap(65_535), old + 5);
        assert!(ages.is_oldest(old));
        assert!(!ages.is_oldest(ages.unwrap(3)));
        assert!(ages.is_oldest(ages.unwrap(65_529)));
    }
}
