//! Which reliable partial message is the oldest, answered without a walk over the partials.
//!
//! Over the reassembly budget every reliable chunk asks whether its message is the oldest
//! reliable one here (`budget.rs`: only that one may still grow). A walk over the partials per
//! chunk let a peer that filled the budget with thousands of small partials make each of its
//! chunks cost thousands of steps. Here every reliable partial is kept in an ordered set by its
//! place on the line of `Delivered::line_of`, which never wraps. A partial that falls more than
//! half the sequence space behind stays the oldest here (a 16-bit comparison would take it for
//! the newest); it still grows past the budget by at most the rescue's one maximum payload,
//! and expires on its timeout.

use std::collections::BTreeSet;

/// The reliable partials' places on the line.
#[derive(Debug, Default)]
pub(crate) struct Ages {
    reliable: BTreeSet<u64>,
}

impl Ages {
    /// A reliable partial at `line` was created.
    pub fn insert(&mut self, line: u64) {
        self.reliable.insert(line);
    }

    /// The reliable partial at `line` is gone (completed or expired).
    pub fn remove(&mut self, line: u64) {
        self.reliable.remove(&line);
    }

    /// Whether the message at `line` is older than every other reliable partial.
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
    use rand::{Rng, SeedableRng, rngs::StdRng};

    use super::*;
    use crate::packet::seq_diff;
    use crate::receive::delivered::Delivered;

    /// The ordered set against a walk over every partial with 16-bit comparisons, as the
    /// receiver answered before, while no partial is half the sequence space behind (where the
    /// two differ on purpose, see the module doc).
    #[test]
    fn agrees_with_a_walk_while_partials_stay_within_half_the_space() {
        let mut rng = StdRng::seed_from_u64(0x2545_f491);
        for start in [0u16, 40_000, 65_500] {
            let (mut ages, mut seen) = (Ages::default(), Delivered::new());
            let mut newest = start;
            seen.observe(newest);
            // (seq, line) of the live reliable partials.
            let mut live: Vec<(u16, u64)> = Vec::new();
            for _ in 0..20_000 {
                match rng.random_range(0..4) {
                    0 => {
                        newest = newest.wrapping_add(rng.random_range(0..300));
                        seen.observe(newest);
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
                        let seq = newest.wrapping_sub(rng.random_range(0..2_000));
                        if live.iter().all(|&(s, _)| s != seq) {
                            let line = seen.line_of(seq);
                            ages.insert(line);
                            live.push((seq, line));
                        }
                    }
                    _ if !live.is_empty() => {
                        let (_, line) = live.swap_remove(rng.random_range(0..live.len()));
                        ages.remove(line);
                    }
                    _ => {}
                }
                assert_eq!(ages.len(), live.len());
                let probe = newest.wrapping_sub(rng.random_range(0..3_000));
                let walk = live
                    .iter()
                    .filter(|&&(s, _)| s != probe)
                    .all(|&(s, _)| seq_diff(s, newest) > seq_diff(probe, newest));
                assert_eq!(ages.is_oldest(seen.line_of(probe)), walk, "seq {probe}");
            }
        }
    }

    #[test]
    fn the_line_runs_on_across_the_wrap() {
        let (mut ages, mut seen) = (Ages::default(), Delivered::new());
        seen.observe(65_530);
        let old = seen.line_of(65_530);
        ages.insert(old);
        seen.observe(10);
        assert_eq!(seen.line_of(10), old + 16);
        assert_eq!(seen.line_of(65_535), old + 5);
        assert!(ages.is_oldest(old));
        assert!(!ages.is_oldest(seen.line_of(3)));
        assert!(ages.is_oldest(seen.line_of(65_529)));
    }
}
