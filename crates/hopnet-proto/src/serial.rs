//! Serial-number arithmetic (RFC 1982) for any width a wire numbers its packets in: hopnet's
//! and WOKE's 16-bit sequences, Semi-ordered UDP's 24-bit package ids.
//!
//! The buffers that follow a sender's numbering (the receive half's `Orderer`) are generic over
//! [`SerialIndex`], so each width is compiled on its own: a 16-bit index costs what a `u16`
//! does.

use std::fmt::Debug;
use std::hash::Hash;

use crate::packet::seq_diff;

/// A wrapping packet number of a fixed width.
pub trait SerialIndex: Copy + Eq + Hash + Debug {
    /// The signed distance from `other` to `self`, in `-2^(w-1)..2^(w-1)`: positive when
    /// `self` is newer.
    fn diff(self, other: Self) -> i32;

    /// The number after this one (wrapping).
    fn next(self) -> Self;

    /// Where this number sits in a map of 65,536 slots. Numbers less than 65,536 apart have
    /// different slots, so a window narrower than that can keep one bit per number in 8 KiB
    /// whatever the width.
    fn slot(self) -> usize;
}

impl SerialIndex for u16 {
    #[inline(always)]
    fn diff(self, other: u16) -> i32 {
        i32::from(seq_diff(self, other))
    }

    #[inline(always)]
    fn next(self) -> u16 {
        self.wrapping_add(1)
    }

    #[inline(always)]
    fn slot(self) -> usize {
        usize::from(self)
    }
}

/// A 24-bit number (Semi-ordered UDP's package id), wrapping from 16,777,215 to 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct U24(u32);

impl U24 {
    /// The largest value.
    pub const MAX: U24 = U24((1 << 24) - 1);

    /// `value` modulo 2^24.
    pub const fn new(value: u32) -> U24 {
        U24(value & Self::MAX.0)
    }

    /// The number as a `u32` below 2^24.
    pub const fn get(self) -> u32 {
        self.0
    }

    /// `self + n`, wrapping.
    pub const fn wrapping_add(self, n: u32) -> U24 {
        U24::new(self.0.wrapping_add(n))
    }
}

impl SerialIndex for U24 {
    #[inline(always)]
    fn diff(self, other: U24) -> i32 {
        // The 24-bit difference moved to the top of an `i32` and back, sign-extended.
        ((self.0.wrapping_sub(other.0) << 8) as i32) >> 8
    }

    #[inline(always)]
    fn next(self) -> U24 {
        self.wrapping_add(1)
    }

    #[inline(always)]
    fn slot(self) -> usize {
        (self.0 & 0xffff) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn u24_distances_wrap() {
        assert_eq!(U24::new(0).diff(U24::MAX), 1);
        assert_eq!(U24::MAX.diff(U24::new(0)), -1);
        assert_eq!(U24::new(5).diff(U24::new(3)), 2);
        assert_eq!(U24::new(1 << 23).diff(U24::new(0)), -(1 << 23));
        assert_eq!(U24::MAX.next(), U24::new(0));
        assert_eq!(U24::new(1 << 24 | 7), U24::new(7));
        assert_eq!(0xffffu16.diff(1), -2);
        assert_eq!(U24::new(0x12_3456).slot(), 0x3456);
    }
}
