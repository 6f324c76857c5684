//! `Option`, `Vec`, arrays, tuples and `Box`: deltas of their parts.
//!
//! - `Option<T>`: against `None`, a change can only be `Some`, so the `T` follows whole; against
//!   `Some`, a `1` and the `T`'s changes, or a `0` for `None`.
//! - `Vec<T>`: the new length (a `u32`), the delta of each item at a position the baseline has,
//!   then the items past the baseline's end, whole. An item inserted at the front shifts every
//!   item after it, so lists of things with an identity want `#[rabbit(key = "...")]` instead
//!   (see [`keyed`](super::keyed)).
//! - arrays and tuples: each item's delta.
//! - `Box<T>`: the `T`'s.

use super::{DeltaDecode, DeltaEncode};
use crate::encode::Encode;
use crate::error::{Error, Result};
use crate::impls::collections::{prealloc, try_array};
use crate::limits::MAX_EMPTY_ITEMS;
use crate::read::BitReader;
use crate::write::BitWriter;

impl<T: DeltaEncode> DeltaEncode for Option<T> {
    #[inline]
    fn unchanged(&self, base: &Self) -> bool {
        match (self, base) {
            (Some(a), Some(b)) => a.unchanged(b),
            (None, None) => true,
            _ => false,
        }
    }

    #[inline]
    fn encode_changes(&self, base: &Self, w: &mut BitWriter<'_>) -> Result<()> {
        match (self, base) {
            (Some(a), Some(b)) => {
                w.write_bool(true);
                a.encode_changes(b, w)
            }
            (None, Some(_)) => {
                w.write_bool(false);
                Ok(())
            }
            (Some(a), None) => a.encode(w),
            (None, None) => Err(Error::custom(
                "Option::encode_changes: no change from None to None",
            )),
        }
    }
}

impl<T: DeltaDecode> DeltaDecode for Option<T> {
    #[inline]
    fn decode_changes(base: &Self, r: &mut BitReader<'_>) -> Result<Self> {
        match base {
            Some(b) if r.read_bool()? => Ok(Some(T::decode_changes(b, r)?)),
            Some(_) => Ok(None),
            None => Ok(Some(T::decode(r)?)),
        }
    }
}

impl<T: DeltaEncode> DeltaEncode for Vec<T> {
    #[inline]
    fn unchanged(&self, base: &Self) -> bool {
        self.len() == base.len() && self.iter().zip(base).all(|(a, b)| a.unchanged(b))
    }

    fn encode_changes(&self, base: &Self, w: &mut BitWriter<'_>) -> Result<()> {
        let fresh = self.len().saturating_sub(base.len()) as u64;
        let max = if T::MIN_BITS == 0 {
            MAX_EMPTY_ITEMS
        } else {
            u64::from(u32::MAX)
        };
        if self.len() as u64 > u64::from(u32::MAX) || fresh > max {
            return Err(Error::TooLong {
                len: self.len() as u64,
                max: max.min(u64::from(u32::MAX)),
            });
        }
        w.write_varint(self.len() as u64, 4);
        for (i, item) in self.iter().enumerate() {
            match base.get(i) {
                Some(b) => item.encode_delta(b, w)?,
                None => item.encode(w)?,
            }
        }
        Ok(())
    }
}

impl<T: DeltaDecode + Encode> DeltaDecode for Vec<T> {
    fn decode_changes(base: &Self, r: &mut BitReader<'_>) -> Result<Self> {
        let len = r.read_varint(4)?;
        // Items at the baseline's positions are bounded by the baseline; the others are whole
        // items, which the input must be able to hold.
        let fresh = len.saturating_sub(base.len() as u64);
        r.check_count(fresh, T::MIN_BITS)?;
        let len = len as usize;
        let mut items = Vec::with_capacity(len.min(base.len() + preallocated::<T>(fresh)));
        for i in 0..len {
            items.push(match base.get(i) {
                Some(b) => T::decode_delta(b, r)?,
                None => T::decode(r)?,
            });
        }
        Ok(items)
    }
}

/// How many of `count` new items a decoder reserves room for before reading them
/// ([`prealloc`]'s bound).
pub(super) fn preallocated<T>(count: u64) -> usize {
    prealloc::<T>(usize::try_from(count).unwrap_or(usize::MAX))
}

impl<T: DeltaEncode, const N: usize> DeltaEncode for [T; N] {
    #[inline]
    fn unchanged(&self, base: &Self) -> bool {
        self.iter().zip(base).all(|(a, b)| a.unchanged(b))
    }

    #[inline]
    fn encode_changes(&self, base: &Self, w: &mut BitWriter<'_>) -> Result<()> {
        for (a, b) in self.iter().zip(base) {
            a.encode_delta(b, w)?;
        }
        Ok(())
    }
}

impl<T: DeltaDecode, const N: usize> DeltaDecode for [T; N] {
    fn decode_changes(base: &Self, r: &mut BitReader<'_>) -> Result<Self> {
        try_array(|i| T::decode_delta(&base[i], r))
    }
}

macro_rules! tuple {
    ($($name:ident . $idx:tt),+) => {
        impl<$($name: DeltaEncode),+> DeltaEncode for ($($name,)+) {
            #[inline]
            fn unchanged(&self, base: &Self) -> bool {
                true $(&& self.$idx.unchanged(&base.$idx))+
            }
            #[inline]
            fn encode_changes(&self, base: &Self, w: &mut BitWriter<'_>) -> Result<()> {
                $(self.$idx.encode_delta(&base.$idx, w)?;)+
                Ok(())
            }
        }

        impl<$($name: DeltaDecode),+> DeltaDecode for ($($name,)+) {
            #[inline]
            fn decode_changes(base: &Self, r: &mut BitReader<'_>) -> Result<Self> {
                Ok(($($name::decode_delta(&base.$idx, r)?,)+))
            }
        }
    };
}

for_each_tuple!(tuple);

impl<T: DeltaEncode> DeltaEncode for Box<T> {
    const DELTA_BIT: bool = T::DELTA_BIT;

    #[inline(always)]
    fn unchanged(&self, base: &Self) -> bool {
        (**self).unchanged(base)
    }
    #[inline(always)]
    fn encode_delta(&self, base: &Self, w: &mut BitWriter<'_>) -> Result<()> {
        (**self).encode_delta(base, w)
    }
    #[inline(always)]
    fn encode_changes(&self, base: &Self, w: &mut BitWriter<'_>) -> Result<()> {
        (**self).encode_changes(base, w)
    }
}

impl<T: DeltaDecode> DeltaDecode for Box<T> {
    #[inline(always)]
    fn decode_delta(base: &Self, r: &mut BitReader<'_>) -> Result<Self> {
        T::decode_delta(base, r).map(Box::new)
    }
    #[inline(always)]
    fn decode_changes(base: &Self, r: &mut BitReader<'_>) -> Result<Self> {
        T::decode_changes(base, r).map(Box::new)
    }
}
