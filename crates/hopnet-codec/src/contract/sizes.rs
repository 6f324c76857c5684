//! `MIN_BITS` and `MAX_BITS` of derived types, folded from their fields' and variants' at
//! compile time. Overflow counts as unbounded (maxima) or saturates (minima).

use crate::size;

/// The sum of minima (a struct's, or a variant's with its tag).
pub const fn sum_min(parts: &[u64]) -> u64 {
    fold_min(parts, 0, true)
}

/// The smallest of the variants' minima.
pub const fn min_over(parts: &[u64]) -> u64 {
    fold_min(parts, u64::MAX, false)
}

/// The sum of maxima: unbounded if any part is, or if the sum overflows.
pub const fn sum_max(parts: &[Option<u64>]) -> Option<u64> {
    fold_max(parts, true)
}

/// The largest of the variants' maxima.
pub const fn max_over(parts: &[Option<u64>]) -> Option<u64> {
    fold_max(parts, false)
}

const fn fold_min(parts: &[u64], mut acc: u64, sum: bool) -> u64 {
    let mut i = 0;
    while i < parts.len() {
        acc = if sum {
            acc.saturating_add(parts[i])
        } else {
            size::min_of(acc, parts[i])
        };
        i += 1;
    }
    acc
}

const fn fold_max(parts: &[Option<u64>], sum: bool) -> Option<u64> {
    let mut acc = Some(0u64);
    let mut i = 0;
    while i < parts.len() {
        acc = if sum {
            size::add_max(acc, parts[i])
        } else {
            size::max_of(acc, parts[i])
        };
        i += 1;
    }
    acc
}
