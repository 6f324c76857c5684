//! The spec's integer encodings: the variable-length form and zig-zag.
//!
//! An `n`-byte integer is written as `m - 1` in `k = log2(n)` bits, where `m` is the fewest bytes
//! that hold the value (at least one), then the value's low `m` bytes. A `u8` therefore has
//! `k = 0` and is eight plain bits; a `u32` takes 10 bits for values below 256 and 34 at most.

/// Bits of the length prefix of an `bytes`-byte integer: `log2(bytes)`.
#[inline(always)]
pub const fn len_bits(bytes: u32) -> u32 {
    if bytes <= 1 {
        0
    } else {
        32 - (bytes - 1).leading_zeros()
    }
}

/// The fewest bytes that hold `value`; 1 for zero.
#[inline(always)]
pub const fn bytes_needed(value: u64) -> u32 {
    let significant = 64 - (value | 1).leading_zeros();
    significant.div_ceil(8)
}

/// The fewest bytes that hold a `u128`; 1 for zero.
#[inline]
pub const fn bytes_needed_u128(value: u128) -> u32 {
    let significant = 128 - (value | 1).leading_zeros();
    significant.div_ceil(8)
}

/// Bits the variable-length encoding of `value` as a `bytes`-byte integer takes.
#[inline(always)]
pub const fn encoded_bits(value: u64, bytes: u32) -> u64 {
    (len_bits(bytes) + 8 * bytes_needed(value)) as u64
}

/// Bits the variable-length encoding of a `u128` takes.
#[inline]
pub const fn encoded_bits_u128(value: u128) -> u64 {
    (4 + 8 * bytes_needed_u128(value)) as u64
}

/// The fewest bits any value of a `bytes`-byte integer takes.
pub const fn min_bits(bytes: u32) -> u64 {
    (len_bits(bytes) + 8) as u64
}

/// The most bits any value of a `bytes`-byte integer takes.
pub const fn max_bits(bytes: u32) -> u64 {
    (len_bits(bytes) + 8 * bytes) as u64
}

/// Zig-zag: interleaves signed values so that small magnitudes become small unsigned numbers
/// (0, -1, 1, -2, … become 0, 1, 2, 3, …). `bits` is the integer's width.
#[inline(always)]
pub const fn zigzag_encode(value: i64) -> u64 {
    ((value << 1) ^ (value >> 63)) as u64
}

/// Inverse of [`zigzag_encode`].
#[inline(always)]
pub const fn zigzag_decode(value: u64) -> i64 {
    ((value >> 1) as i64) ^ -((value & 1) as i64)
}

/// Zig-zag for `i128`.
#[inline]
pub const fn zigzag_encode_i128(value: i128) -> u128 {
    ((value << 1) ^ (value >> 127)) as u128
}

/// Inverse of [`zigzag_encode_i128`].
#[inline]
pub const fn zigzag_decode_i128(value: u128) -> i128 {
    ((value >> 1) as i128) ^ -((value & 1) as i128)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_widths_follow_the_spec() {
        assert_eq!(
            [
                len_bits(1),
                len_bits(2),
                len_bits(4),
                len_bits(8),
                len_bits(16)
            ],
            [0, 1, 2, 3, 4]
        );
    }

    #[test]
    fn zigzag_matches_the_spec_table() {
        let table: [(i64, u64); 6] = [(0, 0), (-1, 1), (1, 2), (-2, 3), (2, 4), (-3, 5)];
        for (signed, unsigned) in table {
            assert_eq!(zigzag_encode(signed), unsigned);
            assert_eq!(zigzag_decode(unsigned), signed);
        }
        assert_eq!(zigzag_encode(i32::MAX as i64), 4294967294);
        assert_eq!(zigzag_encode(i32::MIN as i64), 4294967295);
        assert_eq!(zigzag_decode(u64::MAX), i64::MIN);
    }
}
