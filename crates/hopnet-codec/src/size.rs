//! Sizes in bits known at compile time, as `const fn`s that derived code combines.
//!
//! A size bound is a `u64` of bits for the minimum and an `Option<u64>` for the maximum, `None`
//! meaning unbounded. Arithmetic that would overflow counts as unbounded.

/// `a + b` for maxima: unbounded if either is, or if the sum overflows.
pub const fn add_max(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(a), Some(b)) => a.checked_add(b),
        _ => None,
    }
}

/// `a * n` for maxima.
pub const fn mul_max(a: Option<u64>, n: u64) -> Option<u64> {
    match a {
        Some(a) => a.checked_mul(n),
        None => None,
    }
}

/// The larger of two maxima (for the variants of an enum).
pub const fn max_of(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(if a > b { a } else { b }),
        _ => None,
    }
}

/// The smaller of two minima.
pub const fn min_of(a: u64, b: u64) -> u64 {
    if a < b { a } else { b }
}

/// Bits of an enum tag that holds indices `0..=max_index`: 0 for a single variant.
pub const fn tag_bits(max_index: u64) -> u32 {
    64 - max_index.leading_zeros()
}

/// Bits that hold every value of `0..=span`.
pub const fn span_bits(span: u128) -> u32 {
    128 - span.leading_zeros()
}

/// The most bits a list of at most `max_len` items of at most `item_max` bits takes: the `u32`
/// count, then the items.
pub const fn list_max(max_len: u64, item_max: Option<u64>) -> Option<u64> {
    add_max(
        Some(crate::varint::encoded_bits(max_len, 4)),
        mul_max(item_max, max_len),
    )
}

/// The fewest bits any list takes: an empty one, the 10-bit count of zero.
pub const LIST_MIN: u64 = crate::varint::min_bits(4);
